//! The laboratory's [`Store`]: a campaign's rows in `results.csv` and
//! `results.json` ([`crate::results`]), its manifest the resolved experiment
//! in `experiment.toml` (after `--set` and `--quick`), compared as text.
//!
//! A row is final when its run is `ok`: `--resume` runs the failed and
//! skipped runs again, and a merge takes an `ok` row over another slice's
//! failed one. A directory that holds results is started over without
//! `--resume`. Every finished run rewrites both results files, so a crash
//! loses at most the runs in progress.

use std::collections::BTreeMap;
use std::path::Path;

use super::engine::{write_atomic, Store};
use crate::design::RunSpec;
use crate::results::{self, RunRow};

/// The rows of one experiment's campaign.
pub struct Results<'a> {
    manifest: String,
    factors: &'a [String],
    /// Every run of the design, by id (all shards).
    runs: BTreeMap<usize, RunSpec>,
}

impl<'a> Results<'a> {
    /// The store of the experiment whose resolved text is `manifest`, with
    /// these factors and these runs (its whole design).
    pub fn new(manifest: String, factors: &'a [String], runs: Vec<RunSpec>) -> Results<'a> {
        Results {
            manifest,
            factors,
            runs: runs.into_iter().map(|r| (r.id, r)).collect(),
        }
    }
}

impl Store for Results<'_> {
    type Row = RunRow;

    fn manifest_file(&self) -> &'static str {
        "experiment.toml"
    }

    fn rows_file(&self) -> &'static str {
        "results.csv"
    }

    fn manifest(&self) -> String {
        self.manifest.clone()
    }

    fn differs(&self, text: &str, _path: &Path) -> anyhow::Result<Option<String>> {
        Ok((text != self.manifest)
            .then(|| "different experiments (the file, --set or --quick)".to_string()))
    }

    fn restart_without_resume(&self) -> bool {
        true
    }

    fn id(&self, row: &RunRow) -> usize {
        row.spec.id
    }

    fn finished(&self, row: &RunRow) -> bool {
        row.status == "ok"
    }

    fn ids(&self) -> Vec<usize> {
        self.runs.keys().copied().collect()
    }

    fn label(&self, id: usize) -> String {
        format!("run {id}")
    }

    fn noun(&self) -> &'static str {
        "run"
    }

    /// `machine.json`: the machine the campaign runs on.
    fn open(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomic(
            &dir.join("machine.json"),
            serde_json::to_string_pretty(&results::machine())? + "\n",
        )
    }

    fn read(&self, dir: &Path) -> anyhow::Result<Option<Vec<RunRow>>> {
        if !dir.join(self.rows_file()).exists() {
            return Ok(None);
        }
        let found = results::read(dir, self.factors)?;
        found
            .into_iter()
            .map(|(id, (status, metrics))| {
                let spec = self.runs.get(&id).ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}: run {id} is not a run of the experiment ({} runs)",
                        dir.join(self.rows_file()).display(),
                        self.runs.len()
                    )
                })?;
                Ok(RunRow {
                    spec: spec.clone(),
                    status,
                    metrics,
                })
            })
            .collect::<anyhow::Result<_>>()
            .map(Some)
    }

    fn append(&self, dir: &Path, _row: &RunRow, all: &[RunRow]) -> anyhow::Result<()> {
        results::write(dir, self.factors, all)
    }

    fn write(&self, dir: &Path, rows: &[RunRow]) -> anyhow::Result<()> {
        results::write(dir, self.factors, rows)
    }
}
