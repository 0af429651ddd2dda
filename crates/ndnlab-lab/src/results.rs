//! The output directory of a campaign, the contract the analysis reads:
//!
//! ```text
//! experiment.toml   the experiment as run (after --set and --quick)
//! machine.json      CPU model, cores, kernel, ndnlab version and commit
//! results.csv       one row per run: run_id, <factor paths...>, replicate, seed,
//!                   status, <metrics...>
//! results.json      the same rows as a JSON array
//! samples/          <run_id>.csv: delivery times; tables/<run_id>.csv: PIT/CS sizes
//! logs/             <run_id>.log: why a run failed or was skipped
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use crate::campaign::engine::write_atomic;
use crate::design::{show, RunSpec};
use crate::runner::Metrics;

/// One finished run (successful or not).
#[derive(Debug, Clone)]
pub struct RunRow {
    pub spec: RunSpec,
    /// `ok`, `failed`, or `skipped` (the runner cannot carry out the run's
    /// design point; see [`crate::campaign::NotApplicable`]).
    pub status: String,
    pub metrics: Metrics,
}

/// The machine a campaign ran on.
pub fn machine() -> serde_json::Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let commit = option_env!("NDNLAB_COMMIT").unwrap_or("unknown");
    json!({
        "cpu_model": model,
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "kernel": kernel,
        "ndnlab_version": env!("CARGO_PKG_VERSION"),
        "commit": commit,
    })
}

/// Writes `results.csv` and `results.json` (each whole, through
/// [`write_atomic`]): rows by run id, metric columns the union of every run's
/// (empty where a run has none).
pub fn write(dir: &Path, factors: &[String], rows: &[RunRow]) -> anyhow::Result<()> {
    let mut rows: Vec<&RunRow> = rows.iter().collect();
    rows.sort_by_key(|r| r.spec.id);
    let metrics: BTreeSet<&String> = rows.iter().flat_map(|r| r.metrics.keys()).collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["run_id".to_string()];
    header.extend(factors.iter().cloned());
    header.extend(["replicate", "seed", "status"].map(String::from));
    header.extend(metrics.iter().map(|m| m.to_string()));
    w.write_record(&header)?;
    let mut json_rows = Vec::new();
    for r in &rows {
        let levels: BTreeMap<&String, String> =
            r.spec.levels.iter().map(|(k, v)| (k, show(v))).collect();
        let mut rec = vec![r.spec.id.to_string()];
        let mut obj = serde_json::Map::new();
        obj.insert("run_id".into(), json!(r.spec.id));
        for f in factors {
            let v = levels.get(f).cloned().unwrap_or_default();
            obj.insert(f.clone(), level_json(&r.spec, f));
            rec.push(v);
        }
        rec.push(r.spec.replicate.to_string());
        rec.push(r.spec.seed.to_string());
        rec.push(r.status.clone());
        obj.insert("replicate".into(), json!(r.spec.replicate));
        obj.insert("seed".into(), json!(r.spec.seed));
        obj.insert("status".into(), json!(r.status));
        for m in &metrics {
            match r.metrics.get(*m) {
                Some(v) => {
                    rec.push(format_metric(*v));
                    obj.insert(m.to_string(), json!(v));
                }
                None => {
                    rec.push(String::new());
                    obj.insert(m.to_string(), serde_json::Value::Null);
                }
            }
        }
        w.write_record(&rec)?;
        json_rows.push(serde_json::Value::Object(obj));
    }
    write_atomic(&dir.join("results.csv"), w.into_inner()?)?;
    write_atomic(
        &dir.join("results.json"),
        serde_json::to_string_pretty(&json_rows)? + "\n",
    )
}

fn level_json(spec: &RunSpec, factor: &str) -> serde_json::Value {
    spec.levels
        .iter()
        .find(|(k, _)| k == factor)
        .and_then(|(_, v)| serde_json::to_value(v).ok())
        .unwrap_or(serde_json::Value::Null)
}

fn format_metric(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.6}")
    }
}

/// The rows of an earlier `results.csv` (for `--resume` and `ndnlab merge`):
/// run id → (status, metrics).
pub fn read(dir: &Path, factors: &[String]) -> anyhow::Result<BTreeMap<usize, (String, Metrics)>> {
    let path = dir.join("results.csv");
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    let mut r = csv::Reader::from_path(&path)?;
    let header = r.headers()?.clone();
    let reserved: BTreeSet<&str> = ["run_id", "replicate", "seed", "status"].into();
    for (i, rec) in r.records().enumerate() {
        let rec = rec?;
        let get = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|k| rec.get(k))
        };
        let id: usize = get("run_id")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("{}: line {}: no run_id", path.display(), i + 2))?;
        let status = get("status").unwrap_or("ok").to_string();
        let mut m = Metrics::new();
        for (k, h) in header.iter().enumerate() {
            if reserved.contains(h) || factors.iter().any(|f| f == h) {
                continue;
            }
            if let Some(v) = rec.get(k).and_then(|v| v.parse::<f64>().ok()) {
                m.insert(h.to_string(), v);
            }
        }
        out.insert(id, (status, m));
    }
    Ok(out)
}
