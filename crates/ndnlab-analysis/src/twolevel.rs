//! Two-level designs (Jain, ch. 17-19): 2^k, 2^k r and 2^(k-p) fractions.
//!
//! Each factor has a low (-1) and a high (+1) level. With `n` distinct runs
//! (cells) and `r` replicates per run, the model is
//! `y = q0 + sum_j q_j x_j + e`, one `x_j` per column of the sign table. The
//! effects are `q_j = (1/n) sum_i s_ij ybar_i` over the cell means `ybar_i`, the
//! sums of squares `SS_j = n r q_j^2`, and the allocation of variation is
//! `SS_j / SST` with `SST = sum (y - ybar)^2 = sum_j SS_j + SSE`.
//!
//! With `r >= 2` the error `SSE` gives `s_e^2 = SSE / (n (r - 1))`, the standard
//! error of every effect `s_q = s_e / sqrt(n r)` and `1 - alpha` confidence
//! intervals `q_j ± t[1 - alpha/2; n (r - 1)] s_q`. Without replicates, Lenth's
//! pseudo standard error tells active effects from noise, and the normal and
//! half-normal plots of the effects show the same visually.
//!
//! A fraction is recognised from the runs themselves: the factors are taken in
//! order, a factor whose column is a product of earlier "basic" factors becomes a
//! generator (e.g. `D = ABC`), and the others become basic factors, which must
//! then form a full factorial. The generators give the defining relation and the
//! alias (confounding) structure; each effect is named by its shortest alias.

use std::collections::HashMap;

use serde::Serialize;

use crate::dataset::{Dataset, Transform};
use crate::dist::{check_alpha, half_normal_scores, normal_scores, t_quantile};
use crate::error::{AnalysisError, Result};
use crate::residuals::{qq_points, QqPoint, Residual};

/// The largest number of factors a two-level analysis accepts.
pub const MAX_FACTORS: usize = 26;

/// A two-level factor: its symbol (A, B, ...), its name and its levels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TwoLevelFactor {
    pub symbol: String,
    pub name: String,
    pub low: String,
    pub high: String,
}

/// One effect: a column of the sign table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effect {
    /// Factor symbols, e.g. `BC`.
    pub term: String,
    /// Factor names, e.g. `name length × packet size`.
    pub label: String,
    /// The other terms confounded with this one (fractional designs), with the
    /// sign relating them to `term`, e.g. `-ADE`.
    pub aliases: Vec<String>,
    pub q: f64,
    pub ss: f64,
    /// Share of the total variation, in percent.
    pub percent: f64,
    /// Confidence interval of `q` (replicated designs).
    pub ci: Option<(f64, f64)>,
    /// Whether the confidence interval excludes zero (replicated designs).
    pub excludes_zero: Option<bool>,
    /// Whether `|q|` exceeds Lenth's margin of error (unreplicated designs).
    pub lenth_active: Option<bool>,
}

/// The experimental error of a replicated design.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorTerm {
    pub ss: f64,
    pub percent: f64,
    pub df: usize,
    /// Standard deviation of the errors.
    pub s_e: f64,
    /// Standard error of each effect.
    pub s_q: f64,
    /// `t[1 - alpha/2; df]`.
    pub t: f64,
}

/// Lenth's pseudo standard error of the effects of an unreplicated design:
/// `s0 = 1.5 median |q|`, `PSE = 1.5 median { |q| : |q| < 2.5 s0 }`, with
/// `m / 3` degrees of freedom for `m` effects. `me` is the margin of error
/// `t[1 - alpha/2; m/3] PSE`, `sme` the simultaneous margin with
/// `gamma = (1 + (1 - alpha)^(1/m)) / 2`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lenth {
    pub pse: f64,
    pub df: f64,
    pub me: f64,
    pub sme: f64,
}

/// One row of the sign table: a run, its signs and its mean response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignRow {
    /// The level of each factor.
    pub levels: Vec<String>,
    /// The sign of each effect column (same order as `effects`).
    pub signs: Vec<i8>,
    pub n: usize,
    pub mean: f64,
}

/// A point of a (half-)normal probability plot of the effects.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectPoint {
    pub term: String,
    /// The effect (`|q|` on a half-normal plot).
    pub value: f64,
    /// The normal score it is plotted against.
    pub z: f64,
}

/// The analysis of one response of a two-level design.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TwoLevelAnalysis {
    pub response: String,
    pub transform: Transform,
    pub alpha: f64,
    pub factors: Vec<TwoLevelFactor>,
    /// `k`, the number of factors.
    pub k: usize,
    /// `p`, the fraction: `2^(k-p)` distinct runs.
    pub p: usize,
    /// Distinct runs (cells).
    pub runs: usize,
    /// Observations per run.
    pub replicates: usize,
    /// The generators of a fraction, e.g. `D = ABC`.
    pub generators: Vec<String>,
    /// The defining relation, e.g. `I = ABCD`; empty for a full design.
    pub defining_relation: Vec<String>,
    /// The length of the shortest word of the defining relation.
    pub resolution: Option<usize>,
    /// The mean response, `q0`, and its confidence interval.
    pub q0: f64,
    pub q0_ci: Option<(f64, f64)>,
    pub effects: Vec<Effect>,
    pub sst: f64,
    pub error: Option<ErrorTerm>,
    pub lenth: Option<Lenth>,
    pub sign_table: Vec<SignRow>,
    pub normal_plot: Vec<EffectPoint>,
    pub half_normal_plot: Vec<EffectPoint>,
    /// Residuals against the cell means (replicated designs only).
    pub residuals: Vec<Residual>,
    pub residual_qq: Vec<QqPoint>,
}

impl TwoLevelAnalysis {
    /// The effects by decreasing share of the variation.
    pub fn ranked(&self) -> Vec<&Effect> {
        let mut v: Vec<&Effect> = self.effects.iter().collect();
        v.sort_by(|a, b| b.ss.total_cmp(&a.ss).then(a.term.len().cmp(&b.term.len())));
        v
    }

    /// The `n` largest contributors to the variation.
    pub fn top_contributors(&self, n: usize) -> Vec<&Effect> {
        let mut v = self.ranked();
        v.truncate(n);
        v
    }

    /// Whether an effect is distinguishable from noise: its CI excludes 0
    /// (replicated) or it exceeds Lenth's margin of error (unreplicated).
    pub fn is_significant(e: &Effect) -> Option<bool> {
        e.excludes_zero.or(e.lenth_active)
    }
}

/// A signed word over factor indices: bit `i` set when factor `i` takes part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    mask: u32,
    sign: i8,
}

fn symbols(mask: u32) -> String {
    (0..MAX_FACTORS as u32)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| (b'A' + i as u8) as char)
        .collect()
}

fn signed(w: Word) -> String {
    format!("{}{}", if w.sign < 0 { "-" } else { "" }, symbols(w.mask))
}

/// Shortest first, then lexicographic by the factors it holds.
fn word_order(a: u32, b: u32) -> std::cmp::Ordering {
    a.count_ones()
        .cmp(&b.count_ones())
        .then_with(|| symbols(a).cmp(&symbols(b)))
}

/// Analyses a two-level design (full or regular fraction, replicated or not).
pub fn analyze_two_level(ds: &Dataset, alpha: f64) -> Result<TwoLevelAnalysis> {
    check_alpha(alpha)?;
    let k = ds.factors.len();
    if k > MAX_FACTORS {
        return Err(AnalysisError::BadParameter(format!(
            "a two-level analysis takes at most {MAX_FACTORS} factors, got {k}"
        )));
    }
    for f in &ds.factors {
        if f.levels.len() != 2 {
            return Err(AnalysisError::NotTwoLevels {
                factor: f.name.clone(),
                count: f.levels.len(),
                levels: f.levels.join(", "),
            });
        }
    }
    let cells = ds.cells();
    let r = ds.replicates(&cells)?;
    let n = cells.len();
    // Cell bits: bit i set when factor i is at its high level.
    let bits: Vec<u32> = cells
        .iter()
        .map(|(lv, _)| lv.iter().enumerate().map(|(i, &l)| (l as u32) << i).sum())
        .collect();
    let means: Vec<f64> = cells
        .iter()
        .map(|(_, obs)| obs.iter().map(|&o| ds.observations[o].y).sum::<f64>() / r as f64)
        .collect();
    let sign = |cell_bits: u32, mask: u32| -> f64 {
        // Product of the factors in `mask`: -1 for each factor at its low level.
        if (!cell_bits & mask).count_ones() & 1 == 0 {
            1.0
        } else {
            -1.0
        }
    };

    let (basic, generators) = find_generators(ds, &cells, &bits)?;
    let m = basic.len();
    let basic_mask: u32 = basic.iter().map(|&b| 1u32 << b).sum();
    // The defining group: every product of generator words.
    let mut group = vec![Word { mask: 0, sign: 1 }];
    for g in &generators {
        let extra: Vec<Word> = group
            .iter()
            .map(|w| Word {
                mask: w.mask ^ g.mask,
                sign: w.sign * g.sign,
            })
            .collect();
        group.extend(extra);
    }

    // Effects: one per non-empty subset of the basic factors, in Yates order.
    let subsets: Vec<u32> = (1u32..(1 << m))
        .map(|s| {
            (0..m)
                .filter(|j| s & (1 << j) != 0)
                .map(|j| 1u32 << basic[j])
                .sum()
        })
        .collect();
    let mut effects = Vec::with_capacity(subsets.len());
    let mut columns: Vec<Vec<i8>> = Vec::with_capacity(subsets.len());
    let ss_factor = (n * r) as f64;
    for &s in &subsets {
        let col: Vec<f64> = bits.iter().map(|&b| sign(b, s)).collect();
        let q_col = col.iter().zip(&means).map(|(s, y)| s * y).sum::<f64>() / n as f64;
        let mut aliases: Vec<Word> = group
            .iter()
            .map(|g| Word {
                mask: s ^ g.mask,
                sign: g.sign,
            })
            .collect();
        aliases.sort_by(|a, b| word_order(a.mask, b.mask));
        let name = aliases[0];
        let q = name.sign as f64 * q_col;
        columns.push(col.iter().map(|&x| (x * name.sign as f64) as i8).collect());
        effects.push(Effect {
            term: symbols(name.mask),
            label: (0..k)
                .filter(|&i| name.mask & (1 << i) != 0)
                .map(|i| ds.factors[i].name.as_str())
                .collect::<Vec<_>>()
                .join(" × "),
            aliases: aliases[1..]
                .iter()
                .map(|a| {
                    signed(Word {
                        mask: a.mask,
                        sign: a.sign * name.sign,
                    })
                })
                .collect(),
            q,
            ss: ss_factor * q * q,
            percent: 0.0,
            ci: None,
            excludes_zero: None,
            lenth_active: None,
        });
    }
    let q0 = means.iter().sum::<f64>() / n as f64;
    let sse: f64 = cells
        .iter()
        .zip(&means)
        .map(|((_, obs), m)| {
            obs.iter()
                .map(|&o| (ds.observations[o].y - m).powi(2))
                .sum::<f64>()
        })
        .sum();
    let grand = ds.observations.iter().map(|o| o.y).sum::<f64>() / ds.observations.len() as f64;
    let sst: f64 = ds.observations.iter().map(|o| (o.y - grand).powi(2)).sum();
    let pct = |ss: f64| if sst > 0.0 { 100.0 * ss / sst } else { 0.0 };
    for e in &mut effects {
        e.percent = pct(e.ss);
    }

    let mut error = None;
    let mut q0_ci = None;
    let mut lenth = None;
    let mut residuals = Vec::new();
    if r >= 2 {
        let df = n * (r - 1);
        let s_e = (sse / df as f64).sqrt();
        let s_q = s_e / ((n * r) as f64).sqrt();
        let t = t_quantile(1.0 - alpha / 2.0, df as f64);
        for e in &mut effects {
            let ci = (e.q - t * s_q, e.q + t * s_q);
            e.ci = Some(ci);
            e.excludes_zero = Some(ci.0 > 0.0 || ci.1 < 0.0);
        }
        q0_ci = Some((q0 - t * s_q, q0 + t * s_q));
        error = Some(ErrorTerm {
            ss: sse,
            percent: pct(sse),
            df,
            s_e,
            s_q,
            t,
        });
        for ((_, obs), m) in cells.iter().zip(&means) {
            for &o in obs {
                let ob = &ds.observations[o];
                residuals.push(Residual {
                    line: ob.line,
                    predicted: *m,
                    residual: ob.y - m,
                });
            }
        }
        residuals.sort_by_key(|r| r.line);
    } else if effects.len() >= 3 {
        let l = lenth_pse(&effects.iter().map(|e| e.q).collect::<Vec<_>>(), alpha);
        for e in &mut effects {
            e.lenth_active = Some(e.q.abs() > l.me);
        }
        lenth = Some(l);
    }

    // Sign table rows in Yates order of the basic factors.
    let mut order: Vec<usize> = (0..n).collect();
    let yates = |b: u32| -> u32 {
        basic
            .iter()
            .enumerate()
            .map(|(j, &f)| ((b >> f) & 1) << j)
            .sum()
    };
    order.sort_by_key(|&i| yates(bits[i]));
    let sign_table = order
        .iter()
        .map(|&i| SignRow {
            levels: cells[i]
                .0
                .iter()
                .enumerate()
                .map(|(f, &l)| ds.factors[f].levels[l].clone())
                .collect(),
            signs: columns.iter().map(|c| c[i]).collect(),
            n: r,
            mean: means[i],
        })
        .collect();

    let mut by_q: Vec<&Effect> = effects.iter().collect();
    by_q.sort_by(|a, b| a.q.total_cmp(&b.q));
    let normal_plot = by_q
        .iter()
        .zip(normal_scores(by_q.len()))
        .map(|(e, z)| EffectPoint {
            term: e.term.clone(),
            value: e.q,
            z,
        })
        .collect();
    by_q.sort_by(|a, b| a.q.abs().total_cmp(&b.q.abs()));
    let half_normal_plot = by_q
        .iter()
        .zip(half_normal_scores(by_q.len()))
        .map(|(e, z)| EffectPoint {
            term: e.term.clone(),
            value: e.q.abs(),
            z,
        })
        .collect();

    let mut defining: Vec<Word> = group[1..].to_vec();
    defining.sort_by(|a, b| word_order(a.mask, b.mask));
    let residual_qq = qq_points(&residuals);
    Ok(TwoLevelAnalysis {
        response: ds.response_label(),
        transform: ds.transform,
        alpha,
        factors: ds
            .factors
            .iter()
            .enumerate()
            .map(|(i, f)| TwoLevelFactor {
                symbol: symbols(1 << i),
                name: f.name.clone(),
                low: f.levels[0].clone(),
                high: f.levels[1].clone(),
            })
            .collect(),
        k,
        p: k - m,
        runs: n,
        replicates: r,
        generators: generators
            .iter()
            .map(|g| {
                let body = signed(Word {
                    mask: g.mask & basic_mask,
                    sign: g.sign,
                });
                format!("{} = {body}", symbols(g.mask & !basic_mask))
            })
            .collect(),
        resolution: defining.iter().map(|w| w.mask.count_ones() as usize).min(),
        defining_relation: defining
            .iter()
            .map(|&w| format!("I = {}", signed(w)))
            .collect(),
        q0,
        q0_ci,
        effects,
        sst,
        error,
        lenth,
        sign_table,
        normal_plot,
        half_normal_plot,
        residuals,
        residual_qq,
    })
}

/// Splits the factors into basic factors (forming a full factorial among the
/// runs) and generators (a factor equal to a signed product of basic ones; the
/// returned word holds the basic factors and the generated one).
fn find_generators(
    ds: &Dataset,
    cells: &crate::dataset::Cells,
    bits: &[u32],
) -> Result<(Vec<usize>, Vec<Word>)> {
    let k = ds.factors.len();
    let n = cells.len();
    let mut basic: Vec<usize> = Vec::new();
    let mut generators = Vec::new();
    if n != 1 << k {
        for f in 0..k {
            let basic_mask: u32 = basic.iter().map(|&b| 1u32 << b).sum();
            // Is f a function of the basic factors?
            let mut map: HashMap<u32, u32> = HashMap::new();
            let determined = bits
                .iter()
                .all(|&b| *map.entry(b & basic_mask).or_insert(b >> f & 1) == b >> f & 1);
            if !determined {
                basic.push(f);
                continue;
            }
            let word = (1u32..(1 << basic.len())).find_map(|s| {
                let mask: u32 = (0..basic.len())
                    .filter(|j| s & (1 << j) != 0)
                    .map(|j| 1u32 << basic[j])
                    .sum::<u32>()
                    | (1 << f);
                // The product of the word's columns must be constant over the runs.
                let parity = |b: u32| (!b & mask).count_ones() & 1;
                let first = parity(bits[0]);
                bits.iter().all(|&b| parity(b) == first).then_some(Word {
                    mask,
                    sign: if first == 0 { 1 } else { -1 },
                })
            });
            match word {
                Some(w) => generators.push(w),
                None => {
                    return Err(AnalysisError::IrregularFraction {
                        runs: n,
                        k,
                        factor: ds.factors[f].name.clone(),
                        basic: basic
                            .iter()
                            .map(|&b| ds.factors[b].name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
                }
            }
        }
    } else {
        basic = (0..k).collect();
    }
    if n != 1 << basic.len() {
        // Some combination of the basic factors was never run: name the first.
        let basic_mask: u32 = basic.iter().map(|&b| 1u32 << b).sum();
        let seen: std::collections::HashSet<u32> = bits.iter().map(|b| b & basic_mask).collect();
        let missing = (0u32..(1 << basic.len()))
            .map(|s| {
                (0..basic.len())
                    .filter(|j| s & (1 << j) != 0)
                    .map(|j| 1u32 << basic[j])
                    .sum::<u32>()
            })
            .find(|c| !seen.contains(c))
            .unwrap_or(0);
        let cell = basic
            .iter()
            .map(|&b| {
                let f = &ds.factors[b];
                format!("{}={}", f.name, f.levels[(missing >> b & 1) as usize])
            })
            .collect::<Vec<_>>()
            .join(", ");
        let what = if basic.len() == k {
            format!("a full 2^{k} design needs all {} combinations", 1u32 << k)
        } else {
            format!(
                "the basic factors of a 2^({k}-{}) fraction must form a full factorial",
                k - basic.len()
            )
        };
        return Err(AnalysisError::MissingCell { cell, what });
    }
    Ok((basic, generators))
}

/// Lenth's pseudo standard error of a set of effects.
pub fn lenth_pse(effects: &[f64], alpha: f64) -> Lenth {
    let abs: Vec<f64> = effects.iter().map(|q| q.abs()).collect();
    let s0 = 1.5 * crate::summary::median(&abs);
    let trimmed: Vec<f64> = abs.iter().copied().filter(|&a| a < 2.5 * s0).collect();
    let pse = if trimmed.is_empty() {
        s0
    } else {
        1.5 * crate::summary::median(&trimmed)
    };
    let m = effects.len() as f64;
    let df = m / 3.0;
    let gamma = (1.0 + (1.0 - alpha).powf(1.0 / m)) / 2.0;
    Lenth {
        pse,
        df,
        me: t_quantile(1.0 - alpha / 2.0, df) * pse,
        sme: t_quantile(gamma, df) * pse,
    }
}
