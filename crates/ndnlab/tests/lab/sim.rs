//! The `sim` runner: the same experiment and seed give byte-identical results
//! and samples (ECDSA-signed Data over rate-limited links included: the
//! producers sign at full length); a bad runner name is refused with the key
//! named; nodes mark congestion, and a 5 Mbit/s bottleneck bounds the content
//! rate.

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
    // Poisson arrivals at 2000/s over the 2 s window: Poisson(4000) Interests,
    // inside its 99.9% interval (Binomial(10^6, 0.004), within 0.4% of it in
    // variance)
    let (lo, hi) = ndnlab_testkit::binomial_interval(1_000_000, 4000.0 / 1e6, 0.999);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        let interests = num(r, "interests");
        assert!(
            (lo as f64..=hi as f64).contains(&interests),
            "{interests} Interests, not in {lo}..={hi}: {r:?}"
        );
        assert!(num(r, "data") <= interests, "{r:?}");
        // content bytes: 1000 per Data, 8 bits, per second of the window
        let mbps = num(r, "data_per_sec") * 1000.0 * 8.0 / 1e6;
        assert!(
            (num(r, "throughput_mbps") - mbps).abs() < 1e-9,
            "throughput_mbps is not {mbps}: {r:?}"
        );
    }
    // without loss every Interest of the window is answered
    assert_eq!(
        num(&rows[0], "data"),
        num(&rows[0], "interests"),
        "{:?}",
        rows[0]
    );
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
    let r = &rows[0];
    assert!(num(r, "marks") > 0.0, "{r:?}");
    assert_eq!(num(r, "timeouts"), 0.0, "{r:?}");
    assert!(num(r, "pit_max") < 200.0, "{r:?}");
    // The bottleneck: r1 -> r0 carries one Data (4000 content bytes) per frame
    // and one per Interest (no loss); its content rate is 5 Mbit/s times the
    // content's share of a frame's wire bytes.
    let frames = num(r, "link_frames.r1-r0");
    assert_eq!(frames, num(r, "link_frames.r0-r1"), "{r:?}");
    let wire = num(r, "link_bytes.r1-r0") / frames;
    assert!(
        (4000.0..4200.0).contains(&wire),
        "{wire} bytes a Data: {r:?}"
    );
    let goodput = 5.0 * 4000.0 / wire;
    let window = 4.0;
    let got = num(r, "throughput_mbps");
    // above: no more Data arrive in the window than the link serializes in
    // it, plus the one being received as it opens
    let most = goodput + 4000.0 * 8.0 / window / 1e6;
    assert!(got <= most, "{got} Mbit/s > the bottleneck's {most}: {r:?}");
    // below: an AIMD sawtooth between W/2 and W >= the path's BDP keeps at
    // least 3/4 of a link busy; the window's first Data wait behind the queue
    // its warm-up left (at most link_queue_max frames of wire bytes)
    let head = (num(r, "link_queue_max.r1-r0") + 1.0) * wire * 8.0 / 5e6;
    let least = 0.75 * goodput * (window - head) / window;
    assert!(got >= least, "{got} Mbit/s < {least}: {r:?}");
    let _ = std::fs::remove_dir_all(&d);
}
