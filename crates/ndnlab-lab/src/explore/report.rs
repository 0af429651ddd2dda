//! What a finished exploration writes besides `points.csv`: the figures
//! ([`super::plot`]) and `recommended.csv` ([`super::recommend`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::plot::{write_figures, Layout};
use super::recommend::{recommend, Recommendation, Requirement};
use super::Manifest;
use ndnlab_model::dataplane::{Error, Result};

/// How to present the results.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The x parameter of the figures (default: the first grid key).
    pub x: Option<String>,
    /// The series parameter (default: the second grid key; `none`).
    pub series: Option<String>,
    /// What a recommended point must meet.
    pub require: Requirement,
    /// The cost parameters, cheapest first.
    pub minimise: Vec<String>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            x: None,
            series: None,
            require: Requirement::AtLeast(0.99),
            minimise: vec!["threads".into(), "queue".into()],
        }
    }
}

impl ReportOptions {
    /// Checks the options against an exploration: the figure parameters
    /// must be on the grid, the cost parameters parameters of the model.
    pub fn check(&self, m: &Manifest) -> Result<Layout> {
        let params = m.model.parameters();
        for k in &self.minimise {
            if !params.contains(k) {
                return Err(Error::Usage(format!(
                    "--minimise {k}: not a parameter of this model; it has: {}",
                    params.join(", ")
                )));
            }
        }
        Layout::new(&m.grid, self.x.as_deref(), self.series.as_deref())
    }
}

/// What the report wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub recommendations: Vec<Recommendation>,
    pub figures: Vec<PathBuf>,
    pub recommended_csv: PathBuf,
}

/// The recommendations of a complete set of rows, with `dir` holding them.
pub fn write(
    dir: &Path,
    m: &Manifest,
    rows: &[super::Row],
    opts: &ReportOptions,
) -> Result<Written> {
    let layout = opts.check(m)?;
    let recs = recommend(&m.grid, rows, &opts.minimise, opts.require);
    let figures = write_figures(dir, &m.grid, rows, &layout, &m.property)?;
    let path = dir.join("recommended.csv");
    let mut w = csv::Writer::from_path(&path).map_err(|e| Error::File {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let mut header: Vec<String> = m.grid.keys();
    for c in [
        "meets",
        "estimate",
        "lo",
        "hi",
        "runs",
        "candidates",
        "meeting",
        "requirement",
    ] {
        header.push(c.into());
    }
    let mut rows_out = vec![header];
    for r in &recs {
        let mut rec = r.row.levels.clone();
        let (lo, hi) = match r.row.interval {
            Some((lo, hi, _)) => (lo.to_string(), hi.to_string()),
            None => (String::new(), String::new()),
        };
        rec.extend([
            if r.meets { "yes" } else { "no" }.to_string(),
            r.row.estimate.to_string(),
            lo,
            hi,
            r.row.runs.to_string(),
            r.candidates.to_string(),
            r.meeting.to_string(),
            opts.require.describe(),
        ]);
        rows_out.push(rec);
    }
    for rec in rows_out {
        w.write_record(&rec).map_err(|e| Error::File {
            path: path.clone(),
            message: e.to_string(),
        })?;
    }
    w.flush().map_err(|e| Error::File {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(Written {
        recommendations: recs,
        figures,
        recommended_csv: path,
    })
}
