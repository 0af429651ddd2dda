//! The kinds of figure a report holds, each a plain description that draws
//! itself on any plotters backend (see [`crate::figure`]).

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::figure::{err, Plot, FONT};
use crate::style::{color, padded, tick, GREY, LABEL, TICK, TITLE};

/// A point of a [`LevelSeries`]: `(level index, mean, interval)`.
pub type LevelPoint = (usize, f64, Option<(f64, f64)>);

/// One series of a [`LevelChart`]: a mean (with an optional interval) at some
/// of the levels.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelSeries {
    pub name: String,
    pub points: Vec<LevelPoint>,
}

/// A response against the levels of a factor, with error bars, one series per
/// level of another factor (or a single series): interaction and
/// response-versus-factor plots.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub levels: Vec<String>,
    pub series: Vec<LevelSeries>,
}

impl LevelChart {
    fn y_range(&self) -> (f64, f64) {
        levels_y_range(self.series.iter())
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        y: (f64, f64),
        y_label: &str,
        legend: bool,
    ) -> Result<(), String> {
        let styled: Vec<(&LevelSeries, bool)> = self.series.iter().map(|s| (s, false)).collect();
        draw_levels(
            area,
            (&self.title, &self.x_label, y_label),
            &self.levels,
            &styled,
            y,
            // One series needs no legend beside its title.
            legend && self.series.len() > 1,
            &[],
        )
    }
}

/// The range of means and intervals of some series, padded.
fn levels_y_range<'a>(series: impl Iterator<Item = &'a LevelSeries>) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for s in series {
        for &(_, m, ci) in &s.points {
            let (a, b) = ci.unwrap_or((m, m));
            lo = lo.min(a.min(m));
            hi = hi.max(b.max(m));
        }
    }
    padded(lo, hi, 0.08)
}

/// The vertical range `y` raised so that a legend of `rows` entries in the
/// upper right corner of a chart `height` pixels high sits above the data and
/// hides no point (the legend takes at most half the plot).
fn with_legend_room(y: (f64, f64), height: u32, rows: usize) -> (f64, f64) {
    // Caption, x label area and margins of `draw_levels`.
    let plot_px = (height as f64 - 68.0 - 2.0 * TITLE as f64).max(2.0);
    let legend_px = (rows as f64 * (TICK as f64 + 8.0) + 16.0).min(plot_px / 2.0);
    (y.0, y.1 + (y.1 - y.0) * legend_px / (plot_px - legend_px))
}

/// Series against the levels of a factor, with error bars; a series marked
/// `true` is drawn dashed with hollow markers (a paper's numbers beside
/// measured ones). `text` is (title, x label, y label); `legend`: one entry
/// per series, upper right. `paper_x`: positions on the level axis drawn as
/// dashed grey vertical lines, one legend entry for all ("paper's x").
fn draw_levels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: (&str, &str, &str),
    levels: &[String],
    series: &[(&LevelSeries, bool)],
    y: (f64, f64),
    legend: bool,
    paper_x: &[f64],
) -> Result<(), String> {
    let (title, x_label, y_label) = text;
    let n = levels.len().max(1);
    let x = (-0.5, n as f64 - 0.5);
    let k = series.len();
    let rows = k + usize::from(!paper_x.is_empty());
    let y = if legend && rows > 0 {
        with_legend_room(y, area.dim_in_pixel().1, rows)
    } else {
        y
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, TITLE))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(if y_label.is_empty() { 40 } else { 64 })
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(err)?;
    let names = levels.to_vec();
    let fmt_x = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
            names[i as usize].clone()
        } else {
            String::new()
        }
    };
    let fmt_y = move |v: &f64| tick(*v, y.1 - y.0);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style((FONT, TICK))
        .axis_desc_style((FONT, LABEL))
        .draw()
        .map_err(err)?;
    for (si, (s, dashed)) in series.iter().enumerate() {
        let c = color(si);
        // Dodge the series sideways so their error bars do not overlap.
        let dx = if k > 1 {
            (si as f64 - (k - 1) as f64 / 2.0) * (0.24 / k as f64).min(0.06)
        } else {
            0.0
        };
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|&(i, m, _)| (i as f64 + dx, m))
            .collect();
        if *dashed {
            chart
                .draw_series(DashedLineSeries::new(pts.clone(), 7, 5, c.stroke_width(2)))
                .map_err(err)?
                .label(&s.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 7, y)], c.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 5, c.stroke_width(2))))
                .map_err(err)?;
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(err)?
                .label(&s.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(err)?;
        }
        for &(i, _, ci) in &s.points {
            if let Some((lo, hi)) = ci {
                let xi = i as f64 + dx;
                let w = 0.04;
                chart
                    .draw_series([
                        PathElement::new(vec![(xi, lo), (xi, hi)], c.stroke_width(1)),
                        PathElement::new(vec![(xi - w, lo), (xi + w, lo)], c.stroke_width(1)),
                        PathElement::new(vec![(xi - w, hi), (xi + w, hi)], c.stroke_width(1)),
                    ])
                    .map_err(err)?;
            }
        }
    }
    for (j, &px) in paper_x.iter().enumerate() {
        let line = DashedLineSeries::new(vec![(px, y.0), (px, y.1)], 4, 4, GREY.stroke_width(2));
        let drawn = chart.draw_series(line).map_err(err)?;
        if j == 0 {
            drawn
                .label("the paper's x (shapes)")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 7, y)], GREY.stroke_width(2)));
        }
    }
    if legend && rows > 0 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(GREY.mix(0.5))
            .label_font((FONT, TICK))
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

/// Measured series and a paper's series of the same metric against the levels
/// of one factor, on the same axes: measured ones solid with filled markers,
/// the paper's dashed with hollow markers.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub levels: Vec<String>,
    pub measured: Vec<LevelSeries>,
    pub paper: Vec<LevelSeries>,
    /// The paper's x values of shapes, as positions on the level axis (0 is
    /// the first level, fractions fall between two), each drawn as a dashed
    /// vertical line.
    pub paper_x: Vec<f64>,
}

impl Plot for PaperChart {
    fn size(&self) -> (u32, u32) {
        (720, 440)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let styled: Vec<(&LevelSeries, bool)> = self
            .measured
            .iter()
            .map(|s| (s, false))
            .chain(self.paper.iter().map(|s| (s, true)))
            .collect();
        let y = levels_y_range(self.measured.iter().chain(&self.paper));
        draw_levels(
            root,
            (&self.title, &self.x_label, &self.y_label),
            &self.levels,
            &styled,
            y,
            true,
            &self.paper_x,
        )
    }
}

impl Plot for LevelChart {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        self.draw_on(root, self.y_range(), &self.y_label, true)
    }
}

/// Main effects: the mean response at each level of each factor, one panel per
/// factor on a shared vertical axis (steeper lines, larger effects).
#[derive(Debug, Clone, PartialEq)]
pub struct MainEffectsPlot {
    pub y_label: String,
    pub panels: Vec<LevelChart>,
}

impl Plot for MainEffectsPlot {
    fn size(&self) -> (u32, u32) {
        ((220 * self.panels.len().max(2) as u32 + 60).min(1400), 380)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for p in &self.panels {
            let (a, b) = p.y_range();
            lo = lo.min(a);
            hi = hi.max(b);
        }
        let (w, _) = root.dim_in_pixel();
        let first = 60 + (w.saturating_sub(60)) / self.panels.len().max(1) as u32;
        let (left, rest) = root.split_horizontally(first);
        let mut areas = vec![left];
        if self.panels.len() > 1 {
            areas.extend(rest.split_evenly((1, self.panels.len() - 1)));
        }
        for (i, (p, a)) in self.panels.iter().zip(&areas).enumerate() {
            let label = if i == 0 { self.y_label.as_str() } else { "" };
            p.draw_on(a, (lo, hi), label, false)?;
        }
        Ok(())
    }
}

/// Horizontal bars, largest at the top: the allocation of variation.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub title: String,
    pub x_label: String,
    /// `(label, value)`, drawn in this order from the top.
    pub bars: Vec<(String, f64)>,
    /// Bars drawn in the second colour (e.g. the error term).
    pub highlight: Vec<String>,
}

impl Plot for BarChart {
    fn size(&self) -> (u32, u32) {
        (640, (90 + 26 * self.bars.len() as u32).clamp(220, 900))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let n = self.bars.len().max(1);
        let max = self.bars.iter().map(|b| b.1).fold(0.0, f64::max);
        let longest = self
            .bars
            .iter()
            .map(|b| b.0.chars().count())
            .max()
            .unwrap_or(1);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, TITLE))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size((longest as u32 * 8 + 16).clamp(40, 220))
            .build_cartesian_2d(0.0..(max * 1.12).max(1e-9), -0.5..n as f64 - 0.5)
            .map_err(err)?;
        let labels: Vec<String> = self.bars.iter().map(|b| b.0.clone()).collect();
        let fmt_y = move |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[labels.len() - 1 - i as usize].clone()
            } else {
                String::new()
            }
        };
        let span = (max * 1.12).max(1e-9);
        let fmt_x = move |v: &f64| tick(*v, span);
        chart
            .configure_mesh()
            .disable_mesh()
            .y_labels(n * 2 + 1)
            .y_label_formatter(&fmt_y)
            .x_label_formatter(&fmt_x)
            .x_desc(&self.x_label)
            .label_style((FONT, TICK))
            .axis_desc_style((FONT, LABEL))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(self.bars.iter().enumerate().map(|(i, (name, v))| {
                let y = (n - 1 - i) as f64;
                let c = if self.highlight.contains(name) {
                    GREY
                } else {
                    color(0)
                };
                Rectangle::new([(0.0, y - 0.35), (*v, y + 0.35)], c.filled())
            }))
            .map_err(err)?;
        chart
            .draw_series(self.bars.iter().enumerate().map(|(i, (_, v))| {
                let y = (n - 1 - i) as f64;
                Text::new(format!(" {v:.1}"), (*v, y + 0.2), (FONT, TICK))
            }))
            .map_err(err)?;
        Ok(())
    }
}

/// Points with optional labels and an optional reference line: normal
/// probability plots, residuals against predicted values, QQ plots.
#[derive(Debug, Clone, PartialEq)]
pub struct Scatter {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub points: Vec<(f64, f64)>,
    /// A label per point (empty for none).
    pub labels: Vec<String>,
    /// `y = slope x + intercept`, drawn across the plot.
    pub reference: Option<(f64, f64)>,
    /// A horizontal line at y = 0.
    pub zero_line: bool,
}

impl Plot for Scatter {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let fold = |f: fn(&(f64, f64)) -> f64| {
            self.points
                .iter()
                .map(f)
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                    (a.min(v), b.max(v))
                })
        };
        let xr = fold(|p| p.0);
        let mut yr = fold(|p| p.1);
        if self.zero_line {
            yr = (yr.0.min(0.0), yr.1.max(0.0));
        }
        let x = padded(xr.0, xr.1, 0.08);
        let y = padded(yr.0, yr.1, 0.1);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, TITLE))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(err)?;
        let fmt_x = move |v: &f64| tick(*v, x.1 - x.0);
        let fmt_y = move |v: &f64| tick(*v, y.1 - y.0);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .label_style((FONT, TICK))
            .axis_desc_style((FONT, LABEL))
            .draw()
            .map_err(err)?;
        if self.zero_line {
            chart
                .draw_series([PathElement::new(
                    vec![(x.0, 0.0), (x.1, 0.0)],
                    GREY.stroke_width(1),
                )])
                .map_err(err)?;
        }
        if let Some((slope, icpt)) = self.reference {
            chart
                .draw_series([PathElement::new(
                    vec![(x.0, slope * x.0 + icpt), (x.1, slope * x.1 + icpt)],
                    GREY.stroke_width(1),
                )])
                .map_err(err)?;
        }
        chart
            .draw_series(
                self.points
                    .iter()
                    .map(|&p| Circle::new(p, 4, color(0).filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(
                self.points
                    .iter()
                    .zip(&self.labels)
                    .filter(|(_, l)| !l.is_empty())
                    .map(|(&p, l)| Text::new(format!("  {l}"), p, (FONT, TICK))),
            )
            .map_err(err)?;
        Ok(())
    }
}

/// Lines through points, one per series: time series and CDFs.
#[derive(Debug, Clone, PartialEq)]
pub struct Lines {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// Fixes the vertical range (e.g. 0..1 for a CDF).
    pub y_range: Option<(f64, f64)>,
    pub legend: Legend,
}

/// Where a legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legend {
    UpperLeft,
    UpperRight,
    LowerRight,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
        }
    }
}

impl Plot for Lines {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let all = self.series.iter().flat_map(|s| s.1.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let x = padded(x0, x1, 0.02);
        let y = self.y_range.unwrap_or_else(|| padded(y0, y1, 0.08));
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, TITLE))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(err)?;
        let fmt_x = move |v: &f64| tick(*v, x.1 - x.0);
        let fmt_y = move |v: &f64| tick(*v, y.1 - y.0);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .label_style((FONT, TICK))
            .axis_desc_style((FONT, LABEL))
            .draw()
            .map_err(err)?;
        for (i, (name, pts)) in self.series.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(err)?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        if self.series.len() > 1 || self.series.first().is_some_and(|s| !s.0.is_empty()) {
            chart
                .configure_series_labels()
                .position(self.legend.position())
                .background_style(WHITE.mix(0.85))
                .border_style(GREY.mix(0.5))
                .label_font((FONT, TICK))
                .draw()
                .map_err(err)?;
        }
        Ok(())
    }
}

/// At most `max` points of the empirical CDF of `values` (evenly spaced in
/// probability, always including both ends).
pub fn ecdf(values: &[f64], max: usize) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return Vec::new();
    }
    let step = (n as f64 / max.max(2) as f64).max(1.0);
    let mut out = Vec::new();
    let mut i = 0.0f64;
    while (i as usize) < n {
        let k = i as usize;
        out.push((v[k], (k + 1) as f64 / n as f64));
        i += step;
    }
    if out.last().map(|p| p.1) != Some(1.0) {
        out.push((v[n - 1], 1.0));
    }
    out
}

/// A histogram of each series on shared bins, drawn as outlines: `(bin
/// centre, fraction of the series' samples)`.
pub fn histogram(series: &[(String, Vec<f64>)], bins: usize) -> Vec<(String, Vec<(f64, f64)>)> {
    let all = series
        .iter()
        .flat_map(|s| s.1.iter())
        .filter(|x| x.is_finite());
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
        (a.min(v), b.max(v))
    });
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        padded(lo, hi, 0.0)
    };
    let bins = bins.max(1);
    let w = (hi - lo) / bins as f64;
    series
        .iter()
        .map(|(name, v)| {
            let mut counts = vec![0usize; bins];
            for &x in v.iter().filter(|x| x.is_finite()) {
                let b = (((x - lo) / w) as usize).min(bins - 1);
                counts[b] += 1;
            }
            let n = v.len().max(1) as f64;
            // A step outline: up and across each bin.
            let mut pts = vec![(lo, 0.0)];
            for (b, &c) in counts.iter().enumerate() {
                let f = c as f64 / n;
                pts.push((lo + b as f64 * w, f));
                pts.push((lo + (b + 1) as f64 * w, f));
            }
            pts.push((hi, 0.0));
            (name.clone(), pts)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_gets_its_own_room_above_the_data() {
        // 440 px: a plot of 338 px, a legend of 2 rows 56 px high.
        let (lo, hi) = with_legend_room((0.0, 100.0), 440, 2);
        assert_eq!(lo, 0.0);
        assert!(
            ((hi - 100.0) / (hi - lo) - 56.0 / 338.0).abs() < 1e-12,
            "{hi}"
        );
        // Many rows: the data keeps at least half the plot.
        let (_, hi) = with_legend_room((0.0, 100.0), 440, 40);
        assert!((hi - 200.0).abs() < 1e-9, "{hi}");
    }

    #[test]
    fn ecdf_ends_at_one_and_is_bounded() {
        let v: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
        let c = ecdf(&v, 200);
        assert!(c.len() <= 202);
        assert_eq!(c.last().unwrap().1, 1.0);
        assert!(c.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn histogram_fractions_sum_to_one() {
        let h = histogram(&[("a".into(), vec![1.0, 2.0, 2.0, 3.0])], 4);
        let total: f64 = h[0].1.iter().skip(1).step_by(2).map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
}
