//! Quantiles of the distributions the analyses need (Student t, F, standard normal).

use statrs::distribution::{ContinuousCDF, FisherSnedecor, Normal, StudentsT};

/// The `p` quantile of Student's t with `df` degrees of freedom (`df` may be fractional).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// The `p` quantile of the F distribution with `(d1, d2)` degrees of freedom.
pub fn f_quantile(p: f64, d1: f64, d2: f64) -> f64 {
    FisherSnedecor::new(d1, d2)
        .map(|f| f.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// P(F > x) for the F distribution with `(d1, d2)` degrees of freedom: 0 for
/// an infinite `x` (a term's variation over an error of zero), NaN for NaN.
pub fn f_upper_tail(x: f64, d1: f64, d2: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    FisherSnedecor::new(d1, d2)
        .map(|f| f.sf(x))
        .unwrap_or(f64::NAN)
}

/// The `p` quantile of the standard normal distribution.
pub fn z_quantile(p: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .map(|n| n.inverse_cdf(p))
        .unwrap_or(f64::NAN)
}

/// Normal scores of `n` ordered points: z((i - 0.5) / n), i = 1..n.
pub fn normal_scores(n: usize) -> Vec<f64> {
    (1..=n)
        .map(|i| z_quantile((i as f64 - 0.5) / n as f64))
        .collect()
}

/// Half-normal scores of `n` ordered absolute values: z(0.5 + 0.5 (i - 0.5) / n).
pub fn half_normal_scores(n: usize) -> Vec<f64> {
    (1..=n)
        .map(|i| z_quantile(0.5 + 0.5 * (i as f64 - 0.5) / n as f64))
        .collect()
}

/// Checks a significance level.
pub fn check_alpha(alpha: f64) -> crate::Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(crate::AnalysisError::BadParameter(format!(
            "alpha must lie strictly between 0 and 1, got {alpha}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_values() {
        // Values printed in the tables of Jain's appendix.
        assert!((t_quantile(0.95, 8.0) - 1.860).abs() < 5e-4);
        assert!((t_quantile(0.975, 8.0) - 2.306).abs() < 5e-4);
        assert!((f_quantile(0.90, 2.0, 12.0) - 2.81).abs() < 5e-3);
        assert!((z_quantile(0.975) - 1.960).abs() < 5e-4);
    }
}
