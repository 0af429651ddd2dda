//! Maximum-likelihood fits: closed form for the normal, lognormal and
//! exponential families; a root of the score equation for the gamma shape
//! (Minka's starting value) and the Weibull shape; the Weibull location by
//! maximising the profile likelihood. The iterations are argmin's Brent solvers.

use statrs::function::gamma::digamma;

use super::dist::{Dist, Family};
use super::solve::{minimize_tol, root_near};
use crate::summary::mean;

/// Why a family cannot be fitted to a sample.
fn need_positive(family: Family, x: &[f64]) -> Result<(), String> {
    match x.iter().position(|v| *v <= 0.0) {
        Some(i) => Err(format!(
            "{} needs positive values, but value {} is {}",
            family.name(),
            i + 1,
            x[i]
        )),
        None => Ok(()),
    }
}

fn spread(x: &[f64]) -> Result<(f64, f64), String> {
    let (lo, hi) = x
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if x.len() < 3 {
        return Err(format!("a fit needs at least 3 values, got {}", x.len()));
    }
    if hi <= lo {
        return Err(format!("all {} values are equal ({lo})", x.len()));
    }
    Ok((lo, hi))
}

/// Fits one family to a sample (any order) by maximum likelihood.
pub fn fit(family: Family, x: &[f64]) -> Result<Dist, String> {
    let (lo, _) = spread(x)?;
    let n = x.len() as f64;
    match family {
        Family::Normal => {
            let m = mean(x);
            let sd = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n).sqrt();
            Ok(Dist::Normal { mean: m, sd })
        }
        Family::Lognormal => {
            need_positive(family, x)?;
            let l: Vec<f64> = x.iter().map(|v| v.ln()).collect();
            let mu = mean(&l);
            let sigma = (l.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / n).sqrt();
            Ok(Dist::Lognormal { mu, sigma })
        }
        Family::Exponential => {
            if lo < 0.0 {
                return Err(format!("exponential needs values >= 0, got {lo}"));
            }
            Ok(Dist::Exponential {
                scale: mean(x),
                location: 0.0,
            })
        }
        Family::ShiftedExponential => Ok(Dist::Exponential {
            scale: mean(x) - lo,
            location: lo,
        }),
        Family::Gamma => {
            need_positive(family, x)?;
            let m = mean(x);
            let s = m.ln() - x.iter().map(|v| v.ln()).sum::<f64>() / n;
            let shape = gamma_shape(s)?;
            Ok(Dist::Gamma {
                shape,
                scale: m / shape,
            })
        }
        Family::Weibull => {
            need_positive(family, x)?;
            let (shape, scale, _) = weibull2(x, 0.0)?;
            Ok(Dist::Weibull {
                shape,
                scale,
                location: 0.0,
            })
        }
        Family::Weibull3 => weibull3(x),
        Family::BoxcoxNormal => {
            need_positive(family, x)?;
            let mut s = x.to_vec();
            s.sort_by(f64::total_cmp);
            Ok(super::boxcox::analyse(&s).dist)
        }
        Family::Empirical => {
            let mut s = x.to_vec();
            s.sort_by(f64::total_cmp);
            Ok(Dist::empirical(&s, 1000))
        }
    }
}

/// The gamma shape k solving ln k - ψ(k) = s, where s = ln(mean) - mean(ln x) > 0,
/// from Minka's starting value.
pub fn gamma_shape(s: f64) -> Result<f64, String> {
    if !(s > 0.0 && s.is_finite()) {
        return Err(format!(
            "gamma: the sample is too concentrated to fit (ln mean - mean ln = {s})"
        ));
    }
    let k0 = (3.0 - s + ((s - 3.0).powi(2) + 24.0 * s).sqrt()) / (12.0 * s);
    root_near(|k| k.ln() - digamma(k) - s, k0, 1e-12)
        .ok_or_else(|| format!("gamma: no shape solves the likelihood equation (s = {s})"))
}

/// The two-parameter Weibull fit of `x - location` (all positive): (shape,
/// scale, log-likelihood).
pub fn weibull2(x: &[f64], location: f64) -> Result<(f64, f64, f64), String> {
    let n = x.len() as f64;
    let ymax = x
        .iter()
        .fold(f64::NEG_INFINITY, |a, &v| a.max(v - location));
    // u = y / ymax in (0, 1]: u^k never overflows.
    let lu: Vec<f64> = x.iter().map(|v| ((v - location) / ymax).ln()).collect();
    let mean_lu = mean(&lu);
    let sd = (lu.iter().map(|v| (v - mean_lu).powi(2)).sum::<f64>() / n).sqrt();
    if sd.is_nan() || sd <= 0.0 {
        return Err("weibull: the sample has no spread".into());
    }
    // The score equation in k: Σ u^k ln u / Σ u^k - 1/k - mean(ln u) = 0 (increasing in k).
    let g = |k: f64| {
        let (mut a, mut b) = (0.0, 0.0);
        for &l in &lu {
            let w = (k * l).exp();
            a += w * l;
            b += w;
        }
        a / b - 1.0 / k - mean_lu
    };
    let k = root_near(g, 1.2825 / sd, 1e-12)
        .ok_or("weibull: no shape solves the likelihood equation")?;
    let su: f64 = lu.iter().map(|l| (k * l).exp()).sum::<f64>() / n;
    let scale_u = su.powf(1.0 / k);
    let scale = ymax * scale_u;
    // ln L = n ln k - n k ln λ + (k - 1) Σ ln y - Σ (y/λ)^k, and Σ (y/λ)^k = n at the optimum.
    let sum_ly = lu.iter().sum::<f64>() + n * ymax.ln();
    let ll = n * k.ln() - n * k * scale.ln() + (k - 1.0) * sum_ly - n;
    Ok((k, scale, ll))
}

/// The three-parameter Weibull: the location maximising the profile
/// likelihood on `(min - 3 range, min - range 1e-6)`. Where the likelihood
/// grows without bound towards the minimum (shape below 1), the location
/// stops at the upper end of that interval.
fn weibull3(x: &[f64]) -> Result<Dist, String> {
    let (lo, hi) = spread(x)?;
    let r = hi - lo;
    // d = min - location, searched on a log scale.
    let prof = |t: f64| match weibull2(x, lo - r * t.exp()) {
        Ok((_, _, ll)) => -ll,
        Err(_) => f64::INFINITY,
    };
    let (t, _) = minimize_tol(prof, (1e-6f64).ln(), 3f64.ln(), 1e-6)
        .ok_or("weibull3: the profile likelihood has no maximum")?;
    let location = lo - r * t.exp();
    let (shape, scale, _) = weibull2(x, location)?;
    Ok(Dist::Weibull {
        shape,
        scale,
        location,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(
            fit(Family::ShiftedExponential, &x).unwrap(),
            Dist::Exponential {
                scale: 1.5,
                location: 1.0
            }
        );
        let Dist::Normal { mean, sd } = fit(Family::Normal, &x).unwrap() else {
            panic!()
        };
        assert_eq!(mean, 2.5);
        assert!((sd - 1.25f64.sqrt()).abs() < 1e-12);
        assert!(fit(Family::Gamma, &[1.0, -1.0, 2.0])
            .unwrap_err()
            .contains("value 2 is -1"));
        assert!(fit(Family::Normal, &[2.0, 2.0, 2.0])
            .unwrap_err()
            .contains("equal"));
    }

    #[test]
    fn gamma_shape_solves_the_equation() {
        for k in [0.3, 1.0, 3.2, 50.0] {
            let s = f64::ln(k) - digamma(k);
            assert!((gamma_shape(s).unwrap() - k).abs() < 1e-8 * k);
        }
    }
}
