//! The Box-Cox transformation to normality, y = (x^λ - 1)/λ (ln x at λ = 0):
//! the λ whose transformed sample has the highest normal PPCC (Dataplot's
//! Box-Cox normality plot; `scipy.stats.boxcox_normmax(method="pearsonr")`),
//! the λ of maximum likelihood (`method="mle"`), the PPCC curve over λ, and the
//! normal fit of the transformed sample (the seed's steps 3-5).

use serde::Serialize;

use super::dist::{boxcox, Dist};
use super::ppcc::{correlation, normal_ppcc, PlotData};
use super::solve::minimize;
use crate::summary::{mean, std_dev};

/// The Box-Cox analysis of a positive sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoxCox {
    /// The λ of the highest normal PPCC.
    pub lambda: f64,
    /// The normal PPCC of the sample transformed with `lambda`.
    pub ppcc: f64,
    /// The normal PPCC of the untransformed sample (λ = 1).
    pub ppcc_untransformed: f64,
    /// The λ of maximum likelihood.
    pub lambda_mle: f64,
    /// `(λ, PPCC)` for λ from -2 to 2 by 0.1.
    pub curve: Vec<(f64, f64)>,
    /// N(mean, sd) of the transformed sample, as a distribution of x.
    pub dist: Dist,
}

fn transformed(x: &[f64], lambda: f64) -> Vec<f64> {
    x.iter().map(|&v| boxcox(v, lambda)).collect()
}

/// The normal PPCC of the plot data transformed with λ.
pub fn ppcc_at(pd: &PlotData, zs: &[f64], lambda: f64) -> f64 {
    correlation(zs, &transformed(&pd.x, lambda))
}

/// The Box-Cox log-likelihood (λ - 1) Σ ln x - n/2 ln σ²(y), σ² with divisor n.
pub fn log_likelihood(x: &[f64], sum_ln: f64, lambda: f64) -> f64 {
    let y = transformed(x, lambda);
    let m = mean(&y);
    let var = y.iter().map(|v| (v - m).powi(2)).sum::<f64>() / y.len() as f64;
    (lambda - 1.0) * sum_ln - y.len() as f64 / 2.0 * var.ln()
}

/// Grid search on [-4, 4] by 0.1, then Brent's method between the best point's neighbours.
fn argmax(f: impl Fn(f64) -> f64) -> f64 {
    let grid: Vec<f64> = (-40..=40).map(|i| i as f64 / 10.0).collect();
    let vals: Vec<f64> = grid.iter().map(|&l| f(l)).collect();
    let b = (0..grid.len())
        .filter(|&i| vals[i].is_finite())
        .max_by(|&i, &j| vals[i].total_cmp(&vals[j]))
        .unwrap_or(50);
    let lo = grid[b.saturating_sub(1)];
    let hi = grid[(b + 1).min(grid.len() - 1)];
    minimize(|l| -f(l), lo, hi).map(|r| r.0).unwrap_or(grid[b])
}

/// Analyses a sorted, positive sample.
pub fn analyse(sorted: &[f64]) -> BoxCox {
    let pd = PlotData::new(sorted);
    let zs = pd.quantiles(super::dist::z);
    let lambda = argmax(|l| ppcc_at(&pd, &zs, l));
    let sum_ln: f64 = sorted.iter().map(|v| v.ln()).sum();
    let lambda_mle = argmax(|l| log_likelihood(sorted, sum_ln, l));
    let curve = (-20..=20)
        .map(|i| {
            let l = i as f64 / 10.0;
            (l, ppcc_at(&pd, &zs, l))
        })
        .collect();
    let y = transformed(sorted, lambda);
    BoxCox {
        lambda,
        ppcc: ppcc_at(&pd, &zs, lambda),
        ppcc_untransformed: normal_ppcc(&pd),
        lambda_mle,
        curve,
        dist: Dist::BoxcoxNormal {
            lambda,
            mean: mean(&y),
            sd: std_dev(&y).unwrap_or(f64::NAN),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::ppcc::filliben_medians;

    #[test]
    fn recovers_the_power_of_a_transformed_normal() {
        // x = (1 + 0.5 z)^(1/0.5) at normal order-statistic medians: λ = 0.5 exactly.
        let d = Dist::BoxcoxNormal {
            lambda: 0.5,
            mean: 10.0,
            sd: 1.0,
        };
        let x: Vec<f64> = filliben_medians(400)
            .iter()
            .map(|&p| d.quantile(p))
            .collect();
        let b = analyse(&x);
        assert!((b.lambda - 0.5).abs() < 1e-3, "{}", b.lambda);
        assert!(b.ppcc > 0.999999);
    }
}
