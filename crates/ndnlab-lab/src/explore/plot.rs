//! The exploration's figures, in the style of seed 004's Figures 14-27: the
//! property's estimate (with its interval as bars) against the x parameter,
//! one series per level of the series parameter, one figure per combination
//! of the other parameters; and the same layout for the mean satisfaction
//! ratio. Written as SVG and PNG with `ndnlab_report`'s level chart.

use std::path::{Path, PathBuf};

use ndnlab_report::figure::render;
use ndnlab_report::plots::{LevelChart, LevelSeries};
use ndnlab_report::report::slug;

use super::grid::Grid;
use super::points::{Row, KEPT};
use ndnlab_model::dataplane::{Error, Result};

/// Which parameters go where.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The horizontal axis's parameter.
    pub x: usize,
    /// One series per level of this one (none: a single series).
    pub series: Option<usize>,
}

impl Layout {
    /// `x` (default: the first grid key) and `series` (default: the second,
    /// if any; `none` for a single series), checked against the grid.
    pub fn new(grid: &Grid, x: Option<&str>, series: Option<&str>) -> Result<Layout> {
        let find = |opt: &str, k: &str| {
            grid.axis(k).ok_or_else(|| {
                Error::Usage(format!(
                    "{opt} {k}: not a grid parameter; the grid has: {}",
                    grid.keys().join(", ")
                ))
            })
        };
        let x = match x {
            Some(k) => find("--x", k)?,
            None => 0,
        };
        let series = match series {
            Some("none") => None,
            Some(k) => Some(find("--series", k)?),
            None => (0..grid.axes.len()).find(|&a| a != x),
        };
        if series == Some(x) {
            return Err(Error::Usage(format!(
                "--series {}: it is already the x axis",
                grid.axes[x].key
            )));
        }
        Ok(Layout { x, series })
    }
}

/// One figure's worth: the levels of the remaining parameters and their rows.
fn panels<'a>(grid: &Grid, rows: &'a [Row], layout: &Layout) -> Vec<(Vec<usize>, Vec<&'a Row>)> {
    let rest: Vec<usize> = (0..grid.axes.len())
        .filter(|&a| a != layout.x && Some(a) != layout.series)
        .collect();
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| r.point);
    let mut out: Vec<(Vec<usize>, Vec<&Row>)> = Vec::new();
    for r in sorted {
        let same = |v: &Vec<&Row>| rest.iter().all(|&a| v[0].levels[a] == r.levels[a]);
        match out.iter_mut().find(|(_, v)| same(v)) {
            Some((_, v)) => v.push(r),
            None => out.push((rest.clone(), vec![r])),
        }
    }
    out
}

/// Draws every figure into `dir`; returns the SVG paths.
pub fn write_figures(
    dir: &Path,
    grid: &Grid,
    rows: &[Row],
    layout: &Layout,
    property: &str,
) -> Result<Vec<PathBuf>> {
    let xa = &grid.axes[layout.x];
    let sat = KEPT
        .iter()
        .position(|k| *k == "satisfaction")
        .expect("kept");
    let mut paths = Vec::new();
    for (rest, rows) in panels(grid, rows, layout) {
        let context: Vec<String> = rest
            .iter()
            .map(|&a| format!("{}={}", grid.axes[a].key, rows[0].levels[a]))
            .collect();
        let series_levels: Vec<Option<&String>> = match layout.series {
            Some(s) => grid.axes[s].levels.iter().map(Some).collect(),
            None => vec![None],
        };
        for (what, y_label) in [
            ("estimate", format!("P[{property}]")),
            ("satisfaction", "mean satisfaction ratio".to_string()),
        ] {
            let series = series_levels
                .iter()
                .map(|sl| LevelSeries {
                    name: match (layout.series, sl) {
                        (Some(s), Some(l)) => format!("{}={l}", grid.axes[s].key),
                        _ => property.to_string(),
                    },
                    points: rows
                        .iter()
                        .filter(|r| match (layout.series, sl) {
                            (Some(s), Some(l)) => r.levels[s] == **l,
                            _ => true,
                        })
                        .map(|r| {
                            let i = xa
                                .levels
                                .iter()
                                .position(|l| *l == r.levels[layout.x])
                                .expect("a row of this grid");
                            if what == "estimate" {
                                (i, r.estimate, r.interval.map(|(lo, hi, _)| (lo, hi)))
                            } else {
                                (i, r.means[sat], None)
                            }
                        })
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            let title = if context.is_empty() {
                y_label.clone()
            } else {
                format!("{y_label}, {}", context.join(", "))
            };
            let chart = LevelChart {
                title,
                x_label: xa.key.clone(),
                y_label: y_label.clone(),
                levels: xa.levels.clone(),
                series,
            };
            let id = if context.is_empty() {
                what.to_string()
            } else {
                format!("{what}-{}", slug(&context.join("-")))
            };
            let caption = format!("{y_label} against {}", xa.key);
            let fig = render(&id, &caption, &chart).map_err(Error::Usage)?;
            let svg = fig.save(dir).map_err(|e| Error::File {
                path: e.path,
                message: e.error.to_string(),
            })?;
            paths.push(svg);
        }
    }
    Ok(paths)
}
