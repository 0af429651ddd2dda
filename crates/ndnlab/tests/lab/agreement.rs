//! The runners agree: one experiment (a consumer, a forwarder and a
//! producer; and a line of three forwarders) under `inproc`, `processes`,
//! `netns` and `sim` (virtual time) gives every point a satisfaction of exactly 1.0 and the same CS hit
//! ratio within 0.05.
//!
//! Why 0.05: the catalogue (100 names) fits the CS, and each runner's consumer
//! asks for all of it during the warm-up (every runner draws names uniformly,
//! `perf client --zipf 0` under the daemon runners, and needs about 519 draws,
//! the coupon collector's expectation, where a warm-up sends thousands). In the window
//! every Interest is then a hit at the first forwarder, and the ratio falls
//! short of 1 only by Interests for names whose Data was still on its way when
//! the window opened: at most a window of 8 against the window's hundreds of
//! Interests under the slowest runner. The ratio is over every forwarder, and
//! the forwarders behind the first see nothing in steady state.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use super::netns::{netns_unavailable, num, rows, setup};

const EXPERIMENT: &str = r#"
[experiment]
duration_s = 1.0
warmup_s = 0.5
[topology]
kind = "line"
n = 1
[apps.client]
kind = "consumer"
nodes = ["first"]
window = 8
catalogue = 100
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 500
[factors]
"topology.n" = [1, 3]
"#;

/// Runs `file` under each of `runners` side by side (each on its own
/// addresses, ports and namespaces); fails on a runner's error.
fn run_all(runners: &[&str], d: &Path, f: &Path) {
    let children: Vec<_> = runners
        .iter()
        .map(|r| {
            let child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
                .arg("run")
                .arg(f)
                .args(["--runner", r, "--out"])
                .arg(d.join(r))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (r, child)
        })
        .collect();
    for (r, child) in children {
        let o = child.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "{r}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Nakamura and Ohsaki, "Performance Evaluation of an Open-Source
/// Implementation of Content-Centric Networking" (2013), in small: a line of
/// three routers, each with a repository of one content of its own
/// (`/repo/<node>/c0`), and a Poisson requester on every router asking, 50
/// times a second, for the contents of all three (`from`). The requesters are
/// `traffic client`s under `processes` and `netns`, the laboratory's own
/// threads under `inproc`.
///
/// The bounds, per runner:
/// * Data: the window (2 s) sees Poisson(3 x 50 x 2 = 300) Interests, each
///   answered; 5 standard deviations (sqrt 300 = 17.3) give [213, 387], and
///   two runners (their own arrival draws) differ by at most
///   5 x sqrt(600) = 122.
/// * Satisfaction: every content is one hop or two away over perfect links,
///   with a lifetime of 4 s against a window of 2 s, so every Interest is
///   answered: [0.99, 1.0].
/// * CS hit ratio: after the 1 s warm-up (150 Interests for 3 contents, each
///   fetched in its first second with probability 1 - e^-50/3 ~ 1) every
///   content is in every router's CS for an hour, so a requester's Interest is
///   a hit at its own router; the ratio falls short of 1 only by Interests
///   that arrive while a first fetch is in flight: [0.95, 1.0], and no two
///   runners more than 0.05 apart.
const SEED003_LINE: &str = r#"
[experiment]
duration_s = 2.0
warmup_s = 1.0
[topology]
kind = "line"
n = 3
[forwarder]
cs_capacity = 1000
[apps.requesters]
kind = "consumer"
nodes = ["all"]
from = "repository"
pattern = "poisson"
rate = 50.0
lifetime_ms = 4000
[apps.repository]
kind = "repository"
nodes = ["all"]
prefix = "/repo/{node}"
catalogue = 1
payload = 1000
freshness_ms = 3600000
"#;

#[test]
fn a_repository_line_with_poisson_requesters_agrees_under_every_runner() {
    let mut runners = vec!["inproc", "processes"];
    match netns_unavailable() {
        None => runners.push("netns"),
        Some(why) => ndnlab_testkit::skip(format!("its netns part: {why}")),
    }
    let (d, f) = setup("agree-seed003", SEED003_LINE);
    run_all(&runners, &d, &f);
    let mut data = Vec::new();
    let mut hits = Vec::new();
    for r in &runners {
        let rows = rows(&d.join(r));
        assert_eq!(rows.len(), 1, "{r}");
        let row = &rows[0];
        assert_eq!(row["status"], "ok", "{r}: {row:?}");
        let (n, sat, hit) = (
            num(row, "data"),
            num(row, "satisfaction"),
            num(row, "cs_hit_ratio"),
        );
        assert!((213.0..=387.0).contains(&n), "{r}: data {n}: {row:?}");
        assert!((0.99..=1.0).contains(&sat), "{r}: satisfaction {sat}");
        assert!((0.95..=1.0).contains(&hit), "{r}: cs_hit_ratio {hit}");
        data.push((*r, n));
        hits.push((*r, hit));
    }
    let spread = |v: &[(&str, f64)]| {
        let lo = v.iter().map(|x| x.1).fold(f64::MAX, f64::min);
        let hi = v.iter().map(|x| x.1).fold(f64::MIN, f64::max);
        hi - lo
    };
    assert!(spread(&data) <= 122.0, "Data counts {data:?}");
    assert!(spread(&hits) <= 0.05, "CS hit ratios {hits:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn inproc_processes_and_netns_agree_on_satisfaction_and_cs_hits() {
    let mut runners = vec!["inproc", "processes", "sim"];
    match netns_unavailable() {
        None => runners.push("netns"),
        Some(why) => ndnlab_testkit::skip(format!("its netns part: {why}")),
    }
    let (d, f) = setup("agree", EXPERIMENT);
    // The campaigns run side by side (each on its own addresses, ports and
    // namespaces), so the test takes as long as the slowest.
    let children: Vec<_> = runners
        .iter()
        .map(|r| {
            let child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
                .arg("run")
                .arg(&f)
                .args(["--runner", r, "--out"])
                .arg(d.join(r))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (r, child)
        })
        .collect();
    let mut hits: BTreeMap<String, Vec<(&str, f64)>> = BTreeMap::new();
    for (r, child) in children {
        let o = child.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "{r}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let rows = rows(&d.join(r));
        assert_eq!(rows.len(), 2, "{r}");
        for row in &rows {
            assert_eq!(row["status"], "ok", "{r}: {row:?}");
            assert_eq!(num(row, "satisfaction"), 1.0, "{r}: {row:?}");
            assert!(num(row, "data") > 0.0, "{r}: {row:?}");
            hits.entry(row["topology.n"].clone())
                .or_default()
                .push((r, num(row, "cs_hit_ratio")));
        }
    }
    for (n, by_runner) in &hits {
        let lo = by_runner.iter().map(|x| x.1).fold(f64::MAX, f64::min);
        let hi = by_runner.iter().map(|x| x.1).fold(f64::MIN, f64::max);
        assert!(
            hi - lo <= 0.05 && lo >= 0.95,
            "topology.n={n}: CS hit ratios {by_runner:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
