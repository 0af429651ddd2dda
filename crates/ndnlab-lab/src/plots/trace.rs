//! The figure of a run's trace: each forwarding thread's queue and the PIT
//! size against virtual time (SVG and PNG, `ndnlab_report`'s style).

use std::path::Path;

use ndnlab_report::figure::{render, Figure};
use ndnlab_report::plots::{Legend, Lines};

use ndnlab_model::dataplane::Trace;

/// Writes `trace` as CSV to `path` and its figure beside it (`.svg`, `.png`),
/// creating the directory; the error names the file.
pub fn write(path: &Path, trace: &Trace, title: &str) -> anyhow::Result<()> {
    let io = |p: &Path, e: std::io::Error| anyhow::anyhow!("{}: {e}", p.display());
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
    }
    std::fs::write(path, trace.to_csv()).map_err(|e| io(path, e))?;
    let fig = trace_figure(trace, title).map_err(|e| anyhow::anyhow!("drawing the trace: {e}"))?;
    for (ext, bytes) in [("svg", fig.svg.as_bytes()), ("png", fig.png.as_slice())] {
        let p = path.with_extension(ext);
        std::fs::write(&p, bytes).map_err(|e| io(&p, e))?;
    }
    Ok(())
}

/// Queue lengths and PIT size over the run, in µs.
pub fn trace_figure(trace: &Trace, title: &str) -> Result<Figure, String> {
    let t: Vec<f64> = trace.at.iter().map(|&t| t as f64 / 1e3).collect();
    let line = |v: &[u32]| -> Vec<(f64, f64)> {
        t.iter().zip(v).map(|(&x, &y)| (x, f64::from(y))).collect()
    };
    let mut series: Vec<(String, Vec<(f64, f64)>)> = trace
        .queues
        .iter()
        .enumerate()
        .map(|(k, q)| (format!("queue of thread {k}"), line(q)))
        .collect();
    series.push(("PIT entries".into(), line(&trace.pit)));
    let plot = Lines {
        title: title.to_string(),
        x_label: "virtual time (µs)".into(),
        y_label: "packets / entries".into(),
        series,
        y_range: None,
        legend: Legend::UpperLeft,
    };
    render("trace", title, &plot)
}
