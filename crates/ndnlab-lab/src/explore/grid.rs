//! The grid of an exploration: `--grid key=a,b,c` or `--grid key=1..8`, one
//! axis per model parameter ([`ModelSpec::parameters`]), and its points, the
//! cartesian product in a stable order (the last axis varies fastest).

use serde::{Deserialize, Serialize};

use ndnlab_model::dataplane::ModelSpec;
use ndnlab_model::dataplane::{Error, Result};

/// One axis: a parameter and the levels it takes, as text (`1e6`, `P1`, `700ns`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    pub key: String,
    pub levels: Vec<String>,
}

/// The axes of an exploration, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    pub axes: Vec<Axis>,
}

/// One point of the grid: its index in the full grid and a level per axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    pub index: usize,
    pub levels: Vec<String>,
}

fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// Parses one `--grid` value: `key=a,b,c` or an integer range `key=1..8`
/// (both ends included). The key is checked later, against a model.
pub fn parse_axis(text: &str) -> Result<Axis> {
    let (key, values) = text
        .split_once('=')
        .ok_or_else(|| usage(format!("--grid {text:?}: write KEY=a,b,c or KEY=1..8")))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(usage(format!(
            "--grid {text:?}: the parameter name is missing"
        )));
    }
    let values = values.trim();
    let levels: Vec<String> = if let Some((a, b)) = values.split_once("..") {
        let end = |s: &str| -> Result<i64> {
            s.trim().parse::<i64>().map_err(|_| {
                usage(format!(
                    "--grid {key}: range end {:?} of {values:?} is not a whole number",
                    s.trim()
                ))
            })
        };
        let (lo, hi) = (end(a)?, end(b.trim_start_matches('='))?);
        if lo > hi {
            return Err(usage(format!(
                "--grid {key}: range {values:?} is empty ({lo} > {hi})"
            )));
        }
        if hi - lo >= 10_000 {
            return Err(usage(format!(
                "--grid {key}: range {values:?} has more than 10000 levels"
            )));
        }
        (lo..=hi).map(|v| v.to_string()).collect()
    } else {
        values.split(',').map(|v| v.trim().to_string()).collect()
    };
    if let Some(i) = levels.iter().position(String::is_empty) {
        return Err(usage(format!(
            "--grid {key}: level {} of {values:?} is empty",
            i + 1
        )));
    }
    for (i, l) in levels.iter().enumerate() {
        if levels[..i].contains(l) {
            return Err(usage(format!("--grid {key}: level {l:?} is given twice")));
        }
    }
    Ok(Axis {
        key: key.to_string(),
        levels,
    })
}

impl Grid {
    /// Parses the `--grid` values and checks each level on `model`: the key
    /// must be one of its parameters, and every level one it accepts.
    pub fn parse(texts: &[String], model: &ModelSpec) -> Result<Grid> {
        if texts.is_empty() {
            return Err(usage(
                "give at least one --grid KEY=LEVELS (e.g. --grid threads=1..8)".into(),
            ));
        }
        let axes = texts
            .iter()
            .map(|t| parse_axis(t))
            .collect::<Result<Vec<_>>>()?;
        let grid = Grid { axes };
        grid.check(model)?;
        Ok(grid)
    }

    /// Checks the keys, the form of every level, and that every point makes
    /// a valid model (without reading fitted model files).
    pub fn check(&self, model: &ModelSpec) -> Result<()> {
        let params = model.parameters();
        for (i, a) in self.axes.iter().enumerate() {
            if self.axes[..i].iter().any(|b| b.key == a.key) {
                return Err(usage(format!(
                    "--grid {}: the parameter is given twice",
                    a.key
                )));
            }
            if !params.contains(&a.key) {
                return Err(usage(format!(
                    "--grid {}: not a parameter of this model; it has: {}",
                    a.key,
                    params.join(", ")
                )));
            }
            for l in &a.levels {
                model
                    .clone()
                    .set(&a.key, l)
                    .map_err(|e| usage(format!("--grid {}={l}: {e}", a.key)))?;
            }
        }
        // The levels together: each point must make a valid model.
        for p in self.points() {
            self.apply(model, &p)?
                .check()
                .map_err(|e| usage(format!("--grid {}: {e}", self.label(&p.levels))))?;
        }
        Ok(())
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.axes.iter().map(|a| a.levels.len()).product()
    }

    /// Whether the grid has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys, in axis order.
    pub fn keys(&self) -> Vec<String> {
        self.axes.iter().map(|a| a.key.clone()).collect()
    }

    /// The position of `key` among the axes.
    pub fn axis(&self, key: &str) -> Option<usize> {
        self.axes.iter().position(|a| a.key == key)
    }

    /// Every point, in index order: the last axis varies fastest.
    pub fn points(&self) -> Vec<Point> {
        (0..self.len()).map(|i| self.point(i)).collect()
    }

    /// The point of index `index` (< [`Grid::len`]).
    pub fn point(&self, index: usize) -> Point {
        let mut rest = index;
        let mut levels = vec![String::new(); self.axes.len()];
        for (k, a) in self.axes.iter().enumerate().rev() {
            levels[k] = a.levels[rest % a.levels.len()].clone();
            rest /= a.levels.len();
        }
        Point { index, levels }
    }

    /// The index of the point with these levels, if it is on the grid.
    pub fn index_of(&self, levels: &[String]) -> Option<usize> {
        if levels.len() != self.axes.len() {
            return None;
        }
        let mut index = 0;
        for (a, l) in self.axes.iter().zip(levels) {
            index = index * a.levels.len() + a.levels.iter().position(|x| x == l)?;
        }
        Some(index)
    }

    /// `model` with a point's levels set.
    pub fn apply(&self, model: &ModelSpec, point: &Point) -> Result<ModelSpec> {
        let mut m = model.clone();
        for (a, l) in self.axes.iter().zip(&point.levels) {
            m.set(&a.key, l)
                .map_err(|e| usage(format!("--grid {}={l}: {e}", a.key)))?;
        }
        Ok(m)
    }

    /// `key=level, ...` of a point, for tables and errors.
    pub fn label(&self, levels: &[String]) -> String {
        self.axes
            .iter()
            .zip(levels)
            .map(|(a, l)| format!("{}={l}", a.key))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn model() -> ModelSpec {
        ModelSpec::from_toml(
            "format = \"ndnlab-dataplane/1\"\n[service.factors]\nname_len = \"3\"\n\
             [placement.P1]\nface0 = 0\nface1 = 0\nfwd = 0\n",
            Path::new("m.toml"),
        )
        .unwrap()
    }

    fn grid(texts: &[&str]) -> Result<Grid> {
        let t: Vec<String> = texts.iter().map(|s| s.to_string()).collect();
        Grid::parse(&t, &model())
    }

    #[test]
    fn lists_and_ranges() {
        let a = parse_axis("threads=1..4").unwrap();
        assert_eq!(a.levels, ["1", "2", "3", "4"]);
        let a = parse_axis(" queue = 128, 1024 ,4096").unwrap();
        assert_eq!(a.key, "queue");
        assert_eq!(a.levels, ["128", "1024", "4096"]);
        assert_eq!(parse_axis("rate=1e5").unwrap().levels, ["1e5"]);
        assert_eq!(parse_axis("threads=3..3").unwrap().levels, ["3"]);
    }

    #[test]
    fn points_are_the_cartesian_product_last_axis_fastest() {
        let g = grid(&["threads=1..2", "queue=128,4096", "name_len=3,7,13"]).unwrap();
        assert_eq!(g.len(), 12);
        let p = g.points();
        assert_eq!(p[0].levels, ["1", "128", "3"]);
        assert_eq!(p[1].levels, ["1", "128", "7"]);
        assert_eq!(p[3].levels, ["1", "4096", "3"]);
        assert_eq!(p[11].levels, ["2", "4096", "13"]);
        for q in &p {
            assert_eq!(g.index_of(&q.levels), Some(q.index));
        }
        assert_eq!(g.index_of(&["3".into(), "128".into(), "3".into()]), None);
        let m = g.apply(&model(), &p[11]).unwrap();
        assert_eq!(m.get("threads").as_deref(), Some("2"));
        assert_eq!(m.get("name_len").as_deref(), Some("13"));
    }

    #[test]
    fn errors_name_the_key_and_the_value() {
        let e = |t: &[&str]| grid(t).unwrap_err().to_string();
        assert!(e(&["threads"]).contains("KEY=a,b,c"));
        assert!(e(&["=1,2"]).contains("name is missing"));
        assert!(e(&["threads=1..x"]).contains("\"x\" of \"1..x\" is not a whole number"));
        assert!(e(&["threads=4..1"]).contains("empty"));
        assert!(e(&["queue=1,,2"]).contains("level 2"));
        assert!(e(&["queue=1,1"]).contains("given twice"));
        let m = e(&["cores=1,2"]);
        assert!(m.contains("cores") && m.contains("threads, queue"), "{m}");
        let m = e(&["threads=1,two"]);
        assert!(
            m.contains("--grid threads=two") && m.contains("whole number"),
            "{m}"
        );
        let m = e(&["threads=0..2"]);
        assert!(
            m.contains("--grid threads=0") && m.contains("1..=64"),
            "{m}"
        );
        let m = e(&["placement=P1,P7"]);
        assert!(
            m.contains("placement=P7") && m.contains("no [placement.P7]"),
            "{m}"
        );
        assert!(e(&["threads=1", "threads=2"]).contains("given twice"));
        assert!(e(&[]).contains("at least one --grid"));
    }
}
