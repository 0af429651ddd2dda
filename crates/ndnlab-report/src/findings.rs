//! "Findings": for each main metric, the factors that explain most of its
//! variation (share and interval, [`crate::shares`]) and its main-effects plot.

use ndnlab_analysis::{means, Dataset, Table, Transform};

use crate::charts;
use crate::html::{esc, table, Section};
use crate::reference::Reference;
use crate::report::slug;
use crate::shares::{allocate, interval_method};
use crate::style::with_unit;
use crate::ReportError;

/// Metrics a report leads with when the experiment declares none.
pub const USUAL: [&str; 4] = [
    "data_per_sec",
    "throughput_mbps",
    "satisfaction",
    "delay_p50_us",
];

/// Terms listed per metric, at most.
const MOST_TERMS: usize = 5;

/// The main metrics among the columns `metrics`: the declared ones in their
/// order; if none, the reference's metrics, then those of [`USUAL`] that exist.
pub fn main_metrics(
    metrics: &[String],
    declared: &[String],
    reference: Option<&Reference>,
) -> Vec<String> {
    let mut candidates: Vec<&str> = declared.iter().map(String::as_str).collect();
    if !candidates.iter().any(|d| metrics.iter().any(|c| c == d)) {
        candidates = reference
            .map(|r| r.metrics().into_iter().map(|(_, m)| m).collect())
            .unwrap_or_default();
        candidates.extend(USUAL);
    }
    let mut out: Vec<String> = Vec::new();
    for m in candidates {
        if metrics.iter().any(|c| c == m) && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    out
}

fn share(p: f64, i: Option<(f64, f64)>) -> (String, String) {
    (
        format!("{p:.1}%"),
        i.map(|(a, b)| format!("[{a:.1}%, {b:.1}%]"))
            .unwrap_or_else(|| "-".into()),
    )
}

/// The findings of `main` metrics over the ok rows; figure ids start with
/// `id_prefix`, figures are numbered from `figures_before + 1`.
pub fn findings_section(
    ok: &Table,
    factors: &[String],
    main: &[String],
    alpha: f64,
    id_prefix: &str,
    figures_before: usize,
) -> Result<Section, ReportError> {
    let mut s = Section::new(figures_before);
    if main.is_empty() {
        s.note("No main metric among the results.");
        return Ok(s);
    }
    let conf = format!("{}%", (100.0 * (1.0 - alpha)).round());
    for m in main {
        s.html += &format!("<h3>{}</h3>\n", esc(&with_unit(m)));
        match allocate(ok, factors, m, alpha) {
            Ok(a) => {
                let mut rows = Vec::new();
                let mut covered = 0.0;
                for t in a.shares.iter().take(MOST_TERMS) {
                    if covered >= 90.0 && !rows.is_empty() {
                        break;
                    }
                    covered += t.percent;
                    let (p, i) = share(t.percent, t.interval);
                    rows.push(vec![t.label(), p, i]);
                }
                if let Some(e) = a.error {
                    let (p, i) = share(e, a.error_interval);
                    rows.push(vec!["error (unexplained)".into(), p, i]);
                }
                let top = &a.shares[0];
                s.html += &format!(
                    "<p>{} explains {:.1}% of the variation of {} ({} allocation of variation).</p>\n",
                    esc(&top.label()),
                    top.percent,
                    esc(m),
                    a.method
                );
                s.html += &table(
                    &[
                        "term".into(),
                        "variation".into(),
                        format!("{conf} interval"),
                    ],
                    &rows,
                    1,
                );
                s.note(&format!("Intervals: {}.", interval_method(alpha)));
                let fs: Vec<&str> = a.factors.iter().map(String::as_str).collect();
                if let Ok(me) = Dataset::from_table(ok, &fs, m, Transform::None)
                    .and_then(|ds| means::main_effects(&ds, alpha))
                {
                    s.figure(
                        &format!("{id_prefix}{}-main-effects", slug(m)),
                        &format!("Main effects on {m}: mean and {conf} CI at each level of each factor; steeper lines, larger effects."),
                        &charts::main_effects(&me, &with_unit(m)),
                    )?;
                }
            }
            Err(e) => s.note(&format!("{m}: no allocation of variation ({e}).")),
        }
    }
    Ok(s)
}
