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

/// `(lo, hi)` such that a NegativeBinomial(`n`, `q`) count, the failures
/// before the `n`th success of independent trials that each succeed with
/// probability `q`, falls below `lo` with probability at most
/// (1 - `confidence`) / 2, and above `hi` with at most as much. Exact (the
/// distribution summed term by term in log space, out to 30 standard
/// deviations past its mean, where the tail left out is below 10^-12 of
/// either side's budget for the confidences tests use).
///
/// # Panics
/// If `q` is not in (0, 1] or `confidence` not in (0, 1).
pub fn negative_binomial_interval(n: u64, q: f64, confidence: f64) -> (u64, u64) {
    assert!(
        q > 0.0 && q <= 1.0,
        "q = {q} is not a probability of success"
    );
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is not in (0, 1)"
    );
    if q == 1.0 || n == 0 {
        return (0, 0);
    }
    let (nf, fail) = (n as f64, 1.0 - q);
    let mean = nf * fail / q;
    let sd = (nf * fail).sqrt() / q;
    let last = (mean + 30.0 * sd + 50.0).ceil() as u64;
    // log P(K = k) by the ratio P(k + 1) / P(k) = (k + n) / (k + 1) * (1 - q).
    let step = fail.ln();
    let mut log_pmf = Vec::with_capacity(last as usize + 1);
    let mut l = nf * q.ln();
    for k in 0..=last {
        log_pmf.push(l);
        l += ((k + n) as f64 / (k + 1) as f64).ln() + step;
    }
    let top = log_pmf.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pmf: Vec<f64> = log_pmf.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = pmf.iter().sum();
    let tail = (1.0 - confidence) / 2.0 * total;
    let (mut lo, mut below) = (0, 0.0);
    while lo < last && below + pmf[lo as usize] <= tail {
        below += pmf[lo as usize];
        lo += 1;
    }
    let (mut hi, mut above) = (last, 0.0);
    while hi > lo && above + pmf[hi as usize] <= tail {
        above += pmf[hi as usize];
        hi -= 1;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::{binomial_interval, negative_binomial_interval};

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
    #[test]
    fn one_success_is_geometric() {
        // N = 1, q = 1/2: P(K > h) = 2^-(h + 1). At 99.9% (0.0005 a side):
        // 2^-11 = 0.000488 <= 0.0005 < 2^-10, so hi = 10; P(K = 0) = 1/2, lo = 0.
        assert_eq!(negative_binomial_interval(1, 0.5, 0.999), (0, 10));
        // at 95% (0.025 a side): 2^-6 = 0.0156 <= 0.025 < 2^-5
        assert_eq!(negative_binomial_interval(1, 0.5, 0.95), (0, 5));
    }

    #[test]
    fn ten_successes_of_a_fair_coin() {
        // P(K = k) = C(k + 9, k) / 2^(k + 10); in 8192ths P(K <= 3) = 8 + 40 +
        // 110 + 220 = 378 (0.0461) <= 0.05 < P(K <= 4) = 0.0461 + 715 / 16384
        // = 0.0898: at 90% (0.05 a side), lo = 4.
        let (lo, hi) = negative_binomial_interval(10, 0.5, 0.9);
        assert_eq!(lo, 4);
        // P(K >= 18) = P(Binomial(27, 1/2) <= 9) = 0.0611 > 0.05 >=
        // P(K >= 19) = P(Binomial(28, 1/2) <= 9) = 0.0436: hi = 18
        assert_eq!(hi, 18);
    }

    #[test]
    fn certain_success() {
        assert_eq!(negative_binomial_interval(7, 1.0, 0.999), (0, 0));
    }
}
