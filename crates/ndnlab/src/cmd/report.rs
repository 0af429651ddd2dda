//! `ndnlab report DIR`: the HTML report of an experiment directory.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::report::{write_report, ReportOptions};

/// Write DIR/index.html (and DIR/figures/) from DIR/results.csv.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The experiment directory (holds results.csv; optionally experiment.toml,
    /// machine.json, samples/).
    dir: PathBuf,
    /// Factor columns (default: experiment.toml's [factors], else the columns
    /// between run_id and replicate).
    #[arg(long, value_delimiter = ',')]
    factors: Option<Vec<String>>,
    /// Significance level of the confidence intervals and tests.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
}

pub fn run(a: ReportArgs) -> anyhow::Result<()> {
    let opts = ReportOptions {
        factors: a.factors,
        alpha: a.alpha,
        ..Default::default()
    };
    let path = write_report(&a.dir, &opts)?;
    println!("wrote {}", path.display());
    Ok(())
}
