//! `ndnlab model explore` and `ndnlab model merge`: design-space exploration
//! of the data-plane model (`ndnlab_lab::explore`), a property checked
//! at every point of a grid, resumable and sharded like `ndnlab run` /
//! `ndnlab merge`. This file parses arguments and prints; docs/EXPLORE.md is
//! the user's guide.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::explore::merge::merge;
use ndnlab_lab::explore::report::{write, ReportOptions};
use ndnlab_lab::explore::run::{explore, Options};
use ndnlab_lab::explore::{text, Grid, Manifest, Requirement};

use super::model_dp::{bar, ModelArgs, SmcArgs};

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
    present.check(&manifest)?;
    let shard = a
        .shard
        .as_deref()
        .map(ndnlab_lab::analysis::shard::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if a.resume && a.out.is_none() {
        anyhow::bail!("--resume carries on with --out DIR's points.csv: give --out");
    }
    let threads = a.m.threads();
    let b = bar(0, a.m.json, "point");
    let opts = Options {
        threads,
        shard,
        out: a.out.as_deref(),
        resume: a.resume,
    };
    let ran = explore(&manifest, &opts, &|done, total| {
        b.set_length(total);
        b.set_position(done);
    })?;
    b.finish_and_clear();
    let written = match (&a.out, ran.complete) {
        (Some(dir), true) => Some(write(dir, &manifest, &ran.rows, &present)?),
        _ => None,
    };
    let recs = match &written {
        Some(w) => w.recommendations.clone(),
        None if ran.complete => ndnlab_lab::explore::recommend::recommend(
            &manifest.grid,
            &ran.rows,
            &present.minimise,
            present.require,
        ),
        None => Vec::new(),
    };
    if a.m.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "model": a.m.model, "property": manifest.property, "smc": manifest.smc,
                "seed": manifest.seed, "grid": manifest.grid, "shard": shard,
                "points": ran.points, "checked": ran.checked, "skipped": ran.skipped,
                "runs": ran.runs, "wall_s": ran.wall_s, "threads": threads,
                "rows": ran.rows, "recommendations": recs,
                "figures": written.as_ref().map(|w| &w.figures),
            }))?
        );
        return Ok(());
    }
    println!(
        "{} ({}): P[{}] by {} over {} points{}",
        a.m.model.display(),
        model.name,
        manifest.property,
        manifest.smc.method,
        manifest.grid.len(),
        match shard {
            Some((i, n)) => format!(", shard {i}/{n}: {} points", ran.points),
            None => String::new(),
        }
    );
    print!("{}", text::rows(&manifest.grid, &ran.rows));
    println!(
        "{} points checked ({} runs) in {:.1} s on {threads} threads; {} found done",
        ran.checked, ran.runs, ran.wall_s, ran.skipped
    );
    if ran.complete {
        print!("{}", text::recommendations(&manifest, &recs, &present));
    } else if shard.is_some() {
        println!("a shard: join the slices with `ndnlab model merge DIR... --out DIR` for the figures and recommendations");
    }
    print!("{}", text::written(a.out.as_deref(), written.as_ref()));
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
    let merged = merge(&a.dirs, &a.out)?;
    let w = write(&a.out, &merged.manifest, &merged.rows, &present)?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "out": merged.out, "slices": merged.slices, "manifest": merged.manifest,
                "rows": merged.rows, "recommendations": w.recommendations, "figures": w.figures,
            }))?
        );
        return Ok(());
    }
    for (dir, n) in &merged.slices {
        println!("{}: {n} points", dir.display());
    }
    println!(
        "{} points of P[{}] merged into {}",
        merged.rows.len(),
        merged.manifest.property,
        merged.out.display()
    );
    print!("{}", text::rows(&merged.manifest.grid, &merged.rows));
    print!(
        "{}",
        text::recommendations(&merged.manifest, &w.recommendations, &present)
    );
    print!("{}", text::written(Some(&a.out), Some(&w)));
    Ok(())
}
