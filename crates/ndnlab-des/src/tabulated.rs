//! A service time ready to draw fast: the resolved [`ServiceDist`] with its
//! sampling prepared once per model, not once per packet. This is the
//! data-plane model's specialised copy of [`ServiceDist::sample`].
//!
//! A distribution is drawn by inverting its quantile function at a uniform
//! `u`. The body, `1/K <= u < 1 - 1/K` with `K` = [`TABLE`], reads a table of
//! the quantiles at `i/K` and interpolates linearly between the two around
//! `u`; the two tails (`2/K` of the draws) call the exact quantile function,
//! so extreme values keep their true law.
//!
//! Why it exists: the model's run time is mostly drawing, and a table draw
//! is several times faster than the distributions' own samplers (a gamma
//! draw is a normal, a uniform and logarithms; `cargo bench -p ndnlab-des
//! --bench hot_paths -- sampler`, figures in docs/BENCHMARKS.md). The exact
//! sampler stays the simulator's. `tests` holds the two to the same law: the
//! mean and quantiles of table draws against the exact ones, and a
//! two-sample Kolmogorov-Smirnov test of table draws against
//! [`ServiceDist::sample`]'s.

use ndnlab_analysis::fit::Dist;
use rand::Rng;

use crate::service::ServiceDist;

/// Quantiles tabulated per distribution.
pub const TABLE: usize = 1024;

/// One service time law, prepared.
#[derive(Debug, Clone)]
pub struct Tabulated {
    pub dist: ServiceDist,
    /// `TABLE + 1` quantiles at `i / TABLE` (the ends unused) for a `Dist`;
    /// empty otherwise.
    table: Box<[f64]>,
}

impl PartialEq for Tabulated {
    fn eq(&self, other: &Self) -> bool {
        self.dist == other.dist
    }
}

impl From<ServiceDist> for Tabulated {
    fn from(dist: ServiceDist) -> Tabulated {
        let table = match &dist {
            ServiceDist::Dist(d) => (0..=TABLE)
                .map(|i| d.quantile(i as f64 / TABLE as f64))
                .collect(),
            _ => Box::default(),
        };
        Tabulated { dist, table }
    }
}

/// `x` ns as a service time: negative or non-finite values count as 0.
/// `x + 0.5` truncated rather than [`f64::round`] (a library call on the
/// baseline x86-64 target): the two differ only within an ulp of a half.
#[inline]
fn ns(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        (x + 0.5) as u64
    } else {
        0
    }
}

impl Tabulated {
    /// One service time, ns, rounded (negative or non-finite draws count as 0).
    #[inline(always)]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match &self.dist {
            ServiceDist::Zero => 0,
            ServiceDist::Constant(ns) => *ns,
            ServiceDist::Dist(d) => {
                let q = &self.table;
                let u: f64 = rng.gen();
                let x = u * TABLE as f64;
                let i = x as usize;
                if i == 0 || i >= TABLE - 1 {
                    return ns(tail(d, u));
                }
                let f = x - i as f64;
                ns(q[i] + f * (q[i + 1] - q[i]))
            }
        }
    }

    /// The mean, ns.
    pub fn mean_ns(&self) -> f64 {
        self.dist.mean_ns()
    }

    /// Whether every draw is 0.
    #[inline]
    pub fn is_zero(&self) -> bool {
        self.dist == ServiceDist::Zero
    }
}

/// The exact quantile, for the tails.
#[cold]
fn tail(d: &Dist, u: f64) -> f64 {
    d.quantile(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{fast_rng, rng};
    use ndnlab_analysis::fit::gof::ks_two_sample;

    /// The families the models use.
    fn dists() -> [Dist; 4] {
        [
            Dist::Gamma {
                shape: 6.0,
                scale: 35.0,
            },
            Dist::Lognormal {
                mu: 2000f64.ln(),
                sigma: 0.25,
            },
            Dist::Exponential {
                scale: 1000.0,
                location: 0.0,
            },
            Dist::Weibull {
                shape: 1.5,
                scale: 800.0,
                location: 100.0,
            },
        ]
    }

    /// Table draws and the exact sampler's ([`ServiceDist::sample`]) are two
    /// samples of one law: their two-sample Kolmogorov-Smirnov distance over
    /// 200,000 draws each stays under 0.006 (the 1% critical value is 0.0052
    /// for two samples of one continuous law; the rounding to whole ns and
    /// the table's interpolation add a little).
    #[test]
    fn table_draws_and_exact_draws_are_one_law() {
        for d in dists() {
            let exact = ServiceDist::Dist(d.clone());
            let table = Tabulated::from(exact.clone());
            let n = 200_000;
            let mut r1 = fast_rng(11);
            let mut a: Vec<f64> = (0..n).map(|_| table.sample(&mut r1) as f64).collect();
            let mut r2 = rng(12);
            let mut b: Vec<f64> = (0..n).map(|_| exact.sample(&mut r2) as f64).collect();
            a.sort_by(f64::total_cmp);
            b.sort_by(f64::total_cmp);
            let ks = ks_two_sample(&a, &b);
            assert!(ks < 0.006, "{d:?}: KS distance {ks}");
        }
    }

    /// The tabulated draws follow the law: mean within 1%, and quantiles
    /// (body and tails) within 2% of the exact ones, for the families the
    /// models use.
    #[test]
    fn tabulated_draws_follow_the_distribution() {
        for d in dists() {
            let draw = Tabulated::from(ServiceDist::Dist(d.clone()));
            let mut rng = fast_rng(7);
            let mut xs: Vec<f64> = (0..400_000).map(|_| draw.sample(&mut rng) as f64).collect();
            xs.sort_by(f64::total_cmp);
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            assert!(
                (mean - d.mean()).abs() < 0.01 * d.mean(),
                "{d:?}: mean {mean}"
            );
            for p in [0.01, 0.1, 0.5, 0.9, 0.99, 0.999] {
                let got = xs[(p * xs.len() as f64) as usize];
                let want = d.quantile(p);
                assert!(
                    (got - want).abs() <= 0.02 * want + 1.0,
                    "{d:?}: q{p} {got} against {want}"
                );
            }
        }
    }
}
