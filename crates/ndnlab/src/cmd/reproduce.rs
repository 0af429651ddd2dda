//! `ndnlab reproduce [SEED...|all]`: the seed papers' experiment files run and
//! gathered on one page (`ndnlab_lab::reproduce`); this file parses and prints.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::report::reproduction::Outcome;
use ndnlab_lab::report::text::TextTable;
use ndnlab_lab::reproduce::{reproduce, Options, Progress};

/// Reproduce the seed papers' figures.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Seeds: 000, seed000, 0 ... or all (default: all).
    seeds: Vec<String>,
    /// Every experiment's scaled-down values ([experiment.quick], [model.quick]).
    #[arg(long)]
    quick: bool,
    /// Output directory (default: results/reproduce, results/reproduce-quick with --quick).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Runs at once for the sim runner, threads of the model (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Skip the runs and points already finished in --out.
    #[arg(long)]
    resume: bool,
    /// The directory holding seedNNN/ (default: ./experiments, else the repository's).
    #[arg(long, value_name = "DIR")]
    experiments: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: ReproduceArgs) -> anyhow::Result<()> {
    let opts = Options {
        experiments: a.experiments,
        seeds: a.seeds,
        out: a.out,
        quick: a.quick,
        resume: a.resume,
        jobs: a.jobs,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    ndnlab_lab::cleanup::install();
    let bar = ndnlab_lab::campaign::engine::bar(Some(0), a.json, "");
    let (r, index) = reproduce(&opts, &mut |p| match p {
        Progress::File { seed, file, steps } => {
            bar.set_length(steps);
            bar.set_position(0);
            bar.set_message(format!("{seed}/{file}"));
        }
        Progress::Step { done } => bar.set_position(done),
        Progress::Ended {
            outcome, message, ..
        } => {
            if outcome != Outcome::Ok {
                if let Some(m) = message {
                    bar.suspend(|| eprintln!("{m}"));
                }
            }
        }
    })?;
    bar.finish_and_clear();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        let mut t = TextTable::new(
            &[
                "seed",
                "file",
                "outcome",
                "runs ok",
                "failed",
                "skipped",
                "points",
                "measured",
                "missing",
                "median ratio",
            ],
            2,
        );
        for s in &r.seeds {
            for f in &s.files {
                let n = f.tally();
                t.row(vec![
                    s.seed.clone(),
                    f.file.clone(),
                    format!("{:?}", f.outcome).to_lowercase(),
                    f.runs_ok.to_string(),
                    f.runs_failed.to_string(),
                    f.runs_skipped.to_string(),
                    n.points.to_string(),
                    (n.measured + n.interpolated + n.beyond).to_string(),
                    n.missing.to_string(),
                    n.median_ratio.map_or("-".into(), |q| format!("{q:.2}")),
                ]);
            }
        }
        print!("{}", t.render());
        println!("page: {}", index.display());
    }
    if r.failed() {
        let failed: Vec<String> = r
            .seeds
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (s, f)))
            .filter(|(_, f)| f.outcome == Outcome::Failed)
            .map(|(s, f)| format!("{}/{}", s.seed, f.file))
            .collect();
        anyhow::bail!("failed: {}", failed.join(", "));
    }
    Ok(())
}
