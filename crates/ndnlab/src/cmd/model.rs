//! `ndnlab model`: fit distributions to latency samples and write the model
//! file (`fit`), and draw from a model entry (`sample`), optionally compared
//! with measured values. The statistics live in `ndnlab_lab::analysis::fit`, the
//! model file, samples and generator in `ndnlab-model`, the figures in
//! `ndnlab_lab::plots::fitting`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use ndnlab_lab::analysis::fit::select::{describe, sig};
use ndnlab_lab::analysis::fit::{Family, FitOptions};
use ndnlab_lab::model::effects::Stat;
use ndnlab_lab::model::generate::{compare, generate};
use ndnlab_lab::model::pipeline;
use ndnlab_lab::model::samples::{parse_assignment, ReadOptions};
use ndnlab_lab::model::{ModelFile, Selector};
use ndnlab_lab::plots::fitting as figures;
use ndnlab_lab::report::text::{num, TextTable};

#[derive(Subcommand, Debug)]
pub enum ModelCmd {
    /// Fit normal, lognormal, gamma, Weibull (2 and 3 parameters), exponential
    /// (plain and shifted), Box-Cox normal and empirical distributions to
    /// latency samples; choose by PPCC and BIC; write the model file.
    Fit(FitArgs),
    /// Draw values from one entry of a model file (the generator), optionally
    /// compared with measured values (QQ plot, bihistogram, two-sample KS).
    Sample(SampleArgs),
    /// Run the stochastic data-plane model (a model file such as
    /// models/ndnlab-fwd.toml): satisfaction, losses by cause, latency
    /// percentiles, queue lengths and PIT size over seeded runs.
    Simulate(super::model_dp::SimulateArgs),
    /// Statistical model checking of a property of the data-plane model:
    /// Chernoff, Clopper-Pearson, Wilson, Bayes, SPRT, Chow-Robbins or
    /// importance splitting (docs/SMC.md).
    Check(super::model_dp::CheckArgs),
    /// Validate a data-plane model against the real forwarder: the grid of an
    /// experiment run through the laboratory and through the model, side by
    /// side (satisfaction and delivery-time percentiles, and the model's errors).
    Validate(super::model_validate::ValidateArgs),
    /// Design-space exploration: a property checked at every point of a
    /// grid of parameters (--grid threads=1..8 --grid queue=128,4096),
    /// resumable and shardable, with figures and recommended configurations
    /// (docs/EXPLORE.md).
    Explore(super::model_explore::ExploreArgs),
    /// Join the directories of a sharded exploration (`model explore --shard
    /// I/N --out DIR`), then write its figures and recommendations.
    Merge(super::model_explore::MergeArgs),
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// Sample files: the forwarder's sample CSV (or any CSV with a header),
    /// or plain files of one number per line.
    #[arg(required = true)]
    samples: Vec<PathBuf>,
    /// CSV columns to fit, each a stage (default: every column ending in _ns).
    #[arg(long, value_delimiter = ',')]
    column: Vec<String>,
    /// CSV columns that split rows into groups: type, cs (default: those present).
    #[arg(long, value_delimiter = ',')]
    split: Option<Vec<String>>,
    /// A factor read from a CSV column: FACTOR=COLUMN (repeatable).
    #[arg(long)]
    by: Vec<String>,
    /// A factor given per file: FACTOR=LEVEL1,LEVEL2,... one level per sample file, in order (repeatable).
    #[arg(long)]
    label: Vec<String>,
    /// The stage name of plain files (default: the file name without extension).
    #[arg(long)]
    stage: Option<String>,
    /// The families to try (default: all seven parametric ones).
    #[arg(long, value_delimiter = ',')]
    families: Option<Vec<String>>,
    /// A family is acceptable when the PPCC of its fit reaches this ...
    #[arg(long, default_value_t = 0.99)]
    min_ppcc: f64,
    /// ... or when the Anderson-Darling A² of its fit is at most this.
    #[arg(long, default_value_t = 2.492)]
    max_ad: f64,
    /// The latency statistic of the main-effects analysis: mean, median, p99.
    #[arg(long, default_value = "mean")]
    stat: Stat,
    /// The unit of the values.
    #[arg(long, default_value = "ns")]
    unit: String,
    /// Write the model file here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the figures (SVG and PNG) into this directory.
    #[arg(long)]
    plots: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct SampleArgs {
    /// The model file.
    model: PathBuf,
    /// The entry's stage.
    #[arg(long)]
    stage: Option<String>,
    /// The entry's packet type (interest, data, nack, any).
    #[arg(long)]
    packet: Option<String>,
    /// The entry's Content Store outcome (hit, miss, any).
    #[arg(long)]
    cs: Option<String>,
    /// A factor level of the entry: FACTOR=LEVEL (repeatable).
    #[arg(long)]
    factor: Vec<String>,
    /// How many values to draw.
    #[arg(long, short = 'n', default_value_t = 10_000)]
    n: usize,
    /// The RNG seed (the same seed draws the same values).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the values here, one per line (default: standard output, unless --compare).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Measured samples to compare with: a sample file (CSV or plain) read
    /// like `model fit` reads it; the group of the chosen entry is used.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// The CSV column of --compare (default: STAGE_ns).
    #[arg(long)]
    column: Option<String>,
    /// Write the comparison figures (QQ plot, bihistogram) into this directory.
    #[arg(long)]
    plots: Option<PathBuf>,
    /// Print JSON: the entry, the seed and the values (unless --out), or the comparison.
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: ModelCmd) -> anyhow::Result<()> {
    match cmd {
        ModelCmd::Fit(a) => fit(a),
        ModelCmd::Sample(a) => sample(a),
        ModelCmd::Simulate(a) => super::model_dp::simulate_cmd(a),
        ModelCmd::Check(a) => super::model_dp::check_cmd(a),
        ModelCmd::Validate(a) => super::model_validate::validate_cmd(a),
        ModelCmd::Explore(a) => super::model_explore::explore_cmd(a),
        ModelCmd::Merge(a) => super::model_explore::merge_cmd(a),
    }
}

fn assignments(v: &[String], what: &str) -> anyhow::Result<Vec<(String, String)>> {
    Ok(v.iter()
        .map(|s| parse_assignment(s, what))
        .collect::<Result<_, _>>()?)
}

fn fit(a: FitArgs) -> anyhow::Result<()> {
    let read = ReadOptions {
        columns: a.column.clone(),
        split: a.split.clone(),
        by: assignments(&a.by, "--by")?,
        labels: assignments(&a.label, "--label")?
            .into_iter()
            .map(|(f, v)| (f, v.split(',').map(|s| s.trim().to_string()).collect()))
            .collect(),
        stage: a.stage.clone(),
    };
    let mut opts = FitOptions {
        min_ppcc: a.min_ppcc,
        max_ad: a.max_ad,
        unit: a.unit.clone(),
        diagnostics: a.plots.is_some() || a.json,
        ..FitOptions::default()
    };
    if let Some(fs) = &a.families {
        opts.families = fs
            .iter()
            .map(|f| {
                Family::parse(f).with_context(|| {
                    let all: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
                    format!("--families: unknown family {f:?} ({})", all.join(", "))
                })
            })
            .collect::<anyhow::Result<_>>()?;
    }
    let fitted = pipeline::fit(&a.samples, &read, &opts, a.stat, &a.unit)?;
    let mut written = Vec::new();
    if let Some(out) = &a.out {
        fitted.model.save(out)?;
        written.push(out.clone());
    }
    if let Some(dir) = &a.plots {
        written.extend(figures::write_fitted(&fitted, dir, &a.unit)?);
    }
    let pipeline::Fitted {
        model,
        fits,
        effects,
    } = fitted;
    if a.json {
        let fits_json: Vec<_> = fits
            .iter()
            .map(|g| serde_json::json!({ "group": g.group.key.label(), "fit": g.fit }))
            .collect();
        let v = serde_json::json!({ "model": model, "fits": fits_json, "effects": effects });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let mut t = TextTable::new(
        &["group", "n", "chosen", "PPCC", "A²", "KS D", "mean", "p99"],
        3,
    );
    for e in &model.entries {
        t.row(vec![
            e.label(),
            e.n.to_string(),
            describe(&e.dist, &a.unit),
            format!("{:.5}", e.fit.ppcc),
            num(e.fit.ad),
            num(e.fit.ks),
            num(e.stats.mean),
            num(e.stats.p99),
        ]);
    }
    print!("{}", t.render());
    println!();
    for e in &model.entries {
        println!("{}: {}", e.label(), e.verdict);
    }
    for e in &effects {
        println!(
            "\nMain effects on the {} of stage {} ({}):",
            e.stat.name(),
            e.stage,
            a.unit
        );
        let mut t = TextTable::new(&["factor", "level", e.stat.name(), "groups"], 2);
        for m in &e.effects {
            for l in &m.levels {
                t.row(vec![
                    m.factor.clone(),
                    l.level.clone(),
                    num(l.summary.mean),
                    l.summary.n.to_string(),
                ]);
            }
        }
        print!("{}", t.render());
    }
    if let Some(out) = &a.out {
        println!("wrote {}", out.display());
    }
    if let Some(dir) = &a.plots {
        println!(
            "wrote {} figures (SVG and PNG) under {}",
            written.len() - usize::from(a.out.is_some()),
            dir.display()
        );
    }
    Ok(())
}

fn sample(a: SampleArgs) -> anyhow::Result<()> {
    let model = ModelFile::load(&a.model)?;
    let sel = Selector {
        stage: a.stage.clone(),
        packet: a.packet.clone(),
        cs: a.cs.clone(),
        factors: assignments(&a.factor, "--factor")?
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    };
    let entry = model
        .select(&sel)
        .with_context(|| a.model.display().to_string())?;
    let values = generate(&entry.dist, a.n, a.seed);
    let text: String = values.iter().map(|v| format!("{v}\n")).collect();
    if let Some(out) = &a.out {
        std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    } else if a.compare.is_none() && !a.json {
        print!("{text}");
    }
    if a.compare.is_none() && a.json {
        let v = serde_json::json!({
            "entry": entry.label(),
            "dist": entry.dist,
            "seed": a.seed,
            "values": if a.out.is_some() { serde_json::Value::Null } else { serde_json::json!(values) },
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    let Some(cmp_path) = &a.compare else {
        return Ok(());
    };
    let measured = pipeline::measured(cmp_path, a.column.as_deref(), entry)?;
    let c = compare(&measured.values, &values);
    if let Some(dir) = &a.plots {
        for f in
            figures::comparison_figures(&c, &measured.values, &values, &entry.label(), &model.unit)?
        {
            let p = figures::write(dir, &f)?;
            if !a.json {
                println!("wrote {}", p.display());
            }
        }
    }
    if a.json {
        let v = serde_json::json!({ "entry": entry.label(), "dist": entry.dist, "seed": a.seed, "comparison": c });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "{}: {} drawn (seed {}) from {}",
        entry.label(),
        values.len(),
        a.seed,
        describe(&entry.dist, &model.unit)
    );
    let mut t = TextTable::new(&["quantile", "measured", "generated"], 1);
    for (p, m, g) in &c.quantiles {
        t.row(vec![format!("p{p}"), num(*m), num(*g)]);
    }
    print!("{}", t.render());
    println!(
        "two-sample Kolmogorov-Smirnov D = {} ({} measured, {} generated)",
        sig(c.ks),
        c.n_measured,
        c.n_generated
    );
    Ok(())
}
