//! `--shard I/N`: the part of a campaign one machine runs, the jobs whose id
//! is I modulo N, for `ndnlab run` and `ndnlab model explore` alike.

/// Parses `I/N` with 0 <= I < N; the error names the option and what it expects.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard '{text}': expected I/N with 0 <= I < N");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Whether the job `id` belongs to `shard` (every job without one).
pub fn in_shard(id: usize, shard: Option<(usize, usize)>) -> bool {
    shard.map_or(true, |(i, n)| id % n == i)
}
