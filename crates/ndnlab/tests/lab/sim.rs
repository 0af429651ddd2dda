//! The `sim` runner: the same experiment and seed give byte-identical results
//! and samples (ECDSA-signed Data over rate-limited links included: the
//! producers sign at full length); a bad runner name is refused with the key
//! named; nodes mark congestion.

use super::netns::{num, rows, run, setup};

const EXPERIMENT: &str = r#"
[experiment]
runner = "sim"
duration_s = 2.0
warmup_s = 0.5
sample_interval_ms = 50
[topology]
kind = "line"
n = 3
[link]
delay_ms = 2.0
jitter_ms = 1.0
loss_pct = 2.0
bandwidth_mbps = 20.0
queue = 20
[forwarder]
threads = 2
cs_capacity = 50
[apps.client]
kind = "consumer"
nodes = ["first"]
pattern = "poisson"
rate = 2000.0
catalogue = 200
lifetime_ms = 500
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 1000
signature = "ecdsa-p256"
[factors]
"link.loss_pct" = [0.0, 2.0]
"#;

#[test]
fn sim_runs_are_byte_identical_for_the_same_seed() {
    let (d, f) = setup("sim-det", EXPERIMENT);
    for out in ["a", "b"] {
        let o = run(&f, &d.join(out), &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for file in [
        "results.csv",
        "results.json",
        "samples/0.csv",
        "samples/1.csv",
        "samples/tables/1.csv",
        "samples/queues/1.csv",
        "samples/drops/1.csv",
    ] {
        let a = std::fs::read(d.join("a").join(file)).unwrap();
        let b = std::fs::read(d.join("b").join(file)).unwrap();
        assert!(!a.is_empty(), "{file}");
        assert!(a == b, "{file} differs between two runs of the same seed");
    }
    let rows = rows(&d.join("a"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(num(r, "data") > 1000.0, "{r:?}");
    }
    // loss on the links shows as timeouts
    assert_eq!(num(&rows[0], "timeouts"), 0.0, "{:?}", rows[0]);
    assert!(num(&rows[1], "timeouts") > 0.0, "{:?}", rows[1]);
    let drops = std::fs::read_to_string(d.join("a/samples/drops/1.csv")).unwrap();
    assert!(drops.contains("link_lost,"), "{drops}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_unknown_runner_is_refused_naming_the_sim_runner_too() {
    let (d, f) = setup(
        "sim-bad",
        &EXPERIMENT.replace("runner = \"sim\"", "runner = \"simm\""),
    );
    let o = run(&f, &d.join("out"), &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("experiment.runner") && err.contains("sim"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// An AIMD consumer (window up to 200) behind a 5 Mbit/s link: the sending
/// node's queue stays past NFD's 64 KiB threshold for longer than 100 ms, so
/// the node marks, and the consumer halves its window on the marks instead of
/// keeping 200 Interests in flight.
#[test]
fn a_bottleneck_link_marks_congestion_and_an_aimd_consumer_sees_it() {
    const MARKS: &str = r#"
[experiment]
runner = "sim"
duration_s = 4.0
warmup_s = 0.5
[topology]
kind = "line"
n = 2
[link]
delay_ms = 5.0
bandwidth_mbps = 5.0
queue = 2000
[forwarder]
threads = 1
[apps.client]
kind = "consumer"
nodes = ["first"]
pattern = "window"
window = 200
cc = "aimd"
catalogue = 100000000
lifetime_ms = 4000
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 4000
"#;
    let (d, f) = setup("sim-marks", MARKS);
    let o = run(&f, &d.join("out"), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = rows(&d.join("out"));
    assert_eq!(rows[0]["status"], "ok", "{:?}", rows[0]);
    assert!(num(&rows[0], "marks") > 0.0, "{:?}", rows[0]);
    assert_eq!(num(&rows[0], "timeouts"), 0.0, "{:?}", rows[0]);
    assert!(num(&rows[0], "pit_max") < 200.0, "{:?}", rows[0]);
    let _ = std::fs::remove_dir_all(&d);
}
