//! Main-effects and interaction data for any design, balanced or not: the mean
//! response (with a confidence interval) at each level of a factor, and at each
//! pair of levels of two factors. These are what main-effects and interaction
//! plots draw.

use serde::Serialize;

use crate::dataset::Dataset;
use crate::error::Result;
use crate::summary::{summarize, Summary};

/// The response at one level of a factor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelMean {
    pub level: String,
    pub summary: Summary,
}

/// The mean response at each level of one factor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MainEffect {
    pub factor: String,
    pub levels: Vec<LevelMean>,
}

/// The mean response at each level of `x_factor`, one series per level of
/// `series_factor`. Levels without observations are left out of a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interaction {
    pub x_factor: String,
    pub x_levels: Vec<String>,
    pub series_factor: String,
    pub series: Vec<(String, Vec<LevelMean>)>,
}

/// Main-effects data of every factor.
pub fn main_effects(ds: &Dataset, alpha: f64) -> Result<Vec<MainEffect>> {
    ds.factors
        .iter()
        .enumerate()
        .map(|(f, factor)| {
            let mut levels = Vec::new();
            for (l, name) in factor.levels.iter().enumerate() {
                let ys: Vec<f64> = ds
                    .observations
                    .iter()
                    .filter(|o| o.levels[f] == l)
                    .map(|o| o.y)
                    .collect();
                levels.push(LevelMean {
                    level: name.clone(),
                    summary: summarize(&ys, alpha)?,
                });
            }
            Ok(MainEffect {
                factor: factor.name.clone(),
                levels,
            })
        })
        .collect()
}

/// Interaction data of factors `x` and `series` (indices into `ds.factors`).
pub fn interaction(ds: &Dataset, x: usize, series: usize, alpha: f64) -> Result<Interaction> {
    let fx = &ds.factors[x];
    let fs = &ds.factors[series];
    let mut out = Vec::new();
    for (s, s_name) in fs.levels.iter().enumerate() {
        let mut points = Vec::new();
        for (l, l_name) in fx.levels.iter().enumerate() {
            let ys: Vec<f64> = ds
                .observations
                .iter()
                .filter(|o| o.levels[x] == l && o.levels[series] == s)
                .map(|o| o.y)
                .collect();
            if !ys.is_empty() {
                points.push(LevelMean {
                    level: l_name.clone(),
                    summary: summarize(&ys, alpha)?,
                });
            }
        }
        out.push((s_name.clone(), points));
    }
    Ok(Interaction {
        x_factor: fx.name.clone(),
        x_levels: fx.levels.clone(),
        series_factor: fs.name.clone(),
        series: out,
    })
}

/// Interaction data of every ordered pair `(x, series)` with `x < series`.
pub fn interactions(ds: &Dataset, alpha: f64) -> Result<Vec<Interaction>> {
    let k = ds.factors.len();
    let mut out = Vec::new();
    for x in 0..k {
        for s in x + 1..k {
            out.push(interaction(ds, x, s, alpha)?);
        }
    }
    Ok(out)
}
