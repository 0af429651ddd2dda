//! `--shard I/N`: the part of a campaign one machine runs, the runs whose index
//! is I modulo N, for `ndnlab run` and `ndnlab model explore` alike.

/// Parses `I/N` with 0 <= I < N; the error names the option and what it expects.
pub fn parse(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard '{text}': expected I/N with 0 <= I < N");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_shard_is_an_index_below_a_count() {
        assert_eq!(super::parse("1/3"), Ok((1, 3)));
        assert_eq!(super::parse(" 0 / 2"), Ok((0, 2)));
        for bad in ["2/2", "1", "0/0", "a/2", "-1/2"] {
            let e = super::parse(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
    }
}
