//! `ndnlab analyze`: factorial analysis, ANOVA and summaries of any CSV table.
//! The files are read and analysed by `ndnlab_lab::analyze` (the statistics
//! of `ndnlab-analysis`), the tables are `ndnlab-report`'s.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use ndnlab_lab::analyze;
use ndnlab_lab::report::text;

#[derive(Subcommand, Debug)]
pub enum AnalyzeCmd {
    /// Two-level factorial analysis (2^k, 2^k r, 2^(k-p)): effects, allocation of variation, top contributors.
    Factorial(FactorialArgs),
    /// Analysis of variance of a full factorial design with any number of levels.
    Anova(AnovaArgs),
    /// Means with confidence intervals, medians and percentiles per group.
    Summary(SummaryArgs),
    /// Line plot of columns against a column (e.g. a time series), as SVG and PNG.
    Plot(PlotArgs),
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The CSV file.
    file: PathBuf,
    /// The horizontal axis's column.
    #[arg(long)]
    x: String,
    /// Columns to draw, one line each (repeat or separate with commas).
    #[arg(long, value_delimiter = ',', required = true)]
    y: Vec<String>,
    /// Multiply every y value by this (e.g. 0.0009765625 for KiB to MiB).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    #[arg(long, default_value = "")]
    title: String,
    #[arg(long)]
    x_label: Option<String>,
    #[arg(long)]
    y_label: Option<String>,
    /// Output path without extension: writes OUT.svg and OUT.png.
    #[arg(long)]
    out: PathBuf,
    /// Print the files written as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct FactorialArgs {
    /// The CSV file (header row, one row per observation).
    file: PathBuf,
    /// The response column.
    #[arg(long)]
    response: String,
    /// Factor columns, each holding -1/+1 or two named levels (default: every
    /// other column with exactly two distinct values).
    #[arg(long, value_delimiter = ',')]
    factors: Option<Vec<String>>,
    /// The column numbering the replicates of a run (not a factor).
    #[arg(long)]
    replicates: Option<String>,
    /// Analyse log10 of the response (multiplicative model).
    #[arg(long)]
    log: bool,
    /// Significance level of the confidence intervals.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct AnovaArgs {
    /// The CSV file.
    file: PathBuf,
    /// The response column.
    #[arg(long)]
    response: String,
    /// Factor columns (any number of levels each).
    #[arg(long, value_delimiter = ',', required = true)]
    factors: Vec<String>,
    /// Analyse log10 of the response (multiplicative model).
    #[arg(long)]
    log: bool,
    /// Significance level of the F tests and confidence intervals.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct SummaryArgs {
    /// The CSV file.
    file: PathBuf,
    /// Columns to group by (default: no grouping).
    #[arg(long, value_delimiter = ',')]
    by: Vec<String>,
    /// Metric columns (default: every numeric column not grouped by).
    #[arg(long, value_delimiter = ',')]
    metrics: Option<Vec<String>>,
    /// Significance level of the confidence intervals.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: AnalyzeCmd) -> anyhow::Result<()> {
    match cmd {
        AnalyzeCmd::Factorial(a) => factorial(a),
        AnalyzeCmd::Anova(a) => anova(a),
        AnalyzeCmd::Summary(a) => summary(a),
        AnalyzeCmd::Plot(a) => plot(a),
    }
}

fn factorial(a: FactorialArgs) -> anyhow::Result<()> {
    let analysis = analyze::factorial(
        &a.file,
        &a.response,
        a.factors,
        a.replicates.as_deref(),
        a.log,
        a.alpha,
    )?;
    if a.json {
        let top: Vec<&str> = analysis.ranked().iter().map(|e| e.term.as_str()).collect();
        let v = serde_json::json!({ "analysis": analysis, "ranking": top });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", text::two_level(&analysis));
    }
    Ok(())
}

fn anova(a: AnovaArgs) -> anyhow::Result<()> {
    let analysis = analyze::anova(&a.file, &a.response, &a.factors, a.log, a.alpha)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&analysis)?);
    } else {
        print!("{}", text::anova(&analysis));
    }
    Ok(())
}

fn summary(a: SummaryArgs) -> anyhow::Result<()> {
    let groups = analyze::summary(&a.file, &a.by, a.metrics, a.alpha)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&groups)?);
    } else {
        print!("{}", text::summaries(&groups, a.alpha));
    }
    Ok(())
}

fn plot(a: PlotArgs) -> anyhow::Result<()> {
    let spec = ndnlab_lab::report::csvplot::LinePlot {
        x: a.x,
        ys: a.y,
        scale: a.scale,
        title: a.title,
        x_label: a.x_label,
        y_label: a.y_label,
    };
    let (svg, png) = analyze::plot(&a.file, &spec, &a.out)?;
    if a.json {
        println!("{}", serde_json::json!({ "svg": svg, "png": png }));
    } else {
        println!("wrote {} and {}", svg.display(), png.display());
    }
    Ok(())
}
