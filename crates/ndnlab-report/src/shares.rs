//! The allocation of variation of one metric among the experiment's factors
//! and their interactions (Jain ch. 17-18), with an interval for each share.
//!
//! The analysis is the one the report's factorial section makes: the two-level
//! analysis when every factor has two levels, else the full-factorial ANOVA.
//! Factors with a single level among the runs explain nothing and are left
//! out. Neither analysis gives an interval for a share, so the interval is a
//! percentile bootstrap over replications: each resample draws, in every
//! design cell, as many runs as the cell holds, with replacement, from that
//! cell's runs ([`BOOTSTRAP_RESAMPLES`] resamples from seed
//! [`BOOTSTRAP_SEED`]). Cells with a single run give no interval.

use rand::{Rng, SeedableRng};

use ndnlab_analysis::summary::percentile;
use ndnlab_analysis::{analyze_anova, analyze_two_level, Dataset, Table, Transform};

/// Resamples of the bootstrap interval of a share.
pub const BOOTSTRAP_RESAMPLES: usize = 200;
/// Seed of the bootstrap (fixed, so a report is reproducible).
pub const BOOTSTRAP_SEED: u64 = 34;

/// How the intervals of the shares were obtained, for tables.
pub fn interval_method(alpha: f64) -> String {
    format!(
        "{}% percentile bootstrap over replications ({BOOTSTRAP_RESAMPLES} resamples within design cells, seed {BOOTSTRAP_SEED})",
        100.0 * (1.0 - alpha)
    )
}

/// The share of one term (a factor or an interaction).
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    /// The factors of the term, in factor order.
    pub factors: Vec<String>,
    /// Other factor sets the term is confounded with (fractional designs).
    pub aliases: Vec<Vec<String>>,
    /// Percent of the total variation.
    pub percent: f64,
    /// Interval of `percent` (bootstrap), when cells have replications.
    pub interval: Option<(f64, f64)>,
}

impl Share {
    /// `a × b`.
    pub fn label(&self) -> String {
        self.factors.join(" × ")
    }

    /// Whether the term is the one of `effect` (any order), or is confounded with it.
    pub fn is(&self, effect: &[String]) -> bool {
        let same =
            |fs: &Vec<String>| fs.len() == effect.len() && effect.iter().all(|e| fs.contains(e));
        same(&self.factors) || self.aliases.iter().any(same)
    }
}

/// The allocation of variation of one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    pub metric: String,
    /// `two-level` or `ANOVA`.
    pub method: &'static str,
    /// The factors analysed (those with two levels or more).
    pub factors: Vec<String>,
    /// Every term, largest share first.
    pub shares: Vec<Share>,
    /// The share of the error (unexplained variation), when there is one.
    pub error: Option<f64>,
    pub error_interval: Option<(f64, f64)>,
}

struct Point {
    method: &'static str,
    terms: Vec<(Vec<String>, Vec<Vec<String>>, f64)>,
    error: Option<f64>,
}

fn analyse(ds: &Dataset, alpha: f64, two_level: bool) -> Result<Point, String> {
    if two_level {
        let a = analyze_two_level(ds, alpha).map_err(|e| e.to_string())?;
        let by_symbol = |w: &str| -> Vec<String> {
            w.trim_start_matches(['-', '+'])
                .chars()
                .filter_map(|c| {
                    a.factors
                        .iter()
                        .find(|f| f.symbol == c.to_string())
                        .map(|f| f.name.clone())
                })
                .collect()
        };
        let terms = a
            .effects
            .iter()
            .map(|e| {
                (
                    by_symbol(&e.term),
                    e.aliases.iter().map(|w| by_symbol(w)).collect(),
                    e.percent,
                )
            })
            .collect();
        return Ok(Point {
            method: "two-level",
            terms,
            error: a.error.map(|e| e.percent),
        });
    }
    let a = analyze_anova(ds, alpha).map_err(|e| e.to_string())?;
    let term = |source: &str, percent: f64| {
        (
            source.split(" × ").map(str::to_string).collect(),
            Vec::new(),
            percent,
        )
    };
    let mut terms: Vec<_> = a.rows.iter().map(|r| term(&r.source, r.percent)).collect();
    // One run per cell: the ANOVA takes the highest interaction as its error;
    // its share is still that term's, as the two-level analysis lists it.
    if let Some(highest) = &a.error_is_interaction {
        terms.push(term(highest, a.error.percent));
    }
    Ok(Point {
        method: "ANOVA",
        terms,
        error: (a.error.df > 0 && a.error_is_interaction.is_none()).then_some(a.error.percent),
    })
}

fn bounds(mut v: Vec<f64>, alpha: f64) -> Option<(f64, f64)> {
    if v.len() < 2 {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some((
        percentile(&v, 100.0 * alpha / 2.0),
        percentile(&v, 100.0 * (1.0 - alpha / 2.0)),
    ))
}

/// The allocation of variation of `metric` over the rows of `ok` among
/// `factors`; the message says why there is none.
pub fn allocate(
    ok: &Table,
    factors: &[String],
    metric: &str,
    alpha: f64,
) -> Result<Allocation, String> {
    let used: Vec<&str> = factors
        .iter()
        .filter(|f| {
            ok.text(f)
                .map(|c| ndnlab_analysis::levels::ordered_levels(&c).len() > 1)
                .unwrap_or(false)
        })
        .map(String::as_str)
        .collect();
    if used.is_empty() {
        return Err("no factor takes two levels or more".into());
    }
    let ds = Dataset::from_table(ok, &used, metric, Transform::None).map_err(|e| e.to_string())?;
    let ys: Vec<f64> = ds.observations.iter().map(|o| o.y).collect();
    if ys.iter().all(|&y| y == ys[0]) {
        return Err(format!("{metric} is the same in every run"));
    }
    let two_level = ds.factors.iter().all(|f| f.levels.len() == 2);
    let point = match analyse(&ds, alpha, two_level) {
        Ok(p) => p,
        Err(_) if two_level => analyse(&ds, alpha, false)?,
        Err(e) => return Err(e),
    };
    let two_level = point.method == "two-level";
    // The bootstrap, when every cell has at least two runs.
    let cells = ds.cells();
    let replicated = cells.iter().all(|(_, obs)| obs.len() >= 2);
    let mut draws: Vec<Vec<f64>> = vec![Vec::new(); point.terms.len()];
    let mut error_draws = Vec::new();
    if replicated {
        let mut rng = rand::rngs::StdRng::seed_from_u64(BOOTSTRAP_SEED);
        for _ in 0..BOOTSTRAP_RESAMPLES {
            let mut r = ds.clone();
            r.observations.clear();
            for (_, obs) in &cells {
                for _ in 0..obs.len() {
                    r.observations
                        .push(ds.observations[obs[rng.gen_range(0..obs.len())]].clone());
                }
            }
            let Ok(p) = analyse(&r, alpha, two_level) else {
                continue;
            };
            for (i, t) in point.terms.iter().enumerate() {
                if let Some(q) = p.terms.iter().find(|q| q.0 == t.0) {
                    draws[i].push(q.2);
                }
            }
            if let Some(e) = p.error {
                error_draws.push(e);
            }
        }
    }
    let mut shares: Vec<Share> = point
        .terms
        .into_iter()
        .zip(draws)
        .map(|((factors, aliases, percent), d)| Share {
            factors,
            aliases,
            percent,
            interval: bounds(d, alpha),
        })
        .collect();
    shares.sort_by(|a, b| b.percent.total_cmp(&a.percent));
    Ok(Allocation {
        metric: metric.to_string(),
        method: point.method,
        factors: used.iter().map(|s| s.to_string()).collect(),
        shares,
        error: point.error,
        error_interval: if point.error.is_some() {
            bounds(error_draws, alpha)
        } else {
            None
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[(&str, &str, f64)]) -> Table {
        let mut csv = String::from("a,b,y\n");
        for (a, b, y) in rows {
            csv += &format!("{a},{b},{y}\n");
        }
        Table::from_csv_str(&csv).unwrap()
    }

    #[test]
    fn a_factor_alone_takes_the_variation_and_the_bootstrap_is_repeatable() {
        // y depends on a only (10 vs 20), plus a little noise.
        let t = table(&[
            ("1", "x", 10.0),
            ("1", "x", 10.2),
            ("1", "y", 9.9),
            ("1", "y", 10.1),
            ("2", "x", 20.0),
            ("2", "x", 20.1),
            ("2", "y", 19.8),
            ("2", "y", 20.2),
        ]);
        let f = vec!["a".to_string(), "b".to_string()];
        let al = allocate(&t, &f, "y", 0.05).unwrap();
        assert_eq!(al.method, "two-level");
        assert!(al.shares[0].is(&["a".to_string()]));
        assert!(al.shares[0].percent > 99.0, "{al:?}");
        let (lo, hi) = al.shares[0].interval.unwrap();
        assert!(lo <= al.shares[0].percent + 1e-9 && hi >= lo && hi <= 100.0);
        assert_eq!(al, allocate(&t, &f, "y", 0.05).unwrap());
    }

    #[test]
    fn single_runs_give_no_interval_and_single_levels_are_left_out() {
        let t = table(&[
            ("1", "x", 1.0),
            ("2", "x", 2.0),
            ("3", "x", 4.0),
            ("4", "x", 8.0),
            ("1", "y", 1.5),
            ("2", "y", 2.5),
            ("3", "y", 4.5),
            ("4", "y", 8.5),
        ]);
        let f = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let al = allocate(&t, &f, "y", 0.05).unwrap();
        assert_eq!(al.method, "ANOVA");
        assert_eq!(al.factors, ["a", "b"]);
        assert!(al.shares[0].is(&["a".to_string()]));
        assert!(al.shares[0].interval.is_none());
        let highest = al.shares.iter().find(|s| s.factors == ["a", "b"]).unwrap();
        assert!(highest.percent < 1.0, "{al:?}");
        let total: f64 = al.shares.iter().map(|s| s.percent).sum();
        assert!((total - 100.0).abs() < 1e-9, "{al:?}");
        assert_eq!(al.error, None);
        let flat = table(&[("1", "x", 1.0), ("2", "x", 1.0)]);
        assert!(allocate(&flat, &f, "y", 0.05)
            .unwrap_err()
            .contains("same in every run"));
    }

    #[test]
    fn one_run_per_cell_lists_the_highest_interaction_and_sums_to_100() {
        // a (3 levels) × b (2 levels), one run per cell, b matters only at a = 3.
        let t = table(&[
            ("1", "x", 1.0),
            ("2", "x", 2.0),
            ("3", "x", 3.0),
            ("1", "y", 1.0),
            ("2", "y", 2.0),
            ("3", "y", 9.0),
        ]);
        let f = vec!["a".to_string(), "b".to_string()];
        let al = allocate(&t, &f, "y", 0.05).unwrap();
        assert_eq!(al.method, "ANOVA");
        let ab = al.shares.iter().find(|s| s.is(&f)).unwrap();
        // Grand mean 3: SST = 46, SS(a) = 28, SS(b) = 6, so SS(a × b) = 12.
        assert!((ab.percent - 1200.0 / 46.0).abs() < 1e-9, "{al:?}");
        let total: f64 = al.shares.iter().map(|s| s.percent).sum();
        assert!((total - 100.0).abs() < 1e-9, "{al:?}");
        // One factor swept once per level leaves no error to analyse against.
        let one = table(&[("1", "x", 1.0), ("2", "x", 2.0), ("3", "x", 4.0)]);
        assert!(allocate(&one, &f, "y", 0.05)
            .unwrap_err()
            .contains("replicates"));
    }
}
