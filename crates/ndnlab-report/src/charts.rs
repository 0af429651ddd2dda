//! From analyses to figure descriptions.

use ndnlab_analysis::anova::AnovaAnalysis;
use ndnlab_analysis::means::{Interaction, MainEffect};
use ndnlab_analysis::residuals::{QqPoint, Residual};
use ndnlab_analysis::twolevel::TwoLevelAnalysis;

use crate::plots::{BarChart, LevelChart, LevelSeries, MainEffectsPlot, Scatter};

/// One panel per factor: the mean response and its CI at each level.
pub fn main_effects(effects: &[MainEffect], y_label: &str) -> MainEffectsPlot {
    MainEffectsPlot {
        y_label: y_label.to_string(),
        panels: effects
            .iter()
            .map(|m| LevelChart {
                title: m.factor.clone(),
                x_label: m.factor.clone(),
                y_label: String::new(),
                levels: m.levels.iter().map(|l| l.level.clone()).collect(),
                series: vec![LevelSeries {
                    name: m.factor.clone(),
                    points: m
                        .levels
                        .iter()
                        .enumerate()
                        .map(|(i, l)| (i, l.summary.mean, l.summary.ci))
                        .collect(),
                }],
            })
            .collect(),
    }
}

/// The response against one factor, one series per level of another.
pub fn interaction(it: &Interaction, y_label: &str) -> LevelChart {
    LevelChart {
        title: format!("{} by {} and {}", y_label, it.x_factor, it.series_factor),
        x_label: it.x_factor.clone(),
        y_label: y_label.to_string(),
        levels: it.x_levels.clone(),
        series: it
            .series
            .iter()
            .map(|(name, pts)| LevelSeries {
                name: format!("{} = {name}", it.series_factor),
                points: pts
                    .iter()
                    .filter_map(|p| {
                        let i = it.x_levels.iter().position(|l| *l == p.level)?;
                        Some((i, p.summary.mean, p.summary.ci))
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Allocation of variation of a two-level design: every effect and the error.
pub fn two_level_allocation(a: &TwoLevelAnalysis, max_bars: usize) -> BarChart {
    let mut bars: Vec<(String, f64)> = a
        .ranked()
        .iter()
        .take(max_bars)
        .map(|e| (e.term.clone(), e.percent))
        .collect();
    if let Some(e) = &a.error {
        bars.push(("error".into(), e.percent));
    }
    BarChart {
        title: format!("Allocation of variation of {}", a.response),
        x_label: "share of the total variation (%)".into(),
        bars,
        highlight: vec!["error".into()],
    }
}

/// Allocation of variation of a full factorial ANOVA.
pub fn anova_allocation(a: &AnovaAnalysis) -> BarChart {
    let mut rows: Vec<(String, f64)> = a
        .rows
        .iter()
        .map(|r| (r.source.clone(), r.percent))
        .collect();
    rows.sort_by(|x, y| y.1.total_cmp(&x.1));
    rows.push((a.error.source.clone(), a.error.percent));
    BarChart {
        title: format!("Allocation of variation of {}", a.response),
        x_label: "share of the total variation (%)".into(),
        bars: rows,
        highlight: vec!["error".into()],
    }
}

/// Normal probability plot of the effects. Effects that are noise fall on a
/// line through the origin whose slope is their standard error (Lenth's PSE
/// or `s_q`); real effects stand off it and are labelled.
pub fn normal_plot(a: &TwoLevelAnalysis) -> Scatter {
    let slope = a
        .error
        .as_ref()
        .map(|e| e.s_q)
        .or(a.lenth.as_ref().map(|l| l.pse));
    let significant = |t: &str| {
        a.effects
            .iter()
            .find(|e| e.term == t)
            .and_then(TwoLevelAnalysis::is_significant)
            .unwrap_or(true)
    };
    Scatter {
        title: format!("Normal probability plot of the effects on {}", a.response),
        x_label: "normal score".into(),
        y_label: format!("effect q on {}", a.response),
        points: a.normal_plot.iter().map(|p| (p.z, p.value)).collect(),
        labels: a
            .normal_plot
            .iter()
            .map(|p| {
                if significant(&p.term) {
                    p.term.clone()
                } else {
                    String::new()
                }
            })
            .collect(),
        reference: slope.map(|s| (s, 0.0)),
        zero_line: false,
    }
}

/// Residuals against predicted responses (no trend, no spread growing with
/// the prediction) and their normal quantile-quantile plot (a straight line).
pub fn residual_plots(
    response: &str,
    residuals: &[Residual],
    qq: &[QqPoint],
) -> (Scatter, Scatter) {
    let vs = Scatter {
        title: format!("Residuals of {response} against predicted values"),
        x_label: format!("predicted {response}"),
        y_label: "residual".into(),
        points: residuals
            .iter()
            .map(|r| (r.predicted, r.residual))
            .collect(),
        labels: vec![String::new(); residuals.len()],
        reference: None,
        zero_line: true,
    };
    let sd = {
        let n = qq.len().max(2) as f64;
        let m = qq.iter().map(|p| p.residual).sum::<f64>() / n;
        (qq.iter().map(|p| (p.residual - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    let qqp = Scatter {
        title: format!("Normal quantile-quantile plot of the residuals of {response}"),
        x_label: "normal quantile".into(),
        y_label: "residual quantile".into(),
        points: qq.iter().map(|p| (p.z, p.residual)).collect(),
        labels: vec![String::new(); qq.len()],
        reference: Some((sd, 0.0)),
        zero_line: false,
    };
    (vs, qqp)
}
