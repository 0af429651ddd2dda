//! `ndnlab analyze` as the binary calls it: a CSV table read from a file,
//! the analysis of `ndnlab-analysis` run on the columns chosen (or on those
//! that fit, by default), errors named by the file. The text of each result
//! is in `ndnlab_report::text`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use ndnlab_analysis::{
    analyze_anova, analyze_two_level, group_summaries, AnovaAnalysis, Dataset, GroupSummary, Table,
    Transform, TwoLevelAnalysis,
};
use ndnlab_report::csvplot::{line_figure, LinePlot};

/// Reads the CSV table of `path`.
pub fn load(path: &Path) -> anyhow::Result<Table> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Table::from_csv_str(&text).with_context(|| path.display().to_string())
}

fn transform(log: bool) -> Transform {
    if log {
        Transform::Log10
    } else {
        Transform::None
    }
}

/// The two-level factorial analysis of `response` in `file`: over `factors`,
/// or every other column with exactly two levels (not `replicates`, the
/// column numbering a run's replicates, checked when given).
pub fn factorial(
    file: &Path,
    response: &str,
    factors: Option<Vec<String>>,
    replicates: Option<&str>,
    log: bool,
    alpha: f64,
) -> anyhow::Result<TwoLevelAnalysis> {
    let name = file.display().to_string();
    let t = load(file)?;
    t.column_index(response).with_context(|| name.clone())?;
    let factors = match factors {
        Some(f) => f,
        None => {
            let mut exclude = vec![response];
            exclude.extend(replicates);
            let f = t.columns_with_levels(2, &exclude);
            if f.is_empty() {
                anyhow::bail!("{name}: no column with exactly two levels to use as a factor; name them with --factors");
            }
            f
        }
    };
    let fs: Vec<&str> = factors.iter().map(String::as_str).collect();
    let ds =
        Dataset::from_table(&t, &fs, response, transform(log)).with_context(|| name.clone())?;
    if let Some(r) = replicates {
        ds.check_replicate_ids(&t, r)
            .with_context(|| name.clone())?;
    }
    analyze_two_level(&ds, alpha).with_context(|| name.clone())
}

/// The analysis of variance of `response` in `file` over `factors`.
pub fn anova(
    file: &Path,
    response: &str,
    factors: &[String],
    log: bool,
    alpha: f64,
) -> anyhow::Result<AnovaAnalysis> {
    let name = file.display().to_string();
    let t = load(file)?;
    let fs: Vec<&str> = factors.iter().map(String::as_str).collect();
    let ds =
        Dataset::from_table(&t, &fs, response, transform(log)).with_context(|| name.clone())?;
    analyze_anova(&ds, alpha).with_context(|| name.clone())
}

/// The summaries of `metrics` in `file` (default: every numeric column not
/// grouped by) per group of the columns `by`.
pub fn summary(
    file: &Path,
    by: &[String],
    metrics: Option<Vec<String>>,
    alpha: f64,
) -> anyhow::Result<Vec<GroupSummary>> {
    let name = file.display().to_string();
    let t = load(file)?;
    let metrics = match metrics {
        Some(m) => m,
        None => t
            .headers()
            .iter()
            .filter(|h| !by.contains(h) && t.is_numeric(h))
            .cloned()
            .collect(),
    };
    if metrics.is_empty() {
        anyhow::bail!("{name}: no numeric column to summarise; name them with --metrics");
    }
    let by: Vec<&str> = by.iter().map(String::as_str).collect();
    let ms: Vec<&str> = metrics.iter().map(String::as_str).collect();
    group_summaries(&t, &by, &ms, alpha).with_context(|| name.clone())
}

/// The line plot `spec` of `file`'s columns written to `out` (a path without
/// extension): the SVG and PNG files written.
pub fn plot(file: &Path, spec: &LinePlot, out: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let t = load(file)?;
    let id = out
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("--out {}: no file name", out.display()))?;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fig = line_figure(&t, file, spec, id)?;
    let svg = fig.save(dir)?;
    let png = svg.with_extension("png");
    Ok((svg, png))
}
