//! A campaign: every run of an experiment's design, on its runner, into one output
//! directory, resumable and shardable; then the report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::design::{self, RunSpec};
use crate::experiment::{self, Experiment};
use crate::results::{self, RunRow};
use crate::runner::{self, RunPlan};
use crate::LabError;

/// The experiment `ndnlab run` runs without a file: one consumer, one forwarder
/// and one producer, a 2^2 design with replications, well under a minute.
pub const DEFAULT_EXPERIMENT: &str = include_str!("default.toml");

/// How to run a campaign.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub out: PathBuf,
    /// Overrides `experiment.runner`.
    pub runner: Option<String>,
    /// Apply `[experiment.quick]`.
    pub quick: bool,
    /// Skip runs already `ok` in `out/results.csv`.
    pub resume: bool,
    /// `(i, n)`: only runs whose id is `i` modulo `n`.
    pub shard: Option<(usize, usize)>,
    /// `--set KEY=VALUE`, applied in order after `quick`.
    pub sets: Vec<(String, toml::Value)>,
    /// Stop at the first failed run.
    pub fail_fast: bool,
}

/// A loaded, checked experiment and its runs.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// The file it came from (`<built-in default>` without one).
    pub file: String,
    pub doc: toml::Value,
    pub exp: Experiment,
    /// Factor paths, in design order.
    pub factors: Vec<String>,
    pub runs: Vec<RunSpec>,
    /// The directory relative paths in the experiment (`topology.file`) start
    /// from: the experiment file's.
    pub base_dir: Option<PathBuf>,
}

/// Progress of a campaign, for a progress bar.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    /// A run starts (`done` of `total` finished so far).
    Start {
        run: &'a RunSpec,
        done: usize,
        total: usize,
    },
    /// A run finished.
    Done { run: &'a RunSpec, ok: bool },
}

/// What a campaign did.
#[derive(Debug, Clone)]
pub struct Summary {
    pub rows: Vec<RunRow>,
    pub skipped: usize,
    pub failed: usize,
    pub report: Option<PathBuf>,
}

impl Campaign {
    /// Loads `path` (or the built-in default), applies `--set` and `--quick`,
    /// checks every design point, and lists the runs of this shard.
    pub fn load(path: Option<&Path>, opts: &Options) -> Result<Campaign, LabError> {
        let (file, text) = match path {
            Some(p) => (
                p.display().to_string(),
                std::fs::read_to_string(p).map_err(|e| LabError::Io {
                    path: p.display().to_string(),
                    err: e.to_string(),
                })?,
            ),
            None => (
                "<built-in default>".to_string(),
                DEFAULT_EXPERIMENT.to_string(),
            ),
        };
        let (mut doc, exp) = experiment::parse(&text, &file)?;
        let invalid = |msg: String| LabError::Invalid {
            file: file.clone(),
            msg,
        };
        // --quick first, so that --set can still change what it scales down.
        let mut edits: Vec<(String, toml::Value)> = if opts.quick {
            exp.experiment.quick.clone().into_iter().collect()
        } else {
            Vec::new()
        };
        edits.extend(opts.sets.iter().cloned());
        if let Some(r) = &opts.runner {
            edits.push(("experiment.runner".into(), toml::Value::String(r.clone())));
        }
        for (k, v) in &edits {
            design::set_path(&mut doc, k, v.clone()).map_err(invalid)?;
        }
        let base_dir = experiment::base_dir_of(&file);
        let mut exp: Experiment = doc
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| invalid(e.message().to_string()))?;
        exp.topology.base_dir = base_dir.clone();
        exp.validate().map_err(invalid)?;
        let mut runs = design::runs(&exp).map_err(invalid)?;
        // Every point must make a valid experiment and topology before anything runs.
        let mut seen = std::collections::BTreeSet::new();
        for r in &runs {
            if seen.insert(r.point) {
                let e = point(&doc, &r.levels, &file, &base_dir).map_err(invalid)?;
                RunPlan::new(r.id, r.seed, e)
                    .map_err(|m| invalid(format!("with {}: {m}", design::describe(&r.levels))))?;
            }
        }
        if let Some((i, n)) = opts.shard {
            runs.retain(|r| r.id % n == i);
        }
        Ok(Campaign {
            file,
            factors: exp.factors.keys().cloned().collect(),
            doc,
            exp,
            runs,
            base_dir,
        })
    }

    /// The experiment of one design point.
    pub fn point(&self, levels: &design::Point) -> Result<Experiment, String> {
        point(&self.doc, levels, &self.file, &self.base_dir)
    }

    /// Runs every run into `opts.out`, calling `progress` around each; writes the
    /// results after each run (so a crash loses at most the run in progress) and
    /// the report at the end.
    pub fn run(
        &self,
        opts: &Options,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<Summary> {
        let out = &opts.out;
        std::fs::create_dir_all(out.join("logs"))?;
        let resolved = toml::to_string_pretty(&self.doc)?;
        let exp_path = out.join("experiment.toml");
        if opts.resume && exp_path.exists() {
            let before = std::fs::read_to_string(&exp_path)?;
            if before != resolved {
                anyhow::bail!(
                    "{}: --resume needs the same experiment as the one there (it differs)",
                    exp_path.display()
                );
            }
        }
        std::fs::write(&exp_path, &resolved)?;
        std::fs::write(
            out.join("machine.json"),
            serde_json::to_string_pretty(&results::machine())? + "\n",
        )?;
        let earlier = if opts.resume {
            results::read(out, &self.factors)?
        } else {
            BTreeMap::new()
        };
        let by_id: BTreeMap<usize, &RunSpec> = self.runs.iter().map(|r| (r.id, r)).collect();
        let mut rows: Vec<RunRow> = earlier
            .iter()
            .filter(|(id, (status, _))| status == "ok" && by_id.contains_key(id))
            .map(|(id, (status, m))| RunRow {
                spec: by_id[id].clone(),
                status: status.clone(),
                metrics: m.clone(),
            })
            .collect();
        let skipped = rows.len();
        let runner = runner::by_name(&self.exp.experiment.runner)?;
        let mut failed = 0;
        let total = self.runs.len();
        for run in &self.runs {
            if rows.iter().any(|r| r.spec.id == run.id) {
                continue;
            }
            progress(Progress::Start {
                run,
                done: rows.len(),
                total,
            });
            let outcome = self
                .point(&run.levels)
                .and_then(|e| RunPlan::new(run.id, run.seed, e))
                .map_err(anyhow::Error::msg)
                .and_then(|plan| runner.run(&plan, out))
                .map(|m| runner::select(m, &self.exp.experiment.metrics));
            // Ctrl-C: the run was interrupted, not failed; the teardown ends the process.
            crate::cleanup::halt_if_stopping();
            let row = match outcome {
                Ok(metrics) => RunRow {
                    spec: run.clone(),
                    status: "ok".into(),
                    metrics,
                },
                Err(e) => {
                    failed += 1;
                    std::fs::write(
                        out.join("logs").join(format!("{}.log", run.id)),
                        format!(
                            "run {} ({}): {e:#}\n",
                            run.id,
                            design::describe(&run.levels)
                        ),
                    )?;
                    RunRow {
                        spec: run.clone(),
                        status: "failed".into(),
                        metrics: Default::default(),
                    }
                }
            };
            let ok = row.status == "ok";
            rows.push(row);
            results::write(out, &self.factors, &rows)?;
            progress(Progress::Done { run, ok });
            if !ok && opts.fail_fast {
                anyhow::bail!(
                    "run {} failed (see {}); stopping (--fail-fast)",
                    run.id,
                    out.join("logs").join(format!("{}.log", run.id)).display()
                );
            }
        }
        results::write(out, &self.factors, &rows)?;
        let report = if rows.iter().any(|r| r.status == "ok") {
            Some(ndnlab_report::write_report(
                out,
                &ndnlab_report::ReportOptions {
                    factors: Some(self.factors.clone()).filter(|f| !f.is_empty()),
                    ..Default::default()
                },
            )?)
        } else {
            None
        };
        Ok(Summary {
            rows,
            skipped,
            failed,
            report,
        })
    }
}

/// [`design::apply`], with relative paths resolved against `base_dir`.
fn point(
    doc: &toml::Value,
    levels: &design::Point,
    file: &str,
    base_dir: &Option<PathBuf>,
) -> Result<Experiment, String> {
    let mut e = design::apply(doc, levels, file)?;
    e.topology.base_dir = base_dir.clone();
    Ok(e)
}

/// Means of each metric per design point, for the summary table: (levels,
/// runs that succeeded, metric → mean).
pub fn point_means(rows: &[RunRow]) -> Vec<(String, usize, BTreeMap<String, f64>)> {
    let mut by: BTreeMap<usize, (String, Vec<&RunRow>)> = BTreeMap::new();
    for r in rows {
        by.entry(r.spec.point)
            .or_insert_with(|| (design::describe(&r.spec.levels), Vec::new()))
            .1
            .push(r);
    }
    by.into_values()
        .map(|(label, rs)| {
            let ok: Vec<&&RunRow> = rs.iter().filter(|r| r.status == "ok").collect();
            let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
            for r in &ok {
                for (k, v) in &r.metrics {
                    let e = sums.entry(k.clone()).or_default();
                    e.0 += v;
                    e.1 += 1;
                }
            }
            let means = sums
                .into_iter()
                .map(|(k, (s, n))| (k, s / n as f64))
                .collect();
            (label, ok.len(), means)
        })
        .collect()
}
