//! The recommended configurations: for each combination of the grid's
//! parameters that are not costs (rate, name_len, placement...), the cheapest
//! point that meets the requirement with the stated confidence.
//!
//! Cost parameters (`--minimise threads,queue` by default) are compared in
//! order: fewest threads first, then the smallest queue. Levels compare as
//! numbers (or durations) when every level of the axis is one, else in grid order. A point
//! meets `--require P` (a probability or a value, `>= P` understood) when its
//! interval's lower bound is at least P; `--require '<= X'` asks the upper
//! bound to be at most X (a numeric property such as `latency_p99`). A method
//! without an interval (SPRT) is judged on its estimate. When no point of a
//! combination meets it, the best one is given (highest lower bound, or lowest
//! upper bound), marked as not meeting it.

use std::cmp::Ordering;

use ndnlab_model::dataplane::parse_duration_ns;
use serde::Serialize;

use super::grid::Grid;
use super::points::Row;
use ndnlab_model::dataplane::{Error, Result};

/// What a recommended point must meet.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Requirement {
    /// The interval's lower bound is at least this.
    AtLeast(f64),
    /// The interval's upper bound is at most this.
    AtMost(f64),
}

impl Requirement {
    /// Parses `--require`: `0.99`, `>=0.99` or `<=50000`.
    pub fn parse(text: &str) -> Result<Requirement> {
        let t = text.trim();
        let (make, n): (fn(f64) -> Requirement, &str) = if let Some(n) = t.strip_prefix("<=") {
            (Requirement::AtMost, n)
        } else if let Some(n) = t.strip_prefix(">=") {
            (Requirement::AtLeast, n)
        } else {
            (Requirement::AtLeast, t)
        };
        let v: f64 = n
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--require {text:?}: write a number (the lower bound to reach, e.g. 0.99) \
                 or '<= NUMBER' (the upper bound not to exceed)"
                ))
            })?;
        Ok(make(v))
    }

    /// The bound of `row` this requirement looks at.
    pub fn bound(&self, row: &Row) -> f64 {
        match (self, row.interval) {
            (Requirement::AtLeast(_), Some((lo, _, _))) => lo,
            (Requirement::AtMost(_), Some((_, hi, _))) => hi,
            (_, None) => row.estimate,
        }
    }

    /// Whether `row` meets it.
    pub fn met_by(&self, row: &Row) -> bool {
        let b = self.bound(row);
        match self {
            Requirement::AtLeast(t) => b >= *t,
            Requirement::AtMost(t) => b <= *t,
        }
    }

    /// `P >= 0.99` or `<= 50000`, for tables.
    pub fn describe(&self) -> String {
        match self {
            Requirement::AtLeast(t) => format!("lower bound >= {t}"),
            Requirement::AtMost(t) => format!("upper bound <= {t}"),
        }
    }

    /// Whether `a` is a better bound than `b` when none meets it.
    fn better(&self, a: f64, b: f64) -> bool {
        match self {
            Requirement::AtLeast(_) => a > b,
            Requirement::AtMost(_) => a < b,
        }
    }
}

/// The recommendation for one combination of the non-cost parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommendation {
    /// The combination: `(key, level)` of each non-cost grid parameter.
    pub group: Vec<(String, String)>,
    /// The chosen point's row (all its levels, estimate and interval).
    pub row: Row,
    /// Whether it meets the requirement; if not, it is the best there is.
    pub meets: bool,
    /// Points of the combination, and how many of them meet it.
    pub candidates: usize,
    pub meeting: usize,
}

/// A sort key for each level of an axis: its number (or duration, in ns) when
/// every level is one, else its position.
fn level_keys(levels: &[String]) -> Vec<f64> {
    let nums: Option<Vec<f64>> = levels
        .iter()
        .map(|l| l.parse::<f64>().ok().or_else(|| parse_duration_ns(l).ok()))
        .collect();
    nums.unwrap_or_else(|| (0..levels.len()).map(|i| i as f64).collect())
}

/// Recommends a point per combination of the non-cost grid parameters.
/// `minimise` lists the cost parameters, cheapest first; those not on the
/// grid are ignored. `rows` may come in any order.
pub fn recommend(
    grid: &Grid,
    rows: &[Row],
    minimise: &[String],
    require: Requirement,
) -> Vec<Recommendation> {
    let cost: Vec<usize> = minimise.iter().filter_map(|k| grid.axis(k)).collect();
    let group_axes: Vec<usize> = (0..grid.axes.len()).filter(|a| !cost.contains(a)).collect();
    let keys: Vec<Vec<f64>> = grid.axes.iter().map(|a| level_keys(&a.levels)).collect();
    let cost_of = |r: &Row| -> Vec<f64> {
        cost.iter()
            .map(|&a| {
                let i = grid.axes[a]
                    .levels
                    .iter()
                    .position(|l| *l == r.levels[a])
                    .expect("a row of this grid");
                keys[a][i]
            })
            .collect()
    };
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| r.point);
    // Combinations in order of first appearance (grid order).
    let mut groups: Vec<(Vec<String>, Vec<&Row>)> = Vec::new();
    for r in sorted {
        let g: Vec<String> = group_axes.iter().map(|&a| r.levels[a].clone()).collect();
        match groups.iter_mut().find(|(k, _)| *k == g) {
            Some((_, v)) => v.push(r),
            None => groups.push((g, vec![r])),
        }
    }
    groups
        .into_iter()
        .map(|(g, mut cands)| {
            cands.sort_by(|a, b| {
                cost_of(a)
                    .partial_cmp(&cost_of(b))
                    .unwrap_or(Ordering::Equal)
                    .then(a.point.cmp(&b.point))
            });
            let meeting = cands.iter().filter(|r| require.met_by(r)).count();
            let (row, meets) = match cands.iter().find(|r| require.met_by(r)) {
                Some(r) => (*r, true),
                None => {
                    let mut best = cands[0];
                    for r in &cands[1..] {
                        if require.better(require.bound(r), require.bound(best)) {
                            best = r;
                        }
                    }
                    (best, false)
                }
            };
            Recommendation {
                group: group_axes
                    .iter()
                    .zip(g)
                    .map(|(&a, l)| (grid.axes[a].key.clone(), l))
                    .collect(),
                row: row.clone(),
                meets,
                candidates: cands.len(),
                meeting,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::grid::parse_axis;

    fn grid() -> Grid {
        Grid {
            axes: vec![
                parse_axis("threads=1..3").unwrap(),
                parse_axis("queue=1024,128").unwrap(),
                parse_axis("rate=1e5,1e6").unwrap(),
            ],
        }
    }

    /// Meets 0.95 from `need` threads on, with any queue, at rate 1e5 only
    /// below `need`; at 1e6 never.
    fn rows() -> Vec<Row> {
        let g = grid();
        g.points()
            .into_iter()
            .map(|p| {
                let threads: f64 = p.levels[0].parse().unwrap();
                let lo = if p.levels[2] == "1e5" {
                    if threads >= 2.0 {
                        0.97
                    } else {
                        0.5
                    }
                } else {
                    0.1 * threads + if p.levels[1] == "128" { 0.01 } else { 0.0 }
                };
                Row {
                    point: p.index,
                    levels: p.levels,
                    runs: 150,
                    successes: Some(150),
                    estimate: lo + 0.02,
                    interval: Some((lo, lo + 0.04, 0.9)),
                    method: "clopper-pearson".into(),
                    means: vec![],
                }
            })
            .collect()
    }

    #[test]
    fn fewest_threads_then_smallest_queue_meeting_the_lower_bound() {
        let min = vec!["threads".to_string(), "queue".to_string()];
        let mut r = rows();
        r.reverse();
        let rec = recommend(&grid(), &r, &min, Requirement::parse("0.95").unwrap());
        assert_eq!(rec.len(), 2);
        assert_eq!(rec[0].group, [("rate".to_string(), "1e5".to_string())]);
        assert!(rec[0].meets);
        // Two threads; queue 128 is smaller than 1024 though listed second.
        assert_eq!(rec[0].row.levels, ["2", "128", "1e5"]);
        assert_eq!((rec[0].candidates, rec[0].meeting), (6, 4));
        // None meets at 1e6: the best lower bound (3 threads, queue 128).
        assert!(!rec[1].meets);
        assert_eq!(rec[1].row.levels, ["3", "128", "1e6"]);
    }

    #[test]
    fn upper_bounds_and_non_cost_queues() {
        let rec = recommend(
            &grid(),
            &rows(),
            &["threads".to_string()],
            Requirement::parse("<= 0.2").unwrap(),
        );
        // Queue is now a group parameter: 2 queues x 2 rates.
        assert_eq!(rec.len(), 4);
        assert_eq!(rec[1].group[1], ("rate".to_string(), "1e6".to_string()));
        assert_eq!(rec[1].row.levels, ["1", "1024", "1e6"]);
        assert!(rec[1].meets);
        assert!(!rec[2].meets);
        assert_eq!(level_keys(&["1us".into(), "700ns".into()]), [1000.0, 700.0]);
        assert_eq!(level_keys(&["P2".into(), "P1".into()]), [0.0, 1.0]);
        assert_eq!(
            Requirement::parse(">=0.9").unwrap(),
            Requirement::AtLeast(0.9)
        );
        assert!(Requirement::parse("high")
            .unwrap_err()
            .to_string()
            .contains("--require"));
    }
}
