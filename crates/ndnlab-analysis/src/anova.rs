//! General full factorial designs with any number of levels (Jain, ch. 20-22):
//! one factor, two factors with or without replication, and k factors.
//!
//! The model is `y = mu + sum over terms of the term's effect + e`, a term being a
//! factor (main effect) or a set of factors (interaction). In a balanced design
//! the effects follow from marginal means: a term's effect at a combination of
//! its levels is the marginal mean there minus the mean and the effects of all
//! its sub-terms, and its sum of squares is the number of observations per
//! combination times the sum of its squared effects.
//!
//! With `r >= 2` replicates the error is the variation within cells; with one
//! observation per cell the interaction of all factors serves as the error, as
//! in Jain's two-factor design without replication. Each term gets an F test
//! `F = MS_term / MSE` with `p = P(F > observed)` from the F distribution, and
//! each effect a `1 - alpha` confidence interval with standard error
//! `s_e sqrt(df_term / N)` (`s_e sqrt((a - 1) / (a b r))` for a main effect).

use serde::Serialize;

use crate::dataset::{Dataset, Factor, Transform};
use crate::dist::{check_alpha, f_quantile, f_upper_tail, t_quantile};
use crate::error::{AnalysisError, Result};
use crate::residuals::{qq_points, QqPoint, Residual};

/// The largest number of factors a full factorial analysis accepts.
pub const MAX_FACTORS: usize = 12;

/// One line of the ANOVA table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnovaRow {
    /// The factor or interaction, e.g. `cache × workload`.
    pub source: String,
    pub ss: f64,
    /// Share of SST, in percent.
    pub percent: f64,
    pub df: usize,
    pub ms: f64,
    /// `MS / MSE` (not for the error row).
    pub f: Option<f64>,
    /// `P(F > f)`.
    pub p_value: Option<f64>,
    /// `F[1 - alpha; df, df_e]`.
    pub f_critical: Option<f64>,
    /// Whether `f > f_critical`.
    pub significant: Option<bool>,
}

/// The effect of one combination of levels of a term.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelEffect {
    /// One level per factor of the term.
    pub levels: Vec<String>,
    pub effect: f64,
    pub ci: (f64, f64),
    pub excludes_zero: bool,
}

/// The effects of one term.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermEffects {
    pub source: String,
    pub factors: Vec<String>,
    /// The standard error of each of its effects.
    pub se: f64,
    pub effects: Vec<LevelEffect>,
}

/// The analysis of variance of one response of a full factorial design.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnovaAnalysis {
    pub response: String,
    pub transform: Transform,
    pub alpha: f64,
    pub factors: Vec<Factor>,
    pub replicates: usize,
    pub observations: usize,
    /// The grand mean `mu` and its confidence interval.
    pub mean: f64,
    pub mean_ci: (f64, f64),
    /// `SSY = sum y^2`, `SS0 = N mu^2`, `SST = SSY - SS0`.
    pub ssy: f64,
    pub ss0: f64,
    pub sst: f64,
    /// Factors and interactions, main effects first.
    pub rows: Vec<AnovaRow>,
    pub error: AnovaRow,
    /// Set when one observation per cell leaves the highest interaction as the error.
    pub error_is_interaction: Option<String>,
    /// Standard deviation of the errors, `sqrt(MSE)`.
    pub s_e: f64,
    pub effects: Vec<TermEffects>,
    pub residuals: Vec<Residual>,
    pub residual_qq: Vec<QqPoint>,
}

/// Mixed-radix indexing of the level combinations of a set of factors.
struct Space {
    factors: Vec<usize>,
    strides: Vec<usize>,
    size: usize,
}

impl Space {
    fn new(mask: u32, levels: &[usize]) -> Self {
        let factors: Vec<usize> = (0..levels.len())
            .filter(|&f| mask & (1 << f) != 0)
            .collect();
        let mut strides = Vec::with_capacity(factors.len());
        let mut size = 1;
        for &f in factors.iter().rev() {
            strides.push(size);
            size *= levels[f];
        }
        strides.reverse();
        Space {
            factors,
            strides,
            size,
        }
    }

    /// The index of a full level vector projected onto this space.
    fn index(&self, full: &[usize]) -> usize {
        self.factors
            .iter()
            .zip(&self.strides)
            .map(|(&f, s)| full[f] * s)
            .sum()
    }

    /// The level vector (over all `k` factors, 0 outside the space) of an index.
    fn levels(&self, mut idx: usize, k: usize) -> Vec<usize> {
        let mut out = vec![0; k];
        for (&f, &s) in self.factors.iter().zip(&self.strides) {
            out[f] = idx / s;
            idx %= s;
        }
        out
    }
}

fn source_name(ds: &Dataset, mask: u32) -> String {
    (0..ds.factors.len())
        .filter(|&f| mask & (1 << f) != 0)
        .map(|f| ds.factors[f].name.as_str())
        .collect::<Vec<_>>()
        .join(" × ")
}

/// Analyses a balanced full factorial design with an ANOVA table and effects.
pub fn analyze_anova(ds: &Dataset, alpha: f64) -> Result<AnovaAnalysis> {
    check_alpha(alpha)?;
    let k = ds.factors.len();
    if k > MAX_FACTORS {
        return Err(AnalysisError::BadParameter(format!(
            "an ANOVA takes at most {MAX_FACTORS} factors, got {k}"
        )));
    }
    for f in &ds.factors {
        if f.levels.len() < 2 {
            return Err(AnalysisError::SingleLevel {
                factor: f.name.clone(),
                level: f.levels.first().cloned().unwrap_or_default(),
            });
        }
    }
    let levels: Vec<usize> = ds.factors.iter().map(|f| f.levels.len()).collect();
    let full_mask: u32 = (1u32 << k) - 1;
    let full = Space::new(full_mask, &levels);
    let cells = ds.cells();
    if cells.len() != full.size {
        let present: std::collections::HashSet<usize> =
            cells.iter().map(|(lv, _)| full.index(lv)).collect();
        let missing = (0..full.size).find(|i| !present.contains(i)).unwrap_or(0);
        return Err(AnalysisError::MissingCell {
            cell: ds.cell_name(&full.levels(missing, k)),
            what: format!(
                "a full factorial design needs all {} combinations of levels",
                full.size
            ),
        });
    }
    let r = ds.replicates(&cells)?;
    if r < 2 && k < 2 {
        return Err(AnalysisError::TooFewReplicates {
            what: "the error term of a one-factor design".into(),
            cell: ds.cell_name(&cells[0].0),
            found: r,
        });
    }
    let n_obs = ds.observations.len();
    let mut cell_mean = vec![0.0; full.size];
    for (lv, obs) in &cells {
        cell_mean[full.index(lv)] =
            obs.iter().map(|&o| ds.observations[o].y).sum::<f64>() / r as f64;
    }
    // Marginal means and effects of every term, smallest terms first.
    let mut masks: Vec<u32> = (0..=full_mask).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    let spaces: Vec<Space> = (0..=full_mask).map(|m| Space::new(m, &levels)).collect();
    let mut effects: Vec<Vec<f64>> = vec![Vec::new(); 1 << k];
    for &m in &masks {
        let sp = &spaces[m as usize];
        let mut marg = vec![0.0; sp.size];
        for (i, &y) in cell_mean.iter().enumerate() {
            marg[sp.index(&full.levels(i, k))] += y;
        }
        let per = (full.size / sp.size) as f64;
        for v in &mut marg {
            *v /= per;
        }
        // Subtract the effects of every proper sub-term.
        for (j, v) in marg.iter_mut().enumerate() {
            let lv = sp.levels(j, k);
            let mut sub = m;
            loop {
                sub = (sub.wrapping_sub(1)) & m;
                if sub == m {
                    break;
                }
                *v -= effects[sub as usize][spaces[sub as usize].index(&lv)];
                if sub == 0 {
                    break;
                }
            }
        }
        effects[m as usize] = marg;
    }
    let mu = effects[0][0];
    let ys = ds.observations.iter().map(|o| o.y);
    let ssy: f64 = ys.clone().map(|y| y * y).sum();
    let ss0 = n_obs as f64 * mu * mu;
    let sst: f64 = ys.map(|y| (y - mu).powi(2)).sum();
    let pct = |ss: f64| if sst > 0.0 { 100.0 * ss / sst } else { 0.0 };
    let ss_of = |m: u32| -> f64 {
        let sp = &spaces[m as usize];
        (n_obs / sp.size) as f64 * effects[m as usize].iter().map(|e| e * e).sum::<f64>()
    };
    let df_of = |m: u32| -> usize {
        (0..k)
            .filter(|&f| m & (1 << f) != 0)
            .map(|f| levels[f] - 1)
            .product()
    };
    let (sse, df_e, error_is_interaction) = if r >= 2 {
        let sse: f64 = cells
            .iter()
            .map(|(lv, obs)| {
                let m = cell_mean[full.index(lv)];
                obs.iter()
                    .map(|&o| (ds.observations[o].y - m).powi(2))
                    .sum::<f64>()
            })
            .sum();
        (sse, full.size * (r - 1), None)
    } else {
        (
            ss_of(full_mask),
            df_of(full_mask),
            Some(source_name(ds, full_mask)),
        )
    };
    let mse = sse / df_e as f64;
    let s_e = mse.sqrt();
    let t = t_quantile(1.0 - alpha / 2.0, df_e as f64);
    let model: Vec<u32> = masks
        .iter()
        .copied()
        .filter(|&m| m != 0 && (r >= 2 || m != full_mask))
        .collect();
    let mut rows = Vec::new();
    let mut term_effects = Vec::new();
    for &m in &model {
        let ss = ss_of(m);
        let df = df_of(m);
        let ms = ss / df as f64;
        let f = ms / mse;
        let f_crit = f_quantile(1.0 - alpha, df as f64, df_e as f64);
        rows.push(AnovaRow {
            source: source_name(ds, m),
            ss,
            percent: pct(ss),
            df,
            ms,
            f: Some(f),
            p_value: Some(f_upper_tail(f, df as f64, df_e as f64)),
            f_critical: Some(f_crit),
            significant: Some(f > f_crit),
        });
        let se = s_e * (df as f64 / n_obs as f64).sqrt();
        let sp = &spaces[m as usize];
        term_effects.push(TermEffects {
            source: source_name(ds, m),
            factors: sp
                .factors
                .iter()
                .map(|&f| ds.factors[f].name.clone())
                .collect(),
            se,
            effects: effects[m as usize]
                .iter()
                .enumerate()
                .map(|(j, &e)| {
                    let lv = sp.levels(j, k);
                    let ci = (e - t * se, e + t * se);
                    LevelEffect {
                        levels: sp
                            .factors
                            .iter()
                            .map(|&f| ds.factors[f].levels[lv[f]].clone())
                            .collect(),
                        effect: e,
                        ci,
                        excludes_zero: ci.0 > 0.0 || ci.1 < 0.0,
                    }
                })
                .collect(),
        });
    }
    let mut residuals: Vec<Residual> = ds
        .observations
        .iter()
        .map(|o| {
            let i = full.index(&o.levels);
            let mut predicted = cell_mean[i];
            if r < 2 {
                predicted -= effects[full_mask as usize][i];
            }
            Residual {
                line: o.line,
                predicted,
                residual: o.y - predicted,
            }
        })
        .collect();
    residuals.sort_by_key(|r| r.line);
    let se_mu = s_e / (n_obs as f64).sqrt();
    Ok(AnovaAnalysis {
        response: ds.response_label(),
        transform: ds.transform,
        alpha,
        factors: ds.factors.clone(),
        replicates: r,
        observations: n_obs,
        mean: mu,
        mean_ci: (mu - t * se_mu, mu + t * se_mu),
        ssy,
        ss0,
        sst,
        rows,
        error: AnovaRow {
            source: "error".into(),
            ss: sse,
            percent: pct(sse),
            df: df_e,
            ms: mse,
            f: None,
            p_value: None,
            f_critical: None,
            significant: None,
        },
        error_is_interaction,
        s_e,
        effects: term_effects,
        residual_qq: qq_points(&residuals),
        residuals,
    })
}
