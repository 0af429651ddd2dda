//! Line plots of a CSV table's columns against one of its columns (`ndnlab
//! analyze plot`): any series a script records, such as the soak test's
//! resident memory and open file descriptors against time, as SVG and PNG in
//! the reports' style.

use std::path::Path;

use ndnlab_analysis::Table;

use crate::figure::{render, Figure};
use crate::plots::{Legend, Lines};
use crate::ReportError;

/// What to draw from a table.
#[derive(Debug, Clone)]
pub struct LinePlot {
    /// The horizontal axis's column.
    pub x: String,
    /// One line per column.
    pub ys: Vec<String>,
    /// Every y value is multiplied by this (e.g. 1/1024 for KiB to MiB).
    pub scale: f64,
    pub title: String,
    /// Axis labels (default: the x column's name; the y columns' names).
    pub x_label: Option<String>,
    pub y_label: Option<String>,
}

/// The figure `id` of `spec` drawn from `table` (read from `path`, which
/// errors name). Rows whose cells are not numbers are an error naming the
/// column and line.
pub fn line_figure(
    table: &Table,
    path: &Path,
    spec: &LinePlot,
    id: &str,
) -> Result<Figure, ReportError> {
    let column = |name: &str| {
        table.numbers(name).map_err(|e| ReportError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    };
    if spec.ys.is_empty() {
        return Err(ReportError::Parse {
            path: path.to_path_buf(),
            message: "no column to plot (--y)".into(),
        });
    }
    let xs = column(&spec.x)?;
    let mut series = Vec::new();
    for y in &spec.ys {
        let ys = column(y)?;
        let pts = xs.iter().zip(&ys).map(|(&x, &y)| (x, y * spec.scale));
        series.push((y.clone(), pts.collect()));
    }
    if xs.is_empty() {
        return Err(ReportError::Parse {
            path: path.to_path_buf(),
            message: "no rows to plot".into(),
        });
    }
    let plot = Lines {
        title: spec.title.clone(),
        x_label: spec.x_label.clone().unwrap_or_else(|| spec.x.clone()),
        y_label: spec.y_label.clone().unwrap_or_else(|| spec.ys.join(", ")),
        series,
        y_range: None,
        legend: Legend::LowerRight,
    };
    let caption = format!("{} against {}", spec.ys.join(", "), spec.x);
    render(id, &caption, &plot).map_err(ReportError::Plot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(ys: &[&str]) -> LinePlot {
        LinePlot {
            x: "t_s".into(),
            ys: ys.iter().map(|s| s.to_string()).collect(),
            scale: 1.0 / 1024.0,
            title: "soak".into(),
            x_label: None,
            y_label: Some("MiB".into()),
        }
    }

    #[test]
    fn columns_against_a_column_draw_as_svg_and_png() {
        let t = Table::from_csv_str("t_s,rss_kib,fds\n0,1024,13\n1,2048,14\n2,2048,14\n").unwrap();
        let f = line_figure(&t, Path::new("soak.csv"), &spec(&["rss_kib"]), "soak-rss").unwrap();
        assert!(f.svg.contains("<svg") && f.svg.contains("rss_kib"));
        assert_eq!(&f.png[1..4], b"PNG");
        let dir = std::env::temp_dir().join(format!("ndnlab-csvplot-{}", std::process::id()));
        let svg = f.save(&dir).unwrap();
        let png = dir.join("soak-rss.png");
        assert!(svg.ends_with("soak-rss.svg") && png.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_or_non_numeric_column_is_named() {
        let t = Table::from_csv_str("t_s,rss_kib\n0,1\n1,x\n").unwrap();
        let e = line_figure(&t, Path::new("s.csv"), &spec(&["fds"]), "a").unwrap_err();
        assert!(
            e.to_string().contains("s.csv") && e.to_string().contains("fds"),
            "{e}"
        );
        let e = line_figure(&t, Path::new("s.csv"), &spec(&["rss_kib"]), "a").unwrap_err();
        assert!(e.to_string().contains("rss_kib"), "{e}");
        let e = line_figure(&t, Path::new("s.csv"), &spec(&[]), "a").unwrap_err();
        assert!(e.to_string().contains("--y"), "{e}");
    }
}
