//! The visual checks of a model (Jain, section 18.6): residuals against
//! predicted responses, and a normal quantile-quantile plot of the residuals.

use serde::Serialize;

use crate::dist::normal_scores;

/// One observation's residual.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Residual {
    /// The file line of the observation.
    pub line: usize,
    pub predicted: f64,
    pub residual: f64,
}

/// A point of a normal quantile-quantile plot: the ordered residual against
/// its normal score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QqPoint {
    pub z: f64,
    pub residual: f64,
}

/// Normal quantile-quantile data of residuals, ordered.
pub fn qq_points(residuals: &[Residual]) -> Vec<QqPoint> {
    let mut r: Vec<f64> = residuals.iter().map(|r| r.residual).collect();
    r.sort_by(f64::total_cmp);
    normal_scores(r.len())
        .into_iter()
        .zip(r)
        .map(|(z, residual)| QqPoint { z, residual })
        .collect()
}
