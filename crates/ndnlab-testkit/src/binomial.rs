//! The central interval of a binomial count, for tests that check a seeded random
//! process (a lossy link, a coin per packet) against the rate it was given.

/// `(lo, hi)` such that a Binomial(`n`, `p`) count falls below `lo` with
/// probability at most (1 - `confidence`) / 2, and above `hi` with at most as much:
/// `lo..=hi` holds it with probability at least `confidence`. Exact (the
/// distribution summed term by term in log space), for any `n` a test runs.
///
/// # Panics
/// If `p` is not in [0, 1] or `confidence` not in (0, 1).
pub fn binomial_interval(n: u64, p: f64, confidence: f64) -> (u64, u64) {
    assert!((0.0..=1.0).contains(&p), "p = {p} is not a probability");
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is not in (0, 1)"
    );
    if p == 0.0 {
        return (0, 0);
    }
    if p == 1.0 {
        return (n, n);
    }
    // log P(X = k) by the ratio P(k + 1) / P(k) = (n - k) / (k + 1) * p / (1 - p).
    let step = (p / (1.0 - p)).ln();
    let mut log_pmf = Vec::with_capacity(n as usize + 1);
    let mut l = n as f64 * (1.0 - p).ln();
    for k in 0..=n {
        log_pmf.push(l);
        l += ((n - k) as f64 / (k + 1) as f64).ln() + step;
    }
    let top = log_pmf.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pmf: Vec<f64> = log_pmf.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = pmf.iter().sum();
    let tail = (1.0 - confidence) / 2.0 * total;
    // lo: the first k whose lower tail P(X < k) would exceed the budget
    let (mut lo, mut below) = (0, 0.0);
    while lo < n && below + pmf[lo as usize] <= tail {
        below += pmf[lo as usize];
        lo += 1;
    }
    let (mut hi, mut above) = (n, 0.0);
    while hi > lo && above + pmf[hi as usize] <= tail {
        above += pmf[hi as usize];
        hi -= 1;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::binomial_interval;

    #[test]
    fn a_fair_coin_over_10_flips() {
        // P(X <= 1) = 11/1024 = 0.0107 and P(X <= 0) = 1/1024: at 95% (2.5% a
        // side) the interval is 2..=8, at 99.9% (0.05% a side) 0..=10.
        assert_eq!(binomial_interval(10, 0.5, 0.95), (2, 8));
        assert_eq!(binomial_interval(10, 0.5, 0.999), (0, 10));
        // at 99%: P(X <= 0) = 0.00098 <= 0.005 < P(X <= 1)
        assert_eq!(binomial_interval(10, 0.5, 0.99), (1, 9));
    }

    #[test]
    fn large_counts_match_the_normal_approximation() {
        // n = 100,000, p = 0.05: mean 5000, sd 68.9; 99.9% is +-3.29 sd = +-227.
        let (lo, hi) = binomial_interval(100_000, 0.05, 0.999);
        assert!((4770..=4776).contains(&lo), "{lo}");
        assert!((5224..=5230).contains(&hi), "{hi}");
    }

    #[test]
    fn certain_outcomes() {
        assert_eq!(binomial_interval(7, 0.0, 0.999), (0, 0));
        assert_eq!(binomial_interval(7, 1.0, 0.999), (7, 7));
    }
}
