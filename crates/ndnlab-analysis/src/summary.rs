//! Summaries of one sample: mean, standard deviation, Student-t confidence
//! interval of the mean, median and percentiles; and per-group summaries of a table.

use serde::Serialize;

use crate::dist::{check_alpha, t_quantile};
use crate::error::Result;
use crate::levels::ordered_levels;
use crate::table::Table;

/// The summary of one sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1); `None` for fewer than 2 values.
    pub sd: Option<f64>,
    /// Confidence interval of the mean, `mean ± t[1-alpha/2; n-1] sd / sqrt(n)`.
    pub ci: Option<(f64, f64)>,
    pub min: f64,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    /// Half the width of the confidence interval, if there is one.
    pub fn half_width(&self) -> Option<f64> {
        self.ci.map(|(lo, hi)| (hi - lo) / 2.0)
    }
}

/// Arithmetic mean (NaN for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Sample standard deviation, `None` for fewer than 2 values.
pub fn std_dev(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values);
    let ss: f64 = values.iter().map(|y| (y - m) * (y - m)).sum();
    Some((ss / (values.len() - 1) as f64).sqrt())
}

/// The `p`-th percentile (0..=100) of sorted values, interpolating linearly
/// between order statistics (position `(n - 1) p / 100`).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = (sorted.len() - 1) as f64 * (p / 100.0).clamp(0.0, 1.0);
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// The median of unsorted values.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    percentile(&v, 50.0)
}

/// Summarises a non-empty sample with a `1 - alpha` confidence interval of its mean.
pub fn summarize(values: &[f64], alpha: f64) -> Result<Summary> {
    check_alpha(alpha)?;
    if values.is_empty() {
        return Err(crate::AnalysisError::Empty("no values to summarise".into()));
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = values.len();
    let m = mean(values);
    let sd = std_dev(values);
    let ci = sd.map(|s| {
        let h = t_quantile(1.0 - alpha / 2.0, (n - 1) as f64) * s / (n as f64).sqrt();
        (m - h, m + h)
    });
    Ok(Summary {
        n,
        mean: m,
        sd,
        ci,
        min: sorted[0],
        p25: percentile(&sorted, 25.0),
        median: percentile(&sorted, 50.0),
        p75: percentile(&sorted, 75.0),
        p95: percentile(&sorted, 95.0),
        p99: percentile(&sorted, 99.0),
        max: sorted[n - 1],
    })
}

/// The summary of one metric in one group of rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSummary {
    /// `(column, level)` for each grouping column; empty when ungrouped.
    pub group: Vec<(String, String)>,
    pub metric: String,
    pub summary: Summary,
}

/// Summaries of each metric per group of rows sharing the values of the `by`
/// columns. Groups come in level order (numeric levels sorted, others in order
/// of appearance), metric by metric.
pub fn group_summaries(
    table: &Table,
    by: &[&str],
    metrics: &[&str],
    alpha: f64,
) -> Result<Vec<GroupSummary>> {
    check_alpha(alpha)?;
    if table.is_empty() {
        return Err(crate::AnalysisError::Empty("no data rows".into()));
    }
    let mut level_idx = Vec::new();
    let mut level_names = Vec::new();
    for b in by {
        let col = table.text(b)?;
        let levels = ordered_levels(&col);
        level_idx.push(
            col.iter()
                .map(|v| levels.iter().position(|l| l == v).unwrap_or(0))
                .collect::<Vec<_>>(),
        );
        level_names.push(levels);
    }
    let mut groups: std::collections::BTreeMap<Vec<usize>, Vec<usize>> = Default::default();
    for row in 0..table.len() {
        let key: Vec<usize> = level_idx.iter().map(|c| c[row]).collect();
        groups.entry(key).or_default().push(row);
    }
    let mut out = Vec::new();
    for m in metrics {
        let values = table.numbers(m)?;
        for (key, rows) in &groups {
            let v: Vec<f64> = rows.iter().map(|&r| values[r]).collect();
            out.push(GroupSummary {
                group: by
                    .iter()
                    .zip(key)
                    .enumerate()
                    .map(|(i, (b, &l))| (b.to_string(), level_names[i][l].clone()))
                    .collect(),
                metric: m.to_string(),
                summary: summarize(&v, alpha)?,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_sd_ci_percentiles() {
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], 0.05).unwrap();
        assert_eq!(s.mean, 5.0);
        // sum of squares 32, sd = sqrt(32/7)
        assert!((s.sd.unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let h = 2.3646 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
        assert!((s.half_width().unwrap() - h).abs() < 1e-3);
        assert_eq!(s.median, 4.5);
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 25.0), 2.0);
        let one = summarize(&[3.0], 0.05).unwrap();
        assert_eq!((one.sd, one.ci), (None, None));
    }

    #[test]
    fn groups_in_level_order() {
        let t = Table::from_csv_str("a,y\n10,1\n2,3\n10,5\n2,7\n").unwrap();
        let g = group_summaries(&t, &["a"], &["y"], 0.1).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].group, [("a".to_string(), "2".to_string())]);
        assert_eq!(g[0].summary.mean, 5.0);
        assert_eq!(g[1].summary.mean, 3.0);
        let all = group_summaries(&t, &[], &["y"], 0.1).unwrap();
        assert_eq!((all.len(), all[0].summary.n), (1, 4));
    }
}
