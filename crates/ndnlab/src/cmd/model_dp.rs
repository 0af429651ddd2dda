//! `ndnlab model simulate|check|explore`: the stochastic data-plane model
//! (`ndnlab_lab::model::dataplane`), its statistical model checking
//! (`ndnlab_lab::model::smc`) and design-space exploration. This file parses
//! arguments and prints.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::campaign::engine::bar;
use ndnlab_lab::model::dataplane::runs::{default_threads, run_seed, runs, summarize, timed};
use ndnlab_lab::model::dataplane::{parse_duration_ns, simulate, ModelSpec};
use ndnlab_lab::model::smc;
use ndnlab_lab::report::text::{num, TextTable};

/// What every model command shares: the model file and its changes.
#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The model file (`ndnlab-dataplane/1`, e.g. models/ndnlab-fwd.toml).
    pub model: PathBuf,
    /// PARAMETER=VALUE changing the model (repeatable): threads, queue, rate,
    /// interval, policy, placement, interests, a factor such as name_len...
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// The campaign's seed: run i is seeded from it and i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

impl ModelArgs {
    /// The model with `--set` applied.
    pub fn load(&self) -> anyhow::Result<ModelSpec> {
        Ok(ModelSpec::load_with(&self.model, &self.set)?)
    }

    pub fn threads(&self) -> usize {
        self.threads.unwrap_or_else(default_threads).max(1)
    }
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub m: ModelArgs,
    /// Independent runs (each a bounded run of `consumer.interests`).
    #[arg(long, default_value_t = 10)]
    pub runs: u64,
    /// Write the first run's queue lengths and PIT size over time to this CSV
    /// (and its plot next to it, .svg and .png).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The trace's sampling interval (e.g. 10us).
    #[arg(long, default_value = "10us")]
    pub trace_interval: String,
}

pub fn simulate_cmd(a: SimulateArgs) -> anyhow::Result<()> {
    let m = a.m.load()?;
    let r = m.resolve()?;
    let threads = a.m.threads();
    let b = bar(Some(a.runs), a.m.json, "run");
    let (obs, speed) = timed(threads, || {
        runs(&r, a.m.seed, a.runs, threads, &|d| b.set_position(d))
    });
    b.finish_and_clear();
    if let Some(path) = &a.trace {
        let every = parse_duration_ns(&a.trace_interval)
            .map_err(|e| anyhow::anyhow!("--trace-interval: {e}"))?
            .max(1.0) as u64;
        let (_, trace) = simulate(&r, run_seed(a.m.seed, 0), every);
        let trace = trace.expect("traced");
        let title = format!("{}: queues and PIT, run 0", m.name);
        ndnlab_lab::plots::trace::write(path, &trace, &title)?;
    }
    let stats = summarize(&obs);
    if a.m.json {
        let v = serde_json::json!({
            "model": a.m.model, "name": m.name, "seed": a.m.seed,
            "runs": obs, "summary": stats, "speed": speed,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "{} ({}), {} runs of {} Interests",
        a.m.model.display(),
        m.name,
        a.runs,
        m.consumer.interests
    );
    let mut t = TextTable::new(&["observable", "mean", "±95%", "sd", "min", "max"], 1);
    for s in &stats {
        t.row(vec![
            s.name.to_string(),
            num(s.mean),
            num(s.ci95),
            num(s.sd),
            num(s.min),
            num(s.max),
        ]);
    }
    print!("{}", t.render());
    println!(
        "{:.0} simulated packets in {:.3} s on {} threads: {:.2} M packets/s per core",
        speed.packets,
        speed.wall_s,
        speed.threads,
        speed.packets_per_s_per_core / 1e6
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub m: ModelArgs,
    #[command(flatten)]
    pub smc: SmcArgs,
}

/// The model-checking options `check` and `explore` share.
#[derive(Args, Debug, Clone)]
pub struct SmcArgs {
    /// The property (docs/SMC.md): e.g. all-satisfied, 'satisfaction >= 0.99',
    /// 'latency_p99 <= 50us', 'max_queue <= 1000', 'first_loss < 2ms', queue-loss.
    #[arg(long)]
    pub property: String,
    /// chernoff, clopper-pearson, wilson, bayes, sprt, chow-robbins or splitting.
    #[arg(long, default_value = "chernoff")]
    pub method: String,
    /// Probability that the answer is wrong (1 - confidence); SPRT's type I error.
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f64,
    /// Precision: the half-width of the interval (in the property's unit, ns for times).
    #[arg(long, default_value_t = 0.1)]
    pub delta: f64,
    /// A fixed number of runs instead of the method's own (splitting: trajectories per level).
    #[arg(long)]
    pub runs: Option<u64>,
    /// SPRT: test "P >= THETA".
    #[arg(long)]
    pub theta: Option<f64>,
    /// SPRT: half-width of the indifference region around theta.
    #[arg(long, default_value_t = 0.01)]
    pub indifference: f64,
    /// SPRT: type II error.
    #[arg(long, default_value_t = 0.1)]
    pub beta: f64,
    /// Bayes: the Beta prior, a,b.
    #[arg(long, default_value = "1,1")]
    pub prior: String,
    /// Sequential methods stop with an error after this many runs.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_runs: u64,
    /// Splitting: fixed levels, comma-separated (default: adaptive).
    #[arg(long)]
    pub levels: Option<String>,
    /// Splitting, adaptive levels: the fraction of trajectories meant to pass each level.
    #[arg(long)]
    pub keep: Option<f64>,
}

impl SmcArgs {
    pub fn spec(&self) -> anyhow::Result<smc::Spec> {
        let spec = smc::Spec {
            method: smc::Method::parse(&self.method)?,
            alpha: self.alpha,
            delta: self.delta,
            runs: self.runs,
            theta: self.theta,
            indifference: self.indifference,
            beta: self.beta,
            max_runs: self.max_runs,
            prior: smc::parse_prior(&self.prior)?,
            ..smc::Spec::default()
        };
        if spec.method != smc::Method::Splitting {
            spec.validate()?;
        }
        Ok(spec)
    }
}

pub fn check_cmd(a: CheckArgs) -> anyhow::Result<()> {
    use ndnlab_lab::model::dataplane::check::{check, check_rare, parse_property, rare_target};
    let m = a.m.load()?;
    let r = m.resolve()?;
    let spec = a.smc.spec()?;
    let threads = a.m.threads();
    let header = format!(
        "{} ({}): P[{}]",
        a.m.model.display(),
        m.name,
        a.smc.property
    );
    if spec.method == smc::Method::Splitting {
        let target = rare_target(&a.smc.property, &r)?;
        let levels = match &a.smc.levels {
            Some(l) => Some(smc::parse_numbers("--levels", l)?),
            None => None,
        };
        let o = check_rare(&r, target, &spec, levels, a.smc.keep, a.m.seed, threads)?;
        if a.m.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "model": a.m.model, "property": a.smc.property, "target": target, "outcome": o,
                }))?
            );
        } else {
            println!("{header}, the score reaching {target}");
            print!("{o}");
        }
        return Ok(());
    }
    let property = parse_property(&a.smc.property)?;
    let b = bar(spec.runs, a.m.json, "run");
    let o = check(&r, &property, &spec, a.m.seed, threads, &mut |d| {
        b.set_position(d)
    })?;
    b.finish_and_clear();
    if a.m.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "model": a.m.model, "property": a.smc.property, "outcome": o,
            }))?
        );
    } else {
        println!("{header}");
        print!("{o}");
    }
    Ok(())
}
