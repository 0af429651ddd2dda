//! `ndnlab merge`: the output directories of a sharded campaign (`ndnlab run
//! --shard I/N --out dirI`, one per slice) joined into one, as a straight run
//! would have written it.
//!
//! Every slice must hold the same `experiment.toml` (the resolved experiment,
//! after `--set` and `--quick`); the run matrix comes from it, so the merged
//! rows carry the same ids, levels, replicates and seeds as an unsharded run. A
//! run found in two slices keeps its `ok` row; two `ok` rows for one run are
//! refused (the slices overlap). `samples/` and `logs/` are copied, file by
//! file; `machine.json` is the first slice's, and `merge.json` lists the slices
//! with their machines and runs. The report is written last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Serialize;
use serde_json::json;

use crate::design::{self, RunSpec};
use crate::experiment;
use crate::results::{self, RunRow};

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
/// results already).
pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<MergeSummary> {
    if dirs.is_empty() {
        bail!("name at least one directory to merge");
    }
    if out.join("results.csv").exists() {
        bail!(
            "{} already holds results; merge into a new or empty directory",
            out.display()
        );
    }
    // One experiment for every slice.
    let first = dirs[0].join("experiment.toml");
    let text = std::fs::read_to_string(&first)
        .with_context(|| format!("{}: not a campaign directory", dirs[0].display()))?;
    for d in &dirs[1..] {
        let path = d.join("experiment.toml");
        let other = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: not a campaign directory", d.display()))?;
        if other != text {
            bail!(
                "{} and {} hold different experiments; only slices of one campaign (same file, --set and --quick) can be merged",
                first.display(),
                path.display()
            );
        }
    }
    let (_, exp) = experiment::parse(&text, &first.display().to_string())?;
    let factors: Vec<String> = exp.factors.keys().cloned().collect();
    let runs = design::runs(&exp).map_err(anyhow::Error::msg)?;
    let by_id: BTreeMap<usize, &RunSpec> = runs.iter().map(|r| (r.id, r)).collect();

    // Rows by run id, ok over failed.
    let mut rows: BTreeMap<usize, (RunRow, usize)> = BTreeMap::new();
    let mut slices = Vec::new();
    for (k, d) in dirs.iter().enumerate() {
        let found = results::read(d, &factors)
            .with_context(|| format!("{}: reading results.csv", d.display()))?;
        if found.is_empty() && !d.join("results.csv").exists() {
            bail!("{}: no results.csv", d.display());
        }
        for (id, (status, metrics)) in found {
            let spec = by_id.get(&id).ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: run {id} is not a run of the experiment ({} runs)",
                    d.display(),
                    runs.len()
                )
            })?;
            let row = RunRow {
                spec: (*spec).clone(),
                status,
                metrics,
            };
            match rows.get(&id) {
                Some((prev, from)) if prev.status == "ok" && row.status == "ok" => bail!(
                    "run {id} finished in both {} and {}; the slices overlap",
                    dirs[*from].display(),
                    d.display()
                ),
                Some((prev, _)) if prev.status == "ok" => continue,
                _ => {
                    rows.insert(id, (row, k));
                }
            }
        }
        slices.push((d.clone(), 0));
    }
    // Rows each slice gave (a failed row replaced by another slice's ok one
    // counts for the latter).
    for (k, count) in slices.iter_mut().enumerate() {
        count.1 = rows.values().filter(|(_, from)| *from == k).count();
    }

    std::fs::create_dir_all(out.join("logs"))
        .with_context(|| format!("creating {}", out.display()))?;
    std::fs::write(out.join("experiment.toml"), &text)?;
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
    let merged: Vec<RunRow> = rows.into_values().map(|(r, _)| r).collect();
    results::write(out, &factors, &merged)?;
    std::fs::write(
        out.join("merge.json"),
        serde_json::to_string_pretty(&json!({
            "slices": slices.iter().zip(&machines).map(|((d, n), m)| json!({
                "dir": d,
                "runs": n,
                "machine": m,
            })).collect::<Vec<_>>(),
        }))? + "\n",
    )?;
    let missing: Vec<usize> = runs
        .iter()
        .map(|r| r.id)
        .filter(|id| !merged.iter().any(|r| r.spec.id == *id))
        .collect();
    let report = if merged.iter().any(|r| r.status == "ok") {
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
    let mut missing_sorted = missing;
    missing_sorted.sort_unstable();
    Ok(MergeSummary {
        out: out.to_path_buf(),
        expected: runs.len(),
        merged: merged.len(),
        failed: merged.iter().filter(|r| r.status == "failed").count(),
        skipped: merged.iter().filter(|r| r.status == "skipped").count(),
        missing: missing_sorted,
        slices,
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
