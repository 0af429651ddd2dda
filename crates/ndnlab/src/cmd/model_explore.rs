//! `ndnlab model explore` and `ndnlab model merge`: design-space exploration
//! of the data-plane model (`ndnlab_lab::explore`), a property checked
//! at every point of a grid, resumable and sharded like `ndnlab run` /
//! `ndnlab merge`. This file parses arguments and prints; docs/EXPLORE.md is
//! the user's guide.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::campaign::engine::{bar, parse_shard};
use ndnlab_lab::explore::report::ReportOptions;
use ndnlab_lab::explore::run::Options;
use ndnlab_lab::explore::{command, Grid, Manifest, Requirement};

use super::model_dp::{ModelArgs, SmcArgs};

/// How the results are presented: the figures' axes and the recommendation.
#[derive(Args, Debug, Clone)]
pub struct PresentArgs {
    /// The figures' horizontal axis (default: the first --grid key).
    #[arg(long)]
    pub x: Option<String>,
    /// One series per level of this parameter (default: the second --grid
    /// key; `none` for one series).
    #[arg(long)]
    pub series: Option<String>,
    /// What a recommended configuration must meet: the interval's lower
    /// bound at least this (0.99), or '<= X' for its upper bound.
    #[arg(long, default_value = "0.99")]
    pub require: String,
    /// The cost parameters, cheapest first: the recommendation takes the
    /// fewest of the first, then of the next... per combination of the others.
    #[arg(long, value_delimiter = ',', default_value = "threads,queue")]
    pub minimise: Vec<String>,
}

impl PresentArgs {
    fn options(&self) -> anyhow::Result<ReportOptions> {
        Ok(ReportOptions {
            x: self.x.clone(),
            series: self.series.clone(),
            require: Requirement::parse(&self.require)?,
            minimise: self.minimise.iter().map(|s| s.trim().to_string()).collect(),
        })
    }
}

#[derive(Args, Debug)]
#[command(mut_arg("property", |a| a.required(false).default_value("all-satisfied")))]
pub struct ExploreArgs {
    #[command(flatten)]
    pub m: ModelArgs,
    #[command(flatten)]
    pub smc: SmcArgs,
    /// A grid axis, KEY=a,b,c or KEY=1..8 (repeatable): threads, queue, rate,
    /// interval, placement, a factor such as name_len...
    #[arg(long = "grid", required = true)]
    pub grid: Vec<String>,
    /// The exploration directory: explore.toml, points.csv, figures,
    /// recommended.csv (without it, results are printed only).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only slice I of N (points whose index is I modulo N); join the
    /// slices' directories with `ndnlab model merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Carry on with --out's points.csv: skip the points it holds.
    #[arg(long)]
    pub resume: bool,
    #[command(flatten)]
    pub present: PresentArgs,
}

pub fn explore_cmd(a: ExploreArgs) -> anyhow::Result<()> {
    let model = a.m.load()?;
    let grid = Grid::parse(&a.grid, &model)?;
    let spec = a.smc.spec()?;
    let manifest = Manifest::new(&a.m.model, &model, grid, &a.smc.property, &spec, a.m.seed);
    let present = a.present.options()?;
    let opts = Options {
        threads: a.m.threads(),
        shard: a
            .shard
            .as_deref()
            .map(parse_shard)
            .transpose()
            .map_err(anyhow::Error::msg)?,
        out: a.out.as_deref(),
        resume: a.resume,
    };
    let b = bar(Some(0), a.m.json, "point");
    let explored = command::run(&manifest, &opts, &present, &|done, total| {
        b.set_length(total);
        b.set_position(done);
    })?;
    b.finish_and_clear();
    if a.m.json {
        println!("{}", serde_json::to_string_pretty(&explored.json())?);
    } else {
        print!("{}", explored.text(&present));
    }
    Ok(())
}

/// Join the directories of a sharded exploration.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The slices' directories (`ndnlab model explore --shard I/N --out DIR`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The merged directory (new, or without points.csv).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub present: PresentArgs,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn merge_cmd(a: MergeArgs) -> anyhow::Result<()> {
    let present = a.present.options()?;
    let (merged, w) = command::merge_and_report(&a.dirs, &a.out, &present)?;
    if a.json {
        let v = command::merged_json(&merged, &w);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", command::merged_text(&merged, &w, &present));
    }
    Ok(())
}
