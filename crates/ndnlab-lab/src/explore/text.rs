//! The text `ndnlab model explore` and `ndnlab model merge` print: the points
//! explored, the recommended configurations, and where the results are.

use std::fmt::Write as _;
use std::path::Path;

use ndnlab_report::text::{num, TextTable};

use super::points::KEPT;
use super::recommend::{Recommendation, Requirement};
use super::report::{ReportOptions, Written};
use super::{Grid, Manifest, Row};

/// The table of the points explored: each grid key's level, the runs, the
/// estimate and its interval, and the means of the kept observables.
pub fn rows(grid: &Grid, rows: &[Row]) -> String {
    let keys = grid.keys();
    let mut h: Vec<&str> = keys.iter().map(String::as_str).collect();
    h.extend([
        "runs",
        "estimate",
        "interval",
        "satisfaction",
        "p99 (ns)",
        "max queue",
    ]);
    let mut t = TextTable::new(&h, 0);
    let col = |k: &str| KEPT.iter().position(|x| *x == k).expect("kept");
    for r in rows {
        let mut cells = r.levels.clone();
        cells.push(r.runs.to_string());
        cells.push(num(r.estimate));
        cells.push(match r.interval {
            Some((lo, hi, c)) => format!("[{}, {}] {}%", num(lo), num(hi), num(c * 100.0)),
            None => "-".into(),
        });
        cells.push(num(r.means[col("satisfaction")]));
        cells.push(num(r.means[col("latency_p99")]));
        cells.push(num(r.means[col("max_queue")]));
        t.row(cells);
    }
    t.render()
}

/// The recommended configurations, and what to do when none meets the
/// requirement.
pub fn recommendations(m: &Manifest, recs: &[Recommendation], present: &ReportOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "recommended (fewest {}; {} of P[{}]):",
        present.minimise.join(", then smallest "),
        present.require.describe(),
        m.property
    );
    let keys = m.grid.keys();
    let mut h: Vec<&str> = keys.iter().map(String::as_str).collect();
    h.extend(["estimate", "interval", "meets", "meeting"]);
    let mut t = TextTable::new(&h, 0);
    for r in recs {
        let mut cells = r.row.levels.clone();
        cells.push(num(r.row.estimate));
        cells.push(match r.row.interval {
            Some((lo, hi, _)) => format!("[{}, {}]", num(lo), num(hi)),
            None => "-".into(),
        });
        cells.push(if r.meets { "yes" } else { "NO: the best" }.into());
        cells.push(format!("{}/{}", r.meeting, r.candidates));
        t.row(cells);
    }
    out.push_str(&t.render());
    if let (Requirement::AtLeast(req), Some(r)) = (present.require, recs.first()) {
        if let Some((_, _, c)) = r.row.interval {
            // The largest lower bound a point with every run successful reaches.
            let best = recs
                .iter()
                .filter_map(|r| r.row.interval.map(|i| i.0))
                .fold(f64::NEG_INFINITY, f64::max);
            if recs.iter().all(|r| !r.meets) && best < req {
                let _ = writeln!(
                    out,
                    "no point's lower bound reaches {req} at {}% confidence (the highest is {}): \
                     more runs narrow the interval (e.g. --method clopper-pearson --runs 300, or a smaller --delta)",
                    num(c * 100.0),
                    num(best)
                );
            }
        }
    }
    out
}

/// Where the results were written (`dir`, the output directory).
pub fn written(dir: Option<&Path>, w: Option<&Written>) -> String {
    let mut out = String::new();
    if let Some(dir) = dir {
        let _ = writeln!(out, "results: {}", dir.join("points.csv").display());
    }
    if let Some(w) = w {
        let _ = writeln!(
            out,
            "recommended: {}; {} figures (SVG and PNG) in {}",
            w.recommended_csv.display(),
            w.figures.len(),
            dir.map_or(String::new(), |d| d.display().to_string())
        );
    }
    out
}
