//! Which content a client asks for next: a catalogue made of one or more
//! groups of names (the names under each of several prefixes, or of each
//! traffic pattern), ranked group by group in the order given, drawn
//! uniformly or with Zipf(s) popularity over the ranks (rank 0 the most
//! popular). `perf client --zipf` and `traffic client --zipf` draw from it.

/// Largest catalogue a Zipf draw keeps a table for.
pub const MAX_RANKS: u64 = 1 << 24;

/// A catalogue of ranked names and how they are drawn.
#[derive(Debug, Clone)]
pub struct Popularity {
    /// Names in each group.
    sizes: Vec<u64>,
    total: u64,
    /// Cumulative probability of each rank (Zipf); empty: uniform.
    cdf: Vec<f64>,
}

impl Popularity {
    /// Groups of `sizes` names, drawn with exponent `s` (0: uniform).
    pub fn new(sizes: Vec<u64>, s: f64) -> Result<Popularity, String> {
        let total: u64 = sizes.iter().sum();
        if total == 0 {
            return Err("a popularity draw needs at least one name".into());
        }
        if !(s.is_finite() && s >= 0.0) {
            return Err(format!("--zipf expects an exponent >= 0, got {s}"));
        }
        let mut cdf = Vec::new();
        if s > 0.0 {
            if total > MAX_RANKS {
                return Err(format!("--zipf: at most {MAX_RANKS} names, got {total}"));
            }
            cdf.reserve(total as usize);
            let mut acc = 0.0;
            for k in 1..=total {
                acc += (k as f64).powf(-s);
                cdf.push(acc);
            }
            for c in &mut cdf {
                *c /= acc;
            }
        }
        Ok(Popularity { sizes, total, cdf })
    }

    /// Names in the whole catalogue.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The rank that `u` in [0, 1) stands for.
    pub fn rank(&self, u: f64) -> u64 {
        if self.cdf.is_empty() {
            return ((u * self.total as f64) as u64).min(self.total - 1);
        }
        (self.cdf.partition_point(|&c| c <= u) as u64).min(self.total - 1)
    }

    /// (group, index in the group) of `rank`.
    pub fn locate(&self, mut rank: u64) -> (usize, u64) {
        for (g, &n) in self.sizes.iter().enumerate() {
            if rank < n {
                return (g, rank);
            }
            rank -= n;
        }
        (
            self.sizes.len() - 1,
            rank % self.sizes[self.sizes.len() - 1].max(1),
        )
    }

    /// (group, index) drawn by `u` in [0, 1).
    pub fn draw(&self, u: f64) -> (usize, u64) {
        self.locate(self.rank(u))
    }
}

/// A number in [0, 1) from `key` (SplitMix64): the same key always draws the
/// same name, so a retransmission asks for what the first Interest did.
pub fn unit_of(key: u64) -> f64 {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_covers_every_group_evenly() {
        let p = Popularity::new(vec![3, 3], 0.0).unwrap();
        let mut seen = [0u32; 6];
        for k in 0..60_000 {
            let (g, i) = p.draw(unit_of(k));
            seen[g * 3 + i as usize] += 1;
        }
        for n in seen {
            assert!((9_000..11_000).contains(&n), "{seen:?}");
        }
    }

    #[test]
    fn zipf_ranks_follow_the_law_and_span_groups_in_order() {
        let p = Popularity::new(vec![2, 2], 1.0).unwrap();
        // P(rank k) = (1/k) / H_4, H_4 = 25/12
        let want = [12.0 / 25.0, 6.0 / 25.0, 4.0 / 25.0, 3.0 / 25.0];
        let mut seen = [0f64; 4];
        let n = 100_000;
        for k in 0..n {
            let (g, i) = p.draw(unit_of(k));
            seen[g * 2 + i as usize] += 1.0 / n as f64;
        }
        for (s, w) in seen.iter().zip(want) {
            assert!((s - w).abs() < 0.01, "{seen:?} vs {want:?}");
        }
        assert_eq!(p.locate(2), (1, 0));
        assert!(Popularity::new(vec![0], 1.0).is_err());
        assert!(Popularity::new(vec![5], -1.0).is_err());
    }
}
