//! Validation of a data-plane model (`ndnlab-dataplane/1`) against the real
//! forwarder: every point of an experiment's design runs through the
//! laboratory, then through the model with the same parameters, and the two
//! are set side by side (`ndnlab model validate`, docs/model.md).
//!
//! The mapping from the experiment's factors to the model's parameters is
//! [`FACTORS`]; an experiment with another factor is refused before anything
//! runs. The model gets the rate the consumer *really* sent in the
//! measurement window (the consumer shares the cores with the forwarder and
//! falls behind its nominal rate under load), the lab consumer's sending
//! granularity ([`CONSUMER_TICK_NS`]) as bursts, and the run's length and
//! warm-up in Interests. With one forwarding thread the model's queue is
//! unbounded whatever `forwarder.queue_capacity` says: `ndnlab fwd` runs a
//! single shard inline on its face readers, without a queue.
//!
//! Per configuration the report gives the satisfaction ratio and the delivery
//! time percentiles p50/p90/p99 measured and predicted, the model's errors
//! ([`errors`]: absolute for the ratio, relative for the latencies) and the
//! metrics whose error is outside the [`Tolerance`] ([`verdict`]). Both are
//! pure functions of the two rows; [`compare`] runs the model beside a table
//! of measurements, however they were obtained, and [`validate`] measures
//! that table with the laboratory first. Both halves run on the campaign
//! engine (`crate::campaign::engine`): the lab's runs as an `ndnlab run`
//! campaign into `measured/`, the model's configurations as jobs of the
//! engine's pool.

mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndnlab_analysis::summary::percentile;
use ndnlab_model::dataplane::runs::{run_seed, runs, summarize};
use ndnlab_model::dataplane::ModelSpec;
use ndnlab_report::figure::render;
use ndnlab_report::plots::{Legend, Lines};
use serde::Serialize;

use crate::campaign::engine::{self, Job, Msg};
use crate::campaign::{self, Campaign, Progress};
use crate::design::{show, Point};
use crate::LabError;

/// Experiment factor → model parameter ([`ModelSpec::set`]).
pub const FACTORS: &[(&str, &str)] = &[
    ("forwarder.threads", "threads"),
    ("forwarder.queue_capacity", "queue"),
    ("apps.client.rate", "rate"),
    ("apps.client.name_components", "name_len"),
];

/// The lab consumer (`apps::consume`) waits at least 50 µs between two looks at
/// its clock, so above 20 000 Interests/s it sends bursts of `rate × 50 µs`
/// Interests back to back rather than one at a time.
pub const CONSUMER_TICK_NS: f64 = 50_000.0;

/// The most Interests one model run simulates (long enough for the
/// percentiles, short enough for the whole grid to take seconds).
pub const MAX_MODEL_INTERESTS: f64 = 200_000.0;

/// How to validate.
#[derive(Debug, Clone)]
pub struct Options {
    /// The experiment whose design is the grid.
    pub experiment: PathBuf,
    /// The output directory: `measured/` (the lab's campaign), `validation.csv`,
    /// `validation.json`, the figures.
    pub out: PathBuf,
    /// Apply the experiment's `[experiment.quick]`.
    pub quick: bool,
    /// `--set KEY=VALUE` on the experiment.
    pub sets: Vec<(String, toml::Value)>,
    /// Model runs per configuration.
    pub model_runs: u64,
    /// The model campaign's seed.
    pub seed: u64,
    /// Threads for the model runs.
    pub threads: usize,
    /// The errors a configuration may show and pass.
    pub tolerance: Tolerance,
}

/// The largest errors a model may make on one configuration and pass: the
/// satisfaction ratio's absolute error (model - measured), and for each
/// delivery-time percentile the range `(low, high)` its relative error
/// (model - measured) / measured must lie in, bounds included. `(-0.5, 1.0)`
/// is "within a factor of 2 either way"; a low bound of -1 is no bound below
/// (a model's delivery time is never negative).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tolerance {
    pub satisfaction: f64,
    pub p50: (f64, f64),
    pub p90: (f64, f64),
    pub p99: (f64, f64),
}

impl Default for Tolerance {
    /// Satisfaction within 0.02, every latency percentile within a factor of 2.
    fn default() -> Tolerance {
        Tolerance {
            satisfaction: 0.02,
            p50: (-0.5, 1.0),
            p90: (-0.5, 1.0),
            p99: (-0.5, 1.0),
        }
    }
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let range = |(lo, hi): (f64, f64)| {
            if lo <= -1.0 {
                format!("<= {:+.0}%", hi * 100.0)
            } else {
                format!("{:+.0}%..{:+.0}%", lo * 100.0, hi * 100.0)
            }
        };
        write!(
            f,
            "satisfaction ±{}, p50 {}, p90 {}, p99 {}",
            self.satisfaction,
            range(self.p50),
            range(self.p90),
            range(self.p99)
        )
    }
}

/// A metric whose error is outside its tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    /// `satisfaction`, `p50`, `p90` or `p99`.
    pub metric: &'static str,
    /// The error ([`Errors`]); NaN when a side has no value (no Data).
    pub error: f64,
    /// The range it had to lie in.
    pub allowed: (f64, f64),
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (lo, hi) = self.allowed;
        if self.error.is_nan() {
            write!(f, "{} not comparable (a side without Data)", self.metric)
        } else if self.metric == "satisfaction" {
            write!(f, "satisfaction {:+.4} (allowed ±{hi})", self.error)
        } else {
            write!(
                f,
                "{} {:+.0}% (allowed {:+.0}%..{:+.0}%)",
                self.metric,
                self.error * 100.0,
                lo * 100.0,
                hi * 100.0
            )
        }
    }
}

/// What the laboratory measured in one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// Interests the consumer sent per second of the window.
    pub sent_rate: f64,
    pub satisfaction: f64,
    /// Delivery time percentiles, µs (NaN without Data).
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
}

/// What the model predicts for the same configuration (means over its runs;
/// the percentiles NaN when none of its runs delivered Data).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Predicted {
    pub satisfaction: f64,
    /// Half-width of the 95% interval of the mean satisfaction over the runs.
    pub satisfaction_ci95: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    /// The busiest forwarding thread's busy fraction.
    pub utilization: f64,
}

/// The model's errors: model minus measured, absolute for the satisfaction
/// ratio, relative (a fraction of the measured value) for the latencies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Errors {
    pub satisfaction: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

/// One configuration as measured: the row a model is compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub run_id: usize,
    /// The experiment's factor levels.
    pub levels: Point,
    pub measured: Measured,
}

/// One configuration, measured and modelled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub run_id: usize,
    /// The experiment's factor levels, as written.
    pub levels: BTreeMap<String, String>,
    /// The same levels as values.
    #[serde(skip)]
    pub point: Point,
    /// The model parameters set for this row (measured rate included).
    pub params: BTreeMap<String, String>,
    pub measured: Measured,
    pub model: Predicted,
    pub errors: Errors,
    /// The metrics outside the tolerance, in [`METRICS`] order; empty when the
    /// model passes on this configuration.
    pub outside: Vec<Miss>,
}

/// The metrics a validation compares, in the order [`verdict`] names them.
pub const METRICS: &[&str] = &["satisfaction", "p50", "p90", "p99"];

/// A whole validation.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub model: PathBuf,
    pub experiment: PathBuf,
    pub cpu_model: String,
    pub model_runs: u64,
    pub seed: u64,
    /// The measurement window: warm-up and duration, seconds.
    pub warmup_s: f64,
    pub duration_s: f64,
    pub tolerance: Tolerance,
    pub rows: Vec<Row>,
    /// Lab runs that failed (their logs are under `measured/logs/`).
    pub failed: Vec<usize>,
    /// Means of the absolute errors over the rows.
    pub mean_abs: Errors,
    /// Medians of the absolute errors over the rows.
    pub median_abs: Errors,
}

/// Progress of a validation, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// A lab run finished (`done` of `total`).
    Lab { done: usize, total: usize },
    /// A configuration's model runs finished.
    Model { done: usize, total: usize },
}

/// The model parameter of an experiment factor, or an error naming it.
pub fn parameter_of(factor: &str) -> Result<&'static str, String> {
    FACTORS
        .iter()
        .find(|(f, _)| *f == factor)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            format!(
                "factor {factor:?} has no model parameter; validation maps {}",
                FACTORS
                    .iter()
                    .map(|(f, p)| format!("{f} -> {p}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The model parameters of a design point: `(parameter, value)` per factor.
pub fn parameters(levels: &Point) -> Result<Vec<(String, String)>, String> {
    levels
        .iter()
        .map(|(f, v)| Ok((parameter_of(f)?.to_string(), show(v))))
        .collect()
}

/// The model configured for one run: the point's parameters, the rate the
/// consumer really sent, its bursts, and the run's length in Interests.
pub fn configure(
    base: &ModelSpec,
    levels: &Point,
    sent_rate: f64,
    warmup_s: f64,
    duration_s: f64,
) -> ndnlab_model::dataplane::Result<(ModelSpec, BTreeMap<String, String>)> {
    let mut m = base.clone();
    let mut params = BTreeMap::new();
    let ps = parameters(levels).map_err(ndnlab_model::dataplane::Error::Usage)?;
    for (k, v) in ps {
        m.set(&k, &v)?;
        params.insert(k, v);
    }
    // ndnlab fwd runs a lone shard inline on its readers: no shard queue, the
    // reader waits for the shard's lock, nothing is dropped.
    if m.forwarder.threads == 1 {
        m.set("queue", "0")?;
        params.insert("queue".into(), "0".into());
    }
    let rate = sent_rate.max(1.0);
    m.set("rate", &format!("{rate}"))?;
    params.insert("rate".into(), format!("{rate:.0}"));
    let burst = (rate * CONSUMER_TICK_NS / 1e9).round().max(1.0) as u32;
    if burst > 1 {
        m.set("pattern", "burst")?;
        m.set("burst", &burst.to_string())?;
        params.insert("burst".into(), burst.to_string());
    }
    let total = (rate * (warmup_s + duration_s)).clamp(100.0, MAX_MODEL_INTERESTS);
    let warmup = (total * warmup_s / (warmup_s + duration_s)).floor();
    m.set("warmup", "0")?; // first: the file's warm-up may exceed the new length
    m.set("interests", &format!("{}", total as u32))?;
    m.set("warmup", &format!("{}", warmup as u32))?;
    Ok((m, params))
}

/// The model's errors against the measurement.
pub fn errors(measured: &Measured, model: &Predicted) -> Errors {
    let rel = |m: f64, p: f64| (p - m) / m;
    Errors {
        satisfaction: model.satisfaction - measured.satisfaction,
        p50: rel(measured.p50_us, model.p50_us),
        p90: rel(measured.p90_us, model.p90_us),
        p99: rel(measured.p99_us, model.p99_us),
    }
}

/// The metrics whose error is outside `tolerance`, in [`METRICS`] order. A
/// NaN error (a side without Data) is outside: nothing was compared.
pub fn verdict(errors: &Errors, tolerance: &Tolerance) -> Vec<Miss> {
    let s = tolerance.satisfaction;
    [
        ("satisfaction", errors.satisfaction, (-s, s)),
        ("p50", errors.p50, tolerance.p50),
        ("p90", errors.p90, tolerance.p90),
        ("p99", errors.p99, tolerance.p99),
    ]
    .into_iter()
    .filter(|&(_, e, (lo, hi))| !(lo <= e && e <= hi))
    .map(|(metric, error, allowed)| Miss {
        metric,
        error,
        allowed,
    })
    .collect()
}

impl Report {
    /// Whether every lab run succeeded and the model passed on every one.
    pub fn passed(&self) -> bool {
        self.failed.is_empty() && self.rows.iter().all(|r| r.outside.is_empty())
    }

    /// One line per configuration outside the tolerance, after a count.
    pub fn verdict_text(&self) -> String {
        let within = self.rows.iter().filter(|r| r.outside.is_empty()).count();
        let mut text = format!(
            "within the tolerance ({}): {within} of {} configurations\n",
            self.tolerance,
            self.rows.len()
        );
        for r in self.rows.iter().filter(|r| !r.outside.is_empty()) {
            let misses: Vec<String> = r.outside.iter().map(Miss::to_string).collect();
            text += &format!("  run {}: {}\n", r.run_id, misses.join(", "));
        }
        text
    }
}

/// Means of the absolute errors (NaN ones left out).
pub fn mean_abs(rows: &[Row]) -> Errors {
    abs_stat(rows, &|v| v.iter().sum::<f64>() / v.len() as f64)
}

/// Medians of the absolute errors (NaN ones left out).
pub fn median_abs(rows: &[Row]) -> Errors {
    abs_stat(rows, &|v| percentile(v, 50.0))
}

/// A statistic of the sorted absolute errors of each kind.
fn abs_stat(rows: &[Row], stat: &dyn Fn(&[f64]) -> f64) -> Errors {
    let m = |f: &dyn Fn(&Errors) -> f64| {
        let mut v: Vec<f64> = rows
            .iter()
            .map(|r| f(&r.errors).abs())
            .filter(|x| x.is_finite())
            .collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            f64::NAN
        } else {
            stat(&v)
        }
    };
    Errors {
        satisfaction: m(&|e| e.satisfaction),
        p50: m(&|e| e.p50),
        p90: m(&|e| e.p90),
        p99: m(&|e| e.p99),
    }
}

/// The delivery-time percentiles (µs) of a lab run's samples file
/// (`samples/<run>.csv`, column `delay_us`); NaN when it has none.
pub fn delivery_percentiles(path: &Path) -> anyhow::Result<[f64; 3]> {
    let mut r =
        csv::Reader::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let col = r
        .headers()?
        .iter()
        .position(|h| h == "delay_us")
        .ok_or_else(|| anyhow::anyhow!("{}: no column delay_us", path.display()))?;
    let mut v = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec?;
        let x: f64 = rec.get(col).unwrap_or_default().parse().map_err(|_| {
            anyhow::anyhow!("{}:{}: delay_us is not a number", path.display(), i + 2)
        })?;
        v.push(x);
    }
    v.sort_by(f64::total_cmp);
    Ok([50.0, 90.0, 99.0].map(|p| percentile(&v, p)))
}

/// Checks that the model takes every factor of the experiment before anything
/// runs: an unknown factor or a value the model refuses is an error naming it.
pub fn check(model: &ModelSpec, c: &Campaign) -> anyhow::Result<()> {
    let e = &c.exp.experiment;
    for r in &c.runs {
        configure(model, &r.levels, 1000.0, e.warmup_s, e.duration_s).map_err(|err| {
            anyhow::anyhow!(
                "{}: with {}: {err}",
                c.file,
                crate::design::describe(&r.levels)
            )
        })?;
    }
    Ok(())
}

/// Runs the model beside each measured configuration: the model configured
/// for its levels, its sent rate and the window (`warmup_s`, `duration_s`),
/// `opts.model_runs` runs seeded from `opts.seed` and the run id, then the
/// errors and the verdict against `opts.tolerance`. Deterministic given the
/// seed. Each configuration is a job of the campaign engine, run one at a
/// time (its model runs take `opts.threads`), rows in the measurements' order.
pub fn compare(
    model: &ModelSpec,
    lab: &[Measurement],
    warmup_s: f64,
    duration_s: f64,
    opts: &Options,
    progress: &mut dyn FnMut(Step),
) -> anyhow::Result<Vec<Row>> {
    let jobs: Vec<ModelJob> = lab
        .iter()
        .map(|m| ModelJob {
            model,
            m,
            warmup_s,
            duration_s,
            opts,
        })
        .collect();
    let jobs: Vec<&ModelJob> = jobs.iter().collect();
    let mut rows = Vec::new();
    engine::execute(&jobs, 1, &mut |msg| {
        if let Msg::Done(_, row) = msg {
            rows.push(row);
            progress(Step::Model {
                done: rows.len(),
                total: lab.len(),
            });
        }
        Ok(())
    })?;
    Ok(rows)
}

/// The model beside one measured configuration ([`compare`]).
struct ModelJob<'a> {
    model: &'a ModelSpec,
    m: &'a Measurement,
    warmup_s: f64,
    duration_s: f64,
    opts: &'a Options,
}

impl Job for ModelJob<'_> {
    type Row = Row;

    fn id(&self) -> usize {
        self.m.run_id
    }

    fn run(&self) -> anyhow::Result<Row> {
        let (m, opts) = (self.m, self.opts);
        let (spec, params) = configure(
            self.model,
            &m.levels,
            m.measured.sent_rate,
            self.warmup_s,
            self.duration_s,
        )?;
        let resolved = spec.resolve()?;
        let seed = run_seed(opts.seed, m.run_id as u64);
        let obs = runs(&resolved, seed, opts.model_runs, opts.threads, &|_| {});
        let stats = summarize(&obs);
        let stat = |name: &str| stats.iter().find(|s| s.name == name).expect("observable");
        // A model run without Data reports its percentiles as 0.
        let delivered = stat("satisfaction").mean > 0.0;
        let us = |name: &str| {
            if delivered {
                stat(name).mean / 1000.0
            } else {
                f64::NAN
            }
        };
        let predicted = Predicted {
            satisfaction: stat("satisfaction").mean,
            satisfaction_ci95: stat("satisfaction").ci95,
            p50_us: us("latency_p50"),
            p90_us: us("latency_p90"),
            p99_us: us("latency_p99"),
            utilization: stat("utilization").mean,
        };
        let errors = errors(&m.measured, &predicted);
        Ok(Row {
            run_id: m.run_id,
            levels: m.levels.iter().map(|(k, v)| (k.clone(), show(v))).collect(),
            point: m.levels.clone(),
            params,
            outside: verdict(&errors, &opts.tolerance),
            errors,
            measured: m.measured.clone(),
            model: predicted,
        })
    }
}

/// Runs the validation: the lab's campaign into `out/measured`, then the
/// model for each successful run ([`compare`]).
pub fn validate(
    model_path: &Path,
    opts: &Options,
    progress: &mut dyn FnMut(Step),
) -> anyhow::Result<Report> {
    let model = ModelSpec::load(model_path)?;
    model.resolve()?;
    let lab = campaign::Options {
        out: opts.out.join("measured"),
        quick: opts.quick,
        sets: opts.sets.clone(),
        ..Default::default()
    };
    let c =
        Campaign::load(Some(&opts.experiment), &lab).map_err(|e: LabError| anyhow::anyhow!(e))?;
    check(&model, &c)?;
    let total = c.runs.len();
    let summary = c.run(&lab, &mut |p| {
        if let Progress::Start { done, total, .. } = p {
            progress(Step::Lab { done, total });
        }
    })?;
    progress(Step::Lab { done: total, total });
    let e = &c.exp.experiment;
    let mut measurements = Vec::new();
    let mut failed = Vec::new();
    for r in &summary.rows {
        if r.status != "ok" {
            failed.push(r.spec.id);
            continue;
        }
        let get = |k: &str| {
            r.metrics
                .get(k)
                .copied()
                .ok_or_else(|| anyhow::anyhow!("run {}: the lab reported no {k}", r.spec.id))
        };
        let samples = lab.out.join("samples").join(format!("{}.csv", r.spec.id));
        let [p50, p90, p99] = delivery_percentiles(&samples)?;
        measurements.push(Measurement {
            run_id: r.spec.id,
            levels: r.spec.levels.clone(),
            measured: Measured {
                sent_rate: get("interests")? / e.duration_s,
                satisfaction: get("satisfaction")?,
                p50_us: p50,
                p90_us: p90,
                p99_us: p99,
            },
        });
    }
    let rows = compare(
        &model,
        &measurements,
        e.warmup_s,
        e.duration_s,
        opts,
        progress,
    )?;
    Ok(Report {
        model: model_path.to_path_buf(),
        experiment: opts.experiment.clone(),
        cpu_model: crate::results::machine()["cpu_model"]
            .as_str()
            .unwrap_or("unknown")
            .to_string(),
        model_runs: opts.model_runs,
        seed: opts.seed,
        warmup_s: e.warmup_s,
        duration_s: e.duration_s,
        tolerance: opts.tolerance,
        mean_abs: mean_abs(&rows),
        median_abs: median_abs(&rows),
        rows,
        failed,
    })
}

/// The CSV columns, in order.
pub const COLUMNS: &[&str] = &[
    "run_id",
    "threads",
    "queue",
    "rate",
    "name_len",
    "sent_rate",
    "sat_measured",
    "sat_model",
    "sat_model_ci95",
    "sat_error",
    "p50_measured_us",
    "p50_model_us",
    "p50_error",
    "p90_measured_us",
    "p90_model_us",
    "p90_error",
    "p99_measured_us",
    "p99_model_us",
    "p99_error",
    "utilization_model",
    "verdict",
];

impl Row {
    /// The measurement this row compared the model with.
    pub fn measurement(&self) -> Measurement {
        Measurement {
            run_id: self.run_id,
            levels: self.point.clone(),
            measured: self.measured.clone(),
        }
    }

    /// A factor's level as written in the experiment, by model parameter
    /// (empty when the design does not vary it).
    pub fn level(&self, param: &str) -> String {
        FACTORS
            .iter()
            .find(|(_, p)| *p == param)
            .and_then(|(f, _)| self.levels.get(*f))
            .cloned()
            .unwrap_or_default()
    }

    /// The row's CSV cells, in [`COLUMNS`] order.
    pub fn cells(&self) -> Vec<String> {
        let f = |x: f64| {
            if x.is_finite() {
                format!("{x}")
            } else {
                String::new()
            }
        };
        let (m, p, e) = (&self.measured, &self.model, &self.errors);
        vec![
            self.run_id.to_string(),
            self.level("threads"),
            self.level("queue"),
            self.level("rate"),
            self.level("name_len"),
            f(m.sent_rate),
            f(m.satisfaction),
            f(p.satisfaction),
            f(p.satisfaction_ci95),
            f(e.satisfaction),
            f(m.p50_us),
            f(p.p50_us),
            f(e.p50),
            f(m.p90_us),
            f(p.p90_us),
            f(e.p90),
            f(m.p99_us),
            f(p.p99_us),
            f(e.p99),
            f(p.utilization),
            if self.outside.is_empty() {
                "ok".into()
            } else {
                let names: Vec<&str> = self.outside.iter().map(|m| m.metric).collect();
                format!("outside: {}", names.join(" "))
            },
        ]
    }
}

/// Writes `validation.csv`, `validation.json` and the figures
/// (`satisfaction.svg/png`, `latency_p99.svg/png`) into `dir`; returns the
/// paths written.
pub fn write(report: &Report, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let csv_path = dir.join("validation.csv");
    let mut w = csv::Writer::from_path(&csv_path)?;
    w.write_record(COLUMNS)?;
    for r in &report.rows {
        w.write_record(r.cells())?;
    }
    w.flush()?;
    let json_path = dir.join("validation.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(report)? + "\n")?;
    let mut written = vec![csv_path, json_path];
    for (id, caption, plot) in figures(report) {
        let fig = render(id, caption, &plot).map_err(anyhow::Error::msg)?;
        let svg = fig.save(dir)?;
        written.push(svg.with_extension("png"));
        written.insert(written.len() - 1, svg);
    }
    Ok(written)
}

/// The series of one observable against the sent rate: measured and model,
/// one pair per thread count and queue capacity, each point the mean over the
/// other factors (the name lengths) at one nominal rate.
fn series(report: &Report, y: &dyn Fn(&Row) -> (f64, f64)) -> Vec<(String, Vec<(f64, f64)>)> {
    // (threads, queue) -> nominal rate -> rows
    let mut groups: BTreeMap<String, BTreeMap<String, Vec<&Row>>> = BTreeMap::new();
    for r in &report.rows {
        let key = ["threads", "queue"]
            .iter()
            .filter_map(|p| {
                let l = r.level(p);
                (!l.is_empty()).then(|| format!("{p}={l}"))
            })
            .collect::<Vec<_>>()
            .join(" ");
        groups
            .entry(key)
            .or_default()
            .entry(r.level("rate"))
            .or_default()
            .push(r);
    }
    let mean = |v: &mut dyn Iterator<Item = f64>| {
        let xs: Vec<f64> = v.filter(|x| x.is_finite()).collect();
        (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let mut out = Vec::new();
    for (key, by_rate) in groups {
        let pts = |model: bool| -> Vec<(f64, f64)> {
            let mut v: Vec<(f64, f64)> = by_rate
                .values()
                .filter_map(|rs| {
                    let x = mean(&mut rs.iter().map(|r| r.measured.sent_rate / 1000.0))?;
                    let y = mean(&mut rs.iter().map(|r| {
                        let (m, p) = y(r);
                        if model {
                            p
                        } else {
                            m
                        }
                    }))?;
                    Some((x, y))
                })
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        };
        let name = if key.is_empty() {
            String::new()
        } else {
            format!("{key}, ")
        };
        out.push((format!("{name}measured"), pts(false)));
        out.push((format!("{name}model"), pts(true)));
    }
    out
}

fn figures(report: &Report) -> Vec<(&'static str, &'static str, Lines)> {
    let x_label = "Interests sent (thousands/s, measured)".to_string();
    vec![
        (
            "satisfaction",
            "Satisfaction ratio against the sending rate: the real forwarder and its model",
            Lines {
                title: "Satisfaction: measured and model".into(),
                x_label: x_label.clone(),
                y_label: "satisfaction ratio".into(),
                series: series(report, &|r| (r.measured.satisfaction, r.model.satisfaction)),
                y_range: Some((0.0, 1.05)),
                legend: Legend::LowerRight,
            },
        ),
        (
            "latency_p99",
            "99th percentile of the delivery time against the sending rate: the real forwarder and its model",
            Lines {
                title: "Delivery time p99: measured and model".into(),
                x_label,
                y_label: "p99 delivery time (µs)".into(),
                series: series(report, &|r| (r.measured.p99_us, r.model.p99_us)),
                y_range: None,
                legend: Legend::UpperLeft,
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ModelSpec {
        ModelSpec::from_toml(
            "format = \"ndnlab-dataplane/1\"\n[service]\nfactors = { name_len = \"3\" }\n\
             [service.fwd]\ninterest = \"constant:1us\"\ndata = \"constant:1us\"\n",
            Path::new("m.toml"),
        )
        .unwrap()
    }

    fn point(kv: &[(&str, toml::Value)]) -> Point {
        kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn levels_map_to_model_parameters() {
        let p = point(&[
            ("forwarder.threads", toml::Value::Integer(2)),
            ("forwarder.queue_capacity", toml::Value::Integer(64)),
            ("apps.client.rate", toml::Value::Float(300000.0)),
            ("apps.client.name_components", toml::Value::Integer(7)),
        ]);
        let (m, params) = configure(&model(), &p, 250_000.0, 0.5, 2.0).unwrap();
        assert_eq!(m.get("threads").as_deref(), Some("2"));
        assert_eq!(m.get("queue").as_deref(), Some("64"));
        assert_eq!(m.get("name_len").as_deref(), Some("7"));
        // the measured rate, not the nominal one
        assert_eq!(m.get("rate").as_deref(), Some("250000"));
        assert_eq!(params["rate"], "250000");
        // 250 000/s in 50 µs ticks: bursts of 12.5 -> 13 (rounded)
        assert_eq!(m.get("pattern").as_deref(), Some("burst"));
        assert_eq!(m.get("burst").as_deref(), Some("13"));
        // 2.5 s at 250 000/s is beyond the cap; a fifth of it is warm-up
        assert_eq!(m.get("interests").as_deref(), Some("200000"));
        assert_eq!(m.get("warmup").as_deref(), Some("40000"));
        // one thread: inline, no queue whatever the experiment's capacity
        let p1 = point(&[
            ("forwarder.threads", toml::Value::Integer(1)),
            ("forwarder.queue_capacity", toml::Value::Integer(64)),
        ]);
        let (m1, params1) = configure(&model(), &p1, 2000.0, 0.5, 2.0).unwrap();
        assert_eq!(m1.get("queue").as_deref(), Some("0"));
        assert_eq!(params1["queue"], "0");
        // a slow consumer sends one Interest at a time
        let (m, _) = configure(&model(), &p, 2000.0, 0.5, 2.0).unwrap();
        assert_eq!(m.get("pattern").as_deref(), Some("constant"));
        assert_eq!(m.get("interests").as_deref(), Some("5000"));
    }

    #[test]
    fn unknown_factors_and_parameters_are_named() {
        let p = point(&[("apps.producer.payload", toml::Value::Integer(0))]);
        let e = configure(&model(), &p, 1000.0, 0.5, 2.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("apps.producer.payload") && e.contains("forwarder.threads"),
            "{e}"
        );
        // a model without the name_len factor refuses that level, naming it
        let bare =
            ModelSpec::from_toml("format = \"ndnlab-dataplane/1\"\n", Path::new("m.toml")).unwrap();
        let p = point(&[("apps.client.name_components", toml::Value::Integer(7))]);
        let e = configure(&bare, &p, 1000.0, 0.5, 2.0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("name_len") && e.contains("not a parameter"),
            "{e}"
        );
    }

    #[test]
    fn errors_are_absolute_for_the_ratio_and_relative_for_latencies() {
        let m = Measured {
            sent_rate: 1000.0,
            satisfaction: 0.9,
            p50_us: 10.0,
            p90_us: 20.0,
            p99_us: 40.0,
        };
        let p = Predicted {
            satisfaction: 0.95,
            satisfaction_ci95: 0.0,
            p50_us: 8.0,
            p90_us: 20.0,
            p99_us: 60.0,
            utilization: 0.5,
        };
        let e = errors(&m, &p);
        assert!((e.satisfaction - 0.05).abs() < 1e-12);
        assert!((e.p50 + 0.2).abs() < 1e-12);
        assert_eq!(e.p90, 0.0);
        assert!((e.p99 - 0.5).abs() < 1e-12);
        let row = |e: Errors| Row {
            run_id: 0,
            levels: BTreeMap::new(),
            point: Point::new(),
            params: BTreeMap::new(),
            measured: m.clone(),
            model: p.clone(),
            errors: e,
            outside: Vec::new(),
        };
        let rows = vec![
            row(e.clone()),
            row(Errors {
                satisfaction: -0.15,
                p50: f64::NAN,
                p90: 0.1,
                p99: -0.5,
            }),
        ];
        let a = mean_abs(&rows);
        assert!((a.satisfaction - 0.1).abs() < 1e-12);
        assert!((a.p50 - 0.2).abs() < 1e-12, "NaN left out");
        assert!((a.p99 - 0.5).abs() < 1e-12);
        let rows3 = vec![rows[0].clone(), rows[1].clone(), rows[1].clone()];
        let md = median_abs(&rows3);
        assert!((md.satisfaction - 0.15).abs() < 1e-12);
        assert!((md.p50 - 0.2).abs() < 1e-12);
    }

    fn measured(satisfaction: f64, [p50, p90, p99]: [f64; 3]) -> Measured {
        Measured {
            sent_rate: 2000.0,
            satisfaction,
            p50_us: p50,
            p90_us: p90,
            p99_us: p99,
        }
    }

    fn predicted(satisfaction: f64, [p50, p90, p99]: [f64; 3]) -> Predicted {
        Predicted {
            satisfaction,
            satisfaction_ci95: 0.0,
            p50_us: p50,
            p90_us: p90,
            p99_us: p99,
            utilization: 0.1,
        }
    }

    fn names(misses: &[Miss]) -> Vec<&'static str> {
        misses.iter().map(|m| m.metric).collect()
    }

    /// A table written by hand, each row's errors worked out by hand, against
    /// the default tolerance: satisfaction within 0.02, latencies within a
    /// factor of 2 (relative error in [-0.5, +1.0], bounds included).
    #[test]
    fn verdict_on_a_hand_made_table() {
        let tol = Tolerance::default();
        let cases: [(Measured, Predicted, [f64; 4], &[&str]); 6] = [
            // 0.95 - 0.90, (8 - 10)/10, (20 - 20)/20, (60 - 40)/40
            (
                measured(0.90, [10.0, 20.0, 40.0]),
                predicted(0.95, [8.0, 20.0, 60.0]),
                [0.05, -0.2, 0.0, 0.5],
                &["satisfaction"],
            ),
            // on the bounds: (50 - 100)/100 = -0.5, (400 - 200)/200 = +1
            (
                measured(1.0, [100.0, 200.0, 400.0]),
                predicted(0.99, [50.0, 400.0, 404.0]),
                [-0.01, -0.5, 1.0, 0.01],
                &[],
            ),
            // a model 100 times too slow: (4600 - 46)/46 = 99
            (
                measured(1.0, [46.0, 46.0, 46.0]),
                predicted(1.0, [4600.0, 4600.0, 4600.0]),
                [0.0, 99.0, 99.0, 99.0],
                &["p50", "p90", "p99"],
            ),
            // a model 100 times too fast: (0.46 - 46)/46 = -0.99
            (
                measured(1.0, [46.0, 46.0, 46.0]),
                predicted(1.0, [0.46, 46.0, 92.0]),
                [0.0, -0.99, 0.0, 1.0],
                &["p50"],
            ),
            // just past the bounds: (45 - 100)/100, (401 - 200)/200
            (
                measured(0.5, [100.0, 200.0, 400.0]),
                predicted(0.53, [45.0, 401.0, 400.0]),
                [0.03, -0.55, 1.005, 0.0],
                &["satisfaction", "p50", "p90"],
            ),
            // the lab had no Data: nothing to compare the latencies with
            (
                measured(0.0, [f64::NAN; 3]),
                predicted(1.0, [46.0, 46.0, 46.0]),
                [1.0, f64::NAN, f64::NAN, f64::NAN],
                &["satisfaction", "p50", "p90", "p99"],
            ),
        ];
        for (i, (m, p, want, outside)) in cases.iter().enumerate() {
            let e = errors(m, p);
            let got = [e.satisfaction, e.p50, e.p90, e.p99];
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g.is_nan() && w.is_nan()) || (g - w).abs() < 1e-12,
                    "row {i}: errors {got:?}, by hand {want:?}"
                );
            }
            assert_eq!(names(&verdict(&e, &tol)), *outside, "row {i}: {e:?}");
        }
        // The misses carry the error and the range, and say both.
        let e = errors(&cases[2].0, &cases[2].1);
        let v = verdict(&e, &tol);
        assert_eq!(v[0].error, 99.0);
        assert_eq!(v[0].allowed, (-0.5, 1.0));
        assert_eq!(v[0].to_string(), "p50 +9900% (allowed -50%..+100%)");
        let e = errors(&cases[0].0, &cases[0].1);
        assert_eq!(
            verdict(&e, &tol)[0].to_string(),
            "satisfaction +0.0500 (allowed ±0.02)"
        );
        let e = errors(&cases[5].0, &cases[5].1);
        assert_eq!(
            verdict(&e, &tol)[1].to_string(),
            "p50 not comparable (a side without Data)"
        );
        // No bound below: the model 100 times too fast passes, the slow one not.
        let above = Tolerance {
            satisfaction: 0.02,
            p50: (-1.0, 1.0),
            p90: (-1.0, 1.0),
            p99: (-1.0, 1.0),
        };
        assert_eq!(
            above.to_string(),
            "satisfaction ±0.02, p50 <= +100%, p90 <= +100%, p99 <= +100%"
        );
        assert!(verdict(&errors(&cases[3].0, &cases[3].1), &above).is_empty());
        assert_eq!(
            names(&verdict(&errors(&cases[2].0, &cases[2].1), &above)),
            ["p50", "p90", "p99"]
        );
    }

    #[test]
    fn percentiles_of_a_samples_file_and_its_bad_lines() {
        let dir = std::env::temp_dir().join(format!("ndnlab-validate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("1.csv");
        let mut text = String::from("t_s,delay_us\n");
        for i in 1..=100 {
            text += &format!("0.{i:03},{i}\n");
        }
        std::fs::write(&p, &text).unwrap();
        let [p50, p90, p99] = delivery_percentiles(&p).unwrap();
        assert!(
            (p50 - 50.5).abs() < 1e-9 && (p90 - 90.1).abs() < 1e-9 && (p99 - 99.01).abs() < 1e-9
        );
        std::fs::write(&p, "t_s,delay_us\n0.1,12\n0.2,x\n").unwrap();
        let e = delivery_percentiles(&p).unwrap_err().to_string();
        assert!(e.contains("1.csv:3") && e.contains("delay_us"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
