//! Every metric [`super`] computes, against answers worked out by hand on
//! synthetic inputs.

use super::*;
use crate::runner::{verify_metrics, RunPlan};

/// An experiment of `apps` (TOML tables) on a line of 2 forwarders.
fn exp(apps: &str) -> Experiment {
    let text = format!("[topology]\nkind = \"line\"\nn = 2\n{apps}");
    crate::experiment::parse(&text, "t.toml").unwrap().1
}

/// A consumer's stats: counts, content bytes, delivery times (µs, sent at
/// 0.001 s apart), and whether it keeps the raw samples.
fn stats(counts: [u64; 4], bytes: u64, delays: &[u64], raw: bool) -> ConsumerStats {
    let mut s = ConsumerStats {
        interests: counts[0],
        data: counts[1],
        nacks: counts[2],
        timeouts: counts[3],
        bytes,
        ..Default::default()
    };
    for (i, &us) in delays.iter().enumerate() {
        s.delay_us.record(us).unwrap();
        if raw {
            s.samples.push((i as f64 * 0.001, us));
        }
    }
    s
}

fn run(exp: &Experiment, consumers: &[(&str, &ConsumerStats)], measured: f64) -> Metrics {
    let mut m = Metrics::new();
    let mut failures = Vec::new();
    consumers_into(exp, consumers, measured, &mut m, &mut failures);
    assert!(failures.is_empty(), "{failures:?}");
    m
}

fn consumers_into(
    exp: &Experiment,
    consumers: &[(&str, &ConsumerStats)],
    measured: f64,
    m: &mut Metrics,
    failures: &mut Vec<String>,
) {
    super::consumers(exp, consumers.iter().copied(), measured, m, failures);
}

const TWO: &str = "[apps.c]\nkind = \"consumer\"\nnodes = [\"r0\", \"r1\"]\n[apps.p]\nkind = \"producer\"\nnodes = [\"r1\"]\n";

#[test]
fn counts_satisfaction_and_loss_add_up_over_consumers() {
    // c@r0: 100 Interests, 90 Data, 4 Nacks, 6 timeouts; c@r1: 50, 40, 0, 10
    let a = stats([100, 90, 4, 6], 0, &[], false);
    let b = stats([50, 40, 0, 10], 0, &[], false);
    let m = run(&exp(TWO), &[("c@r0", &a), ("c@r1", &b)], 2.0);
    assert_eq!(m["interests"], 150.0);
    assert_eq!(m["data"], 130.0);
    assert_eq!(m["nacks"], 4.0);
    assert_eq!(m["timeouts"], 16.0);
    // 130 / 150
    assert_eq!(m["satisfaction"], 130.0 / 150.0);
    assert_eq!(m["loss"], 1.0 - 130.0 / 150.0);
    // fixed windows: no retransmissions nor marks reported
    assert!(!m.contains_key("retransmissions") && !m.contains_key("marks"));
    // no Data with a delivery time: no delay metrics
    assert!(!m.keys().any(|k| k.starts_with("delay_")), "{m:?}");
    // nothing sent: satisfaction 0, loss 1 (not NaN)
    let none = stats([0, 0, 0, 0], 0, &[], false);
    let m = run(&exp(TWO), &[("c@r0", &none)], 1.0);
    assert_eq!((m["satisfaction"], m["loss"]), (0.0, 1.0));
}

#[test]
fn adaptive_consumers_report_retransmissions_and_marks() {
    let e = exp("[apps.c]\nkind = \"consumer\"\ncc = \"aimd\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n");
    let mut s = stats([10, 10, 0, 0], 0, &[], false);
    s.retransmissions = 3;
    s.marks = 2;
    let m = run(&e, &[("c@r0", &s)], 1.0);
    assert_eq!((m["retransmissions"], m["marks"]), (3.0, 2.0));
}

#[test]
fn rates_are_per_second_of_the_window_in_content_bytes() {
    // 2 s window: c@r0 300 Data of 1000 content bytes, c@r1 100 of 500
    let a = stats([300, 300, 0, 0], 300_000, &[], false);
    let b = stats([100, 100, 0, 0], 50_000, &[], false);
    let m = run(&exp(TWO), &[("c@r0", &a), ("c@r1", &b)], 2.0);
    assert_eq!(m["data_per_sec"], 200.0);
    assert_eq!(m["data_per_sec.c@r0"], 150.0);
    assert_eq!(m["data_per_sec.c@r1"], 50.0);
    // 350,000 content bytes x 8 / 2 s = 1.4 Mbit/s (no header counted)
    assert_eq!(m["throughput_mbps"], 1.4);
    // one consumer: no per-consumer rate
    let m = run(&exp(TWO), &[("c@r0", &a)], 3.0);
    assert_eq!(m["data_per_sec"], 100.0);
    assert!(!m.contains_key("data_per_sec.c@r0"));
}

/// 10, 20, ..., 1000 µs (exact in a histogram of 3 significant digits: below
/// 2048 each value has a bucket of its own).
fn hundred() -> Vec<u64> {
    (1..=100).map(|i| i * 10).collect()
}

#[test]
fn delay_of_100_known_samples() {
    let e = exp(TWO);
    for raw in [true, false] {
        let s = stats([100, 100, 0, 0], 0, &hundred(), raw);
        let m = run(&e, &[("c@r0", &s)], 1.0);
        // mean 505; the 50th smallest 500; the 99th smallest 990
        assert_eq!(m["delay_mean_us"], 505.0, "raw {raw}");
        assert_eq!(m["delay_p50_us"], 500.0, "raw {raw}");
        assert_eq!(m["delay_p99_us"], 990.0, "raw {raw}");
    }
}

#[test]
fn delay_is_exact_from_raw_samples_and_within_its_bucket_otherwise() {
    // 40,000 µs (two links of 10 ms, twice): the raw samples give it to the
    // µs; a histogram reports the top of its 32 µs bucket, 40,031 µs
    let s = stats([3, 3, 0, 0], 0, &[40_000, 40_000, 40_001], true);
    let m = run(&exp(TWO), &[("c@r0", &s)], 1.0);
    assert_eq!(m["delay_p50_us"], 40_000.0);
    assert_eq!(m["delay_p99_us"], 40_001.0);
    assert!((m["delay_mean_us"] - 40_000.0 - 1.0 / 3.0).abs() < 1e-9);
    let s = stats([3, 3, 0, 0], 0, &[40_000, 40_000, 40_001], false);
    let m = run(&exp(TWO), &[("c@r0", &s)], 1.0);
    assert_eq!(m["delay_p50_us"], 40_031.0);
    // one consumer without all its samples: every consumer's histogram
    let mut partial = stats([2, 2, 0, 0], 0, &[10, 20], true);
    partial.samples.pop();
    let full = stats([1, 1, 0, 0], 0, &[30], true);
    let m = run(&exp(TWO), &[("c@r0", &partial), ("c@r1", &full)], 1.0);
    assert_eq!((m["delay_p50_us"], m["delay_p99_us"]), (20.0, 30.0));
}

#[test]
fn percentiles_merge_samples_not_percentiles() {
    // c@r0: 99 of 100 µs and 1 of 1000 µs, its p50 and p99 100 µs;
    // c@r1: 100 of 500 µs, its p50 and p99 500 µs. A mean of their p99 is
    // 300 µs; the 198th of the 200 merged samples is 500 µs, and the 100th
    // (the median) 500 µs too.
    let mut one: Vec<u64> = vec![100; 99];
    one.push(1000);
    for raw in [true, false] {
        let a = stats([100, 100, 0, 0], 0, &one, raw);
        let b = stats([100, 100, 0, 0], 0, &[500; 100], raw);
        let m = run(&exp(TWO), &[("c@r0", &a), ("c@r1", &b)], 1.0);
        assert_eq!(m["delay_p99_us"], 500.0, "raw {raw}");
        assert_eq!(m["delay_p50_us"], 500.0, "raw {raw}");
        // (99 x 100 + 1000 + 100 x 500) / 200
        assert_eq!(m["delay_mean_us"], 304.5, "raw {raw}");
    }
}

#[test]
fn nearest_rank_is_hdrhistograms_rank() {
    let mut h = ConsumerStats::default().delay_us;
    let mut v: Vec<u64> = (0..997u64).map(|i| (i * 7919) % 2000 + 1).collect();
    for &x in &v {
        h.record(x).unwrap();
    }
    v.sort_unstable();
    for q in [0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0] {
        assert_eq!(nearest_rank(&v, q), Some(h.value_at_quantile(q)), "q {q}");
    }
    assert_eq!(nearest_rank(&[], 0.5), None);
    assert_eq!(nearest_rank(&[7], 0.0), Some(7));
}

#[test]
fn download_and_distribution_times_of_counted_consumers() {
    let e = exp("[apps.c]\nkind = \"consumer\"\ncount = 10\nnodes = [\"r0\", \"r1\"]\n[apps.p]\nkind = \"producer\"\nnodes = [\"r1\"]\n");
    let mut a = stats([10, 10, 0, 0], 0, &[], false);
    a.finished_s = Some(1.25);
    let mut b = stats([10, 10, 0, 0], 0, &[], false);
    b.finished_s = Some(2.5);
    let m = run(&e, &[("c@r0", &a), ("c@r1", &b)], 3.0);
    assert_eq!(m["download_time_s.c@r0"], 1.25);
    assert_eq!(m["download_time_s.c@r1"], 2.5);
    // the slowest
    assert_eq!(m["distribution_time_s"], 2.5);
    // one did not finish: its download time and the distribution are absent
    b.finished_s = None;
    let m = run(&e, &[("c@r0", &a), ("c@r1", &b)], 3.0);
    assert!(!m.contains_key("download_time_s.c@r1"));
    assert!(!m.contains_key("distribution_time_s"));
    // alone: download_time_s without a suffix
    let m = run(&e, &[("c@r0", &a)], 3.0);
    assert_eq!(
        (m["download_time_s"], m["distribution_time_s"]),
        (1.25, 1.25)
    );
    // without a count: neither
    let m = run(&exp(TWO), &[("c@r0", &a)], 3.0);
    assert!(!m.contains_key("download_time_s") && !m.contains_key("distribution_time_s"));
}

#[test]
fn a_consumers_failure_is_reported() {
    let mut s = stats([1, 1, 0, 0], 0, &[], false);
    s.error = Some("wrong object".into());
    let (mut m, mut f) = (Metrics::new(), Vec::new());
    consumers_into(&exp(TWO), &[("g@r0", &s)], 1.0, &mut m, &mut f);
    assert_eq!(f, vec!["g@r0: wrong object".to_string()]);
}

#[test]
fn delivery_rows_are_the_raw_samples_by_consumer() {
    let s = stats([2, 2, 0, 0], 0, &[10, 20], true);
    let (mut m, mut f) = (Metrics::new(), Vec::new());
    let rows = super::consumers(&exp(TWO), [("c@r0", &s)].into_iter(), 1.0, &mut m, &mut f);
    assert_eq!(
        rows,
        vec![
            ("c@r0".to_string(), 0.0, 10),
            ("c@r0".to_string(), 0.001, 20)
        ]
    );
}

#[test]
fn forwarder_rates_and_cs_hit_ratio() {
    let d = |name, interests, cs_hits, cs_misses, secs| FwdDelta {
        name,
        interests,
        cs_hits,
        cs_misses,
        secs,
    };
    let mut m = Metrics::new();
    // 2 s: r0 received 1000 Interests (300 hits, 700 misses), r1 600 (100, 100)
    forwarders(
        [
            d("r0", 1000.0, 300.0, 700.0, 2.0),
            d("r1", 600.0, 100.0, 100.0, 2.0),
        ]
        .into_iter(),
        true,
        &mut m,
    );
    assert_eq!(m["fwd_interests_per_sec"], 800.0);
    assert_eq!(m["fwd_interests_per_sec.r0"], 500.0);
    assert_eq!(m["fwd_interests_per_sec.r1"], 300.0);
    // 400 hits of 1200 lookups
    assert_eq!(m["cs_hit_ratio"], 400.0 / 1200.0);
    // each node over its own span: r0 550 over 1.1 s, r1 450 over 0.9 s (its
    // reads closer together); the total is the sum of the rates, 1000/s
    let mut m = Metrics::new();
    forwarders(
        [d("r0", 550.0, 0.0, 0.0, 1.1), d("r1", 450.0, 0.0, 0.0, 0.9)].into_iter(),
        true,
        &mut m,
    );
    assert!(
        (m["fwd_interests_per_sec.r0"] - 500.0).abs() < 1e-9,
        "{m:?}"
    );
    assert!(
        (m["fwd_interests_per_sec.r1"] - 500.0).abs() < 1e-9,
        "{m:?}"
    );
    assert!((m["fwd_interests_per_sec"] - 1000.0).abs() < 1e-9, "{m:?}");
    let mut m = Metrics::new();
    forwarders([d("r0", 10.0, 0.0, 0.0, 1.0)].into_iter(), false, &mut m);
    assert_eq!(m["cs_hit_ratio"], 0.0);
    assert!(!m.contains_key("fwd_interests_per_sec.r0"));
}

#[test]
fn cpu_cores_are_cpu_seconds_per_second_of_the_window() {
    let mut m = Metrics::new();
    // 3 s of CPU over a 2 s window; a forwarder 0.5 s; an app 0.1 s
    cpu_cores(None, 3.0, 2.0, &mut m);
    cpu_cores(Some("r0"), 0.5, 2.0, &mut m);
    cpu_cores(Some("c@r0"), 0.1, 2.0, &mut m);
    assert_eq!(m["cpu_cores"], 1.5);
    assert_eq!(m["cpu_cores.r0"], 0.25);
    assert_eq!(m["cpu_cores.c@r0"], 0.05);
}

#[test]
fn bringup_is_the_seconds_from_the_first_daemon_to_the_last_route() {
    use std::time::Duration;
    let mut m = Metrics::new();
    let started = Instant::now();
    bringup_s(started, started + Duration::from_millis(1250), &mut m);
    assert_eq!(m["bringup_s"], 1.25);
    bringup_s(started + Duration::from_millis(5), started, &mut m);
    assert_eq!(m["bringup_s"], 0.0);
}

#[test]
fn pit_max_is_the_largest_size_sampled() {
    let mut m = Metrics::new();
    pit_max([3, 17, 0, 16].into_iter(), &mut m);
    assert_eq!(m["pit_max"], 17.0);
    pit_max(std::iter::empty(), &mut m);
    assert_eq!(m["pit_max"], 0.0);
}

#[test]
fn data_verified_and_refused_sum_the_shards_when_a_node_verifies() {
    let plan = |verify: &str| {
        let e = exp(&format!("[forwarder]\nverify_data = \"{verify}\"\n{TWO}"));
        RunPlan::new(0, 1, e).unwrap()
    };
    let mut m = Metrics::new();
    verify_metrics(
        &plan("signature"),
        [(10, 1), (5, 0), (0, 2)].into_iter(),
        &mut m,
    );
    assert_eq!((m["data_verified"], m["data_refused"]), (15.0, 3.0));
    let mut m = Metrics::new();
    verify_metrics(&plan("none"), [(10, 1)].into_iter(), &mut m);
    assert!(m.is_empty());
}

#[test]
fn producer_metrics_are_named_per_app_and_node() {
    let signing = ServeSummary {
        signed: 10,
        served: 12,
        sign_mean_us: 40.0,
        sign_p50_us: 39.0,
        sign_p99_us: 80.0,
        serve_mean_us: 60.0,
        serve_p50_us: 55.0,
        serve_p99_us: 120.0,
        sign_cores: 0.2,
        sign_cores_needed: 0.24,
    };
    let repository = ServeSummary {
        served: 5,
        serve_mean_us: 3.0,
        ..Default::default()
    };
    let mut m = Metrics::new();
    producers(
        [
            ("server@r0", signing),
            ("repo@r1", repository),
            ("idle@r2", ServeSummary::default()),
        ]
        .into_iter(),
        &mut m,
    );
    assert_eq!(m["sign_mean_us.server@r0"], 40.0);
    assert_eq!(m["sign_p50_us.server@r0"], 39.0);
    assert_eq!(m["sign_p99_us.server@r0"], 80.0);
    assert_eq!(m["sign_cores.server@r0"], 0.2);
    assert_eq!(m["sign_cores_needed.server@r0"], 0.24);
    assert_eq!(m["serve_mean_us.server@r0"], 60.0);
    assert_eq!(m["serve_p50_us.server@r0"], 55.0);
    assert_eq!(m["serve_p99_us.server@r0"], 120.0);
    assert_eq!(m["serve_mean_us.repo@r1"], 3.0);
    assert!(!m.contains_key("sign_mean_us.repo@r1"));
    assert!(!m.keys().any(|k| k.ends_with("idle@r2")));
    // 5 signing and 3 serving metrics, and the repository's 3
    assert_eq!(m.len(), 11);
}
