//! Truth experiment `experiments/truth/download.toml`: counted downloads
//! (window 1) over the line of `delay.toml`, `far` on r0 (25 names, 40 ms
//! round trips) and `near` on r1 (40 names, 20 ms). A download time is the
//! count times the round trip; the distribution time is the slower one. The
//! file's header derives the answers.

use ndnlab_lab::runner::sim::APP_DELAY_NS;

use super::harness::{real_time, truth, wake_up_us, within, Checks, Truth, WAKES_PER_TRAVERSAL};

const FILE: &str = "download.toml";
/// (consumer, count, configured round trip in seconds).
const CONSUMERS: [(&str, f64, f64); 2] = [("far@r0", 25.0, 0.040), ("near@r1", 40.0, 0.020)];

/// The counts every runner must report: 65 Interests, all answered.
fn counts(c: &mut Checks, t: &Truth) {
    c.within(
        t,
        "interests",
        65.0,
        65.0,
        "25 + 40 Interests, all in the window",
    );
    c.within(t, "data", 65.0, 65.0, "every Interest answered");
    c.within(t, "satisfaction", 1.0, 1.0, "every Interest answered");
    c.within(t, "timeouts", 0.0, 0.0, "nothing lost");
    c.within(t, "nacks", 0.0, 0.0, "a route to the producer");
    let slowest = CONSUMERS
        .iter()
        .map(|(name, _, _)| t.get(&format!("download_time_s.{name}")))
        .fold(0.0, f64::max);
    c.within(
        t,
        "distribution_time_s",
        slowest,
        slowest,
        "the slowest consumer's download time",
    );
}

/// Exact in virtual time: each exchange is its links' delay plus the two
/// app-face hand-offs (`APP_DELAY_NS` each), the first Interest leaves as the
/// window opens and each next one as a Data arrives. With one consumer the
/// metric is `download_time_s` itself: `delay.toml` with a count of 30.
#[test]
fn sim_counted_downloads_take_their_count_times_the_round_trip_exactly() {
    let hand_offs = 2.0 * APP_DELAY_NS as f64 / 1e9;
    let t = truth(FILE, "sim", &[]);
    let mut c = Checks::default();
    counts(&mut c, &t);
    // r1 holds far's Interest and near's at once, each window 1
    c.within(
        &t,
        "pit_max",
        2.0,
        2.0,
        "two consumers of window 1 through r1",
    );
    c.finish();
    for (c, n, rtt) in CONSUMERS {
        let want = n * (rtt + hand_offs);
        within(
            &t,
            &format!("download_time_s.{c}"),
            want - 1e-9,
            want + 1e-9,
            "count x (links' delay + 40 us)",
        );
        within(
            &t,
            &format!("data_per_sec.{c}"),
            n / 1.5 - 1e-6,
            n / 1.5 + 1e-6,
            "its count over the 1.5 s window (results.csv keeps 6 decimals)",
        );
    }
    within(
        &t,
        "distribution_time_s",
        1.001 - 1e-9,
        1.001 + 1e-9,
        "far's 25 x 40.04 ms",
    );
    let one = truth("delay.toml", "sim", &["apps.client.count=30"]);
    let want = 30.0 * (0.040 + hand_offs);
    within(
        &one,
        "download_time_s",
        want - 1e-9,
        want + 1e-9,
        "30 x 40.04 ms",
    );
    within(
        &one,
        "distribution_time_s",
        want - 1e-9,
        want + 1e-9,
        "the one consumer's",
    );
    within(&one, "data", 30.0, 30.0, "its count");
}

/// In real time, for `inproc` and `processes`: each of a consumer's n
/// exchanges takes at least its configured round trip, so its download
/// time is at least n x that (less 1 ms: `perf client` reads its start
/// clock just after its first Interest leaves), and at most n x the round
/// trip + 2% + the same download over links without delay (the measured
/// processing of its n exchanges, and under `processes` the client's own
/// start) + the idle threads' wake-ups of its n exchanges, as in
/// `delay.rs` (a 20 ms round trip crosses 2 link directions, a 40 ms one
/// 4), and one CPU stall of the machine (`delay.rs`'s 100 ms).
fn real_time_downloads(runner: &str) {
    let _one = real_time();
    let base = truth(FILE, runner, &["link.delay_ms=0"]);
    let mut c = Checks::default();
    counts(&mut c, &base);
    let wake = wake_up_us() / 1e6;
    let t = truth(FILE, runner, &[]);
    counts(&mut c, &t);
    for (name, n, rtt) in CONSUMERS {
        let k = format!("download_time_s.{name}");
        let p = base.get(&k);
        let traversals = rtt / 0.010;
        let wakes = n * traversals * WAKES_PER_TRAVERSAL * wake;
        c.within(
            &t,
            &k,
            n * rtt - 0.001,
            n * rtt * 1.02 + p + wakes + 0.1,
            &format!(
                "{n} x {rtt} s, at most + 2% + {p} s measured without delay + {wakes:.4} s of idle wake-ups + one 0.1 s CPU stall"
            ),
        );
    }
    c.finish();
}

#[test]
fn inproc_counted_downloads_take_their_count_times_the_round_trip() {
    real_time_downloads("inproc");
}

#[test]
fn processes_counted_downloads_take_their_count_times_the_round_trip() {
    real_time_downloads("processes");
}
