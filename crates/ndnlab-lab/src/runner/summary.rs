//! What every runner reports about its consumers and its forwarders: the
//! metrics of [`super::METRICS`] that come from the applications' stats
//! (consumers' deliveries, producers' signing and serving times), from the
//! forwarders' counters and from the CPU clocks. Every runner computes them
//! here, from counts of the Interests sent inside the measurement window
//! ([`ConsumerStats`]) and the window's length in seconds.
//!
//! Delivery-time statistics are exact, from the raw samples, when every
//! consumer kept all of its own (up to [`crate::apps::MAX_SAMPLES`] each:
//! `inproc`, `sim`); otherwise they come from the consumers' histograms
//! merged (the tools' reports under `processes` and `netns`: 3 significant
//! digits, each value reported as the top of its bucket, at most 0.1% above
//! it). Percentiles are nearest-rank either way (the `ceil(q n)`-th smallest
//! sample, as hdrhistogram ranks them), never a mean of percentiles.

use std::time::Instant;

use hdrhistogram::Histogram;
use ndnlab_app::tools::serve_stats::ServeSummary;

use crate::apps::ConsumerStats;
use crate::experiment::Experiment;

use super::Metrics;

/// Whether the consumer named `group@node` has a count (or is a get).
fn a_count(exp: &Experiment, name: &str) -> bool {
    let group = name.split('@').next().unwrap_or_default();
    exp.apps
        .get(group)
        .is_some_and(|a| a.count > 0 || a.kind == "get")
}

/// Adds the consumers' metrics to `m` (`measured`: seconds of the window) and
/// their failures to `failures`; returns their delivery-time samples as
/// `(consumer, seconds into the window, µs)`.
pub fn consumers<'a>(
    exp: &Experiment,
    consumers: impl Iterator<Item = (&'a str, &'a ConsumerStats)>,
    measured: f64,
    m: &mut Metrics,
    failures: &mut Vec<String>,
) -> Vec<(String, f64, u64)> {
    let consumers: Vec<_> = consumers.collect();
    let mut total = ConsumerStats::default();
    let mut delay_rows = Vec::new();
    // The slowest consumer's download time (None once one did not finish).
    let mut distribution = Some(0.0);
    let counted = exp
        .apps
        .values()
        .any(|a| a.kind == "get" || (a.is_consumer() && a.count > 0));
    let adaptive = exp
        .apps
        .values()
        .any(|a| a.kind == "get" || a.cc != "fixed");
    for (name, s) in &consumers {
        total.interests += s.interests;
        total.data += s.data;
        total.nacks += s.nacks;
        total.timeouts += s.timeouts;
        total.bytes += s.bytes;
        total.retransmissions += s.retransmissions;
        total.marks += s.marks;
        if let Some(e) = &s.error {
            failures.push(format!("{name}: {e}"));
        }
        let _ = total.delay_us.add(&s.delay_us);
        delay_rows.extend(s.samples.iter().map(|&(t, us)| (name.to_string(), t, us)));
        if a_count(exp, name) {
            let key = if consumers.len() > 1 {
                format!("download_time_s.{name}")
            } else {
                "download_time_s".to_string()
            };
            match s.finished_s {
                Some(t) => {
                    m.insert(key, t);
                    distribution = distribution.map(|d: f64| d.max(t));
                }
                None => distribution = None,
            }
        }
        if consumers.len() > 1 {
            m.insert(format!("data_per_sec.{name}"), s.data as f64 / measured);
        }
    }
    if counted {
        if let Some(d) = distribution {
            m.insert("distribution_time_s".into(), d);
        }
    }
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    m.insert("interests".into(), total.interests as f64);
    m.insert("data".into(), total.data as f64);
    m.insert("nacks".into(), total.nacks as f64);
    m.insert("timeouts".into(), total.timeouts as f64);
    if adaptive {
        m.insert("retransmissions".into(), total.retransmissions as f64);
        m.insert("marks".into(), total.marks as f64);
    }
    m.insert("satisfaction".into(), ratio(total.data, total.interests));
    m.insert("loss".into(), 1.0 - ratio(total.data, total.interests));
    m.insert("data_per_sec".into(), total.data as f64 / measured);
    m.insert(
        "throughput_mbps".into(),
        total.bytes as f64 * 8.0 / measured / 1e6,
    );
    if let Some((mean, p50, p99)) = delays(&consumers, &total.delay_us) {
        m.insert("delay_mean_us".into(), mean);
        m.insert("delay_p50_us".into(), p50);
        m.insert("delay_p99_us".into(), p99);
    }
    delay_rows
}

/// The `ceil(q n)`-th smallest of `sorted` (at least the first), as
/// hdrhistogram's `value_at_quantile` ranks them; None when empty.
pub fn nearest_rank(sorted: &[u64], q: f64) -> Option<u64> {
    let rank = (q.min(1.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len().max(1)) - 1).copied()
}

/// (mean, p50, p99) of the delivery times in µs: from every consumer's raw
/// samples when each kept all of them, else from `merged`, their histograms
/// added up; None without a Data.
fn delays(
    consumers: &[(&str, &ConsumerStats)],
    merged: &Histogram<u64>,
) -> Option<(f64, f64, f64)> {
    let complete = consumers
        .iter()
        .all(|(_, s)| s.samples.len() as u64 == s.data);
    if complete {
        let mut all: Vec<u64> = consumers
            .iter()
            .flat_map(|(_, s)| s.samples.iter().map(|&(_, us)| us))
            .collect();
        all.sort_unstable();
        let mean = all.iter().sum::<u64>() as f64 / all.len().max(1) as f64;
        return Some((
            mean,
            nearest_rank(&all, 0.5)? as f64,
            nearest_rank(&all, 0.99)? as f64,
        ));
    }
    if merged.is_empty() {
        return None;
    }
    Some((
        merged.mean(),
        merged.value_at_quantile(0.5) as f64,
        merged.value_at_quantile(0.99) as f64,
    ))
}

/// Adds `cpu_cores` (`name` None: the whole runner) or `cpu_cores.<name>`:
/// `seconds` of CPU spent in the window per second of it (`measured`).
pub fn cpu_cores(name: Option<&str>, seconds: f64, measured: f64, m: &mut Metrics) {
    let key = name.map_or_else(|| "cpu_cores".to_string(), |n| format!("cpu_cores.{n}"));
    m.insert(key, seconds / measured);
}

/// Adds `bringup_s`: seconds from `started` (the first daemon started) to
/// `routed` (the last route registered); 0 if the clock reads them out of
/// order.
pub fn bringup_s(started: Instant, routed: Instant, m: &mut Metrics) {
    m.insert(
        "bringup_s".into(),
        routed.saturating_duration_since(started).as_secs_f64(),
    );
}

/// Adds `pit_max`: the largest of the PIT sizes sampled (0 without one).
pub fn pit_max(sizes: impl Iterator<Item = usize>, m: &mut Metrics) {
    m.insert("pit_max".into(), sizes.max().unwrap_or(0) as f64);
}

/// One forwarder's counter increments over the measured window.
pub struct FwdDelta<'a> {
    pub name: &'a str,
    pub interests: f64,
    pub cs_hits: f64,
    pub cs_misses: f64,
    /// The seconds between the two reads of this node's counters (the
    /// window's under `sim` and `inproc`, which read them at its ends; under
    /// the daemon runners each node's own, read through management).
    pub secs: f64,
}

/// Adds the forwarders' metrics to `m`: `fwd_interests_per_sec` (and per node
/// when `per_node`) and `cs_hit_ratio` over every forwarder. A node's rate is
/// its increment over its own [`FwdDelta::secs`]; the total is the sum of the
/// nodes' rates.
pub fn forwarders<'a>(nodes: impl Iterator<Item = FwdDelta<'a>>, per_node: bool, m: &mut Metrics) {
    let (mut hits, mut misses, mut fwd_in) = (0.0, 0.0, 0.0);
    for d in nodes {
        let rate = if d.secs > 0.0 {
            d.interests / d.secs
        } else {
            0.0
        };
        fwd_in += rate;
        hits += d.cs_hits;
        misses += d.cs_misses;
        if per_node {
            m.insert(format!("fwd_interests_per_sec.{}", d.name), rate);
        }
    }
    m.insert("fwd_interests_per_sec".into(), fwd_in);
    let looked_up: f64 = hits + misses;
    m.insert(
        "cs_hit_ratio".into(),
        if looked_up > 0.0 {
            hits / looked_up
        } else {
            0.0
        },
    );
}

/// Adds each producer's signing and serving metrics (`<name>`: `app@node`)
/// to `m`: `sign_*` once it signed in the window, `serve_*` once it sent
/// Data in it.
pub fn producers<'a>(producers: impl Iterator<Item = (&'a str, ServeSummary)>, m: &mut Metrics) {
    for (name, s) in producers {
        if s.signed > 0 {
            m.insert(format!("sign_mean_us.{name}"), s.sign_mean_us);
            m.insert(format!("sign_p50_us.{name}"), s.sign_p50_us);
            m.insert(format!("sign_p99_us.{name}"), s.sign_p99_us);
            m.insert(format!("sign_cores.{name}"), s.sign_cores);
            m.insert(format!("sign_cores_needed.{name}"), s.sign_cores_needed);
        }
        if s.served > 0 {
            m.insert(format!("serve_mean_us.{name}"), s.serve_mean_us);
            m.insert(format!("serve_p50_us.{name}"), s.serve_p50_us);
            m.insert(format!("serve_p99_us.{name}"), s.serve_p99_us);
        }
    }
}

#[cfg(test)]
mod tests;
