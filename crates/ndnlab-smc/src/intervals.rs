//! Interval formulas: Hoeffding, exact Clopper-Pearson, Wilson score, the
//! Beta posterior's equal-tailed credible interval, and normal / Student-t
//! quantiles. Pure functions of counts; the methods in `probability` and
//! `expectation` decide when to stop.

use serde::Serialize;
use statrs::distribution::{Beta, ContinuousCDF, Normal, StudentsT};

/// A two-sided interval and the confidence (or credibility) it holds at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Nominal confidence level, 1 - alpha.
    pub confidence: f64,
}

impl Interval {
    /// Half of the interval's width.
    pub fn half_width(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }

    /// Whether `x` lies in the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The standard normal quantile z_p.
pub fn normal_quantile(p: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(p)
}

/// Student's t quantile with `freedom` degrees of freedom.
pub fn student_quantile(p: f64, freedom: f64) -> f64 {
    StudentsT::new(0.0, 1.0, freedom)
        .expect("freedom is positive")
        .inverse_cdf(p)
}

/// The `p` quantile of Beta(a, b).
pub fn beta_quantile(a: f64, b: f64, p: f64) -> f64 {
    Beta::new(a, b)
        .expect("Beta shapes are positive")
        .inverse_cdf(p)
}

/// Hoeffding's half-width after `n` runs at confidence 1 - alpha:
/// sqrt(ln(2/alpha) / (2n)).
pub fn hoeffding_half_width(n: u64, alpha: f64) -> f64 {
    ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
}

/// The exact Clopper-Pearson interval for `k` successes in `n` runs:
/// [B(alpha/2; k, n-k+1), B(1-alpha/2; k+1, n-k)], with 0 and 1 at the edges.
pub fn clopper_pearson(k: u64, n: u64, alpha: f64) -> Interval {
    let (kf, nf) = (k as f64, n as f64);
    let lo = if k == 0 {
        0.0
    } else {
        beta_quantile(kf, nf - kf + 1.0, alpha / 2.0)
    };
    let hi = if k == n {
        1.0
    } else {
        beta_quantile(kf + 1.0, nf - kf, 1.0 - alpha / 2.0)
    };
    Interval {
        lo,
        hi,
        confidence: 1.0 - alpha,
    }
}

/// The Wilson score interval for `k` successes in `n` runs:
/// (k + z²/2)/(n + z²) ± z/(n + z²) · sqrt(k(n-k)/n + z²/4), z = z_{1-alpha/2}.
pub fn wilson(k: u64, n: u64, alpha: f64) -> Interval {
    let z = normal_quantile(1.0 - alpha / 2.0);
    let (kf, nf, z2) = (k as f64, n as f64, z * z);
    let centre = (kf + z2 / 2.0) / (nf + z2);
    let half = z / (nf + z2) * (kf * (nf - kf) / nf + z2 / 4.0).sqrt();
    Interval {
        lo: (centre - half).max(0.0),
        hi: (centre + half).min(1.0),
        confidence: 1.0 - alpha,
    }
}

/// The equal-tailed 1 - alpha credible interval of Beta(a, b).
pub fn beta_credible(a: f64, b: f64, alpha: f64) -> Interval {
    Interval {
        lo: beta_quantile(a, b, alpha / 2.0),
        hi: beta_quantile(a, b, 1.0 - alpha / 2.0),
        confidence: 1.0 - alpha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clopper_pearson_matches_closed_forms_at_the_edges() {
        // k = 0: hi = 1 - (alpha/2)^(1/n); k = n: lo = (alpha/2)^(1/n).
        let i = clopper_pearson(0, 20, 0.05);
        assert_eq!(i.lo, 0.0);
        assert!((i.hi - (1.0 - 0.025f64.powf(1.0 / 20.0))).abs() < 1e-9);
        let i = clopper_pearson(20, 20, 0.05);
        assert!((i.lo - 0.025f64.powf(1.0 / 20.0)).abs() < 1e-9);
        assert_eq!(i.hi, 1.0);
    }

    #[test]
    fn clopper_pearson_reference_value() {
        // R: binom.test(7, 20)$conf.int = 0.1539092 0.5921885
        let i = clopper_pearson(7, 20, 0.05);
        assert!((i.lo - 0.1539092).abs() < 1e-6, "{i:?}");
        assert!((i.hi - 0.5921885).abs() < 1e-6, "{i:?}");
    }

    #[test]
    fn wilson_reference_value() {
        // R: prop.test(7, 20, correct = FALSE)$conf.int = 0.1811918 0.5671457
        let i = wilson(7, 20, 0.05);
        assert!((i.lo - 0.1811918).abs() < 1e-6, "{i:?}");
        assert!((i.hi - 0.5671457).abs() < 1e-6, "{i:?}");
    }

    #[test]
    fn quantiles() {
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
        // R: qt(0.975, 9) = 2.262157
        assert!((student_quantile(0.975, 9.0) - 2.262157).abs() < 1e-5);
        assert!((hoeffding_half_width(150, 0.1) - 0.0999).abs() < 1e-3);
    }
}
