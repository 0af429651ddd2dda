//! `ndnlab model validate`: the data-plane model against the real forwarder
//! (`ndnlab_lab::validate`). This file parses arguments and prints.

use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ndnlab_dataplane::runs::default_threads;
use ndnlab_lab::design;
use ndnlab_lab::validate::{self, Report, Step};
use ndnlab_report::text::{num, TextTable};

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
    let bar = if a.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {msg} {pos}/{len} eta {eta}")
            .expect("valid template"),
    );
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
    print!("{}", table(&report));
    print!("{}", report.verdict_text());
    for p in &written {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// The human table: one row per configuration.
pub fn table(r: &Report) -> String {
    let pct = |x: f64| {
        if x.is_finite() {
            format!("{:+.0}%", x * 100.0)
        } else {
            "-".into()
        }
    };
    let mut t = TextTable::new(
        &[
            "thr",
            "queue",
            "names",
            "rate",
            "sent/s",
            "sat meas",
            "sat model",
            "err",
            "p50 meas",
            "p50 model",
            "err",
            "p90 meas",
            "p90 model",
            "err",
            "p99 meas",
            "p99 model",
            "err",
        ],
        0,
    );
    for row in &r.rows {
        let (m, p, e) = (&row.measured, &row.model, &row.errors);
        t.row(vec![
            row.level("threads"),
            row.level("queue"),
            row.level("name_len"),
            row.level("rate"),
            num(m.sent_rate),
            format!("{:.4}", m.satisfaction),
            format!("{:.4}", p.satisfaction),
            format!("{:+.4}", e.satisfaction),
            num(m.p50_us),
            num(p.p50_us),
            pct(e.p50),
            num(m.p90_us),
            num(p.p90_us),
            pct(e.p90),
            num(m.p99_us),
            num(p.p99_us),
            pct(e.p99),
        ]);
    }
    let (a, md) = (&r.mean_abs, &r.median_abs);
    let abs = |x: f64| {
        if x.is_finite() {
            format!("{:.0}%", x * 100.0)
        } else {
            "-".into()
        }
    };
    format!(
        "{} against {} ({}), {} model runs per configuration; latencies in µs\n{}\
         |error| mean: satisfaction {:.4}, p50 {}, p90 {}, p99 {}\n\
         |error| median: satisfaction {:.4}, p50 {}, p90 {}, p99 {}{}\n",
        r.model.display(),
        r.experiment.display(),
        r.cpu_model,
        r.model_runs,
        t.render(),
        a.satisfaction,
        abs(a.p50),
        abs(a.p90),
        abs(a.p99),
        md.satisfaction,
        abs(md.p50),
        abs(md.p90),
        abs(md.p99),
        if r.failed.is_empty() {
            String::new()
        } else {
            format!("\nfailed lab runs (see measured/logs/): {:?}", r.failed)
        }
    )
}
