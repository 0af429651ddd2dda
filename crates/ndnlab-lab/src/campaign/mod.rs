//! A campaign: every run of an experiment's design, on its runner, into one output
//! directory, resumable and shardable; then the report.
//!
//! [`engine`] is the campaign engine every campaign runs on (`ndnlab run`,
//! `ndnlab model explore`, `ndnlab model validate`): jobs with stable ids,
//! shards, the worker pool, resume and merge. Here the jobs are the runs of
//! the design and [`store::Results`] keeps their rows in `results.csv`.

pub mod engine;
pub mod store;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::design::{self, RunSpec};
use crate::experiment::{self, Experiment};
use crate::results::RunRow;
use crate::runner::{self, RunPlan, Runner};
use crate::LabError;
use engine::{Event, Job, Session};
use store::Results;

/// The experiment `ndnlab run` runs without a file: one consumer, one forwarder
/// and one producer, a 2^2 design with replications, well under a minute.
pub const DEFAULT_EXPERIMENT: &str = include_str!("../default.toml");

/// The key that makes the runner a factor: each design point runs on the
/// runner it names.
pub const RUNNER_KEY: &str = "experiment.runner";

/// How to run a campaign.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub out: PathBuf,
    /// Overrides `experiment.runner`; where the runner is a factor, keeps
    /// that runner's points only.
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
    /// Runs at once, for runners whose runs may share the machine
    /// ([`Runner::parallel_safe`]: the simulator); `None` = one per core.
    /// Other runners run one run at a time whatever this says.
    pub jobs: Option<usize>,
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
    /// A run finished: `ok`, or `skipped` (the runner cannot carry out its
    /// point), or neither (failed).
    Done {
        run: &'a RunSpec,
        ok: bool,
        skipped: bool,
    },
}

/// What a campaign did.
#[derive(Debug, Clone)]
pub struct Summary {
    pub rows: Vec<RunRow>,
    pub skipped: usize,
    pub failed: usize,
    /// Runs whose point the runner cannot carry out (status `skipped`).
    pub not_applicable: usize,
    pub report: Option<PathBuf>,
}

/// The error a runner returns for a design point it cannot carry out (a key
/// or level it refuses for that point only): the run's status is `skipped`,
/// not `failed`, and the campaign goes on (even with `--fail-fast`).
#[derive(Debug)]
pub struct NotApplicable(pub String);

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotApplicable {}

/// A [`NotApplicable`] error saying `why`.
pub fn not_applicable(why: impl Into<String>) -> anyhow::Error {
    NotApplicable(why.into()).into()
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
        if let Some(r) = &opts.runner {
            only_runner(&mut doc, r);
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
        runs.retain(|r| engine::in_shard(r.id, opts.shard));
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
        let runner: Box<dyn Runner> = match self.exp.factors.get(RUNNER_KEY) {
            Some(levels) => Box::new(runner::per_point::PerPoint::new(
                levels.iter().filter_map(|v| v.as_str()),
            )?),
            None => runner::by_name(&self.exp.experiment.runner)?,
        };
        self.run_on(runner.as_ref(), opts, progress)
    }

    /// [`Campaign::run`] on a given runner.
    pub fn run_on(
        &self,
        runner: &dyn Runner,
        opts: &Options,
        progress: &mut dyn FnMut(Progress),
    ) -> anyhow::Result<Summary> {
        let out = &opts.out;
        std::fs::create_dir_all(out.join("logs"))?;
        let design = design::runs(&self.exp).map_err(anyhow::Error::msg)?;
        let store = Results::new(toml::to_string_pretty(&self.doc)?, &self.factors, design);
        let ids: Vec<usize> = self.runs.iter().map(|r| r.id).collect();
        let session = Session::open(&store, Some(out), opts.resume, &ids)?;
        let jobs: Vec<RunJob> = self
            .runs
            .iter()
            .map(|run| RunJob {
                campaign: self,
                runner,
                run,
                out,
            })
            .collect();
        let jobs: Vec<&RunJob> = jobs.iter().collect();
        let workers = if runner.parallel_safe() {
            opts.jobs.unwrap_or_else(default_jobs).max(1)
        } else {
            1
        };
        let ran = session.run(&jobs, workers, &mut |e| match e {
            Event::Start { job, done, total } => {
                progress(Progress::Start {
                    run: job.run,
                    done,
                    total,
                });
                Ok(())
            }
            Event::Done { row, .. } => {
                let (ok, skipped) = (row.status == "ok", row.status == "skipped");
                progress(Progress::Done {
                    run: &row.spec,
                    ok,
                    skipped,
                });
                if !ok && !skipped && opts.fail_fast {
                    anyhow::bail!(
                        "run {} failed (see {}); stopping (--fail-fast)",
                        row.spec.id,
                        out.join("logs")
                            .join(format!("{}.log", row.spec.id))
                            .display()
                    );
                }
                Ok(())
            }
        })?;
        let rows = ran.rows;
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
        let count = |status: &str| rows.iter().filter(|r| r.status == status).count();
        Ok(Summary {
            skipped: ran.resumed,
            failed: count("failed"),
            not_applicable: count("skipped"),
            rows,
            report,
        })
    }
}

/// One run of a campaign, a job of the engine.
struct RunJob<'a> {
    campaign: &'a Campaign,
    runner: &'a dyn Runner,
    run: &'a RunSpec,
    out: &'a Path,
}

impl Job for RunJob<'_> {
    type Row = RunRow;

    fn id(&self) -> usize {
        self.run.id
    }

    /// The run's row: `ok`, `skipped` (a [`NotApplicable`] error) or
    /// `failed` (with the reason in `logs/<id>.log`).
    fn run(&self) -> anyhow::Result<RunRow> {
        let (c, run, out) = (self.campaign, self.run, self.out);
        let outcome = c
            .point(&run.levels)
            .and_then(|e| RunPlan::new(run.id, run.seed, e))
            .map_err(anyhow::Error::msg)
            .and_then(|plan| self.runner.run(&plan, out))
            .map(|m| runner::select(m, &c.exp.experiment.metrics));
        // Ctrl-C: the run was interrupted, not failed; the teardown ends the process.
        crate::cleanup::halt_if_stopping();
        Ok(match outcome {
            Ok(metrics) => RunRow {
                spec: run.clone(),
                status: "ok".into(),
                metrics,
            },
            Err(e) => {
                std::fs::write(
                    out.join("logs").join(format!("{}.log", run.id)),
                    format!(
                        "run {} ({}): {e:#}\n",
                        run.id,
                        design::describe(&run.levels)
                    ),
                )?;
                let skipped = e.chain().any(|c| c.is::<NotApplicable>());
                RunRow {
                    spec: run.clone(),
                    status: if skipped { "skipped" } else { "failed" }.into(),
                    metrics: Default::default(),
                }
            }
        })
    }
}

/// Worker threads by default: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--runner` on an experiment whose runner is a factor keeps the points of
/// that runner only: the factor is left with the one level.
fn only_runner(doc: &mut toml::Value, runner: &str) {
    let factors = doc.get_mut("factors").and_then(|f| f.as_table_mut());
    if let Some(levels) = factors.and_then(|f| f.get_mut(RUNNER_KEY)) {
        *levels = toml::Value::Array(vec![toml::Value::String(runner.to_string())]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Metrics;
    use std::sync::Mutex;

    /// A runner whose runs are pure functions of the plan, and which records
    /// the order runs started in.
    struct Pure {
        parallel: bool,
        started: Mutex<Vec<usize>>,
    }

    impl Runner for Pure {
        fn name(&self) -> &'static str {
            "pure"
        }
        fn run(&self, plan: &RunPlan, _dir: &Path) -> anyhow::Result<Metrics> {
            self.started.lock().unwrap().push(plan.run_id);
            if plan.seed % 7 == 3 {
                anyhow::bail!("run {} fails by design", plan.run_id);
            }
            // Some work, uneven across runs, so parallel runs finish out of order.
            let mut x = plan.seed;
            for _ in 0..(plan.run_id % 5) * 20_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            Ok([
                ("x".to_string(), (x % 1000) as f64),
                ("id".into(), plan.run_id as f64),
            ]
            .into_iter()
            .collect())
        }
        fn parallel_safe(&self) -> bool {
            self.parallel
        }
    }

    fn campaign() -> Campaign {
        let opts = Options {
            sets: vec![("experiment.repetitions".into(), toml::Value::Integer(6))],
            ..Options::default()
        };
        Campaign::load(None, &opts).unwrap()
    }

    fn run(
        c: &Campaign,
        parallel: bool,
        jobs: usize,
        out: &Path,
        resume: bool,
    ) -> (Summary, Vec<String>) {
        let r = Pure {
            parallel,
            started: Mutex::new(Vec::new()),
        };
        let opts = Options {
            out: out.to_path_buf(),
            jobs: Some(jobs),
            resume,
            ..Options::default()
        };
        let mut events = Vec::new();
        let s = c
            .run_on(&r, &opts, &mut |p| match p {
                Progress::Start { run, done, total } => {
                    assert!(done < total);
                    events.push(format!("start {}", run.id));
                }
                Progress::Done { run, ok, .. } => events.push(format!("done {} {ok}", run.id)),
            })
            .unwrap();
        (s, events)
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ndnlab-campaign-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn parallel_results_are_byte_identical_to_serial() {
        let c = campaign();
        assert!(c.runs.len() >= 8, "{} runs", c.runs.len());
        let (serial, parallel) = (tmp("serial"), tmp("parallel"));
        let (a, ev_a) = run(&c, false, 4, &serial, false);
        let (b, ev_b) = run(&c, true, 4, &parallel, false);
        let csv = |d: &Path| std::fs::read(d.join("results.csv")).unwrap();
        assert_eq!(csv(&serial), csv(&parallel));
        assert_eq!((a.failed, b.failed), (a.failed, a.failed));
        assert!(a.failed > 0);
        // Serial: start, done, start, done... in id order.
        let ids: Vec<usize> = c.runs.iter().map(|r| r.id).collect();
        let want: Vec<String> = ids
            .iter()
            .flat_map(|i| [format!("start {i}"), format!("done {i}")])
            .collect();
        let strip = |e: &[String]| -> Vec<String> {
            e.iter()
                .map(|s| {
                    s.trim_end_matches(" true")
                        .trim_end_matches(" false")
                        .to_string()
                })
                .collect()
        };
        assert_eq!(strip(&ev_a), want);
        // Parallel: every run started once and done once, done after start.
        for i in &ids {
            let s = ev_b
                .iter()
                .position(|e| *e == format!("start {i}"))
                .unwrap();
            let d = ev_b
                .iter()
                .position(|e| e.starts_with(&format!("done {i} ")))
                .unwrap();
            assert!(s < d);
        }
        assert_eq!(ev_b.len(), 2 * ids.len());
        let _ = std::fs::remove_dir_all(&serial);
        let _ = std::fs::remove_dir_all(&parallel);
    }

    #[test]
    fn a_runner_that_is_not_parallel_safe_runs_one_run_at_a_time() {
        // jobs = 4, but the runner says no: the serial order.
        let c = campaign();
        let d = tmp("forced");
        let r = Pure {
            parallel: false,
            started: Mutex::new(Vec::new()),
        };
        let opts = Options {
            out: d.clone(),
            jobs: Some(4),
            ..Options::default()
        };
        c.run_on(&r, &opts, &mut |_| {}).unwrap();
        let ids: Vec<usize> = c.runs.iter().map(|r| r.id).collect();
        assert_eq!(*r.started.lock().unwrap(), ids);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn parallel_resume_reruns_only_the_failed_runs() {
        let c = campaign();
        let d = tmp("resume");
        let (first, _) = run(&c, true, 3, &d, false);
        let before = std::fs::read(d.join("results.csv")).unwrap();
        let (again, events) = run(&c, true, 3, &d, true);
        assert_eq!(again.skipped, c.runs.len() - first.failed);
        assert_eq!(events.len(), 2 * first.failed);
        assert_eq!(std::fs::read(d.join("results.csv")).unwrap(), before);
        let _ = std::fs::remove_dir_all(&d);
    }
}
