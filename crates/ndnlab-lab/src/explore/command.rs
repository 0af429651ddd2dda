//! `ndnlab model explore` and `ndnlab model merge` as the binary calls them:
//! the exploration run ([`super::run`]) or merged ([`super::merge`]), the
//! report once every point is there ([`super::report`]), and what is printed,
//! as text ([`super::text`]) or JSON.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::merge::{merge, Merged};
use super::recommend::{recommend, Recommendation};
use super::report::{write, ReportOptions, Written};
use super::run::{explore, Options, Ran};
use super::{text, Manifest};
use ndnlab_model::dataplane::{Error, Result};

/// An exploration run, and its report when the grid is complete.
pub struct Explored<'a> {
    pub manifest: &'a Manifest,
    pub ran: Ran,
    /// The report in the exploration directory (complete, with `--out`).
    pub written: Option<Written>,
    /// The recommendations (complete only).
    pub recommendations: Vec<Recommendation>,
    pub shard: Option<(usize, usize)>,
    pub threads: usize,
    pub out: Option<PathBuf>,
}

/// Runs the exploration `m` ([`explore`]) with `present` checked first, then
/// writes its report into `opts.out` once every point is there.
pub fn run<'a>(
    m: &'a Manifest,
    opts: &Options,
    present: &ReportOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Explored<'a>> {
    present.check(m)?;
    if opts.resume && opts.out.is_none() {
        return Err(Error::Usage(
            "--resume carries on with --out DIR's points.csv: give --out".into(),
        ));
    }
    let ran = explore(m, opts, progress)?;
    let written = match (opts.out, ran.complete) {
        (Some(dir), true) => Some(write(dir, m, &ran.rows, present)?),
        _ => None,
    };
    let recommendations = match &written {
        Some(w) => w.recommendations.clone(),
        None if ran.complete => recommend(&m.grid, &ran.rows, &present.minimise, present.require),
        None => Vec::new(),
    };
    Ok(Explored {
        manifest: m,
        ran,
        written,
        recommendations,
        shard: opts.shard,
        threads: opts.threads,
        out: opts.out.map(Path::to_path_buf),
    })
}

impl Explored<'_> {
    /// `ndnlab model explore --json`.
    pub fn json(&self) -> serde_json::Value {
        let (m, ran) = (self.manifest, &self.ran);
        json!({
            "model": m.model_file, "property": m.property, "smc": m.smc,
            "seed": m.seed, "grid": m.grid, "shard": self.shard,
            "points": ran.points, "checked": ran.checked, "skipped": ran.skipped,
            "runs": ran.runs, "wall_s": ran.wall_s, "threads": self.threads,
            "rows": ran.rows, "recommendations": self.recommendations,
            "figures": self.written.as_ref().map(|w| &w.figures),
        })
    }

    /// `ndnlab model explore`'s text: the points, the counts, the
    /// recommendations (complete) and the files written.
    pub fn text(&self, present: &ReportOptions) -> String {
        let (m, ran) = (self.manifest, &self.ran);
        let mut s = format!(
            "{} ({}): P[{}] by {} over {} points{}\n",
            m.model_file,
            m.model.name,
            m.property,
            m.smc.method,
            m.grid.len(),
            match self.shard {
                Some((i, n)) => format!(", shard {i}/{n}: {} points", ran.points),
                None => String::new(),
            }
        );
        s += &text::rows(&m.grid, &ran.rows);
        s += &format!(
            "{} points checked ({} runs) in {:.1} s on {} threads; {} found done\n",
            ran.checked, ran.runs, ran.wall_s, self.threads, ran.skipped
        );
        if ran.complete {
            s += &text::recommendations(m, &self.recommendations, present);
        } else if self.shard.is_some() {
            s += "a shard: join the slices with `ndnlab model merge DIR... --out DIR` for the figures and recommendations\n";
        }
        s + &text::written(self.out.as_deref(), self.written.as_ref())
    }
}

/// Merges the slices `dirs` into `out` ([`merge`]) and writes the report.
pub fn merge_and_report(
    dirs: &[PathBuf],
    out: &Path,
    present: &ReportOptions,
) -> Result<(Merged, Written)> {
    let merged = merge(dirs, out)?;
    let w = write(out, &merged.manifest, &merged.rows, present)?;
    Ok((merged, w))
}

/// `ndnlab model merge --json`.
pub fn merged_json(merged: &Merged, w: &Written) -> serde_json::Value {
    json!({
        "out": merged.out, "slices": merged.slices, "manifest": merged.manifest,
        "rows": merged.rows, "recommendations": w.recommendations, "figures": w.figures,
    })
}

/// `ndnlab model merge`'s text: each slice's points, the points, the
/// recommendations and the files written.
pub fn merged_text(merged: &Merged, w: &Written, present: &ReportOptions) -> String {
    let mut s = String::new();
    for (dir, n) in &merged.slices {
        s += &format!("{}: {n} points\n", dir.display());
    }
    s += &format!(
        "{} points of P[{}] merged into {}\n",
        merged.rows.len(),
        merged.manifest.property,
        merged.out.display()
    );
    s += &text::rows(&merged.manifest.grid, &merged.rows);
    s += &text::recommendations(&merged.manifest, &w.recommendations, present);
    s + &text::written(Some(&merged.out), Some(w))
}
