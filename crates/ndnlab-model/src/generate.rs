//! The generator: draws from a model entry with a seeded RNG (the seed's
//! steps 6-8 for a Box-Cox normal entry), and the comparison of generated
//! against measured samples (the seed's last step): QQ points, the two
//! histograms of a bihistogram and the two-sample Kolmogorov-Smirnov D.

use ndnlab_analysis::fit::gof::ks_two_sample;
use ndnlab_analysis::fit::Dist;
use ndnlab_analysis::summary::percentile;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::Serialize;

/// `n` draws from `dist`; the same seed gives the same values.
pub fn generate(dist: &Dist, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    dist.sample_n(&mut rng, n)
}

/// Generated against measured values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub n_measured: usize,
    pub n_generated: usize,
    /// `(measured quantile, generated quantile)` at 200 probabilities.
    pub qq: Vec<(f64, f64)>,
    /// Two-sample Kolmogorov-Smirnov D.
    pub ks: f64,
    /// Quantiles (p50, p90, p99) of both: (p, measured, generated).
    pub quantiles: Vec<(f64, f64, f64)>,
}

/// Compares two samples.
pub fn compare(measured: &[f64], generated: &[f64]) -> Comparison {
    let mut a = measured.to_vec();
    let mut b = generated.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let qq = (0..200)
        .map(|i| {
            let p = 100.0 * (i as f64 + 0.5) / 200.0;
            (percentile(&a, p), percentile(&b, p))
        })
        .collect();
    Comparison {
        n_measured: a.len(),
        n_generated: b.len(),
        qq,
        ks: ks_two_sample(&a, &b),
        quantiles: [50.0, 90.0, 99.0]
            .iter()
            .map(|&p| (p, percentile(&a, p), percentile(&b, p)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_close_to_the_model() {
        let d = Dist::Gamma {
            shape: 3.2,
            scale: 41.0,
        };
        let a = generate(&d, 5000, 1);
        assert_eq!(a, generate(&d, 5000, 1));
        let b = generate(&d, 5000, 2);
        let c = compare(&a, &b);
        assert!(c.ks < 0.04, "{}", c.ks);
        assert!((c.quantiles[0].1 - d.quantile(0.5)).abs() < 0.05 * d.quantile(0.5));
    }
}
