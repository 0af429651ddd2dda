//! The distributions a sample can be fitted to: density, CDF, quantile and
//! sampling of each, with the parameters a model file stores.

use rand::Rng;
use rand_distr::Distribution;
use serde::{Deserialize, Serialize};
use statrs::distribution::{Continuous, ContinuousCDF, Normal};
use statrs::function::gamma::{gamma_lr, ln_gamma};

/// The candidate families, in the order a verdict lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    Normal,
    Lognormal,
    Gamma,
    /// Two-parameter Weibull (location 0).
    Weibull,
    /// Three-parameter Weibull (with a location).
    Weibull3,
    Exponential,
    /// Exponential with a location (minimum).
    ShiftedExponential,
    /// A normal distribution of the Box-Cox transformed sample.
    BoxcoxNormal,
    /// The sample's own quantiles.
    Empirical,
}

impl Family {
    /// Every family, in verdict order.
    pub const ALL: [Family; 9] = [
        Family::Normal,
        Family::Lognormal,
        Family::Gamma,
        Family::Weibull,
        Family::Weibull3,
        Family::Exponential,
        Family::ShiftedExponential,
        Family::BoxcoxNormal,
        Family::Empirical,
    ];

    /// The name used in model files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Family::Normal => "normal",
            Family::Lognormal => "lognormal",
            Family::Gamma => "gamma",
            Family::Weibull => "weibull",
            Family::Weibull3 => "weibull3",
            Family::Exponential => "exponential",
            Family::ShiftedExponential => "shifted-exponential",
            Family::BoxcoxNormal => "boxcox-normal",
            Family::Empirical => "empirical",
        }
    }

    /// Parses [`Family::name`].
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// How many parameters a fit estimates (the empirical family counts none).
    pub fn n_params(self) -> usize {
        match self {
            Family::Empirical => 0,
            Family::Exponential => 1,
            Family::Normal
            | Family::Lognormal
            | Family::Gamma
            | Family::Weibull
            | Family::ShiftedExponential => 2,
            Family::Weibull3 | Family::BoxcoxNormal => 3,
        }
    }
}

/// A fitted distribution. Scale and location parameters are in the unit of
/// the sample (nanoseconds for latencies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Dist {
    /// N(mean, sd²).
    Normal { mean: f64, sd: f64 },
    /// ln x ~ N(mu, sigma²): median `exp(mu)`, shape `sigma`.
    Lognormal { mu: f64, sigma: f64 },
    /// Density x^(shape-1) e^(-x/scale) / (Γ(shape) scale^shape).
    Gamma { shape: f64, scale: f64 },
    /// CDF 1 - exp(-((x - location)/scale)^shape) for x > location.
    Weibull {
        shape: f64,
        scale: f64,
        #[serde(default)]
        location: f64,
    },
    /// CDF 1 - exp(-(x - location)/scale) for x > location; mean location + scale.
    Exponential {
        scale: f64,
        #[serde(default)]
        location: f64,
    },
    /// y = (x^λ - 1)/λ (ln x for λ = 0) is N(mean, sd²).
    BoxcoxNormal { lambda: f64, mean: f64, sd: f64 },
    /// Quantiles at probabilities 0, 1/k, ..., 1 (k + 1 values, non-decreasing),
    /// interpolated linearly.
    Empirical { quantiles: Vec<f64> },
}

fn std_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("standard normal")
}

/// The `p` quantile of the standard normal.
pub fn z(p: f64) -> f64 {
    std_normal().inverse_cdf(p)
}

/// Φ(x).
pub fn phi(x: f64) -> f64 {
    std_normal().cdf(x)
}

/// The `p` quantile of Gamma(shape, 1): Wilson-Hilferty start, Newton steps on ln x.
pub fn gamma_quantile(p: f64, shape: f64) -> f64 {
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let zp = z(p);
    let wh = shape * (1.0 - 1.0 / (9.0 * shape) + zp / (3.0 * shape.sqrt())).powi(3);
    // Small-x approximation F(x) ≈ x^k / Γ(k + 1) where Wilson-Hilferty fails.
    let small = ((p.ln() + ln_gamma(shape + 1.0)) / shape).exp();
    let mut t = if wh > 0.0 && (shape >= 1.0 || wh > small) {
        wh.ln()
    } else {
        small.ln()
    };
    let lg = ln_gamma(shape);
    for _ in 0..60 {
        let x = t.exp();
        let f = gamma_lr(shape, x) - p;
        // dF/dt = pdf(x) x = exp(k ln x - x - lnΓ(k))
        let d = (shape * t - x - lg).exp();
        if d <= 0.0 || !d.is_finite() {
            break;
        }
        let step = (f / d).clamp(-2.0, 2.0);
        t -= step;
        if step.abs() < 1e-12 {
            break;
        }
    }
    t.exp()
}

/// Box-Cox transform of a positive x.
pub fn boxcox(x: f64, lambda: f64) -> f64 {
    if lambda.abs() < 1e-12 {
        x.ln()
    } else {
        (x.powf(lambda) - 1.0) / lambda
    }
}

/// Inverse of [`boxcox`]; values below the transform's range map to 0.
pub fn boxcox_inv(y: f64, lambda: f64) -> f64 {
    if lambda.abs() < 1e-12 {
        y.exp()
    } else {
        let b = lambda * y + 1.0;
        if b <= 0.0 {
            if lambda > 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            b.powf(1.0 / lambda)
        }
    }
}

impl Dist {
    /// The family (a Weibull or exponential with a non-zero location counts as
    /// the three-parameter or shifted one).
    pub fn family(&self) -> Family {
        match self {
            Dist::Normal { .. } => Family::Normal,
            Dist::Lognormal { .. } => Family::Lognormal,
            Dist::Gamma { .. } => Family::Gamma,
            Dist::Weibull { location, .. } if *location != 0.0 => Family::Weibull3,
            Dist::Weibull { .. } => Family::Weibull,
            Dist::Exponential { location, .. } if *location != 0.0 => Family::ShiftedExponential,
            Dist::Exponential { .. } => Family::Exponential,
            Dist::BoxcoxNormal { .. } => Family::BoxcoxNormal,
            Dist::Empirical { .. } => Family::Empirical,
        }
    }

    /// The named parameters, in the order a verdict prints them.
    pub fn params(&self) -> Vec<(&'static str, f64)> {
        match self {
            Dist::Normal { mean, sd } => vec![("mean", *mean), ("sd", *sd)],
            Dist::Lognormal { mu, sigma } => vec![("mu", *mu), ("sigma", *sigma)],
            Dist::Gamma { shape, scale } => vec![("shape", *shape), ("scale", *scale)],
            Dist::Weibull {
                shape,
                scale,
                location,
            } => {
                let mut v = vec![("shape", *shape), ("scale", *scale)];
                if *location != 0.0 {
                    v.push(("location", *location));
                }
                v
            }
            Dist::Exponential { scale, location } => {
                let mut v = vec![("scale", *scale)];
                if *location != 0.0 {
                    v.push(("location", *location));
                }
                v
            }
            Dist::BoxcoxNormal { lambda, mean, sd } => {
                vec![("lambda", *lambda), ("mean", *mean), ("sd", *sd)]
            }
            Dist::Empirical { quantiles } => vec![
                ("min", quantiles.first().copied().unwrap_or(f64::NAN)),
                ("max", quantiles.last().copied().unwrap_or(f64::NAN)),
            ],
        }
    }

    /// Checks the parameters: a message naming the bad one.
    pub fn validate(&self) -> Result<(), String> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "{} {name} must be a positive number, got {v}",
                    self.family().name()
                ))
            }
        };
        let fin = |name: &str, v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(format!(
                    "{} {name} must be finite, got {v}",
                    self.family().name()
                ))
            }
        };
        match self {
            Dist::Normal { mean, sd } => fin("mean", *mean).and(pos("sd", *sd)),
            Dist::Lognormal { mu, sigma } => fin("mu", *mu).and(pos("sigma", *sigma)),
            Dist::Gamma { shape, scale } => pos("shape", *shape).and(pos("scale", *scale)),
            Dist::Weibull {
                shape,
                scale,
                location,
            } => pos("shape", *shape)
                .and(pos("scale", *scale))
                .and(fin("location", *location)),
            Dist::Exponential { scale, location } => {
                pos("scale", *scale).and(fin("location", *location))
            }
            Dist::BoxcoxNormal { lambda, mean, sd } => fin("lambda", *lambda)
                .and(fin("mean", *mean))
                .and(pos("sd", *sd)),
            Dist::Empirical { quantiles } => {
                if quantiles.len() < 2 {
                    return Err("empirical quantiles need at least 2 values".into());
                }
                if let Some(i) = quantiles.iter().position(|q| !q.is_finite()) {
                    return Err(format!("empirical quantile {i} is not finite"));
                }
                if let Some(i) = quantiles.windows(2).position(|w| w[1] < w[0]) {
                    return Err(format!(
                        "empirical quantiles must not decrease, but quantile {} ({}) < quantile {i} ({})",
                        i + 1,
                        quantiles[i + 1],
                        quantiles[i]
                    ));
                }
                Ok(())
            }
        }
    }

    /// The empirical distribution of a sample: `k + 1` quantiles (at most one per observation).
    pub fn empirical(sorted: &[f64], k: usize) -> Dist {
        let n = sorted.len();
        let k = k.min(n.saturating_sub(1)).max(1);
        let quantiles = (0..=k)
            .map(|i| crate::summary::percentile(sorted, 100.0 * i as f64 / k as f64))
            .collect();
        Dist::Empirical { quantiles }
    }

    /// The density at `x`.
    pub fn pdf(&self, x: f64) -> f64 {
        match self {
            Dist::Normal { mean, sd } => std_normal().pdf((x - mean) / sd) / sd,
            Dist::Lognormal { mu, sigma } => {
                if x <= 0.0 {
                    0.0
                } else {
                    std_normal().pdf((x.ln() - mu) / sigma) / (sigma * x)
                }
            }
            Dist::Gamma { shape, scale } => {
                if x <= 0.0 {
                    0.0
                } else {
                    let u = x / scale;
                    ((shape - 1.0) * u.ln() - u - ln_gamma(*shape)).exp() / scale
                }
            }
            Dist::Weibull {
                shape,
                scale,
                location,
            } => {
                let u = (x - location) / scale;
                if u <= 0.0 {
                    0.0
                } else {
                    shape / scale * u.powf(shape - 1.0) * (-u.powf(*shape)).exp()
                }
            }
            Dist::Exponential { scale, location } => {
                let u = (x - location) / scale;
                if u < 0.0 {
                    0.0
                } else {
                    (-u).exp() / scale
                }
            }
            Dist::BoxcoxNormal { lambda, mean, sd } => {
                if x <= 0.0 {
                    0.0
                } else {
                    std_normal().pdf((boxcox(x, *lambda) - mean) / sd) / sd * x.powf(lambda - 1.0)
                }
            }
            Dist::Empirical { quantiles } => {
                let k = (quantiles.len() - 1) as f64;
                let i = quantiles.partition_point(|q| *q <= x);
                if i == 0 || i >= quantiles.len() {
                    return 0.0;
                }
                let w = quantiles[i] - quantiles[i - 1];
                if w > 0.0 {
                    1.0 / (k * w)
                } else {
                    0.0
                }
            }
        }
    }

    /// P(X <= x).
    pub fn cdf(&self, x: f64) -> f64 {
        match self {
            Dist::Normal { mean, sd } => phi((x - mean) / sd),
            Dist::Lognormal { mu, sigma } => {
                if x <= 0.0 {
                    0.0
                } else {
                    phi((x.ln() - mu) / sigma)
                }
            }
            Dist::Gamma { shape, scale } => {
                if x <= 0.0 {
                    0.0
                } else {
                    gamma_lr(*shape, x / scale)
                }
            }
            Dist::Weibull {
                shape,
                scale,
                location,
            } => {
                let u = (x - location) / scale;
                if u <= 0.0 {
                    0.0
                } else {
                    -(-u.powf(*shape)).exp_m1()
                }
            }
            Dist::Exponential { scale, location } => {
                let u = (x - location) / scale;
                if u <= 0.0 {
                    0.0
                } else {
                    -(-u).exp_m1()
                }
            }
            Dist::BoxcoxNormal { lambda, mean, sd } => {
                if x <= 0.0 {
                    0.0
                } else {
                    phi((boxcox(x, *lambda) - mean) / sd)
                }
            }
            Dist::Empirical { quantiles } => {
                let k = (quantiles.len() - 1) as f64;
                if x < quantiles[0] {
                    return 0.0;
                }
                let i = quantiles.partition_point(|q| *q <= x);
                if i >= quantiles.len() {
                    return 1.0;
                }
                let (a, b) = (quantiles[i - 1], quantiles[i]);
                let f = if b > a { (x - a) / (b - a) } else { 1.0 };
                ((i - 1) as f64 + f) / k
            }
        }
    }

    /// The `p` quantile (0 <= p <= 1).
    pub fn quantile(&self, p: f64) -> f64 {
        match self {
            Dist::Normal { mean, sd } => mean + sd * z(p),
            Dist::Lognormal { mu, sigma } => (mu + sigma * z(p)).exp(),
            Dist::Gamma { shape, scale } => scale * gamma_quantile(p, *shape),
            Dist::Weibull {
                shape,
                scale,
                location,
            } => location + scale * (-(-p).ln_1p()).powf(1.0 / shape),
            Dist::Exponential { scale, location } => location - scale * (-p).ln_1p(),
            Dist::BoxcoxNormal { lambda, mean, sd } => boxcox_inv(mean + sd * z(p), *lambda),
            Dist::Empirical { quantiles } => {
                let k = (quantiles.len() - 1) as f64;
                let pos = p.clamp(0.0, 1.0) * k;
                let i = (pos.floor() as usize).min(quantiles.len() - 2);
                let f = pos - i as f64;
                quantiles[i] + f * (quantiles[i + 1] - quantiles[i])
            }
        }
    }

    /// The mean of the distribution (numerically for the Box-Cox normal).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Normal { mean, .. } => *mean,
            Dist::Lognormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            Dist::Gamma { shape, scale } => shape * scale,
            Dist::Weibull {
                shape,
                scale,
                location,
            } => location + scale * statrs::function::gamma::gamma(1.0 + 1.0 / shape),
            Dist::Exponential { scale, location } => location + scale,
            Dist::BoxcoxNormal { .. } | Dist::Empirical { .. } => {
                let m = 2000;
                (0..m)
                    .map(|i| self.quantile((i as f64 + 0.5) / m as f64))
                    .sum::<f64>()
                    / m as f64
            }
        }
    }

    /// One draw. To draw many, [`Dist::sampler`] prepares the constants once.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.sampler().sample(rng)
    }

    /// The distribution ready to draw from: its sampling constants computed once.
    pub fn sampler(&self) -> Sampler {
        let s = match self {
            Dist::Normal { mean, sd } => rand_distr::Normal::new(*mean, *sd)
                .ok()
                .map(Sampler::Normal),
            Dist::Lognormal { mu, sigma } => rand_distr::LogNormal::new(*mu, *sigma)
                .ok()
                .map(Sampler::Lognormal),
            Dist::Gamma { shape, scale } => rand_distr::Gamma::new(*shape, *scale)
                .ok()
                .map(Sampler::Gamma),
            Dist::Weibull {
                shape,
                scale,
                location,
            } => rand_distr::Weibull::new(*scale, *shape)
                .ok()
                .map(|d| Sampler::Weibull(d, *location)),
            Dist::Exponential { scale, location } => rand_distr::Exp::new(1.0 / scale)
                .ok()
                .map(|d| Sampler::Exponential(d, *location)),
            Dist::BoxcoxNormal { lambda, mean, sd } => Some(Sampler::BoxcoxNormal {
                lambda: *lambda,
                mean: *mean,
                sd: *sd,
            }),
            Dist::Empirical { .. } => Some(Sampler::Quantile(self.clone())),
        };
        s.unwrap_or(Sampler::Invalid)
    }

    /// `n` draws.
    pub fn sample_n<R: Rng + ?Sized>(&self, rng: &mut R, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.sample(rng)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_inverts_cdf() {
        let ds = [
            Dist::Normal { mean: 3.0, sd: 2.0 },
            Dist::Lognormal {
                mu: 1.0,
                sigma: 0.5,
            },
            Dist::Gamma {
                shape: 0.4,
                scale: 3.0,
            },
            Dist::Gamma {
                shape: 3.2,
                scale: 41.0,
            },
            Dist::Gamma {
                shape: 150.0,
                scale: 1.0,
            },
            Dist::Weibull {
                shape: 1.7,
                scale: 10.0,
                location: 5.0,
            },
            Dist::Exponential {
                scale: 4.0,
                location: 1.0,
            },
            Dist::BoxcoxNormal {
                lambda: 0.3,
                mean: 5.0,
                sd: 0.4,
            },
            Dist::Empirical {
                quantiles: vec![1.0, 2.0, 3.0, 5.0, 9.0],
            },
        ];
        for d in &ds {
            d.validate().unwrap();
            for p in [0.001, 0.1, 0.37, 0.5, 0.9, 0.999] {
                let x = d.quantile(p);
                assert!(
                    (d.cdf(x) - p).abs() < 1e-7,
                    "{d:?} p={p} x={x} F={}",
                    d.cdf(x)
                );
            }
        }
    }

    #[test]
    fn serde_names() {
        let d = Dist::Weibull {
            shape: 2.0,
            scale: 3.0,
            location: 1.0,
        };
        let s = serde_json::to_string(&d).unwrap();
        assert_eq!(
            s,
            r#"{"family":"weibull","shape":2.0,"scale":3.0,"location":1.0}"#
        );
        assert_eq!(d.family(), Family::Weibull3);
    }
}

/// A [`Dist`] prepared for drawing ([`Dist::sampler`]).
#[derive(Debug, Clone)]
pub enum Sampler {
    Normal(rand_distr::Normal<f64>),
    Lognormal(rand_distr::LogNormal<f64>),
    Gamma(rand_distr::Gamma<f64>),
    /// Weibull, then shifted by the location.
    Weibull(rand_distr::Weibull<f64>, f64),
    /// Exponential, then shifted by the location.
    Exponential(rand_distr::Exp<f64>, f64),
    /// The seed's steps 6-8: a N(0, 1) draw, scaled to N(mean, sd), transformed back.
    BoxcoxNormal {
        lambda: f64,
        mean: f64,
        sd: f64,
    },
    /// By inverting the quantile function.
    Quantile(Dist),
    /// Parameters no distribution has: every draw is NaN.
    Invalid,
}

impl Distribution<f64> for Sampler {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self {
            Sampler::Normal(d) => d.sample(rng),
            Sampler::Lognormal(d) => d.sample(rng),
            Sampler::Gamma(d) => d.sample(rng),
            Sampler::Weibull(d, location) => location + d.sample(rng),
            Sampler::Exponential(d, location) => location + d.sample(rng),
            Sampler::BoxcoxNormal { lambda, mean, sd } => {
                let zz: f64 = rng.sample(rand_distr::StandardNormal);
                boxcox_inv(mean + sd * zz, *lambda)
            }
            Sampler::Quantile(d) => d.quantile(rng.gen::<f64>()),
            Sampler::Invalid => f64::NAN,
        }
    }
}
