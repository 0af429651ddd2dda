//! `ndnlab model validate`: the data-plane model against the real forwarder
//! (`ndnlab_lab::validate`). This file parses arguments and prints.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::campaign::engine;
use ndnlab_lab::design;
use ndnlab_lab::model::dataplane::runs::default_threads;
use ndnlab_lab::validate::{self, Step};

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The model file (`ndnlab-dataplane/1`, e.g. models/ndnlab-fwd.toml).
    pub model: PathBuf,
    /// The experiment whose design is the grid; its factors must be among
    /// forwarder.threads, forwarder.queue_capacity, apps.client.rate,
    /// apps.client.name_components.
    #[arg(long, default_value = "experiments/validate-fwd.toml")]
    pub experiment: PathBuf,
    /// The experiment's quick scale (`[experiment.quick]`): a few seconds.
    #[arg(long)]
    pub quick: bool,
    /// KEY=VALUE changing the experiment (repeatable), as `ndnlab run --set`.
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Model runs per configuration.
    #[arg(long, default_value_t = 10)]
    pub runs: u64,
    /// The model campaign's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The output directory: measured/ (the lab's runs), validation.csv,
    /// validation.json, satisfaction.svg/png, latency_p99.svg/png.
    #[arg(long, default_value = "results/validate")]
    pub out: PathBuf,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn validate_cmd(a: ValidateArgs) -> anyhow::Result<()> {
    let sets = a
        .set
        .iter()
        .map(|s| design::parse_assignment(s).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<_>>()?;
    let opts = validate::Options {
        experiment: a.experiment.clone(),
        out: a.out.clone(),
        quick: a.quick,
        sets,
        model_runs: a.runs.max(1),
        seed: a.seed,
        threads: default_threads(),
        tolerance: validate::Tolerance::default(),
    };
    let bar = engine::bar(Some(0), a.json, "");
    let report = validate::validate(&a.model, &opts, &mut |s| match s {
        Step::Lab { done, total } => {
            bar.set_message("forwarder runs");
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
        Step::Model { done, total } => {
            bar.set_message("model configurations");
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    })?;
    bar.finish_and_clear();
    let written = validate::write(&report, &a.out)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print!("{}", report.table());
    print!("{}", report.verdict_text());
    for p in &written {
        println!("wrote {}", p.display());
    }
    Ok(())
}
