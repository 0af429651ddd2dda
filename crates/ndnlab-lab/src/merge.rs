//! `ndnlab merge`: the output directories of a sharded campaign (`ndnlab run
//! --shard I/N --out dirI`, one per slice) joined into one, as a straight run
//! would have written it.
//!
//! The rows are joined by the campaign engine's merge ([`engine::merge`]):
//! every slice must hold the same `experiment.toml` (the resolved experiment,
//! after `--set` and `--quick`); the run matrix comes from it, so the merged
//! rows carry the same ids, levels, replicates and seeds as an unsharded run. A
//! run found in two slices keeps its `ok` row; two `ok` rows for one run are
//! refused (the slices overlap). Runs no slice holds are listed in the
//! summary. `samples/` and `logs/` are copied, file by file; `machine.json` is
//! the first slice's, and `merge.json` lists the slices with their machines
//! and runs. The report is written last.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Serialize;
use serde_json::json;

use crate::campaign::engine;
use crate::campaign::store::Results;
use crate::design;
use crate::experiment;
use crate::results;

/// What a merge did.
#[derive(Debug, Clone, Serialize)]
pub struct MergeSummary {
    pub out: PathBuf,
    /// Runs of the experiment's design.
    pub expected: usize,
    /// Rows written (ok, failed or skipped).
    pub merged: usize,
    pub failed: usize,
    /// Rows of runs the runner could not carry out (status `skipped`).
    pub skipped: usize,
    /// Run ids of the design no slice holds.
    pub missing: Vec<usize>,
    /// Each slice and how many rows came from it.
    pub slices: Vec<(PathBuf, usize)>,
    pub report: Option<PathBuf>,
}

/// Merges the campaign directories `dirs` into `out` (which must not hold
/// results already), through the engine's merge ([`engine::merge`]).
pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<MergeSummary> {
    let Some(first) = dirs.first() else {
        bail!("name at least one directory to merge");
    };
    // The design comes from the first slice's experiment; the engine checks
    // that every slice holds the same.
    let path = first.join("experiment.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: not a campaign directory", first.display()))?;
    let (_, exp) = experiment::parse(&text, &path.display().to_string())?;
    let factors: Vec<String> = exp.factors.keys().cloned().collect();
    let runs = design::runs(&exp).map_err(anyhow::Error::msg)?;
    let expected = runs.len();
    let store = Results::new(text, &factors, runs);
    let merged = engine::merge(&store, dirs, out, false)?;
    std::fs::create_dir_all(out.join("logs"))
        .with_context(|| format!("creating {}", out.display()))?;
    let mut machines = Vec::new();
    for d in dirs {
        let m = std::fs::read_to_string(d.join("machine.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .unwrap_or(serde_json::Value::Null);
        machines.push(m);
    }
    let machine = match &machines[0] {
        serde_json::Value::Null => results::machine(),
        m => m.clone(),
    };
    std::fs::write(
        out.join("machine.json"),
        serde_json::to_string_pretty(&machine)? + "\n",
    )?;
    for d in dirs {
        for sub in ["samples", "logs"] {
            copy_tree(&d.join(sub), &out.join(sub))?;
        }
    }
    std::fs::write(
        out.join("merge.json"),
        serde_json::to_string_pretty(&json!({
            "slices": merged.slices.iter().zip(&machines).map(|((d, n), m)| json!({
                "dir": d,
                "runs": n,
                "machine": m,
            })).collect::<Vec<_>>(),
        }))? + "\n",
    )?;
    let rows = &merged.rows;
    let report = if rows.iter().any(|r| r.status == "ok") {
        Some(ndnlab_report::write_report(
            out,
            &ndnlab_report::ReportOptions {
                factors: Some(factors.clone()).filter(|f| !f.is_empty()),
                ..Default::default()
            },
        )?)
    } else {
        None
    };
    Ok(MergeSummary {
        out: out.to_path_buf(),
        expected,
        merged: rows.len(),
        failed: rows.iter().filter(|r| r.status == "failed").count(),
        skipped: rows.iter().filter(|r| r.status == "skipped").count(),
        missing: merged.missing,
        slices: merged.slices,
        report,
    })
}

/// Copies the files under `from` into `to`; a file already there with other
/// contents is an error (slices write disjoint files).
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    if !from.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&src, &dst)?;
        } else if dst.exists() {
            if std::fs::read(&src)? != std::fs::read(&dst)? {
                bail!(
                    "{} and an earlier slice's {} differ",
                    src.display(),
                    dst.display()
                );
            }
        } else {
            std::fs::copy(&src, &dst)
                .with_context(|| format!("copying {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}
