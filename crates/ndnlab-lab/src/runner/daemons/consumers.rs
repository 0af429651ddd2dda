//! What a daemon run reads back from its consumers: the reports the app
//! processes print (`--json`), turned into the [`ConsumerStats`] of the
//! measurement window that every runner reports from
//! ([`crate::runner::summary::consumers`]).
//!
//! - `perf client`: its interval rows after the warm-up (an interval's
//!   outcomes, one per Interest: Data, Nack, timeout), and with a count the
//!   summary's `finished_s`;
//! - `traffic client`: its summary (the warm-up left out by `--warmup`), and
//!   its per-pattern delivery times; with a count its `time_s`;
//! - `ping`: each reply, placed in time by its sequence number (one every
//!   interval from `--start-seq`);
//! - `get`: its summary, whose SHA-256 must be the put's object's.
//!
//! Delivery times are Data-weighted means of what each report gives (a
//! ping's replies are exact).

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::apps::{ping_interval_ms, ping_start, starts_at_window};
use crate::apps::ConsumerStats;
use crate::experiment::AppSpec;
use crate::runner::{Metrics, RunPlan};

/// One consumer of the run: `group@node`, its spec, its seed.
pub(super) struct Ran<'a> {
    pub label: &'a str,
    pub spec: &'a AppSpec,
    pub seed: u64,
}

/// What a report gave: the stats, (Data, mean, p50, p99 in µs) rows, and
/// the seconds its intervals cover (0: no intervals).
type Read = (ConsumerStats, Vec<(f64, f64, f64, f64)>, f64);

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(0.0)
}

fn count(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

/// A `perf client --interval --json` report.
fn perf(rows: &[Value], a: &AppSpec, warmup: f64) -> Read {
    let mut s = ConsumerStats::default();
    let mut delay = Vec::new();
    let from = if starts_at_window(a) { 0.0 } else { warmup };
    let mut last_t = from;
    let mut secs = 0.0;
    for r in rows
        .iter()
        .filter(|r| r["type"] == "interval" && num(r, "time_s") > from)
    {
        // An interval's Data may answer Interests of the one before: count the
        // outcomes (Data, Nack, timeout), one per Interest.
        s.interests += count(r, "data") + count(r, "nacks") + count(r, "timeouts");
        s.data += count(r, "data");
        s.nacks += count(r, "nacks");
        s.timeouts += count(r, "timeouts");
        s.bytes += count(r, "bytes");
        s.retransmissions += count(r, "retransmissions");
        s.marks += count(r, "marks");
        secs += num(r, "time_s") - last_t;
        last_t = num(r, "time_s");
        delay.push(rtt_row(
            r,
            "rtt_mean_ms",
            "rtt_p50_ms",
            "rtt_p99_ms",
            "data",
        ));
    }
    if a.count > 0 {
        s.finished_s = rows
            .iter()
            .rev()
            .find(|r| r["type"] == "summary")
            .and_then(|r| r["finished_s"].as_f64());
    }
    (s, delay, secs)
}

/// (Data, mean, p50, p99 in µs) of a report row with those keys in ms.
fn rtt_row(r: &Value, mean: &str, p50: &str, p99: &str, data: &str) -> (f64, f64, f64, f64) {
    (
        num(r, data),
        num(r, mean) * 1000.0,
        num(r, p50) * 1000.0,
        num(r, p99) * 1000.0,
    )
}

/// A `traffic client --json` report.
fn traffic(rows: &[Value], a: &AppSpec) -> anyhow::Result<Read> {
    let Some(sum) = rows.iter().rev().find(|r| r["type"] == "summary") else {
        anyhow::bail!("no summary");
    };
    let s = ConsumerStats {
        interests: count(sum, "sent"),
        data: count(sum, "satisfied"),
        nacks: count(sum, "nacked"),
        timeouts: count(sum, "timeouts"),
        bytes: count(sum, "bytes"),
        finished_s: (a.count > 0).then(|| num(sum, "time_s")),
        ..Default::default()
    };
    let delay = rows
        .iter()
        .filter(|r| r["type"] == "pattern")
        .map(|r| {
            rtt_row(
                r,
                "delivery_mean_ms",
                "delivery_p50_ms",
                "delivery_p99_ms",
                "satisfied",
            )
        })
        .collect();
    Ok((s, delay, 0.0))
}

/// An `ndnlab ping --json` report: the replies to pings sent in the window.
fn ping(rows: &[Value], a: &AppSpec, seed: u64, plan: &RunPlan) -> Read {
    let e = &plan.exp.experiment;
    let every = ping_interval_ms(a.rate) as f64 / 1000.0;
    let start = ping_start(seed);
    // seconds from the ping's start to the window's opening
    let open = if starts_at_window(a) { 0.0 } else { e.warmup_s };
    let mut s = ConsumerStats::default();
    for r in rows.iter().filter(|r| r["type"] == "reply") {
        let t = (count(r, "seq").wrapping_sub(start)) as f64 * every;
        if t < open || t >= open + e.duration_s {
            continue;
        }
        s.interests += 1;
        match r["result"].as_str() {
            Some("data") => {
                s.data += 1;
                let _ = s
                    .delay_us
                    .record(((num(r, "rtt_ms") * 1000.0) as u64).max(1));
            }
            Some("nack") => s.nacks += 1,
            _ => s.timeouts += 1,
        }
    }
    if a.count > 0 {
        s.finished_s = rows
            .iter()
            .rev()
            .find(|r| r["type"] == "summary")
            .map(|r| num(r, "time_ms") / 1000.0);
    }
    let h = &s.delay_us;
    let delay = vec![(
        s.data as f64,
        h.mean(),
        h.value_at_quantile(0.5) as f64,
        h.value_at_quantile(0.99) as f64,
    )];
    (s, delay, 0.0)
}

/// An `ndnlab get --json` report, checked against the put's object.
fn get(rows: &[Value], a: &AppSpec, plan: &RunPlan) -> anyhow::Result<Read> {
    let Some(sum) = rows.iter().rev().find(|r| r["type"] == "summary") else {
        anyhow::bail!("no summary");
    };
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
    let avg = num(sum, "rtt_avg_ms") * 1000.0;
    let data = s.data as f64;
    Ok((s, vec![(data, avg, avg, avg)], 0.0))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Adds the consumers' metrics of the window (`measured` seconds) to `m`;
/// fails with the consumers' own failures (a get's wrong object).
pub(super) fn consumer_metrics(
    m: &mut Metrics,
    plan: &RunPlan,
    consumers: &[Ran],
    log_dir: &Path,
    measured: f64,
) -> anyhow::Result<()> {
    let warmup = plan.exp.experiment.warmup_s;
    let mut stats = Vec::new();
    let mut delay = Vec::new();
    let mut secs = 0.0f64;
    for c in consumers {
        let path = log_dir.join(format!("{}.json", c.label));
        let text = std::fs::read_to_string(&path)?;
        let rows: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let a = c.spec;
        let read = match a.kind.as_str() {
            "ping" => Ok(ping(&rows, a, c.seed, plan)),
            "get" => get(&rows, a, plan),
            _ if a.pattern == "window" => Ok(perf(&rows, a, warmup)),
            _ => traffic(&rows, a),
        };
        let (s, d, t) = read.map_err(|e| {
            anyhow::anyhow!(
                "consumer {}: {e} in its report (see {})",
                c.label,
                path.display()
            )
        })?;
        stats.push((c.label.to_string(), s));
        delay.extend(d);
        secs = secs.max(t);
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
        measured,
        m,
        &mut failures,
    );
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join("; "));
    }
    if secs > 0.0 {
        // rates over the time the perf clients' own intervals cover
        let (data, bytes): (u64, u64) = stats
            .iter()
            .fold((0, 0), |(d, b), (_, s)| (d + s.data, b + s.bytes));
        m.insert("data_per_sec".into(), data as f64 / secs);
        m.insert("throughput_mbps".into(), bytes as f64 * 8.0 / secs / 1e6);
    }
    let weight: f64 = delay.iter().map(|d| d.0).sum();
    if weight > 0.0 {
        // Data-weighted means of the reports' statistics.
        let wmean = |i: usize| delay.iter().map(|d| d.0 * [d.1, d.2, d.3][i]).sum::<f64>() / weight;
        m.insert("delay_mean_us".into(), wmean(0));
        m.insert("delay_p50_us".into(), wmean(1));
        m.insert("delay_p99_us".into(), wmean(2));
    }
    Ok(())
}
