//! The fitting figures, drawn with `ndnlab_report`'s plots and written as SVG
//! and PNG: per group, the histogram with the fitted densities, a probability
//! plot per candidate, the PPCC sweeps and the Box-Cox curve; per stage, the
//! main-effects plot; for the generator, the QQ plot and the bihistogram of
//! generated against measured values.

use std::path::{Path, PathBuf};

use ndnlab_analysis::fit::ppcc::{plot_points, PlotData};
use ndnlab_analysis::fit::select::describe;
use ndnlab_analysis::fit::Dist;
use ndnlab_analysis::summary::percentile;
use ndnlab_report::figure::{render, Figure};
use ndnlab_report::plots::{histogram, Legend, Lines, Scatter};

use anyhow::Result;
use ndnlab_model::effects::StageEffects;
use ndnlab_model::fitting::GroupFit;
use ndnlab_model::generate::Comparison;
use ndnlab_model::pipeline::Fitted;

/// Writes `DIR/<id>.svg` and `DIR/<id>.png`; returns the SVG's path.
pub fn write(dir: &Path, fig: &Figure) -> Result<PathBuf> {
    fig.save(dir)
        .map_err(|e| anyhow::anyhow!("{}: {}", e.path.display(), e.error))
}

/// Writes the figures of every group of a fit and of its effects under `dir`
/// (SVG and PNG); returns the files written.
pub fn write_fitted(fitted: &Fitted, dir: &Path, unit: &str) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for gf in &fitted.fits {
        for f in group_figures(gf, unit)? {
            written.push(write(&dir.join(gf.group.key.slug()), &f)?);
        }
    }
    for e in &fitted.effects {
        written.push(write(dir, &effects_figure(e, unit)?)?);
    }
    Ok(written)
}

fn fig(id: &str, caption: &str, plot: &impl ndnlab_report::figure::Plot) -> Result<Figure> {
    render(id, caption, plot).map_err(|e| anyhow::anyhow!("drawing a figure failed: {e}"))
}

/// Density histogram outline of `values` on `bins` bins over their range.
fn density(name: &str, values: &[f64], bins: usize, sign: f64) -> (String, Vec<(f64, f64)>) {
    let h = histogram(&[(name.to_string(), values.to_vec())], bins);
    let (name, pts) = h.into_iter().next().expect("one series");
    let w = if pts.len() > 2 {
        pts[2].0 - pts[1].0
    } else {
        1.0
    };
    let w = if w > 0.0 { w } else { 1.0 };
    (
        name,
        pts.into_iter().map(|(x, f)| (x, sign * f / w)).collect(),
    )
}

/// The figures of one group's fit.
pub fn group_figures(gf: &GroupFit, unit: &str) -> Result<Vec<Figure>> {
    let label = gf.group.key.label();
    let slug = gf.group.key.slug();
    let x_label = if unit.is_empty() {
        "value".to_string()
    } else {
        format!("latency ({unit})")
    };
    let mut sorted = gf.group.values.clone();
    sorted.sort_by(f64::total_cmp);
    // The bulk of the sample: a far tail would flatten everything else.
    let (lo, hi) = (sorted[0], percentile(&sorted, 99.5));
    let bulk: Vec<f64> = sorted.iter().copied().filter(|v| *v <= hi).collect();
    let mut series = vec![density("measured", &bulk, 60, 1.0)];
    let mut cands: Vec<_> = gf
        .fit
        .candidates
        .iter()
        .filter(|c| c.dist.is_some() && c.ppcc.is_finite())
        .collect();
    cands.sort_by(|a, b| b.ppcc.total_cmp(&a.ppcc));
    let chosen = &gf.fit.chosen;
    let mut shown: Vec<&Dist> = vec![chosen];
    shown.extend(
        cands
            .iter()
            .filter_map(|c| c.dist.as_ref())
            .filter(|d| *d != chosen && !matches!(d, Dist::Empirical { .. }))
            .take(3),
    );
    // The density of the bulk: the histogram's fraction is of every value.
    let frac = bulk.len() as f64 / sorted.len() as f64;
    for d in shown {
        if matches!(d, Dist::Empirical { .. }) {
            continue;
        }
        let pts = (0..=200)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / 200.0;
                (x, d.pdf(x) / frac)
            })
            .filter(|p| p.1.is_finite())
            .collect();
        series.push((d.family().name().to_string(), pts));
    }
    let mut figs = vec![fig(
        &format!("{slug}-hist"),
        &format!(
            "{label}: histogram and fitted densities; chosen {}",
            describe(chosen, unit)
        ),
        &Lines {
            title: format!("{label}: histogram and fitted densities"),
            x_label: x_label.clone(),
            y_label: "density".into(),
            series,
            y_range: None,
            legend: Legend::UpperRight,
        },
    )?];
    let pd = PlotData::new(&sorted);
    for c in &cands {
        let Some(d) = &c.dist else { continue };
        if matches!(d, Dist::Empirical { .. }) {
            continue;
        }
        let pts = plot_points(&pd, d);
        let figs_id = format!("{slug}-probplot-{}", c.family.name());
        figs.push(fig(
            &figs_id,
            &format!(
                "{label}: {} probability plot, PPCC {:.5}",
                c.family.name(),
                c.ppcc
            ),
            &Scatter {
                title: format!(
                    "{} probability plot of {label} (PPCC {:.5})",
                    c.family.name(),
                    c.ppcc
                ),
                x_label: format!("{} quantile", c.family.name()),
                y_label: format!("ordered {x_label}"),
                labels: vec![String::new(); pts.len()],
                points: pts,
                reference: Some((1.0, 0.0)),
                zero_line: false,
            },
        )?);
    }
    for s in &gf.fit.sweeps {
        figs.push(fig(
            &format!("{slug}-ppcc-{}", s.family.name()),
            &format!("{label}: PPCC plot of the {} family", s.family.name()),
            &Lines {
                title: format!(
                    "PPCC plot, {}: best {} {:.3} (PPCC {:.5})",
                    s.family.name(),
                    s.parameter,
                    s.best_shape,
                    s.best_ppcc
                ),
                x_label: s.parameter.to_string(),
                y_label: "PPCC".into(),
                series: vec![(String::new(), s.points.clone())],
                y_range: None,
                legend: Legend::LowerRight,
            },
        )?);
    }
    if let Some(b) = &gf.fit.boxcox {
        figs.push(fig(
            &format!("{slug}-boxcox"),
            &format!("{label}: Box-Cox normality plot"),
            &Lines {
                title: format!(
                    "Box-Cox normality plot: best λ {:.3} (PPCC {:.5})",
                    b.lambda, b.ppcc
                ),
                x_label: "λ".into(),
                y_label: "normal PPCC of the transformed sample".into(),
                series: vec![(String::new(), b.curve.clone())],
                y_range: None,
                legend: Legend::LowerRight,
            },
        )?);
    }
    Ok(figs)
}

/// The main-effects plot of one stage.
pub fn effects_figure(e: &StageEffects, unit: &str) -> Result<Figure> {
    let y = if unit.is_empty() {
        format!("{} of {}", e.stat.name(), e.stage)
    } else {
        format!("{} of {} ({unit})", e.stat.name(), e.stage)
    };
    fig(
        &format!("effects-{}", e.stage),
        &format!(
            "Main effects on the {} latency of stage {}",
            e.stat.name(),
            e.stage
        ),
        &ndnlab_report::charts::main_effects(&e.effects, &y),
    )
}

/// The QQ plot and the bihistogram of generated against measured values.
pub fn comparison_figures(
    c: &Comparison,
    measured: &[f64],
    generated: &[f64],
    what: &str,
    unit: &str,
) -> Result<Vec<Figure>> {
    let u = if unit.is_empty() {
        String::new()
    } else {
        format!(" ({unit})")
    };
    let qq = fig(
        "compare-qq",
        &format!("{what}: quantiles of generated against measured values"),
        &Scatter {
            title: format!(
                "QQ plot of {what}: generated against measured (KS D {:.4})",
                c.ks
            ),
            x_label: format!("measured quantile{u}"),
            y_label: format!("generated quantile{u}"),
            points: c.qq.clone(),
            labels: vec![String::new(); c.qq.len()],
            reference: Some((1.0, 0.0)),
            zero_line: false,
        },
    )?;
    // Both on the bins of the measured bulk; generated drawn downwards.
    let mut all: Vec<f64> = measured.to_vec();
    all.sort_by(f64::total_cmp);
    let hi = percentile(&all, 99.5);
    let a: Vec<f64> = measured.iter().copied().filter(|v| *v <= hi).collect();
    let b: Vec<f64> = generated.iter().copied().filter(|v| *v <= hi).collect();
    let h = histogram(
        &[("measured".into(), a), ("generated (drawn down)".into(), b)],
        60,
    );
    let w = h[0].1.get(2).map(|p| p.0).unwrap_or(1.0) - h[0].1.get(1).map(|p| p.0).unwrap_or(0.0);
    let w = if w > 0.0 { w } else { 1.0 };
    let series = h
        .into_iter()
        .enumerate()
        .map(|(i, (n, pts))| {
            let s = if i == 0 { 1.0 } else { -1.0 };
            (n, pts.into_iter().map(|(x, f)| (x, s * f / w)).collect())
        })
        .collect();
    let bi = fig(
        "compare-bihistogram",
        &format!("{what}: bihistogram, measured above, generated below"),
        &Lines {
            title: format!("Bihistogram of {what}: measured (up), generated (down)"),
            x_label: format!("value{u}"),
            y_label: "density".into(),
            series,
            y_range: None,
            legend: Legend::UpperRight,
        },
    )?;
    Ok(vec![qq, bi])
}
