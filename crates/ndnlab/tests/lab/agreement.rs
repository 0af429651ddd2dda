//! The runners agree: one experiment (a consumer, a forwarder and a
//! producer; and a line of three forwarders) under `inproc`, `processes`,
//! `netns` and `sim` (virtual time) gives every point a satisfaction of exactly 1.0 and the same CS hit
//! ratio within 0.05.
//!
//! Why 0.05: the catalogue (100 names) fits the CS, and each runner's consumer
//! asks for all of it during the warm-up (`perf client --names` walks it in
//! order; `inproc` draws uniformly, and needs about 519 draws, the coupon
//! collector's expectation, where its warm-up sends thousands). In the window
//! every Interest is then a hit at the first forwarder, and the ratio falls
//! short of 1 only by Interests for names whose Data was still on its way when
//! the window opened: at most a window of 8 against the window's hundreds of
//! Interests under the slowest runner. The ratio is over every forwarder, and
//! the forwarders behind the first see nothing in steady state. The runners
//! would disagree with a CS smaller than the catalogue (a cyclic walk through
//! LRU misses every time, uniform draws hit at CS/catalogue): that case is a
//! documented difference, not tested here.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use super::netns::{netns_or_skip, num, rows, setup};

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

#[test]
fn inproc_processes_and_netns_agree_on_satisfaction_and_cs_hits() {
    let mut runners = vec!["inproc", "processes", "sim"];
    if netns_or_skip("inproc_processes_and_netns_agree (netns part)") {
        runners.push("netns");
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
