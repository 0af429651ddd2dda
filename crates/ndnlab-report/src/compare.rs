//! ndnlab's results beside a paper's numbers (`[reference]` of the
//! experiment): one [`Row`] per reference point, written to
//! `DIR/reference.json` and `DIR/reference.csv`, and the curves its figures draw.
//!
//! * A series point: the mean of the metric over the ok runs matching `where`
//!   and the point's level of `x` (levels matched by value), divided by the
//!   series' `scale` (or, for a `relative_to` series, by ndnlab's own mean at
//!   that level over the paper's value there), with its confidence interval over those runs
//!   ("measured"). For a numeric `x` without runs at that level, the mean and
//!   the interval bounds are interpolated linearly between the nearest measured
//!   levels around it ("interpolated"); outside the measured levels, or for a
//!   text level without runs, "missing"; "skipped" when every run that would
//!   measure it was skipped (the runner could not carry out its point: NFD
//!   not installed, a link it cannot emulate).
//! * A shape: the same number computed from ndnlab's per-level means
//!   (`plateau`: measured levels only; `crossing`: interpolated between the two
//!   levels around the crossing). A shape that does not happen within the
//!   measured levels (no plateau yet, the threshold never passed) is
//!   "beyond": ndnlab's number is larger than the last measured level, which
//!   the row gives as a lower bound, without a ratio.
//! * A variation share: the share of the same term in ndnlab's allocation of
//!   variation ([`crate::shares`]), with its bootstrap interval.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use ndnlab_analysis::summary::summarize;
use ndnlab_analysis::table::parse_number;
use ndnlab_analysis::Table;

use crate::experiment::ExperimentDir;
use crate::levels::{cell_is, Level};
use crate::reference::{Reference, Series, Shape, Variation};
use crate::shares::{allocate, interval_method, Allocation};
use crate::text::num;
use crate::{ReportError, ReportOptions};

/// How ndnlab's number of a row was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Counterpart {
    Measured,
    Interpolated,
    /// A shape not reached within the measured levels: `ndnlab` is the last
    /// measured level, a lower bound of ndnlab's number.
    Beyond,
    Missing,
    /// Every run with the row's `where` was skipped (status `skipped`): not
    /// measured on this machine, and not a gap in the design.
    Skipped,
}

impl Counterpart {
    pub fn as_str(self) -> &'static str {
        match self {
            Counterpart::Measured => "measured",
            Counterpart::Interpolated => "interpolated",
            Counterpart::Beyond => "beyond",
            Counterpart::Missing => "missing",
            Counterpart::Skipped => "skipped",
        }
    }
}

/// One reference point beside ndnlab's number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub figure: String,
    /// `series`, `shape` or `variation`.
    pub kind: &'static str,
    pub label: String,
    pub metric: String,
    /// Series: `factor=level` (empty for a single cell); shape: the factor
    /// whose level the number is; variation: the term (`a × b`).
    pub x: String,
    /// `factor=level, ...`.
    #[serde(rename = "where")]
    pub where_: String,
    pub paper: Option<f64>,
    pub paper_error: Option<f64>,
    /// The unit of `paper` and `ndnlab` (shapes: the unit of x, left empty).
    pub unit: String,
    pub ndnlab: Option<f64>,
    pub ndnlab_ci_lo: Option<f64>,
    pub ndnlab_ci_hi: Option<f64>,
    /// ndnlab / paper.
    pub ratio: Option<f64>,
    pub counterpart: Counterpart,
    pub source: String,
    /// Why a number is missing, or how it was read.
    pub note: String,
}

impl Row {
    /// The row's cells in the order of [`COLUMNS`] but the last
    /// (`share_intervals`, which belongs to the comparison), empty for no number.
    pub fn fields(&self) -> Vec<String> {
        vec![
            self.figure.clone(),
            self.kind.to_string(),
            self.label.clone(),
            self.metric.clone(),
            self.x.clone(),
            self.where_.clone(),
            opt(self.paper),
            opt(self.paper_error),
            self.unit.clone(),
            opt(self.ndnlab),
            opt(self.ndnlab_ci_lo),
            opt(self.ndnlab_ci_hi),
            opt(self.ratio),
            self.counterpart.as_str().to_string(),
            self.source.clone(),
            self.note.clone(),
        ]
    }
}

/// ndnlab's mean at one level of a curve.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    pub level: Level,
    pub mean: f64,
    pub ci: Option<(f64, f64)>,
}

/// One series of a [`Curve`].
#[derive(Debug, Clone, PartialEq)]
pub struct CurveSeries {
    pub label: String,
    /// The paper's values (error in `ci` as value ± error) or ndnlab's means.
    pub paper: bool,
    pub points: Vec<CurvePoint>,
}

/// What one comparison figure draws: a metric against a factor, ndnlab's
/// series (one per `where` of the reference series and shapes) and the paper's.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub metric: String,
    pub x: String,
    pub unit: String,
    pub series: Vec<CurveSeries>,
    /// The paper's x of each plateau and crossing drawn here ("loss rises
    /// past about 25 routers"), once per value, with the shapes' labels.
    pub paper_x: Vec<(f64, String)>,
}

/// The comparison of an experiment with its `[reference]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub reference: Reference,
    pub alpha: f64,
    pub rows: Vec<Row>,
    pub curves: Vec<Curve>,
    /// How the intervals of variation shares were obtained.
    pub share_intervals: String,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    citation: &'a str,
    figure: &'a str,
    finding: &'a str,
    confidence: f64,
    share_intervals: &'a str,
    rows: &'a [Row],
}

/// The CSV columns, in order.
pub const COLUMNS: [&str; 17] = [
    "figure",
    "kind",
    "label",
    "metric",
    "x",
    "where",
    "paper",
    "paper_error",
    "unit",
    "ndnlab",
    "ndnlab_ci_lo",
    "ndnlab_ci_hi",
    "ratio",
    "counterpart",
    "source",
    "note",
    "share_intervals",
];

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

impl Comparison {
    /// `reference.json`: the paper, then every row.
    pub fn to_json(&self) -> String {
        let r = &self.reference;
        serde_json::to_string_pretty(&JsonFile {
            citation: &r.citation,
            figure: &r.figure,
            finding: &r.finding,
            confidence: 1.0 - self.alpha,
            share_intervals: &self.share_intervals,
            rows: &self.rows,
        })
        .unwrap_or_default()
            + "\n"
    }

    /// `reference.csv`: one row per reference point, empty cells for no number.
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(COLUMNS);
        for r in &self.rows {
            let shares = if r.kind == "variation" {
                self.share_intervals.as_str()
            } else {
                ""
            };
            let mut record = r.fields();
            record.push(shares.to_string());
            let _ = w.write_record(&record);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// Writes `dir/reference.json` and `dir/reference.csv`; returns their paths.
    pub fn write(&self, dir: &Path) -> Result<[PathBuf; 2], ReportError> {
        let json = dir.join("reference.json");
        let csv = dir.join("reference.csv");
        for (p, text) in [(&json, self.to_json()), (&csv, self.to_csv())] {
            std::fs::write(p, text).map_err(|source| ReportError::Io {
                path: p.clone(),
                source,
            })?;
        }
        Ok([json, csv])
    }
}

/// `factor=level, ...` of a `where` table.
pub fn describe_where(w: &BTreeMap<String, toml::Value>) -> String {
    w.iter()
        .map(|(k, v)| format!("{k}={}", Level::of_value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ndnlab's per-level summaries of `metric` over the rows matching `where_`,
/// along `x` (levels in order: numbers ascending, texts as they appear), or
/// over all of them without `x`; the message says why there are none.
pub fn level_means(
    ok: &Table,
    metric: &str,
    x: Option<&str>,
    where_: &BTreeMap<String, toml::Value>,
    alpha: f64,
) -> Result<Vec<CurvePoint>, String> {
    let col = ok
        .column_index(metric)
        .map_err(|_| format!("no column '{metric}' in results.csv"))?;
    let mut conds = Vec::new();
    for (k, v) in where_ {
        let c = ok
            .column_index(k)
            .map_err(|_| format!("no column '{k}' in results.csv"))?;
        conds.push((c, v));
    }
    let xc = match x {
        Some(f) => Some(
            ok.column_index(f)
                .map_err(|_| format!("no column '{f}' in results.csv"))?,
        ),
        None => None,
    };
    let mut groups: Vec<(Level, Vec<f64>)> = Vec::new();
    for row in 0..ok.len() {
        if !conds.iter().all(|(c, v)| cell_is(ok.cell(row, *c), v)) {
            continue;
        }
        let Some(y) = parse_number(ok.cell(row, col)) else {
            continue;
        };
        let level = match xc {
            Some(c) => Level::of_cell(ok.cell(row, c)),
            None => Level::Text(String::new()),
        };
        match groups.iter_mut().find(|g| g.0.matches(&level)) {
            Some(g) => g.1.push(y),
            None => groups.push((level, vec![y])),
        }
    }
    if groups.is_empty() {
        return Err(if where_.is_empty() {
            format!("no ok run has a value of {metric}")
        } else {
            format!(
                "no ok run with {} has a value of {metric}",
                describe_where(where_)
            )
        });
    }
    if groups.iter().all(|g| g.0.number().is_some()) {
        groups.sort_by(|a, b| {
            a.0.number()
                .unwrap_or(0.0)
                .total_cmp(&b.0.number().unwrap_or(0.0))
        });
    }
    groups
        .into_iter()
        .map(|(level, ys)| {
            let s = summarize(&ys, alpha).map_err(|e| e.to_string())?;
            Ok(CurvePoint {
                level,
                mean: s.mean,
                ci: s.ci,
            })
        })
        .collect()
}

/// ndnlab's value at `level` of a curve: measured there, interpolated between
/// the numeric levels around it, or none.
pub fn at_level(curve: &[CurvePoint], level: &Level) -> Option<(CurvePoint, Counterpart)> {
    if let Some(p) = curve.iter().find(|p| p.level.matches(level)) {
        return Some((p.clone(), Counterpart::Measured));
    }
    let x = level.number()?;
    let nums: Vec<(f64, &CurvePoint)> = curve
        .iter()
        .map(|p| p.level.number().map(|v| (v, p)))
        .collect::<Option<_>>()?;
    let below = nums
        .iter()
        .filter(|(v, _)| *v < x)
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    let above = nums
        .iter()
        .filter(|(v, _)| *v > x)
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    let t = (x - below.0) / (above.0 - below.0);
    let lerp = |a: f64, b: f64| a + t * (b - a);
    let ci = match (below.1.ci, above.1.ci) {
        (Some(a), Some(b)) => Some((lerp(a.0, b.0), lerp(a.1, b.1))),
        _ => None,
    };
    Some((
        CurvePoint {
            level: level.clone(),
            mean: lerp(below.1.mean, above.1.mean),
            ci,
        },
        Counterpart::Interpolated,
    ))
}

fn ratio(ndnlab: Option<f64>, paper: Option<f64>) -> Option<f64> {
    match (ndnlab, paper) {
        (Some(n), Some(p)) if p != 0.0 => Some(n / p),
        _ => None,
    }
}

/// What ndnlab's means of a series are divided by to be in the paper's unit:
/// `scale`, or for a `relative_to` series ndnlab's own mean at that level over
/// the paper's value there.
pub fn divisor(s: &Series, curve: &[CurvePoint]) -> Result<f64, String> {
    let Some(base) = &s.relative_to else {
        return Ok(s.scale);
    };
    let level = Level::of_value(base);
    let paper = s
        .points
        .iter()
        .find(|p| Level::of_value(&p.x).matches(&level))
        .map(|p| p.value)
        .ok_or_else(|| format!("relative_to {level} is not one of the points"))?;
    let own = at_level(curve, &level)
        .map(|(p, _)| p.mean)
        .ok_or_else(|| format!("no run at the relative_to level {level}"))?;
    if own == 0.0 || paper == 0.0 {
        return Err(format!(
            "relative to {level}, where ndnlab's mean or the paper's value is 0"
        ));
    }
    Ok(own / paper)
}

fn series_rows(figure: &str, s: &Series, ok: &Table, alpha: f64) -> Vec<Row> {
    let curve = level_means(ok, &s.metric, s.x.as_deref(), &s.where_, alpha);
    let div = curve
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|c| divisor(s, c));
    let row = |x: String, paper: f64, error: Option<f64>, level: Option<Level>| {
        let found = match (&curve, &level) {
            (Err(e), _) => Err(e.clone()),
            (Ok(c), Some(l)) => at_level(c, l).ok_or_else(|| {
                format!(
                    "no run at {}={l} and no measured levels around it",
                    s.x.as_deref().unwrap_or("")
                )
            }),
            (Ok(c), None) => Ok((c[0].clone(), Counterpart::Measured)),
        };
        let (ndnlab, ci, counterpart, note) = match found.and_then(|f| Ok((f, div.clone()?))) {
            Ok(((p, how), d)) => (
                Some(p.mean / d),
                p.ci.map(|(a, b)| (a / d, b / d)),
                how,
                String::new(),
            ),
            Err(e) => (None, None, Counterpart::Missing, e),
        };
        Row {
            figure: figure.to_string(),
            kind: "series",
            label: s.label.clone(),
            metric: s.metric.clone(),
            x,
            where_: describe_where(&s.where_),
            paper: Some(paper),
            paper_error: error,
            unit: s.unit.clone(),
            ndnlab,
            ndnlab_ci_lo: ci.map(|c| c.0),
            ndnlab_ci_hi: ci.map(|c| c.1),
            ratio: ratio(ndnlab, Some(paper)),
            counterpart,
            source: s.source.clone(),
            note,
        }
    };
    match &s.x {
        Some(f) => s
            .points
            .iter()
            .map(|p| {
                let l = Level::of_value(&p.x);
                row(format!("{f}={l}"), p.value, p.error, Some(l))
            })
            .collect(),
        None => vec![row(
            String::new(),
            s.value.unwrap_or(f64::NAN),
            s.error,
            None,
        )],
    }
}

/// ndnlab's value of a shape from its per-level means, how it was read, and
/// a note; `Err` says why there is none.
pub fn shape_value(s: &Shape, curve: &[CurvePoint]) -> Result<(f64, Counterpart, String), String> {
    if let (Some(from), Some(to)) = (&s.from, &s.to) {
        let (from, to) = (Level::of_value(from), Level::of_value(to));
        let read = |l: &Level| {
            at_level(curve, l).ok_or_else(|| format!("no run at {}={l} and none around it", s.x))
        };
        let ((a, ha), (b, hb)) = (read(&from)?, read(&to)?);
        if a.mean == 0.0 {
            return Err(format!("the metric is 0 at {}={from}", s.x));
        }
        let how = if ha == Counterpart::Measured && hb == Counterpart::Measured {
            Counterpart::Measured
        } else {
            Counterpart::Interpolated
        };
        return Ok((
            b.mean / a.mean,
            how,
            format!("{} at {to} over {} at {from}", num(b.mean), num(a.mean)),
        ));
    }
    let pts: Vec<(f64, f64)> = curve
        .iter()
        .map(|p| p.level.number().map(|x| (x, p.mean)))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{} has text levels", s.x))?;
    if pts.len() < 2 {
        return Err(format!("fewer than two measured levels of {}", s.x));
    }
    match s.kind.as_str() {
        "plateau" => {
            let gain = |i: usize| {
                let (a, b) = (pts[i].1, pts[i + 1].1);
                if a == 0.0 {
                    if b > 0.0 {
                        f64::INFINITY
                    } else {
                        0.0
                    }
                } else {
                    (b - a) / a.abs()
                }
            };
            // The first level from which every later step gains less than the threshold.
            let mut first = None;
            for i in (0..pts.len() - 1).rev() {
                if gain(i) < s.threshold() {
                    first = Some(i);
                } else {
                    break;
                }
            }
            match first {
                Some(i) => Ok((
                    pts[i].0,
                    Counterpart::Measured,
                    format!(
                        "gains under {} from one measured level to the next from here on",
                        s.threshold()
                    ),
                )),
                None => Ok((
                    pts[pts.len() - 1].0,
                    Counterpart::Beyond,
                    format!(
                        "still gains {} or more from the last but one measured level to the last: past {}",
                        s.threshold(),
                        pts[pts.len() - 1].0
                    ),
                )),
            }
        }
        _ => {
            let passes = |m: f64| {
                if s.below {
                    m <= s.threshold()
                } else {
                    m >= s.threshold()
                }
            };
            let Some(i) = pts.iter().position(|p| passes(p.1)) else {
                let last = pts[pts.len() - 1].0;
                return Ok((
                    last,
                    Counterpart::Beyond,
                    format!(
                        "never {} {} at the measured levels: past {last}",
                        if s.below { "falls to" } else { "reaches" },
                        s.threshold()
                    ),
                ));
            };
            if i == 0 {
                return Ok((
                    pts[0].0,
                    Counterpart::Measured,
                    "already at the first measured level".into(),
                ));
            }
            let (x0, m0) = pts[i - 1];
            let (x1, m1) = pts[i];
            let x = x0 + (s.threshold() - m0) / (m1 - m0) * (x1 - x0);
            Ok((
                x,
                Counterpart::Interpolated,
                format!("between the measured levels {x0} and {x1}"),
            ))
        }
    }
}

fn shape_row(figure: &str, s: &Shape, ok: &Table, alpha: f64) -> Row {
    let value =
        level_means(ok, &s.metric, Some(&s.x), &s.where_, alpha).and_then(|c| shape_value(s, &c));
    let (ndnlab, counterpart, note) = match value {
        Ok((v, how, note)) => (Some(v), how, note),
        Err(e) => (None, Counterpart::Missing, e),
    };
    Row {
        figure: figure.to_string(),
        kind: "shape",
        label: s.label.clone(),
        metric: s.metric.clone(),
        x: s.x.clone(),
        where_: describe_where(&s.where_),
        paper: s.paper,
        paper_error: None,
        unit: String::new(),
        ndnlab,
        ndnlab_ci_lo: None,
        ndnlab_ci_hi: None,
        ratio: ratio(ndnlab, s.paper).filter(|_| counterpart != Counterpart::Beyond),
        counterpart,
        source: s.source.clone(),
        note,
    }
}

fn variation_row(figure: &str, v: &Variation, alloc: &Result<Allocation, String>) -> Row {
    let found = alloc.as_ref().map_err(Clone::clone).and_then(|a| {
        a.shares.iter().find(|s| s.is(&v.effect)).ok_or_else(|| {
            format!(
                "no term {} in ndnlab's {} (factors analysed: {})",
                v.effect.join(" × "),
                a.method,
                a.factors.join(", ")
            )
        })
    });
    let (ndnlab, ci, counterpart, note) = match found {
        Ok(s) => (
            Some(s.percent),
            s.interval,
            Counterpart::Measured,
            match alloc {
                Ok(a) => format!("{} allocation of variation", a.method),
                Err(_) => String::new(),
            },
        ),
        Err(e) => (None, None, Counterpart::Missing, e),
    };
    Row {
        figure: figure.to_string(),
        kind: "variation",
        label: v.label.clone(),
        metric: v.metric.clone(),
        x: v.effect.join(" × "),
        where_: String::new(),
        paper: Some(v.share),
        paper_error: None,
        unit: "%".into(),
        ndnlab,
        ndnlab_ci_lo: ci.map(|c| c.0),
        ndnlab_ci_hi: ci.map(|c| c.1),
        ratio: ratio(ndnlab, Some(v.share)),
        counterpart,
        source: v.source.clone(),
        note,
    }
}

/// The legend of a measured series: "ndnlab" and its `where`, or, where the
/// series selects a forwarder kind, the forwarder that carried it ("NFD, ...",
/// "ndnlab fwd, ...").
fn series_label(where_: &BTreeMap<String, toml::Value>) -> String {
    let mut rest = where_.clone();
    let who = match rest
        .remove("forwarder.kind")
        .as_ref()
        .and_then(|v| v.as_str())
    {
        Some("nfd") => "NFD",
        Some("ndnlab") => "ndnlab fwd",
        Some(_) | None => {
            rest = where_.clone();
            "ndnlab"
        }
    };
    let w = describe_where(&rest);
    if w.is_empty() {
        who.to_string()
    } else {
        format!("{who}, {w}")
    }
}

/// Adds to `c` ndnlab's series of its metric against its x over the rows
/// matching `where_`, divided by `scale`, unless `c` already holds it.
fn add_ndnlab_series(
    c: &mut Curve,
    ok: &Table,
    where_: &BTreeMap<String, toml::Value>,
    scale: f64,
    alpha: f64,
) {
    let label = series_label(where_);
    if c.series.iter().any(|t| !t.paper && t.label == label) {
        return;
    }
    if let Ok(pts) = level_means(ok, &c.metric, Some(&c.x), where_, alpha) {
        c.series.push(CurveSeries {
            label,
            paper: false,
            points: pts
                .into_iter()
                .map(|p| CurvePoint {
                    level: p.level,
                    mean: p.mean / scale,
                    ci: p.ci.map(|(a, b)| (a / scale, b / scale)),
                })
                .collect(),
        });
    }
}

fn curves(r: &Reference, ok: &Table, alpha: f64) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    let mut unscaled: Vec<bool> = Vec::new();
    for s in &r.series {
        let Some(x) = &s.x else { continue };
        let i = match out
            .iter()
            .position(|c| c.metric == s.metric && &c.x == x && c.unit == s.unit)
        {
            Some(i) => i,
            None => {
                out.push(Curve {
                    metric: s.metric.clone(),
                    x: x.clone(),
                    unit: s.unit.clone(),
                    series: Vec::new(),
                    paper_x: Vec::new(),
                });
                unscaled.push(true);
                out.len() - 1
            }
        };
        unscaled[i] &= s.scale == 1.0 && s.relative_to.is_none();
        let c = &mut out[i];
        let div = level_means(ok, &s.metric, Some(x), &s.where_, alpha)
            .and_then(|curve| divisor(s, &curve))
            .unwrap_or(s.scale);
        add_ndnlab_series(c, ok, &s.where_, div, alpha);
        let paper = CurveSeries {
            label: format!("{} (paper)", s.label),
            paper: true,
            points: s
                .points
                .iter()
                .map(|p| CurvePoint {
                    level: Level::of_value(&p.x),
                    mean: p.value,
                    ci: p.error.map(|e| (p.value - e, p.value + e)),
                })
                .collect(),
        };
        // one paper series compared with several of ndnlab's (NFD and ndnlab
        // fwd, say) is drawn once
        if !c.series.contains(&paper) {
            c.series.push(paper);
        }
    }
    // A shape is read off ndnlab's curve of its metric against its x, in the
    // metric's own unit: drawn in a series figure of that metric and x in the
    // same unit (scale 1), else in a figure of its own.
    for s in &r.shape {
        let i = match (0..out.len())
            .find(|&i| out[i].metric == s.metric && out[i].x == s.x && unscaled[i])
        {
            Some(i) => i,
            None => {
                out.push(Curve {
                    metric: s.metric.clone(),
                    x: s.x.clone(),
                    unit: crate::style::unit_of(&s.metric).unwrap_or("").to_string(),
                    series: Vec::new(),
                    paper_x: Vec::new(),
                });
                unscaled.push(true);
                out.len() - 1
            }
        };
        add_ndnlab_series(&mut out[i], ok, &s.where_, 1.0, alpha);
        if let (Some(x), true) = (s.paper, s.kind != "ratio") {
            let marks = &mut out[i].paper_x;
            match marks.iter_mut().find(|(v, _)| *v == x) {
                Some((_, label)) => {
                    label.push_str("; ");
                    label.push_str(&s.label);
                }
                None => marks.push((x, s.label.clone())),
            }
        }
    }
    out.retain(|c| !c.series.is_empty());
    // ndnlab's series first, then the paper's, each in file order.
    for c in &mut out {
        c.series.sort_by_key(|s| s.paper);
    }
    out
}

/// Compares a loaded experiment directory with its `[reference]`; `None` when
/// experiment.toml has none.
pub fn compare(
    exp: &ExperimentDir,
    opts: &ReportOptions,
) -> Result<Option<Comparison>, ReportError> {
    let Some(r) = exp.reference()? else {
        return Ok(None);
    };
    let factors = exp.factors(opts.factors.as_deref())?;
    let (ok, _) = exp.ok_rows();
    let mut c = comparison(r, &ok, &factors, opts.alpha);
    mark_skipped(&mut c, &exp.results);
    Ok(Some(c))
}

/// Marks the missing rows whose runs were all skipped: `all` (every run,
/// whatever its status) has runs with the row's `where`, none of them ok, and
/// at least one `skipped`.
pub fn mark_skipped(c: &mut Comparison, all: &Table) {
    let Ok(status) = all.column_index("status") else {
        return;
    };
    let wheres = c
        .reference
        .series
        .iter()
        .map(|s| &s.where_)
        .chain(c.reference.shape.iter().map(|s| &s.where_));
    let mut skipped = std::collections::BTreeSet::new();
    for w in wheres {
        let conds: Option<Vec<_>> = w
            .iter()
            .map(|(k, v)| all.column_index(k).ok().map(|i| (i, v)))
            .collect();
        let Some(conds) = conds else { continue };
        let statuses: Vec<&str> = (0..all.len())
            .filter(|&r| conds.iter().all(|(i, v)| cell_is(all.cell(r, *i), v)))
            .map(|r| all.cell(r, status))
            .collect();
        if statuses.iter().any(|s| s.eq_ignore_ascii_case("skipped"))
            && !statuses.iter().any(|s| s.eq_ignore_ascii_case("ok"))
        {
            skipped.insert(describe_where(w));
        }
    }
    for r in &mut c.rows {
        if r.counterpart == Counterpart::Missing && skipped.contains(&r.where_) {
            r.counterpart = Counterpart::Skipped;
            r.note = format!(
                "not measured: every run with {} was skipped, a point the runner cannot carry out here (the reason is in logs/)",
                if r.where_.is_empty() { "these levels" } else { &r.where_ }
            );
        }
    }
}

/// The comparison of `r` with the ok rows of a results table.
pub fn comparison(r: Reference, ok: &Table, factors: &[String], alpha: f64) -> Comparison {
    let mut rows = Vec::new();
    for s in &r.series {
        rows.extend(series_rows(&r.figure, s, ok, alpha));
    }
    for s in &r.shape {
        rows.push(shape_row(&r.figure, s, ok, alpha));
    }
    let mut allocations: BTreeMap<&str, Result<Allocation, String>> = BTreeMap::new();
    for v in &r.variation {
        let a = allocations
            .entry(v.metric.as_str())
            .or_insert_with(|| allocate(ok, factors, &v.metric, alpha));
        rows.push(variation_row(&r.figure, v, a));
    }
    let curves = curves(&r, ok, alpha);
    Comparison {
        reference: r,
        alpha,
        rows,
        curves,
        share_intervals: interval_method(alpha),
    }
}
