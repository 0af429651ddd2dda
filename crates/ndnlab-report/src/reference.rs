//! `[reference]`: a paper's numbers that an experiment file reproduces.
//!
//! The table names the paper and the figure, then lists the paper's series
//! (values at levels of one factor, or single cells), the shapes it states as
//! one number (a plateau or a crossing) and the shares of variation it
//! allocates to factors. The laboratory parses it as part of the experiment
//! file and checks it with [`Reference::validate`]; the report compares it
//! with the results (`crate::compare`). The schema is described in `docs/LAB.md`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Where a paper's number comes from.
pub const SOURCES: [&str; 3] = ["table", "text", "figure"];

/// The kinds of [`Shape`].
pub const SHAPE_KINDS: [&str; 3] = ["plateau", "crossing", "ratio"];

/// The `[reference]` table of an experiment file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// Authors, title, venue and year of the paper.
    pub citation: String,
    /// What the file reproduces (`Fig. 3`, `Table 2`), shown as a heading.
    pub figure: String,
    /// The paper's conclusion for that figure, one sentence.
    pub finding: String,
    #[serde(default)]
    pub series: Vec<Series>,
    #[serde(default)]
    pub shape: Vec<Shape>,
    #[serde(default)]
    pub variation: Vec<Variation>,
}

/// `[[reference.series]]`: a series of the paper (values along factor `x`), or
/// one cell (no `x`, one `value`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// The paper's name for the series.
    pub label: String,
    /// The `results.csv` column it is compared with.
    pub metric: String,
    /// The factor along which the paper's values are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    /// The rows compared: factor → level.
    #[serde(rename = "where", default, skip_serializing_if = "BTreeMap::is_empty")]
    pub where_: BTreeMap<String, toml::Value>,
    /// The unit of the paper's values, as printed.
    pub unit: String,
    /// ndnlab units per paper unit (the metric is divided by it).
    #[serde(default = "one")]
    pub scale: f64,
    /// `table`, `text` or `figure`.
    pub source: String,
    /// With `x`: the paper's values are relative to its value at this level of
    /// `x` (e.g. "the original = 100"); ndnlab's means are divided by ndnlab's
    /// own mean at that level and multiplied by the paper's value there, in
    /// place of `scale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_to: Option<toml::Value>,
    /// With `x`: the paper's values at levels of `x`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<Point>,
    /// Without `x`: the paper's one value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Without `x`: the error of `value` (reading error, or the paper's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<f64>,
}

fn one() -> f64 {
    1.0
}

/// One value of a series: `[x, value]` or `[x, value, error]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(try_from = "Vec<toml::Value>", into = "Vec<toml::Value>")]
pub struct Point {
    /// The level of the series' `x` (a number or a text level).
    pub x: toml::Value,
    pub value: f64,
    pub error: Option<f64>,
}

fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

impl TryFrom<Vec<toml::Value>> for Point {
    type Error = String;
    fn try_from(v: Vec<toml::Value>) -> Result<Point, String> {
        if !(2..=3).contains(&v.len()) {
            return Err(format!(
                "a point is [x, value] or [x, value, error], not {} items",
                v.len()
            ));
        }
        if !matches!(
            v[0],
            toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::String(_)
        ) {
            return Err(format!(
                "a point's x is a number or a text level, not {}",
                v[0]
            ));
        }
        let value =
            number(&v[1]).ok_or_else(|| format!("a point's value {} is not a number", v[1]))?;
        let error = match v.get(2) {
            Some(e) => {
                Some(number(e).ok_or_else(|| format!("a point's error {e} is not a number"))?)
            }
            None => None,
        };
        Ok(Point {
            x: v[0].clone(),
            value,
            error,
        })
    }
}

impl From<Point> for Vec<toml::Value> {
    fn from(p: Point) -> Vec<toml::Value> {
        let mut v = vec![p.x, toml::Value::Float(p.value)];
        if let Some(e) = p.error {
            v.push(toml::Value::Float(e));
        }
        v
    }
}

/// `[[reference.shape]]`: a shape of a curve the paper states as one number.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub label: String,
    pub metric: String,
    /// The factor along which the shape is read: numeric levels, or any for
    /// a ratio (`udp` over `tcp`).
    pub x: String,
    #[serde(rename = "where", default, skip_serializing_if = "BTreeMap::is_empty")]
    pub where_: BTreeMap<String, toml::Value>,
    /// `plateau`: the smallest x after which the metric gains less than
    /// `threshold` (a fraction) to the next x. `crossing`: the smallest x at
    /// which the metric passes `threshold` (metric units; falls under it with
    /// `below`). `ratio`: the metric at x = `to` over the metric at x = `from`
    /// ("falls by half from one hop to three").
    pub kind: String,
    /// Plateau and crossing only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    #[serde(default)]
    pub below: bool,
    /// Ratio only: the levels of x compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<toml::Value>,
    /// The paper's value of that x (of the ratio, for a ratio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<f64>,
    pub source: String,
}

impl Shape {
    /// The threshold of a plateau or a crossing (NaN for a ratio).
    pub fn threshold(&self) -> f64 {
        self.threshold.unwrap_or(f64::NAN)
    }
}

/// `[[reference.variation]]`: the share of the variation of a metric the paper
/// allocates to a factor or an interaction (Jain ch. 17-18).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Variation {
    pub label: String,
    pub metric: String,
    /// One factor, or several for their interaction.
    pub effect: Vec<String>,
    /// Percent of the variation.
    pub share: f64,
    pub source: String,
}

fn check_source(at: &str, s: &str) -> Result<(), String> {
    if SOURCES.contains(&s) {
        Ok(())
    } else {
        Err(format!(
            "{at}.source: '{s}' is not one of {}",
            SOURCES.join(", ")
        ))
    }
}

fn check_text(at: &str, key: &str, s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err(format!("{at}.{key} must not be empty"))
    } else {
        Ok(())
    }
}

fn check_factor(at: &str, name: &str, factors: &[String]) -> Result<(), String> {
    if factors.iter().any(|f| f == name) {
        Ok(())
    } else {
        Err(format!(
            "{at}: '{name}' is not a factor of the experiment (factors: {})",
            if factors.is_empty() {
                "none".to_string()
            } else {
                factors.join(", ")
            }
        ))
    }
}

fn check_metric(at: &str, name: &str, is_metric: &dyn Fn(&str) -> bool) -> Result<(), String> {
    if is_metric(name) {
        Ok(())
    } else {
        Err(format!("{at}.metric: no metric '{name}'"))
    }
}

fn check_where(
    at: &str,
    w: &BTreeMap<String, toml::Value>,
    factors: &[String],
) -> Result<(), String> {
    for (k, v) in w {
        check_factor(&format!("{at}.where"), k, factors)?;
        if !matches!(
            v,
            toml::Value::Integer(_)
                | toml::Value::Float(_)
                | toml::Value::String(_)
                | toml::Value::Boolean(_)
        ) {
            return Err(format!(
                "{at}.where.\"{k}\": a level is a number, a text or a boolean, not {v}"
            ));
        }
    }
    Ok(())
}

fn check_nonnegative(at: &str, v: Option<f64>) -> Result<(), String> {
    match v {
        Some(e) if !(e.is_finite() && e >= 0.0) => Err(format!(
            "{at} must be a finite number of at least 0, not {e}"
        )),
        _ => Ok(()),
    }
}

impl Reference {
    /// Checks every entry against the experiment's `factors` and the known
    /// metrics; the message names the key (`reference.series[2].x`).
    pub fn validate(
        &self,
        factors: &[String],
        is_metric: &dyn Fn(&str) -> bool,
    ) -> Result<(), String> {
        check_text("reference", "citation", &self.citation)?;
        check_text("reference", "figure", &self.figure)?;
        if self.series.is_empty() && self.shape.is_empty() && self.variation.is_empty() {
            return Err(
                "reference: no series, shape or variation (nothing of the paper to compare)".into(),
            );
        }
        for (i, s) in self.series.iter().enumerate() {
            let at = format!("reference.series[{i}]");
            check_text(&at, "label", &s.label)?;
            check_text(&at, "unit", &s.unit)?;
            check_metric(&at, &s.metric, is_metric)?;
            check_source(&at, &s.source)?;
            check_where(&at, &s.where_, factors)?;
            if !(s.scale.is_finite() && s.scale > 0.0) {
                return Err(format!(
                    "{at}.scale must be a positive number, not {}",
                    s.scale
                ));
            }
            if let Some(base) = &s.relative_to {
                if s.x.is_none() {
                    return Err(format!("{at}.relative_to needs an x"));
                }
                if !s.points.iter().any(|p| crate::levels::same(&p.x, base)) {
                    return Err(format!(
                        "{at}.relative_to: {base} is not the level of any of its points"
                    ));
                }
                if s.scale != 1.0 {
                    return Err(format!("{at}: relative_to and scale exclude each other"));
                }
            }
            match &s.x {
                Some(x) => {
                    check_factor(&format!("{at}.x"), x, factors)?;
                    if s.where_.contains_key(x) {
                        return Err(format!("{at}.where: '{x}' is the series' x"));
                    }
                    if s.points.is_empty() {
                        return Err(format!("{at}.points: a series with x needs points"));
                    }
                    if s.value.is_some() || s.error.is_some() {
                        return Err(format!(
                            "{at}.value: a series with x gives its values in points, not value/error"
                        ));
                    }
                    for (j, p) in s.points.iter().enumerate() {
                        if !p.value.is_finite() {
                            return Err(format!(
                                "{at}.points[{j}]: value {} is not finite",
                                p.value
                            ));
                        }
                        check_nonnegative(&format!("{at}.points[{j}] error"), p.error)?;
                        if s.points[..j]
                            .iter()
                            .any(|q| crate::levels::same(&q.x, &p.x))
                        {
                            return Err(format!("{at}.points[{j}]: x {} appears twice", p.x));
                        }
                    }
                }
                None => {
                    if !s.points.is_empty() {
                        return Err(format!(
                            "{at}.points: points need x (a factor); a single cell has value"
                        ));
                    }
                    match s.value {
                        Some(v) if v.is_finite() => {}
                        Some(v) => return Err(format!("{at}.value: {v} is not finite")),
                        None => return Err(format!("{at}.value: a series without x needs value")),
                    }
                    check_nonnegative(&format!("{at}.error"), s.error)?;
                }
            }
        }
        for (i, s) in self.shape.iter().enumerate() {
            let at = format!("reference.shape[{i}]");
            check_text(&at, "label", &s.label)?;
            check_metric(&at, &s.metric, is_metric)?;
            check_source(&at, &s.source)?;
            check_factor(&format!("{at}.x"), &s.x, factors)?;
            check_where(&at, &s.where_, factors)?;
            if s.where_.contains_key(&s.x) {
                return Err(format!("{at}.where: '{}' is the shape's x", s.x));
            }
            if !SHAPE_KINDS.contains(&s.kind.as_str()) {
                return Err(format!(
                    "{at}.kind: '{}' is not one of {}",
                    s.kind,
                    SHAPE_KINDS.join(", ")
                ));
            }
            if s.kind == "ratio" {
                if s.from.is_none() || s.to.is_none() {
                    return Err(format!("{at}: a ratio needs from and to (levels of x)"));
                }
                if s.threshold.is_some() {
                    return Err(format!("{at}.threshold: a ratio has none"));
                }
            } else if s.from.is_some() || s.to.is_some() {
                return Err(format!("{at}: from and to belong to a ratio"));
            }
            let threshold = s.threshold();
            if s.kind != "ratio"
                && (!threshold.is_finite() || (s.kind == "plateau" && threshold < 0.0))
            {
                return Err(format!(
                    "{at}.threshold: {} is not a {}",
                    s.threshold.map_or("missing".to_string(), |t| t.to_string()),
                    if s.kind == "plateau" {
                        "fraction of at least 0"
                    } else {
                        "finite number"
                    }
                ));
            }
            if s.below && s.kind != "crossing" {
                return Err(format!(
                    "{at}.below: only a crossing falls below its threshold"
                ));
            }
            if let Some(p) = s.paper {
                if !p.is_finite() {
                    return Err(format!("{at}.paper: {p} is not finite"));
                }
            }
        }
        for (i, v) in self.variation.iter().enumerate() {
            let at = format!("reference.variation[{i}]");
            check_text(&at, "label", &v.label)?;
            check_metric(&at, &v.metric, is_metric)?;
            check_source(&at, &v.source)?;
            if v.effect.is_empty() {
                return Err(format!("{at}.effect: name at least one factor"));
            }
            for (j, f) in v.effect.iter().enumerate() {
                check_factor(&format!("{at}.effect[{j}]"), f, factors)?;
                if v.effect[..j].contains(f) {
                    return Err(format!("{at}.effect[{j}]: '{f}' appears twice"));
                }
            }
            if !(0.0..=100.0).contains(&v.share) {
                return Err(format!(
                    "{at}.share: {} is not a percentage (0 to 100)",
                    v.share
                ));
            }
        }
        Ok(())
    }

    /// Every metric the reference compares, with the key that names it
    /// (`reference.series[0].metric`), in file order.
    pub fn metrics(&self) -> Vec<(String, &str)> {
        let s = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("reference.series[{i}].metric"), s.metric.as_str()));
        let h = self
            .shape
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("reference.shape[{i}].metric"), s.metric.as_str()));
        let v = self.variation.iter().enumerate().map(|(i, s)| {
            (
                format!("reference.variation[{i}].metric"),
                s.metric.as_str(),
            )
        });
        s.chain(h).chain(v).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
citation = "Marchal, Cholez and Festor, \"Server-side performance evaluation of NDN\", ACM ICN 2016"
figure = "Fig. 3"
finding = "the best window is 8 Interests"

[[series]]
label = "DigestSha256, 8192 B"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "apps.server.signature" = "digest" }
unit = "Mbit/s"
source = "figure"
points = [[1, 20.0], [8, 60, 5.0]]

[[series]]
label = "one cell"
metric = "data_per_sec.c1"
unit = "Data/s"
scale = 1.0
source = "table"
value = 34.0
error = 2.0

[[shape]]
label = "no real gain past a window of 8"
metric = "throughput_mbps"
x = "apps.client.window"
kind = "plateau"
threshold = 0.05
paper = 8
source = "text"

[[variation]]
label = "A (CS size)"
metric = "throughput_mbps"
effect = ["forwarder.cs_capacity"]
share = 45.3
source = "table"
"#;

    fn factors() -> Vec<String> {
        [
            "apps.client.window",
            "apps.server.signature",
            "forwarder.cs_capacity",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn is_metric(m: &str) -> bool {
        let base = m.split('.').next().unwrap_or(m);
        ["throughput_mbps", "data_per_sec"].contains(&base)
    }

    fn parse(text: &str) -> Reference {
        toml::from_str(text).unwrap()
    }

    fn err(text: &str) -> String {
        parse(text).validate(&factors(), &is_metric).unwrap_err()
    }

    #[test]
    fn a_good_reference_parses_and_validates() {
        let r = parse(GOOD);
        r.validate(&factors(), &is_metric).unwrap();
        assert_eq!(r.series[0].scale, 1.0);
        assert_eq!(r.series[0].points[1].value, 60.0);
        assert_eq!(r.series[0].points[1].error, Some(5.0));
        assert_eq!(r.series[0].points[0].x, toml::Value::Integer(1));
        assert_eq!(r.shape[0].paper, Some(8.0));
        assert_eq!(r.metrics().len(), 4);
        assert_eq!(r.metrics()[1].0, "reference.series[1].metric");
    }

    #[test]
    fn errors_name_the_key() {
        let e = err(&GOOD.replace(
            "x = \"apps.client.window\"\nwhere",
            "x = \"apps.client.rate\"\nwhere",
        ));
        assert!(
            e.starts_with("reference.series[0].x: 'apps.client.rate' is not a factor"),
            "{e}"
        );
        let e = err(&GOOD.replace("metric = \"data_per_sec.c1\"", "metric = \"speed\""));
        assert_eq!(e, "reference.series[1].metric: no metric 'speed'");
        let e = err(&GOOD.replace("source = \"text\"", "source = \"guess\""));
        assert!(e.starts_with("reference.shape[0].source: 'guess'"), "{e}");
        let e = err(&GOOD.replace("\"forwarder.cs_capacity\"]", "\"forwarder.strategy\"]"));
        assert!(
            e.starts_with("reference.variation[0].effect[0]: 'forwarder.strategy'"),
            "{e}"
        );
        let e = err(&GOOD.replace(
            "\"apps.server.signature\" = \"digest\"",
            "\"apps.server.key\" = \"rsa\"",
        ));
        assert!(
            e.starts_with("reference.series[0].where: 'apps.server.key'"),
            "{e}"
        );
        let e = err(&GOOD.replace("kind = \"plateau\"", "kind = \"knee\""));
        assert!(e.starts_with("reference.shape[0].kind: 'knee'"), "{e}");
        let e = err(&GOOD.replace("share = 45.3", "share = 145.3"));
        assert!(e.starts_with("reference.variation[0].share"), "{e}");
        let e = err(&GOOD.replace("scale = 1.0", "scale = 0.0"));
        assert!(e.starts_with("reference.series[1].scale"), "{e}");
    }

    #[test]
    fn points_only_with_x_and_value_only_without() {
        let e = err(&GOOD.replace("value = 34.0\nerror = 2.0", "points = [[1, 2.0]]"));
        assert!(
            e.starts_with("reference.series[1].points: points need x"),
            "{e}"
        );
        let e = err(&GOOD.replace("value = 34.0\nerror = 2.0", ""));
        assert!(e.starts_with("reference.series[1].value"), "{e}");
        let e = err(&GOOD.replace("points = [[1, 20.0], [8, 60, 5.0]]", "value = 3.0"));
        assert!(
            e.starts_with("reference.series[0].points: a series with x needs points"),
            "{e}"
        );
        let e = err(&GOOD.replace(
            "points = [[1, 20.0], [8, 60, 5.0]]",
            "points = [[1, 20.0]]\nvalue = 3.0",
        ));
        assert!(e.starts_with("reference.series[0].value"), "{e}");
        let e = err(&GOOD.replace("[8, 60, 5.0]", "[1.0, 60, 5.0]"));
        assert!(
            e.starts_with("reference.series[0].points[1]: x 1.0 appears twice"),
            "{e}"
        );
    }

    #[test]
    fn malformed_tables_are_parse_errors() {
        let bad = GOOD.replace("[8, 60, 5.0]", "[8]");
        let e = toml::from_str::<Reference>(&bad).unwrap_err().to_string();
        assert!(e.contains("a point is [x, value]"), "{e}");
        let bad = GOOD.replace("[8, 60, 5.0]", "[8, \"sixty\"]");
        let e = toml::from_str::<Reference>(&bad).unwrap_err().to_string();
        assert!(e.contains("is not a number"), "{e}");
        let bad = GOOD.replace("unit = \"Data/s\"", "unit = \"Data/s\"\ncolour = \"red\"");
        let e = toml::from_str::<Reference>(&bad).unwrap_err().to_string();
        assert!(e.contains("colour"), "{e}");
    }
}
