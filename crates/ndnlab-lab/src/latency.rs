//! The forwarders' latency instrumentation in laboratory runs
//! (`forwarder.latency_sample = N`, with `latency_skip` and `latency_keep`): each
//! node's forwarder times one packet in N ([`ndnlab_fwd::latency`]), writes its raw
//! samples to `samples/latency/<run>/<node>.csv`, and at the end of the run the
//! runner reads every node's histograms (the `ndnlab/latency` dataset) into
//! `samples/latency/<run>/histograms.json` and into summary metrics
//! `lat_<stage>_<stat>_ns.<node>` (stage input, queue, fwd, output, total; stat
//! mean, p50, p99; all packet classes together) plus `lat_samples.<node>`.

use std::path::{Path, PathBuf};

use ndnlab_fwd::config::LatencySection;
use ndnlab_fwd::latency::dataset::LatencyReport;

use crate::experiment::ForwarderSpec;
use crate::runner::Metrics;

/// The summary metrics, with their meaning (also known to `experiment.metrics`).
pub const METRICS: &[(&str, &str)] = &[
    ("lat_samples", "packets timed by a forwarder (per node)"),
    (
        "lat_input_mean_ns",
        "mean input stage (receive, decode, dispatch), per node",
    ),
    ("lat_input_p50_ns", "median input stage, per node"),
    (
        "lat_input_p99_ns",
        "99th percentile of the input stage, per node",
    ),
    (
        "lat_queue_mean_ns",
        "mean wait for the forwarding shard, per node",
    ),
    (
        "lat_queue_p50_ns",
        "median wait for the forwarding shard, per node",
    ),
    (
        "lat_queue_p99_ns",
        "99th percentile of the shard wait, per node",
    ),
    (
        "lat_fwd_mean_ns",
        "mean forwarding pipeline (CS, PIT, FIB, strategy), per node",
    ),
    ("lat_fwd_p50_ns", "median forwarding pipeline, per node"),
    (
        "lat_fwd_p99_ns",
        "99th percentile of the forwarding pipeline, per node",
    ),
    (
        "lat_output_mean_ns",
        "mean output stage (face queue, encode, send), per node",
    ),
    ("lat_output_p50_ns", "median output stage, per node"),
    (
        "lat_output_p99_ns",
        "99th percentile of the output stage, per node",
    ),
    (
        "lat_total_mean_ns",
        "mean time through the forwarder, per node",
    ),
    (
        "lat_total_p50_ns",
        "median time through the forwarder, per node",
    ),
    (
        "lat_total_p99_ns",
        "99th percentile of the time through the forwarder, per node",
    ),
];

/// Where a node's raw samples go.
pub fn log_path(dir: &Path, run_id: usize, node: &str) -> PathBuf {
    dir.join("samples")
        .join("latency")
        .join(run_id.to_string())
        .join(format!("{node}.csv"))
}

/// A node's `[latency]` configuration (off unless `latency_sample` > 0); creates
/// the directory of its raw samples.
pub fn section(
    f: &ForwarderSpec,
    dir: &Path,
    run_id: usize,
    node: &str,
) -> anyhow::Result<LatencySection> {
    let mut s = LatencySection::default();
    if f.latency_sample == 0 {
        return Ok(s);
    }
    let log = log_path(dir, run_id, node);
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent)?;
    }
    s.sample = f.latency_sample;
    s.skip = f.latency_skip;
    s.keep = f.latency_keep;
    s.log = Some(log);
    Ok(s)
}

/// The same as a `fwd.toml` section (`processes` runner; empty when off).
pub fn toml_section(
    f: &ForwarderSpec,
    dir: &Path,
    run_id: usize,
    node: &str,
) -> anyhow::Result<String> {
    let s = section(f, dir, run_id, node)?;
    let Some(log) = &s.log else {
        return Ok(String::new());
    };
    Ok(format!(
        "[latency]\nsample = {}\nskip = {}\nkeep = {}\nlog = {:?}\n",
        s.sample,
        s.skip,
        s.keep,
        log.display().to_string()
    ))
}

/// Adds the nodes' summary metrics and writes their histograms to
/// `samples/latency/<run>/histograms.json` (nothing when no node has the
/// instrumentation on).
pub fn collect(
    m: &mut Metrics,
    dir: &Path,
    run_id: usize,
    reports: &[(String, LatencyReport)],
) -> anyhow::Result<()> {
    if !reports.iter().any(|(_, r)| r.enabled) {
        return Ok(());
    }
    for (node, r) in reports.iter().filter(|(_, r)| r.enabled) {
        m.insert(format!("lat_samples.{node}"), r.samples_recorded as f64);
        for e in r.entries.iter().filter(|e| e.class_name() == "all") {
            let stage = e.stage_name();
            for (stat, v) in [("mean", e.mean_ns), ("p50", e.p50_ns), ("p99", e.p99_ns)] {
                m.insert(format!("lat_{stage}_{stat}_ns.{node}"), v as f64);
            }
        }
    }
    let out = dir.join("samples").join("latency").join(run_id.to_string());
    std::fs::create_dir_all(&out)?;
    let json: serde_json::Map<String, serde_json::Value> = reports
        .iter()
        .map(|(n, r)| (n.clone(), serde_json::to_value(r).unwrap_or_default()))
        .collect();
    std::fs::write(
        out.join("histograms.json"),
        serde_json::to_string_pretty(&json)?,
    )?;
    Ok(())
}

/// Every node's report, read through management (`processes` runner; reading
/// the dataset also flushes the node's raw log).
pub fn reports_of<'a>(
    clients: impl IntoIterator<Item = (&'a String, &'a ndnlab_app::client::blocking::BlockingClient)>,
) -> anyhow::Result<Vec<(String, LatencyReport)>> {
    let mut out = Vec::new();
    for (node, c) in clients {
        let payload = c.dataset("ndnlab", "latency")?;
        let r = LatencyReport::decode(&payload)
            .map_err(|e| anyhow::anyhow!("ndnlab/latency of {node}: {e}"))?;
        out.push((node.clone(), r));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_fwd::latency::hist::Summary;

    #[test]
    fn off_by_default_and_metrics_per_node() {
        let dir = ndnlab_testkit::temp_dir("lab-latency");
        let mut f = ForwarderSpec::default();
        assert!(section(&f, &dir, 0, "r0").unwrap().log.is_none());
        assert_eq!(toml_section(&f, &dir, 0, "r0").unwrap(), "");
        f.latency_sample = 64;
        f.latency_keep = 100;
        let t = toml_section(&f, &dir, 3, "r0").unwrap();
        let parsed: ndnlab_fwd::FwdConfig = toml::from_str(&t).unwrap();
        assert_eq!(parsed.latency.sample, 64);
        assert_eq!(parsed.latency.keep, 100);
        assert_eq!(parsed.latency.log, Some(log_path(&dir, 3, "r0")));
        let r = LatencyReport {
            enabled: true,
            samples_recorded: 9,
            entries: vec![Summary {
                stage: 2,
                class: 4,
                p50_ns: 1234,
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut m = Metrics::new();
        collect(
            &mut m,
            &dir,
            3,
            &[("r0".into(), r), ("r1".into(), LatencyReport::default())],
        )
        .unwrap();
        assert_eq!(m["lat_fwd_p50_ns.r0"], 1234.0);
        assert_eq!(m["lat_samples.r0"], 9.0);
        assert!(!m.keys().any(|k| k.ends_with(".r1")));
        let h = std::fs::read_to_string(dir.join("samples/latency/3/histograms.json")).unwrap();
        assert!(h.contains("\"r0\"") && h.contains("\"all\""));
    }
}
