//! Truth experiment `experiments/truth/marks.toml`: an AIMD window consumer
//! behind a 5 Mbit/s link whose queue outgrows the marking threshold, and the
//! same line without a bandwidth limit. The marks are bounded by the
//! CoDel-like law of `ndnlab_proto::lp::CongestionMarker` (the file's header
//! derives each bound): none without a bottleneck; behind it at least one
//! under `sim` (whose links mark where the queue is), at most one per Data
//! and at most one episode's schedule over the run.

use super::harness::{real_time, truth, Checks, Truth};

const FILE: &str = "marks.toml";
/// The marking law's first interval (NFD's BaseCongestionMarkingInterval).
const INTERVAL_S: f64 = 0.100;
/// The run: warm-up and window.
const RUN_S: f64 = 4.5;

/// The most marks one marker gives in `run_s` of one episode that never ends:
/// its first mark `INTERVAL_S` after the episode starts, the k-th
/// `INTERVAL_S / sqrt(k)` after the one before.
fn codel_schedule_marks(run_s: f64) -> f64 {
    let (mut at, mut k) = (INTERVAL_S, 0u32);
    while at <= run_s {
        k += 1;
        at += INTERVAL_S / f64::from(k + 1).sqrt();
    }
    f64::from(k)
}

/// The bounds that hold under every runner.
fn upper_bounds(c: &mut Checks, t: &Truth) {
    let most = codel_schedule_marks(RUN_S);
    let (marks, data) = (t.get("marks"), t.get("data"));
    c.that(
        marks <= data,
        t,
        &format!("marks {marks} <= data {data}: each mark rides on one Data"),
    );
    c.within(
        t,
        "marks",
        0.0,
        most,
        "at most one episode's CoDel schedule over the 4.5 s run",
    );
}

/// An AIMD window of at most 4 behind the same bottleneck: at most 4 Data
/// (about 4.1 KB of wire bytes each) are anywhere on the path, 8 if every one
/// were sent twice, 33 KB, under the 64 KiB threshold: no queue reaches it, no
/// marks. (`cc = "fixed"` reports no marks at all.) Every runner holds an
/// AIMD window at most `window` (`processes`: `perf client --max-cwnd`).
fn small_window(c: &mut Checks, runner: &str) {
    let t = truth(FILE, runner, SMALL_WINDOW);
    c.within(
        &t,
        "marks",
        0.0,
        0.0,
        "4 Data in flight fit under the threshold",
    );
    c.that(t.get("data") > 0.0, &t, "the consumer fetched");
}

const SMALL_WINDOW: &[&str] = &["apps.client.window=4"];

#[test]
fn sim_marks_behind_a_bottleneck_follow_the_codel_law() {
    assert_eq!(codel_schedule_marks(RUN_S), 539.0, "the file's header's K");
    // 0.1 s: the first mark; 0.1 + 0.0707: the second
    assert_eq!(codel_schedule_marks(0.1), 1.0);
    assert_eq!(codel_schedule_marks(0.17), 1.0);
    assert_eq!(codel_schedule_marks(0.171), 2.0);
    let mut c = Checks::default();
    let t = truth(FILE, "sim", &[]);
    upper_bounds(&mut c, &t);
    c.within(
        &t,
        "marks",
        1.0,
        f64::INFINITY,
        "the opening window of 800 KB keeps the queue above 64 KiB for longer than 100 ms",
    );
    c.within(
        &t,
        "timeouts",
        0.0,
        0.0,
        "a queue of 2000 frames drops none",
    );
    // a link without a rate sends each frame as it comes: no queue
    let fast = truth(FILE, "sim", &["link.bandwidth_mbps=0"]);
    c.within(
        &fast,
        "marks",
        0.0,
        0.0,
        "no bandwidth limit, no queue, no marks",
    );
    c.that(fast.get("data") > 0.0, &fast, "the consumer fetched");
    small_window(&mut c, "sim");
    c.finish();
    eprintln!(
        "truth marks under sim: {} of {} Data",
        t.get("marks"),
        t.get("data")
    );
}

fn real_time_marks(runner: &str) {
    let _machine = real_time();
    let mut c = Checks::default();
    let t = truth(FILE, runner, &[]);
    upper_bounds(&mut c, &t);
    small_window(&mut c, runner);
    c.finish();
    eprintln!(
        "truth marks under {runner}: {} of {} Data (link queue max {})",
        t.get("marks"),
        t.get("data"),
        t.get("link_queue_max.r1-r0")
    );
}

#[test]
fn inproc_marks_are_bounded_and_none_from_a_window_under_the_threshold() {
    real_time_marks("inproc");
}

#[test]
fn processes_marks_are_bounded_and_none_from_a_window_under_the_threshold() {
    real_time_marks("processes");
}
