//! The Poisson arrival generator ([`Arrival::Poisson`], which `ndnlab traffic
//! client` and the laboratory's consumers both use) against the exponential
//! distribution, by the one-sample Kolmogorov-Smirnov test.
//!
//! The statistic is D = sup |F_n(x) - F(x)| over the sorted gaps, F(x) = 1 -
//! exp(-rate x). Its critical value at significance alpha for n samples is the
//! asymptotic c(alpha) / sqrt(n), c(alpha) = sqrt(-ln(alpha / 2) / 2) (1.6276 at
//! alpha = 0.01); n = 10^5 is far into the asymptotic range. Seeded: each run
//! draws the same gaps. The test also shows it has power: the same gaps are
//! rejected against an exponential of a rate 5% off, and constant gaps against
//! the exponential of their rate.

use ndnlab_app::tools::traffic::pattern::Arrival;
use rand::rngs::StdRng;
use rand::SeedableRng;

const N: usize = 100_000;
const ALPHA: f64 = 0.01;

/// The asymptotic critical value of D at `alpha` for `n` samples.
fn critical(alpha: f64, n: usize) -> f64 {
    (-(alpha / 2.0).ln() / 2.0).sqrt() / (n as f64).sqrt()
}

/// The one-sample KS statistic of `xs` against the exponential of `rate`.
fn ks_exponential(xs: &mut [f64], rate: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = 1.0 - (-rate * x).exp();
            // the empirical CDF jumps from i/n to (i+1)/n at x
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// `N` gaps of `arrival` in seconds, each batch of one Interest.
fn gaps(arrival: Arrival, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..N)
        .map(|_| {
            let (count, gap) = arrival.next(&mut rng);
            assert_eq!(count, 1);
            gap.as_secs_f64()
        })
        .collect()
}

#[test]
fn critical_values_are_the_kolmogorov_quantiles() {
    // c(alpha) of the Kolmogorov distribution's tables.
    let c = |a: f64| critical(a, 1);
    assert!((c(0.05) - 1.3581).abs() < 1e-4);
    assert!((c(0.01) - 1.6276).abs() < 1e-4);
    assert!((c(0.001) - 1.9495).abs() < 1e-4);
}

#[test]
fn poisson_gaps_pass_the_ks_test_against_the_exponential() {
    let d_crit = critical(ALPHA, N);
    for (k, rate) in [1.0, 200.0, 50_000.0].into_iter().enumerate() {
        let mut xs = gaps(Arrival::Poisson { rate }, 33 + k as u64);
        assert!(xs.iter().all(|&x| x >= 0.0 && x.is_finite()));
        let d = ks_exponential(&mut xs, rate);
        eprintln!("rate {rate}/s: D = {d:.5}, critical {d_crit:.5} (alpha {ALPHA}, n {N})");
        assert!(
            d < d_crit,
            "rate {rate}/s: D = {d:.5} >= {d_crit:.5} (alpha {ALPHA}, n {N})"
        );
        let mean = xs.iter().sum::<f64>() / N as f64;
        // The mean of N exponential gaps: standard error (1/rate)/sqrt(N); 99.9%: 3.29 se.
        let tol = 3.2905 / rate / (N as f64).sqrt();
        assert!(
            (mean - 1.0 / rate).abs() <= tol,
            "rate {rate}/s: mean gap {mean}"
        );
    }
}

#[test]
fn the_ks_test_rejects_the_wrong_rate_and_constant_gaps() {
    let d_crit = critical(ALPHA, N);
    let rate = 200.0;
    let mut xs = gaps(Arrival::Poisson { rate }, 7);
    // sup |exp(-x) - exp(-1.05 x)| = 0.0177, three times the critical value.
    let d = ks_exponential(&mut xs, rate * 1.05);
    assert!(d > d_crit, "a 5% wrong rate passed: D = {d:.5}");
    let mut xs = gaps(Arrival::Constant { rate }, 7);
    let d = ks_exponential(&mut xs, rate);
    assert!(d > d_crit, "constant gaps passed: D = {d:.5}");
}
