//! "Comparison with the paper": the figures and tables of a [`Comparison`],
//! as a [`Section`] any page can hold (the experiment's report, `ndnlab
//! reproduce`'s page).

use crate::compare::{Comparison, Curve, Row};
use crate::html::{esc, table, Section};
use crate::levels::Level;
use crate::plots::{LevelSeries, PaperChart};
use crate::report::slug;
use crate::text::{interval, num};
use crate::ReportError;

fn cell(v: Option<f64>) -> String {
    v.map(num).unwrap_or_else(|| "-".into())
}

fn with_error(v: Option<f64>, e: Option<f64>) -> String {
    match (v, e) {
        (Some(v), Some(e)) => format!("{} ± {}", num(v), num(e)),
        (v, _) => cell(v),
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into())
}

fn ci(r: &Row) -> String {
    match (r.ndnlab_ci_lo, r.ndnlab_ci_hi) {
        (Some(a), Some(b)) => interval(Some((a, b))),
        _ => "-".into(),
    }
}

/// The levels a curve's figure shows: every level of every series, numbers
/// ascending, texts in order of appearance.
fn curve_levels(c: &Curve) -> Vec<Level> {
    let mut levels: Vec<Level> = Vec::new();
    for s in &c.series {
        for p in &s.points {
            if !levels.iter().any(|l| l.matches(&p.level)) {
                levels.push(p.level.clone());
            }
        }
    }
    if levels.iter().all(|l| l.number().is_some()) {
        levels.sort_by(|a, b| {
            a.number()
                .unwrap_or(0.0)
                .total_cmp(&b.number().unwrap_or(0.0))
        });
    }
    levels
}

/// The figure of one curve: ndnlab's series and the paper's on the same axes.
pub fn curve_chart(c: &Curve, figure: &str) -> PaperChart {
    let levels = curve_levels(c);
    let series = |paper: bool| -> Vec<LevelSeries> {
        c.series
            .iter()
            .filter(|s| s.paper == paper)
            .map(|s| LevelSeries {
                name: s.label.clone(),
                points: s
                    .points
                    .iter()
                    .filter_map(|p| {
                        let i = levels.iter().position(|l| l.matches(&p.level))?;
                        Some((i, p.mean, p.ci))
                    })
                    .collect(),
            })
            .collect()
    };
    PaperChart {
        title: format!("{figure}: {} against {}", c.metric, c.x),
        x_label: c.x.clone(),
        y_label: if c.unit.is_empty() {
            c.metric.clone()
        } else {
            format!("{} ({})", c.metric, c.unit)
        },
        paper_x: c
            .paper_x
            .iter()
            .filter_map(|(x, _)| axis_position(&levels, *x))
            .collect(),
        levels: levels.iter().map(Level::to_string).collect(),
        measured: series(false),
        paper: series(true),
    }
}

/// The end of a curve's caption: where the paper's numbers are when it draws
/// no paper series, and what each grey vertical marks.
fn paper_note(c: &Curve) -> String {
    let mut note = String::new();
    if !c.series.iter().any(|t| t.paper) {
        note += "; the paper's numbers of this curve are in the shapes table";
    }
    for (x, label) in &c.paper_x {
        note += &format!("; grey dashed line at {} = {}: {}", c.x, num(*x), label);
    }
    note
}

/// Where the number `x` falls on an axis of numeric `levels` in ascending
/// order (0 at the first level, 1 at the second, linear between two); `None`
/// outside them or on an axis of texts.
pub fn axis_position(levels: &[Level], x: f64) -> Option<f64> {
    let nums: Vec<f64> = levels.iter().map(Level::number).collect::<Option<_>>()?;
    let i = nums.windows(2).position(|w| w[0] <= x && x <= w[1]);
    match i {
        Some(i) => Some(i as f64 + (x - nums[i]) / (nums[i + 1] - nums[i])),
        None => nums.iter().position(|&v| v == x).map(|i| i as f64),
    }
}

/// The section of a comparison; figure ids start with `id_prefix`, figures
/// are numbered from `figures_before + 1`.
pub fn html_section(
    c: &Comparison,
    id_prefix: &str,
    figures_before: usize,
) -> Result<Section, ReportError> {
    let r = &c.reference;
    let conf = format!(
        "{}%",
        num(100.0 * (1.0 - c.alpha))
            .trim_end_matches('0')
            .trim_end_matches('.')
    );
    let mut s = Section::new(figures_before);
    s.html += &format!(
        "<p><b>{}</b> of {}.<br>The paper's finding: {}</p>\n",
        esc(&r.figure),
        esc(&r.citation),
        esc(&r.finding)
    );
    for (i, curve) in c.curves.iter().enumerate() {
        s.figure(
            &format!("{id_prefix}{}-{}-{i}", slug(&curve.metric), slug(&curve.x)),
            &format!(
                "{}: {} against {}{}. ndnlab: mean over the runs with {conf} CI bars (solid lines, filled markers), one series per set of rows compared; the paper (dashed lines, hollow markers, bars: the paper's error or the reading error){}.",
                r.figure,
                curve.metric,
                curve.x,
                if curve.unit.is_empty() {
                    String::new()
                } else {
                    format!(", in {}", curve.unit)
                },
                paper_note(curve)
            ),
            &curve_chart(curve, &r.figure),
        )?;
    }
    let series: Vec<&Row> = c.rows.iter().filter(|r| r.kind == "series").collect();
    if !series.is_empty() {
        s.html += "<h3>The paper's values beside ndnlab's</h3>\n";
        let rows: Vec<Vec<String>> = series
            .iter()
            .map(|r| {
                vec![
                    r.label.clone(),
                    r.metric.clone(),
                    r.x.clone(),
                    r.where_.clone(),
                    r.unit.clone(),
                    with_error(r.paper, r.paper_error),
                    cell(r.ndnlab),
                    ci(r),
                    ratio(r.ratio),
                    r.counterpart.as_str().into(),
                    r.source.clone(),
                    r.note.clone(),
                ]
            })
            .collect();
        let heads: Vec<String> = [
            "series",
            "metric",
            "x",
            "where",
            "unit",
            "paper",
            "ndnlab",
            &format!("{conf} CI"),
            "ratio",
            "ndnlab from",
            "paper from",
            "note",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        s.html += &table(&heads, &rows, 5);
        s.note("ratio = ndnlab / paper. ndnlab from: measured (runs at that level), interpolated (linearly between the measured levels around it, the interval bounds too), missing, or skipped (every run that would measure it was skipped here).");
    }
    let shapes: Vec<(&Row, &crate::reference::Shape)> = c
        .rows
        .iter()
        .filter(|r| r.kind == "shape")
        .zip(&r.shape)
        .collect();
    if !shapes.is_empty() {
        s.html += "<h3>Shapes</h3>\n";
        let rows: Vec<Vec<String>> = shapes
            .iter()
            .map(|(row, sh)| {
                let what = match (sh.kind.as_str(), sh.below) {
                    ("plateau", _) => {
                        format!("plateau: gain < {} to the next level", sh.threshold())
                    }
                    ("ratio", _) => format!(
                        "ratio: at {} over at {}",
                        sh.to
                            .as_ref()
                            .map_or(String::new(), |v| crate::levels::Level::of_value(v)
                                .to_string()),
                        sh.from
                            .as_ref()
                            .map_or(String::new(), |v| crate::levels::Level::of_value(v)
                                .to_string())
                    ),
                    (_, true) => format!("falls under {}", num(sh.threshold())),
                    _ => format!("passes {}", num(sh.threshold())),
                };
                vec![
                    row.label.clone(),
                    row.metric.clone(),
                    row.x.clone(),
                    row.where_.clone(),
                    what,
                    cell(row.paper),
                    cell(row.ndnlab),
                    ratio(row.ratio),
                    row.counterpart.as_str().into(),
                    row.note.clone(),
                ]
            })
            .collect();
        let heads: Vec<String> = [
            "shape",
            "metric",
            "x",
            "where",
            "read as",
            "paper (x)",
            "ndnlab (x)",
            "ratio",
            "ndnlab from",
            "note",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        s.html += &table(&heads, &rows, 5);
    }
    let variation: Vec<&Row> = c.rows.iter().filter(|r| r.kind == "variation").collect();
    if !variation.is_empty() {
        s.html += "<h3>Allocation of variation</h3>\n";
        let rows: Vec<Vec<String>> = variation
            .iter()
            .map(|r| {
                vec![
                    r.label.clone(),
                    r.metric.clone(),
                    r.x.clone(),
                    r.paper
                        .map(|v| format!("{v:.1}%"))
                        .unwrap_or_else(|| "-".into()),
                    r.ndnlab
                        .map(|v| format!("{v:.1}%"))
                        .unwrap_or_else(|| "-".into()),
                    match (r.ndnlab_ci_lo, r.ndnlab_ci_hi) {
                        (Some(a), Some(b)) => format!("[{a:.1}%, {b:.1}%]"),
                        _ => "-".into(),
                    },
                    ratio(r.ratio),
                    r.counterpart.as_str().into(),
                    r.note.clone(),
                ]
            })
            .collect();
        let heads: Vec<String> = [
            "term (paper)",
            "metric",
            "factors",
            "paper",
            "ndnlab",
            "interval",
            "ratio",
            "ndnlab from",
            "note",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect();
        s.html += &table(&heads, &rows, 3);
        s.note(&format!(
            "Interval of ndnlab's share: {}.",
            c.share_intervals
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paper_x_falls_between_the_levels_around_it() {
        let levels: Vec<Level> = [5.0, 10.0, 30.0, 100.0].map(Level::Number).to_vec();
        assert_eq!(axis_position(&levels, 5.0), Some(0.0));
        assert_eq!(axis_position(&levels, 25.0), Some(1.75));
        assert_eq!(axis_position(&levels, 100.0), Some(3.0));
        assert_eq!(axis_position(&levels, 4.0), None);
        assert_eq!(axis_position(&levels, 300.0), None);
        let texts = vec![Level::Text("tcp".into()), Level::Text("udp".into())];
        assert_eq!(axis_position(&texts, 1.0), None);
    }
}
