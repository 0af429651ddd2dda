//! Probability plot correlation coefficients (Filliben, 1975): the correlation
//! between the ordered sample and a distribution's quantiles at Filliben's
//! estimates of the uniform order-statistic medians. A PPCC sweep computes it
//! over a family's shape parameter, on a coarse grid and then a fine one
//! around the best coarse point, as Dataplot's PPCC plot does; the shape with
//! the highest PPCC is the family's best fit by this criterion (location and
//! scale are the probability plot's intercept and slope, so they do not
//! change the PPCC).

use serde::Serialize;

use super::dist::{gamma_quantile, z, Dist, Family};

/// Filliben's order-statistic medians of the uniform: `m_n = 0.5^(1/n)`,
/// `m_1 = 1 - m_n`, `m_i = (i - 0.3175)/(n + 0.365)` between.
pub fn filliben_medians(n: usize) -> Vec<f64> {
    filliben_at(n, &(1..=n).collect::<Vec<_>>())
}

/// Filliben's median of the `i`-th (1-based) of `n` uniform order statistics, for each `i` of `ranks`.
pub fn filliben_at(n: usize, ranks: &[usize]) -> Vec<f64> {
    let nf = n as f64;
    let last = 0.5f64.powf(1.0 / nf);
    ranks
        .iter()
        .map(|&i| {
            if i == n {
                last
            } else if i == 1 {
                1.0 - last
            } else {
                (i as f64 - 0.3175) / (nf + 0.365)
            }
        })
        .collect()
}

/// Up to this many values every theoretical quantile is computed; above it,
/// only at [`TAIL`] ranks at each end and every `n / INTERIOR`-th rank between,
/// and linearly interpolated (by rank) for the others. The correlation still
/// runs over every order statistic, so no single extreme value weighs more
/// than in the full plot.
pub const EXACT_UP_TO: usize = 2000;
/// Ranks computed exactly at each end beyond [`EXACT_UP_TO`].
pub const TAIL: usize = 100;
/// Interior ranks computed exactly beyond [`EXACT_UP_TO`].
pub const INTERIOR: usize = 1000;

/// The ordered sample and its plotting positions.
#[derive(Debug, Clone)]
pub struct PlotData {
    /// Order statistics.
    pub x: Vec<f64>,
    /// Filliben's medians of their ranks.
    pub m: Vec<f64>,
    /// Indices where quantiles are computed (None: everywhere).
    anchors: Option<Vec<usize>>,
}

impl PlotData {
    /// From a sorted sample.
    pub fn new(sorted: &[f64]) -> PlotData {
        let n = sorted.len();
        let anchors = (n > EXACT_UP_TO).then(|| {
            let step = (n - 2 * TAIL) as f64 / INTERIOR as f64;
            let mut a: Vec<usize> = (0..TAIL).collect();
            a.extend((0..INTERIOR).map(|j| TAIL + (j as f64 * step) as usize));
            a.extend(n - TAIL..n);
            a.dedup();
            a
        });
        PlotData {
            x: sorted.to_vec(),
            m: filliben_medians(n),
            anchors,
        }
    }

    /// The quantile function `q` at every plotting position.
    pub fn quantiles(&self, q: impl Fn(f64) -> f64) -> Vec<f64> {
        let Some(a) = &self.anchors else {
            return self.m.iter().map(|&p| q(p)).collect();
        };
        let mut out = vec![0.0; self.m.len()];
        let vals: Vec<f64> = a.iter().map(|&i| q(self.m[i])).collect();
        for w in 0..a.len() {
            out[a[w]] = vals[w];
            if w + 1 < a.len() {
                let (i, j) = (a[w], a[w + 1]);
                let (mi, mj) = (self.m[i], self.m[j]);
                for (o, &mk) in out[i + 1..j].iter_mut().zip(&self.m[i + 1..j]) {
                    let f = (mk - mi) / (mj - mi);
                    *o = vals[w] + f * (vals[w + 1] - vals[w]);
                }
            }
        }
        out
    }

    /// At most about 1200 indices to draw a probability plot with.
    pub fn plot_indices(&self) -> Vec<usize> {
        match &self.anchors {
            Some(a) => a.clone(),
            None => (0..self.x.len()).collect(),
        }
    }
}

/// Pearson's correlation of two equally long series.
pub fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (dx, dy) = (x - ma, y - mb);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    sab / (saa * sbb).sqrt()
}

/// The PPCC of the sample against a distribution, with the probability
/// plot's points `(theoretical quantile, ordered value)`.
pub fn ppcc(pd: &PlotData, dist: &Dist) -> f64 {
    let q = pd.quantiles(|p| dist.quantile(p));
    correlation(&q, &pd.x)
}

/// The normal PPCC of the sample (Filliben's test statistic).
pub fn normal_ppcc(pd: &PlotData) -> f64 {
    correlation(&pd.quantiles(z), &pd.x)
}

/// The points of a probability plot: `(theoretical quantile, ordered value)`
/// (about 1200 of them for a large sample).
pub fn plot_points(pd: &PlotData, dist: &Dist) -> Vec<(f64, f64)> {
    pd.plot_indices()
        .into_iter()
        .map(|i| (dist.quantile(pd.m[i]), pd.x[i]))
        .collect()
}

/// A PPCC sweep over one family's shape parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    pub family: Family,
    /// The shape parameter's name.
    pub parameter: &'static str,
    /// `(shape, PPCC)`, the coarse grid then the fine one, sorted by shape.
    pub points: Vec<(f64, f64)>,
    pub best_shape: f64,
    pub best_ppcc: f64,
}

/// The families with a shape parameter, the parameter's name and the coarse range.
pub fn shape_families() -> [(Family, &'static str, f64, f64); 3] {
    [
        (Family::Gamma, "shape", 0.1, 100.0),
        (Family::Weibull3, "shape", 0.2, 20.0),
        (Family::Lognormal, "sigma", 0.02, 5.0),
    ]
}

fn standard_quantile(family: Family, shape: f64, p: f64) -> f64 {
    match family {
        Family::Gamma => gamma_quantile(p, shape),
        Family::Lognormal => (shape * z(p)).exp(),
        _ => (-(-p).ln_1p()).powf(1.0 / shape),
    }
}

/// The PPCC sweep of `family` (gamma, Weibull or lognormal): 25 shapes spaced
/// evenly in log scale over the family's range, then 20 between the
/// neighbours of the best one.
pub fn sweep(pd: &PlotData, family: Family) -> Option<Sweep> {
    let (_, parameter, lo, hi) = shape_families().into_iter().find(|f| f.0 == family)?;
    let at = |k: f64| {
        let q = pd.quantiles(|p| standard_quantile(family, k, p));
        let r = correlation(&q, &pd.x);
        (k, if r.is_finite() { r } else { -1.0 })
    };
    let coarse = 25;
    let grid: Vec<f64> = (0..coarse)
        .map(|i| (lo.ln() + (hi / lo).ln() * i as f64 / (coarse - 1) as f64).exp())
        .collect();
    let mut points: Vec<(f64, f64)> = grid.iter().map(|&k| at(k)).collect();
    let b = (0..coarse)
        .max_by(|&i, &j| points[i].1.total_cmp(&points[j].1))
        .unwrap_or(0);
    let (a, c) = (grid[b.saturating_sub(1)], grid[(b + 1).min(coarse - 1)]);
    let fine = 20;
    for i in 1..fine {
        points.push(at(a + (c - a) * i as f64 / fine as f64));
    }
    points.sort_by(|p, q| p.0.total_cmp(&q.0));
    let best = points
        .iter()
        .copied()
        .max_by(|p, q| p.1.total_cmp(&q.1))
        .unwrap_or((f64::NAN, f64::NAN));
    Some(Sweep {
        family,
        parameter,
        points,
        best_shape: best.0,
        best_ppcc: best.1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filliben_positions() {
        let m = filliben_medians(10);
        assert!((m[9] - 0.5f64.powf(0.1)).abs() < 1e-15);
        assert!((m[0] - (1.0 - m[9])).abs() < 1e-15);
        assert!((m[4] - 4.6825 / 10.365).abs() < 1e-15);
    }

    #[test]
    fn sweep_finds_the_shape_of_exact_quantiles() {
        let d = Dist::Gamma {
            shape: 3.0,
            scale: 2.0,
        };
        let m = filliben_medians(500);
        let x: Vec<f64> = m.iter().map(|&p| 5.0 + d.quantile(p)).collect();
        let s = sweep(&PlotData::new(&x), Family::Gamma).unwrap();
        assert!((s.best_shape - 3.0).abs() < 0.15, "{}", s.best_shape);
        assert!(s.best_ppcc > 0.99999);
    }
}
