//! Every candidate fitted to one sample, the choice among them and the
//! explained verdict.
//!
//! The choice follows the seed's Dataplot procedure, made mechanical:
//!
//! 1. each parametric family is fitted by maximum likelihood and scored by the
//!    PPCC of its fit, its Anderson-Darling A², Kolmogorov-Smirnov D and BIC;
//! 2. a family is *acceptable* when its PPCC reaches `min_ppcc`, or, failing
//!    that, when its A² is at most `max_ad`: the PPCC of 10^4 values can fall
//!    below 0.99 because of one extreme value (the correlation squares its
//!    distance from the line), which A², a sum over every value's probability,
//!    barely notices;
//! 3. the acceptable families whose PPCC is within the *PPCC band* of the best
//!    acceptable one (`max(band, 2 (1 - best))` below it) compete, and the one
//!    with the lowest BIC wins: the likelihood separates families the PPCC ties
//!    (an exponential is a gamma of shape 1; a Weibull and a three-parameter
//!    Weibull have the same PPCC), and BIC charges each extra parameter;
//! 4. if no family is acceptable, the Box-Cox transformed sample is tried: a
//!    normal fit of it, if its PPCC reaches `min_ppcc`;
//! 5. otherwise the empirical distribution (the sample's quantiles).

use serde::Serialize;

use super::boxcox::{self, BoxCox};
use super::dist::{Dist, Family};
use super::gof::{anderson_darling, kolmogorov_smirnov, log_likelihood};
use super::mle;
use super::ppcc::{self, PlotData, Sweep};
use crate::summary::{mean, percentile};

/// How a sample is fitted and judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitOptions {
    /// A family is acceptable when the PPCC of its fit reaches this ...
    pub min_ppcc: f64,
    /// ... or when the Anderson-Darling A² of its fit is at most this.
    pub max_ad: f64,
    /// The narrowest PPCC band below the best PPCC whose families compete on BIC.
    pub band: f64,
    /// Quantiles kept by the empirical distribution (k + 1 values).
    pub empirical_points: usize,
    /// The parametric families tried (default: all seven).
    pub families: Vec<Family>,
    /// The unit of the values, printed after scale and location parameters.
    pub unit: String,
    /// Compute the PPCC sweeps and the Box-Cox analysis even when the choice
    /// does not need them (they are what the figures draw).
    pub diagnostics: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            min_ppcc: 0.99,
            // The 5% point of A² for a fully specified distribution (Stephens,
            // 1974); with estimated parameters the 5% points are lower (0.75 to
            // 1.3 for these families), so this bar is lenient: it forgives an
            // extreme value or two, not a wrong shape (A² in the tens or more
            // at 10^4 values).
            max_ad: 2.492,
            band: 0.0005,
            empirical_points: 1000,
            families: vec![
                Family::Normal,
                Family::Lognormal,
                Family::Gamma,
                Family::Weibull,
                Family::Weibull3,
                Family::Exponential,
                Family::ShiftedExponential,
            ],
            unit: String::new(),
            diagnostics: true,
        }
    }
}

/// What became of a candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Chosen,
    /// In the PPCC band, but a higher BIC than the chosen family.
    Close,
    /// Below the PPCC band, or not acceptable (PPCC below `min_ppcc` and A²
    /// above `max_ad`).
    Rejected,
    /// Could not be fitted (the reason is in `error`).
    Failed,
    /// Not a competitor in this round (Box-Cox normal or empirical, not needed).
    Standby,
}

/// One family fitted to the sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub family: Family,
    pub dist: Option<Dist>,
    pub error: Option<String>,
    pub ppcc: f64,
    /// Anderson-Darling A².
    pub ad: f64,
    /// Kolmogorov-Smirnov D.
    pub ks: f64,
    pub log_likelihood: f64,
    /// -2 ln L + p ln n.
    pub bic: f64,
    pub status: Status,
}

/// Location-free summary of the sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub n: usize,
    pub min: f64,
    pub mean: f64,
    pub median: f64,
    pub p99: f64,
    pub max: f64,
}

/// Everything the fit of one sample found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleFit {
    pub stats: Stats,
    /// The normal PPCC of the raw sample (Filliben's statistic).
    pub normal_ppcc: f64,
    pub candidates: Vec<Candidate>,
    pub sweeps: Vec<Sweep>,
    /// Absent when the sample has a value <= 0, or when not needed without `diagnostics`.
    pub boxcox: Option<BoxCox>,
    pub chosen: Dist,
    /// Goodness of fit of the chosen distribution.
    pub ppcc: f64,
    pub ad: f64,
    pub ks: f64,
    pub verdict: String,
}

/// `x` with 3 significant digits (no exponent for everyday magnitudes).
pub fn sig(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e7).contains(&a) {
        return format!("{x:.2e}");
    }
    let digits = if a == 0.0 {
        0
    } else {
        a.log10().floor() as i32
    };
    let dec = (2 - digits).max(0) as usize;
    format!("{x:.dec$}")
}

fn ppcc_str(p: f64) -> String {
    // Enough digits to show how close to 1.
    if p > 0.999 {
        format!("{p:.5}")
    } else {
        format!("{p:.3}")
    }
}

/// "gamma (shape 3.20, scale 41.0 ns)".
pub fn describe(d: &Dist, unit: &str) -> String {
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let ps: Vec<String> = d
        .params()
        .iter()
        .map(|(k, v)| {
            let scaled = matches!(*k, "scale" | "location" | "min" | "max")
                || (matches!(*k, "mean" | "sd") && !matches!(d, Dist::BoxcoxNormal { .. }));
            format!("{k} {}{}", sig(*v), if scaled { u.as_str() } else { "" })
        })
        .collect();
    format!("{} ({})", d.family().name(), ps.join(", "))
}

fn score(family: Family, dist: Result<Dist, String>, sorted: &[f64], pd: &PlotData) -> Candidate {
    match dist {
        Ok(d) => {
            let ll = log_likelihood(&d, sorted);
            let p = family.n_params() as f64;
            Candidate {
                family,
                ppcc: ppcc::ppcc(pd, &d),
                ad: anderson_darling(&d, sorted),
                ks: kolmogorov_smirnov(&d, sorted),
                log_likelihood: ll,
                bic: -2.0 * ll + p * (sorted.len() as f64).ln(),
                dist: Some(d),
                error: None,
                status: Status::Rejected,
            }
        }
        Err(e) => Candidate {
            family,
            dist: None,
            error: Some(e),
            ppcc: f64::NAN,
            ad: f64::NAN,
            ks: f64::NAN,
            log_likelihood: f64::NAN,
            bic: f64::NAN,
            status: Status::Failed,
        },
    }
}

/// Fits every candidate to a sample of finite values and chooses one.
pub fn fit_sample(x: &[f64], opts: &FitOptions) -> Result<SampleFit, String> {
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(format!("value {} is not finite ({})", i + 1, x[i]));
    }
    if x.len() < 3 {
        return Err(format!("a fit needs at least 3 values, got {}", x.len()));
    }
    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let stats = Stats {
        n,
        min: sorted[0],
        mean: mean(&sorted),
        median: percentile(&sorted, 50.0),
        p99: percentile(&sorted, 99.0),
        max: sorted[n - 1],
    };
    let pd = PlotData::new(&sorted);
    let mut cands: Vec<Candidate> = opts
        .families
        .iter()
        .filter(|f| !matches!(f, Family::BoxcoxNormal | Family::Empirical))
        .map(|&f| score(f, mle::fit(f, &sorted), &sorted, &pd))
        .collect();
    let positive = sorted[0] > 0.0;
    let acceptable = |c: &Candidate| {
        c.ppcc.is_finite() && c.bic.is_finite() && (c.ppcc >= opts.min_ppcc || c.ad <= opts.max_ad)
    };
    let best = cands
        .iter()
        .filter(|c| acceptable(c))
        .map(|c| c.ppcc)
        .fold(f64::NEG_INFINITY, f64::max);
    let any_acceptable = best.is_finite();
    let bc = (positive && (opts.diagnostics || !any_acceptable)).then(|| boxcox::analyse(&sorted));
    let sweeps = if positive && opts.diagnostics {
        ppcc::shape_families()
            .iter()
            .filter_map(|f| ppcc::sweep(&pd, f.0))
            .collect()
    } else {
        Vec::new()
    };
    let tol = opts.band.max(2.0 * (1.0 - best));
    let mut chosen_idx = None;
    if any_acceptable {
        let in_band = |c: &Candidate| acceptable(c) && c.ppcc >= best - tol;
        chosen_idx = cands
            .iter()
            .enumerate()
            .filter(|(_, c)| in_band(c))
            .min_by(|a, b| a.1.bic.total_cmp(&b.1.bic))
            .map(|(i, _)| i);
        for c in cands.iter_mut() {
            if c.status != Status::Failed && in_band(c) {
                c.status = Status::Close;
            }
        }
    }
    let boxcox_cand = bc
        .as_ref()
        .map(|b| score(Family::BoxcoxNormal, Ok(b.dist.clone()), &sorted, &pd));
    let empirical = score(
        Family::Empirical,
        Ok(Dist::empirical(&sorted, opts.empirical_points)),
        &sorted,
        &pd,
    );
    let mut why = String::new();
    let unit = opts.unit.as_str();
    let best_family = cands
        .iter()
        .filter(|c| c.ppcc.is_finite())
        .max_by(|a, b| a.ppcc.total_cmp(&b.ppcc))
        .map(|c| format!("{} {}", c.family.name(), ppcc_str(c.ppcc)))
        .unwrap_or_else(|| "none".into());
    if let Some(i) = chosen_idx {
        cands[i].status = Status::Chosen;
        let c = &cands[i];
        if c.ppcc < opts.min_ppcc {
            why = format!(
                "; PPCC below {}, but Anderson-Darling A² {} <= {} accepts it",
                opts.min_ppcc,
                sig(c.ad),
                opts.max_ad
            );
        }
    } else {
        let bc_ok = boxcox_cand
            .as_ref()
            .is_some_and(|c| c.ppcc >= opts.min_ppcc);
        let mut extra = if bc_ok {
            let mut c = boxcox_cand.clone().expect("checked");
            c.status = Status::Chosen;
            why = format!(
                "; no family reached PPCC {} or A² {} (best: {best_family}), the Box-Cox transform (λ {}) did",
                opts.min_ppcc,
                opts.max_ad,
                sig(bc.as_ref().map(|b| b.lambda).unwrap_or(f64::NAN))
            );
            c
        } else {
            let mut c = empirical.clone();
            c.status = Status::Chosen;
            why = format!(
                "; no family reached PPCC {} or A² {} (best: {best_family}){}",
                opts.min_ppcc,
                opts.max_ad,
                match &boxcox_cand {
                    Some(b) => format!(
                        ", nor the Box-Cox transform (λ {}, PPCC {})",
                        sig(bc.as_ref().map(|b| b.lambda).unwrap_or(f64::NAN)),
                        ppcc_str(b.ppcc)
                    ),
                    None => ", and the Box-Cox transform needs positive values".into(),
                }
            );
            c
        };
        extra.status = Status::Chosen;
        cands.push(extra);
    }
    if !cands.iter().any(|c| c.family == Family::BoxcoxNormal) {
        if let Some(mut b) = boxcox_cand {
            b.status = Status::Standby;
            cands.push(b);
        }
    }
    if !cands.iter().any(|c| c.family == Family::Empirical) {
        let mut e = empirical;
        e.status = Status::Standby;
        cands.push(e);
    }
    let ch = cands
        .iter()
        .find(|c| c.status == Status::Chosen)
        .expect("a candidate is always chosen")
        .clone();
    let chosen = ch.dist.clone().expect("chosen candidates have a fit");
    let mut parts = vec![format!(
        "{}, PPCC {}{why}",
        describe(&chosen, unit),
        ppcc_str(ch.ppcc)
    )];
    let mut others: Vec<&Candidate> = cands
        .iter()
        .filter(|c| matches!(c.status, Status::Close | Status::Rejected | Status::Failed))
        .collect();
    others.sort_by(|a, b| b.ppcc.total_cmp(&a.ppcc));
    for c in others {
        parts.push(match c.status {
            Status::Close => format!(
                "{} close (PPCC {}) but BIC +{}",
                c.family.name(),
                ppcc_str(c.ppcc),
                sig(c.bic - ch.bic)
            ),
            Status::Failed => format!(
                "{} not fitted ({})",
                c.family.name(),
                c.error.as_deref().unwrap_or("")
            ),
            _ => format!("{} rejected (PPCC {})", c.family.name(), ppcc_str(c.ppcc)),
        });
    }
    Ok(SampleFit {
        stats,
        normal_ppcc: ppcc::normal_ppcc(&pd),
        candidates: cands,
        sweeps,
        boxcox: bc,
        ppcc: ch.ppcc,
        ad: ch.ad,
        ks: ch.ks,
        chosen,
        verdict: parts.join("; "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(41.234), "41.2");
        assert_eq!(sig(3.2), "3.20");
        assert_eq!(sig(1234.4), "1234");
        assert_eq!(sig(0.01234), "0.0123");
    }
}
