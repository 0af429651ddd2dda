//! What a daemon run reads back from its forwarders and producers: the
//! forwarders' counters through management, every process's CPU, and the
//! producers' signing and serving times from their reports.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::tools::serve_stats::ServeSummary;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};

use super::Children;
use crate::runner::Metrics;

/// (Interests in, CS hits, CS misses) per node.
pub(super) fn counters(
    clients: &BTreeMap<&String, BlockingClient>,
) -> anyhow::Result<BTreeMap<String, (f64, f64, f64)>> {
    let mut out = BTreeMap::new();
    for (n, c) in clients {
        let read = |module: &str, what: &str, kind| -> anyhow::Result<_> {
            let d = c
                .dataset(module, what)
                .with_context(|| format!("{module}/{what} of forwarder {n}"))?;
            decode_records(kind, &d).map_err(anyhow::Error::msg)
        };
        let g = read("status", "general", DatasetKind::General)?;
        let cs = read("cs", "info", DatasetKind::Cs)?;
        let num = |r: Option<&ndnlab_proto::mgmt::dataset::Record>, k: &str| {
            r.and_then(|r| r.num(k)).unwrap_or(0) as f64
        };
        out.insert(
            (*n).clone(),
            (
                num(g.first(), "nInInterests"),
                num(cs.first(), "nHits"),
                num(cs.first(), "nMisses"),
            ),
        );
    }
    Ok(out)
}

/// CPU seconds of each forwarder and app process, by metric suffix: the node
/// for a forwarder, `app@node` for an app (`ip netns exec` execs the program,
/// so the pid is the program's under every fabric). A process that exited
/// but is not yet reaped still reports its final time.
pub(super) fn cpu_of(children: &Children) -> BTreeMap<String, f64> {
    children
        .0
        .iter()
        .filter_map(|(name, child)| {
            let key = name.strip_prefix("fwd ").unwrap_or(name);
            ndnlab_testkit::cpu::process_seconds(child.id()).map(|s| (key.to_string(), s))
        })
        .collect()
}

/// Adds the producers' signing and serving metrics from the interval reports
/// `ndnlab perf server --json` printed to `<app>@<node>.json`: the intervals
/// that end inside the window (`open`..`close`, Unix seconds), their times
/// weighted by the Data of each interval (as the consumers' delivery times).
pub(super) fn producer_metrics(
    m: &mut Metrics,
    producers: &[String],
    log_dir: &Path,
    (open, close): (f64, f64),
) -> anyhow::Result<()> {
    for name in producers {
        let path = log_dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("producer {name}: {}", path.display()))?;
        let rows: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|r: &serde_json::Value| r["type"] == "interval")
            .collect();
        let s = window_summary(&rows, open, close);
        super::super::summary::producers(std::iter::once((name.as_str(), s)), m);
    }
    Ok(())
}

/// The window's statistics from interval rows: counts and busy time summed,
/// means exact, percentiles the count-weighted means of the intervals'.
fn window_summary(rows: &[serde_json::Value], open: f64, close: f64) -> ServeSummary {
    let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(0.0);
    let mut s = ServeSummary::default();
    let (mut secs, mut busy) = (0.0, 0.0);
    let (mut sign, mut serve) = ([0.0; 3], [0.0; 3]);
    for r in rows {
        // an interval counts when most of it lies inside the window
        let mid = f(r, "at_unix_s") - f(r, "interval_s") / 2.0;
        if mid < open || mid >= close {
            continue;
        }
        let (signed, served) = (f(r, "signed"), f(r, "served"));
        s.signed += signed as u64;
        s.served += served as u64;
        secs += f(r, "interval_s");
        busy += f(r, "sign_cores") * f(r, "interval_s");
        for (i, k) in ["sign_us_mean", "sign_us_p50", "sign_us_p99"]
            .iter()
            .enumerate()
        {
            sign[i] += signed * f(r, k);
        }
        for (i, k) in ["serve_us_mean", "serve_us_p50", "serve_us_p99"]
            .iter()
            .enumerate()
        {
            serve[i] += served * f(r, k);
        }
    }
    if s.signed > 0 {
        let n = s.signed as f64;
        (s.sign_mean_us, s.sign_p50_us, s.sign_p99_us) = (sign[0] / n, sign[1] / n, sign[2] / n);
    }
    if s.served > 0 {
        let n = s.served as f64;
        (s.serve_mean_us, s.serve_p50_us, s.serve_p99_us) =
            (serve[0] / n, serve[1] / n, serve[2] / n);
    }
    if secs > 0.0 {
        s.sign_cores = busy / secs;
        s.sign_cores_needed = s.sign_mean_us / 1e6 * s.served as f64 / secs;
    }
    s
}

/// Writes `samples/faces/<run_id>.csv`: every face of every node with its
/// counters from the `faces/list` dataset (NFD's and `ndnlab fwd`'s alike), the
/// columns the `inproc` runner writes. `drops` is empty: the dataset has no
/// such counter.
pub(super) fn write_faces(
    clients: &BTreeMap<&String, BlockingClient>,
    path: &Path,
) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(crate::runner::FACE_COLUMNS)?;
    for (n, c) in clients {
        let d = c
            .dataset("faces", "list")
            .with_context(|| format!("faces/list of forwarder {n}"))?;
        for r in decode_records(DatasetKind::Faces, &d).map_err(anyhow::Error::msg)? {
            let num = |k: &str| r.num(k).map(|v| v.to_string()).unwrap_or_default();
            w.write_record([
                (*n).clone(),
                num("faceId"),
                r.text("remote").unwrap_or_default().to_string(),
                num("nInInterests"),
                num("nInData"),
                num("nInNacks"),
                num("nOutInterests"),
                num("nOutData"),
                num("nOutNacks"),
                num("nInBytes"),
                num("nOutBytes"),
                String::new(),
            ])?;
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(
        at: f64,
        signed: u64,
        mean: f64,
        p99: f64,
        served: u64,
        serve: f64,
    ) -> serde_json::Value {
        json!({"type": "interval", "interval_s": 0.1, "at_unix_s": at, "signed": signed,
               "sign_us_mean": mean, "sign_us_p50": mean, "sign_us_p99": p99,
               "sign_cores": signed as f64 * mean / 1e6 / 0.1, "served": served,
               "serve_us_mean": serve, "serve_us_p50": serve, "serve_us_p99": 2.0 * serve})
    }

    #[test]
    fn producer_window_weights_intervals_by_their_data() {
        // window 100.0 .. 100.2: the rows ending at 100.1 and 100.2 count;
        // 100.0 (mostly before) and 100.3 (after) do not
        let rows = [
            row(100.0, 999, 1000.0, 1000.0, 999, 1000.0),
            row(100.1, 1000, 40.0, 60.0, 1000, 50.0),
            row(100.2, 3000, 20.0, 30.0, 3000, 30.0),
            row(100.3, 999, 1000.0, 1000.0, 999, 1000.0),
        ];
        let s = window_summary(&rows, 100.0, 100.2);
        assert_eq!((s.signed, s.served), (4000, 4000));
        // (1000 * 40 + 3000 * 20) / 4000 = 25 µs; p99 (1000 * 60 + 3000 * 30) / 4000
        assert!((s.sign_mean_us - 25.0).abs() < 1e-9, "{s:?}");
        assert!((s.sign_p99_us - 37.5).abs() < 1e-9, "{s:?}");
        assert!((s.serve_mean_us - 35.0).abs() < 1e-9, "{s:?}");
        assert!((s.serve_p99_us - 70.0).abs() < 1e-9, "{s:?}");
        // busy: 40 ms + 60 ms over 0.2 s; needed: 25 µs x 20,000 Data/s
        assert!((s.sign_cores - 0.5).abs() < 1e-9, "{s:?}");
        assert!((s.sign_cores_needed - 0.5).abs() < 1e-9, "{s:?}");
        assert_eq!(window_summary(&rows, 200.0, 201.0), ServeSummary::default());
    }
}
