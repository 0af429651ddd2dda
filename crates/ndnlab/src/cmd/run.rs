//! `ndnlab run [EXPERIMENT.toml]`: a campaign of runs, its results and its report.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::campaign::{engine, text, Campaign, Options};
use ndnlab_lab::design;

/// Run an experiment (the built-in default without a file).
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The experiment file (TOML); absent: the built-in default experiment.
    experiment: Option<PathBuf>,
    /// inproc, processes, netns, slurm or sim (overrides experiment.runner).
    #[arg(long)]
    runner: Option<String>,
    /// Output directory (default: results/<experiment name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The experiment's scaled-down values ([experiment.quick]).
    #[arg(long)]
    quick: bool,
    /// Skip the runs already finished in --out.
    #[arg(long)]
    resume: bool,
    /// Run the deterministic slice I of N (runs whose id is I modulo N).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Set any key of the experiment: --set topology.n=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Print the run matrix and stop.
    #[arg(long)]
    dry_run: bool,
    /// Stop at the first failed run.
    #[arg(long)]
    fail_fast: bool,
    /// Runs at once, for runners whose runs are independent and CPU-bound
    /// (the sim runner); default: one per core. Real-time runners always run
    /// one run at a time. results.csv is the same whatever N.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: RunArgs) -> anyhow::Result<()> {
    let mut opts = Options {
        runner: a.runner,
        quick: a.quick,
        resume: a.resume,
        shard: a
            .shard
            .as_deref()
            .map(engine::parse_shard)
            .transpose()
            .map_err(anyhow::Error::msg)?,
        sets: a
            .sets
            .iter()
            .map(|s| design::parse_assignment(s).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<_>>()?,
        fail_fast: a.fail_fast,
        jobs: a.jobs,
        ..Default::default()
    };
    let campaign = Campaign::load(a.experiment.as_deref(), &opts)?;
    opts.out = a
        .out
        .unwrap_or_else(|| PathBuf::from("results").join(&campaign.exp.experiment.name));
    if a.dry_run {
        if a.json {
            println!("{}", serde_json::to_string_pretty(&campaign.runs)?);
        } else {
            print!("{}", campaign.matrix());
        }
        return Ok(());
    }
    // Ctrl-C kills what the runners started before exiting.
    ndnlab_lab::cleanup::install();
    let bar = engine::bar(Some(campaign.runs.len() as u64), a.json, "run");
    let summary = campaign.run(&opts, &mut text::on_bar(&bar))?;
    bar.finish_and_clear();
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary.json(&opts.out))?
        );
    } else {
        print!("{}", summary.table(&opts.out));
    }
    Ok(())
}
