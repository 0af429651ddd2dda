//! `ndnlab run [EXPERIMENT.toml]`: a campaign of runs, its results and its report.

use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ndnlab_lab::campaign::{point_means, Campaign, Options, Progress};
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
            .map(ndnlab_lab::analysis::shard::parse)
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
            println!("run\treplicate\tseed\tlevels");
            for r in &campaign.runs {
                println!(
                    "{}\t{}\t{}\t{}",
                    r.id,
                    r.replicate,
                    r.seed,
                    design::describe(&r.levels)
                );
            }
            println!("{} runs ({})", campaign.runs.len(), campaign.file);
        }
        return Ok(());
    }
    // Ctrl-C kills what the runners started before exiting.
    ndnlab_lab::cleanup::install();
    let bar = if a.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(campaign.runs.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} run {pos}/{len} eta {eta} {msg}")
            .expect("valid template"),
    );
    let summary = campaign.run(&opts, &mut |p| match p {
        Progress::Start { run, done, .. } => {
            bar.set_position(done as u64);
            bar.set_message(design::describe(&run.levels));
        }
        Progress::Done { ok, skipped, .. } => {
            bar.inc(1);
            if skipped {
                bar.println("a run was skipped: the runner cannot carry out its point (see logs/)");
            } else if !ok {
                bar.println("a run failed (see logs/)");
            }
        }
    })?;
    bar.finish_and_clear();
    let means = point_means(&summary.rows);
    if a.json {
        let v = serde_json::json!({
            "out": opts.out,
            "runs": summary.rows.len(),
            "skipped": summary.skipped,
            "failed": summary.failed,
            "not_applicable": summary.not_applicable,
            "report": summary.report,
            "points": means.iter().map(|(levels, ok, m)| serde_json::json!({
                "levels": levels, "ok": ok, "means": m,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let cols = [
        "data_per_sec",
        "throughput_mbps",
        "satisfaction",
        "delay_p50_us",
        "delay_p99_us",
        "cs_hit_ratio",
    ];
    let width = means
        .iter()
        .map(|(l, _, _)| l.len())
        .max()
        .unwrap_or(0)
        .max(5);
    let head: String = cols.iter().map(|c| format!(" {c:>16}")).collect();
    println!("{:<width$} {:>4}{head}", "point", "ok");
    for (levels, ok, m) in &means {
        let label = if levels.is_empty() { "(all)" } else { levels };
        let vals: String = cols
            .iter()
            .map(|c| {
                m.get(*c)
                    .map_or(format!(" {:>16}", "-"), |v| format!(" {v:>16.2}"))
            })
            .collect();
        println!("{label:<width$} {ok:>4}{vals}");
    }
    println!(
        "{} runs, {} failed, {} skipped (not applicable), {} resumed; results in {}",
        summary.rows.len(),
        summary.failed,
        summary.not_applicable,
        summary.skipped,
        opts.out.display()
    );
    if let Some(r) = summary.report {
        println!("report: {}", r.display());
    }
    Ok(())
}
