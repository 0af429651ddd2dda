//! What a daemon run reads back from its consumers: the reports the app
//! processes print (`--json`), turned into the [`ConsumerStats`] of the
//! measurement window that every runner reports from
//! ([`crate::runner::summary::consumers`], which computes every consumer
//! metric). Each tool counts the Interests it sent inside the window (the
//! experiment's `duration_s`), with their outcomes whenever they come, and
//! gives its delivery times as a histogram's buckets, which add up exactly:
//!
//! - `perf client --window-at --window-secs`: its `window` row
//!   (`rtt_hist_us`), and with a count the summary's `finished_s`; the window
//!   is the runner's, given in Unix seconds;
//! - `traffic client`: its summary (`--window-at --window-secs`, the runner's
//!   window; with a count, all it sent from its start at the window's
//!   opening; `delivery_hist_us`); with a count its `time_s`;
//! - `ping`: each reply, placed in time by its sequence number (one every
//!   interval from `--start-seq`, on the ping's clock from its start), its
//!   round trip a raw sample;
//! - `get`: its summary (`rtt_hist_us`), whose SHA-256 must be the put's
//!   object's.

use std::path::Path;

use ndnlab_app::stats::add_buckets;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::apps::{ping_interval_ms, ping_start, starts_at_window};
use crate::apps::ConsumerStats;
use crate::experiment::AppSpec;
use crate::runner::{Metrics, RunPlan};

#[cfg(test)]
mod tests;

/// One consumer of the run: `group@node`, its spec, its seed.
pub(super) struct Ran<'a> {
    pub label: &'a str,
    pub spec: &'a AppSpec,
    pub seed: u64,
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(0.0)
}

fn count(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

/// The last row of `kind`, or an error naming it.
fn last<'a>(rows: &'a [Value], kind: &str) -> anyhow::Result<&'a Value> {
    rows.iter()
        .rev()
        .find(|r| r["type"] == kind)
        .ok_or_else(|| anyhow::anyhow!("no {kind} row"))
}

/// Adds the delivery-time buckets `row[key]` to `s.delay_us`.
fn delays(s: &mut ConsumerStats, row: &Value, key: &str) -> anyhow::Result<()> {
    add_buckets(&mut s.delay_us, &row[key]).map_err(|e| anyhow::anyhow!("{key}: {e}"))?;
    Ok(())
}

/// A `perf client --window-at --window-secs --json` report: its window row.
fn perf(rows: &[Value], a: &AppSpec) -> anyhow::Result<ConsumerStats> {
    let w = last(rows, "window")?;
    let mut s = ConsumerStats {
        interests: count(w, "interests"),
        data: count(w, "data"),
        nacks: count(w, "nacks"),
        timeouts: count(w, "timeouts"),
        bytes: count(w, "bytes"),
        retransmissions: count(w, "retransmissions"),
        marks: count(w, "marks"),
        ..Default::default()
    };
    delays(&mut s, w, "rtt_hist_us")?;
    if a.count > 0 {
        s.finished_s = last(rows, "summary")?["finished_s"].as_f64();
    }
    Ok(s)
}

/// A `traffic client --json` report.
fn traffic(rows: &[Value], a: &AppSpec) -> anyhow::Result<ConsumerStats> {
    let sum = last(rows, "summary")?;
    let mut s = ConsumerStats {
        interests: count(sum, "sent"),
        data: count(sum, "satisfied"),
        nacks: count(sum, "nacked"),
        timeouts: count(sum, "timeouts"),
        bytes: count(sum, "bytes"),
        finished_s: (a.count > 0).then(|| num(sum, "time_s")),
        ..Default::default()
    };
    delays(&mut s, sum, "delivery_hist_us")?;
    Ok(s)
}

/// An `ndnlab ping --json` report: the replies to pings sent in the window.
fn ping(rows: &[Value], a: &AppSpec, seed: u64, plan: &RunPlan) -> ConsumerStats {
    let e = &plan.exp.experiment;
    let every = ping_interval_ms(a.rate);
    let start = ping_start(seed);
    // milliseconds from the ping's start to the window's opening and close
    let ms = |s: f64| (s * 1000.0).round() as u64;
    let open = if starts_at_window(a) {
        0
    } else {
        ms(e.warmup_s)
    };
    let close = open + ms(e.duration_s);
    let mut s = ConsumerStats::default();
    for r in rows.iter().filter(|r| r["type"] == "reply") {
        // when it was sent
        let t = count(r, "seq").wrapping_sub(start).saturating_mul(every);
        if t < open || t >= close {
            continue;
        }
        s.interests += 1;
        match r["result"].as_str() {
            Some("data") => {
                s.data += 1;
                // whole µs, as the other tools' histograms hold them
                let ns = (num(r, "rtt_ms") * 1e6).round() as u64;
                let us = (ns / 1000).max(1);
                let _ = s.delay_us.record(us);
                if s.samples.len() < crate::apps::MAX_SAMPLES {
                    s.samples.push(((t - open) as f64 / 1000.0, us));
                }
            }
            Some("nack") => s.nacks += 1,
            _ => s.timeouts += 1,
        }
    }
    if a.count > 0 {
        s.finished_s = last(rows, "summary")
            .ok()
            .map(|r| num(r, "time_ms") / 1000.0);
    }
    s
}

/// An `ndnlab get --json` report, checked against the put's object.
fn get(rows: &[Value], a: &AppSpec, plan: &RunPlan) -> anyhow::Result<ConsumerStats> {
    let sum = last(rows, "summary")?;
    let retx = count(sum, "retransmissions");
    let mut s = ConsumerStats {
        interests: count(sum, "interests").saturating_sub(retx),
        data: count(sum, "segments"),
        nacks: count(sum, "nacks"),
        timeouts: count(sum, "timeouts"),
        bytes: count(sum, "bytes"),
        retransmissions: retx,
        marks: count(sum, "congestion_marks"),
        finished_s: Some(num(sum, "time_s")),
        ..Default::default()
    };
    let size = plan.put_size(&a.prefix).unwrap_or(0);
    let want = hex(&Sha256::digest(crate::apps::producer::object(
        &a.prefix, size,
    )));
    if sum["sha256"].as_str() != Some(want.as_str()) {
        s.error = Some(format!(
            "get {}: the object's SHA-256 does not match what the put published",
            a.prefix
        ));
    }
    delays(&mut s, sum, "rtt_hist_us")?;
    Ok(s)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Reads the report of consumer `a` (its JSON lines `rows`).
fn read(rows: &[Value], a: &AppSpec, seed: u64, plan: &RunPlan) -> anyhow::Result<ConsumerStats> {
    match a.kind.as_str() {
        "ping" => Ok(ping(rows, a, seed, plan)),
        "get" => get(rows, a, plan),
        _ if a.pattern == "window" => perf(rows, a),
        _ => traffic(rows, a),
    }
}

/// Adds the consumers' metrics of the window to `m`; fails with the
/// consumers' own failures (a get's wrong object). Every tool counts over a
/// window of the experiment's `duration_s` (the perf and traffic clients the
/// runner's own): the rates are per second of it.
pub(super) fn consumer_metrics(
    m: &mut Metrics,
    plan: &RunPlan,
    consumers: &[Ran],
    log_dir: &Path,
) -> anyhow::Result<()> {
    let mut stats = Vec::new();
    for c in consumers {
        let path = log_dir.join(format!("{}.json", c.label));
        let text = std::fs::read_to_string(&path)?;
        let rows: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let s = read(&rows, c.spec, c.seed, plan).map_err(|e| {
            anyhow::anyhow!(
                "consumer {}: {e} in its report (see {})",
                c.label,
                path.display()
            )
        })?;
        stats.push((c.label.to_string(), s));
    }
    if stats.iter().all(|(_, s)| s.interests == 0) {
        anyhow::bail!(
            "the consumers sent no Interest in the window (see {})",
            log_dir.display()
        );
    }
    let mut failures = Vec::new();
    crate::runner::summary::consumers(
        &plan.exp,
        stats.iter().map(|(n, s)| (n.as_str(), s)),
        plan.exp.experiment.duration_s,
        m,
        &mut failures,
    );
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join("; "));
    }
    Ok(())
}
