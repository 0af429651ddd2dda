//! Truth experiment `experiments/truth/delay.toml`: r0 - r1 - r2 over two
//! links of 10 ms, window 1, Content Store off. Every exchange crosses four
//! link directions, so it takes 40 ms plus processing; the file's header
//! derives every known answer checked here.
//!
//! Under `sim` processing is the modelled service alone, and the answers are
//! exact. Under `inproc` and `processes` processing is measured: the same line
//! with `link.delay_ms = 0` gives the forwarders' and applications' own time,
//! and the bounds are derived from it in each test.

use ndnlab_lab::runner::sim::APP_DELAY_NS;

use super::harness::{real_time, truth, wake_up_us, within, Checks, Truth, WAKES_PER_TRAVERSAL};

const FILE: &str = "delay.toml";
/// The configured delay of one exchange: two links, both ways, 10 ms each.
const LINKS_US: f64 = 4.0 * 10_000.0;
const NODES: [&str; 3] = ["r0", "r1", "r2"];
/// The longest stall of a thread on 2 cores shared with other work that a
/// real-time p99 allows: 100 ms (stalls of 50 to 170 ms were seen at a load
/// average of 9).
const STALL_US: f64 = 100_000.0;
/// The link directions of the line, out (Interests) and back (Data).
const OUT: [&str; 2] = ["r0-r1", "r1-r2"];
const BACK: [&str; 2] = ["r2-r1", "r1-r0"];

/// Exact, in virtual time. The simulator's forwarders take no time (cost
/// "zero"); a frame a forwarder hands to an application arrives
/// `APP_DELAY_NS` later, once at the producer and once at the consumer. So
/// every exchange takes 40,040 us. The consumer sends its first Interest at
/// its first poll, 50 ms into the run (the period at which it looks for
/// expired Interests), and the next one the instant each Data arrives: at
/// 50 ms + k x 40.04 ms.
#[test]
fn sim_two_10_ms_links_give_40_ms_plus_the_modelled_service_exactly() {
    let t = truth(FILE, "sim", &[]);
    let rtt_us = LINKS_US + 2.0 * (APP_DELAY_NS / 1000) as f64;
    assert_eq!(rtt_us, 40_040.0);
    for k in ["delay_p50_us", "delay_mean_us", "delay_p99_us"] {
        within(&t, k, rtt_us, rtt_us, "every exchange takes 40,040 us");
    }
    // The window [0.5 s, 2.5 s) holds the sends for k = 12 (530.48 ms) to
    // k = 61 (2492.44 ms): 50 Interests, each answered.
    let (open, close) = (500_000.0, 2_500_000.0);
    let sends = |from: f64, to: f64| {
        (0..)
            .map(|k| 50_000.0 + k as f64 * rtt_us)
            .take_while(|&s| s < to)
            .filter(|&s| s >= from)
            .count() as f64
    };
    let n = sends(open, close);
    assert_eq!(n, 50.0);
    for k in ["interests", "data"] {
        within(
            &t,
            k,
            n,
            n,
            "sends at 50 ms + k x 40.04 ms inside [0.5 s, 2.5 s)",
        );
    }
    within(&t, "satisfaction", 1.0, 1.0, "every Interest answered");
    within(&t, "timeouts", 0.0, 0.0, "nothing lost");
    within(&t, "nacks", 0.0, 0.0, "a route to the producer");
    within(&t, "data_per_sec", n / 2.0, n / 2.0, "50 Data over 2 s");
    // window / round trip = 24.975 Data/s, within one Data over the window
    let ideal = 1e6 / rtt_us;
    within(
        &t,
        "data_per_sec",
        ideal - 0.5,
        ideal + 0.5,
        "1 / round trip, one Data either way over 2 s",
    );
    // Each forwarder counts every Interest as it arrives: r0 at the send,
    // r1 10 ms and r2 20 ms later, each inside the window when its arrival
    // time is.
    let mut fwd = 0.0;
    for (i, node) in NODES.iter().enumerate() {
        let lag = i as f64 * 10_000.0;
        let arrivals = sends(open - lag, close - lag);
        within(
            &t,
            &format!("fwd_interests_per_sec.{node}"),
            arrivals / 2.0,
            arrivals / 2.0,
            "the Interests arriving inside the window, 10 ms later per hop",
        );
        fwd += arrivals / 2.0;
    }
    within(
        &t,
        "fwd_interests_per_sec",
        fwd,
        fwd,
        "the sum over the nodes",
    );
    within(
        &t,
        "fwd_interests_per_sec",
        3.0 * t.get("data_per_sec") - 1.5,
        3.0 * t.get("data_per_sec") + 1.5,
        "hops x data_per_sec, one Interest either way per node",
    );
    within(&t, "pit_max", 1.0, 1.0, "window 1: one PIT entry at a time");
    // The whole run: every send up to the close, 62 of them, on each
    // direction; nothing dropped.
    let all = sends(0.0, close);
    assert_eq!(all, 62.0);
    for dir in OUT.iter().chain(BACK.iter()) {
        within(
            &t,
            &format!("link_frames.{dir}"),
            all,
            all,
            "every exchange of the run crosses every direction once",
        );
        for drop in ["queue", "loss", "mtu"] {
            within(
                &t,
                &format!("link_drops_{drop}.{dir}"),
                0.0,
                0.0,
                "a perfect link but for its delay",
            );
        }
    }
    // one Interest size on the way out, one Data size on the way back: the
    // same bytes on both hops of each way
    let bytes = |d: &str| t.get(&format!("link_bytes.{d}"));
    assert_eq!(bytes(OUT[0]), bytes(OUT[1]), "{:?}", t.row);
    assert_eq!(bytes(BACK[0]), bytes(BACK[1]), "{:?}", t.row);
    // a Data frame carries the 100-byte payload, an Interest none
    assert!(bytes(BACK[0]) >= all * 100.0 + bytes(OUT[0]), "{:?}", t.row);
}

/// Processing time of the line in real time: the same line with no link
/// delay, its consumer paced at the delayed line's rate (one Interest every
/// 40 ms, `constant` at 25/s), so that every thread of it idles between
/// exchanges and wakes cold for each, as in the line with the delay.
fn processing(runner: &str, sets: &[&str]) -> Truth {
    let mut s = sets.to_vec();
    s.extend([
        "link.delay_ms=0",
        "apps.client.pattern=constant",
        "apps.client.rate=25",
    ]);
    truth(FILE, runner, &s)
}

/// The bounds in real time, for `inproc` and `processes`:
/// * delivery times (mean, p50): at least the configured 40 ms (an emulated
///   link never delivers before its delay), and at most 40 ms + 2% + the
///   same statistic of the line without delay (the measured processing time
///   of the forwarders, the applications and, under `processes`, the
///   sockets, as cold as in the delayed line: see [`processing`]) + the
///   wake-ups that line does not have ([`WAKES_PER_TRAVERSAL`] per
///   traversal, 4 traversals, each as late as [`wake_up_us`] measures the
///   machine now). The mean also holds two CPU
///   stalls over the window's Data (2 x [`STALL_US`] / data), and the p99 of the
///   window's 50 exchanges, its slowest but one, a whole stall;
/// * window 1 keeps one Interest in flight, so by Little's law data_per_sec
///   x delay_mean = 1, less the turn-around from a Data to the next
///   Interest, and within one exchange at each end of the window: 2 of the
///   window's 50;
/// * every forwarder sees every Interest: fwd_interests_per_sec.<node> =
///   data_per_sec, within 2 Interests over the window (their counters are
///   read at its ends, a send apart from the consumer's own edges); the
///   consumer's are the only Interests of the experiment, so the runner's
///   own reads of the forwarders (management Interests) must not count;
/// * pit_max (`inproc`; the daemon runners sample no PIT): window 1 leaves
///   at most one entry in a PIT;
/// * bringup_s (`processes`): positive, and at most the wall time of the
///   whole `ndnlab run` less its warm-up and window (2.3 s), which follow the
///   bring-up: wall >= bringup_s + warmup_s + duration_s;
/// * link_frames: the same on all four directions, within 1 (counters read
///   while the last exchange may be in flight), and at least the window's
///   Data, at most one exchange per 40 ms of the whole `ndnlab run`.
fn real_time_line(runner: &str) {
    let _one = real_time();
    let sets = ["experiment.duration_s=2.0", "experiment.warmup_s=0.3"];
    let base = processing(runner, &sets);
    let wake = wake_up_us();
    let t = truth(FILE, runner, &sets);
    let wakes = 4.0 * WAKES_PER_TRAVERSAL * wake;
    let mut c = Checks::default();
    for (k, stall) in [
        ("delay_p50_us", 0.0),
        ("delay_mean_us", 2.0 * STALL_US / t.get("data").max(1.0)),
        ("delay_p99_us", STALL_US),
    ] {
        let p = base.get(k);
        c.within(
            &t,
            k,
            LINKS_US,
            LINKS_US * 1.02 + p + wakes + stall,
            &format!(
                "40 ms, at most + 2% + {p} us of processing measured without delay + {wakes:.0} us of idle wake-ups ({wake:.0} us each) + {stall:.0} us of CPU stall"
            ),
        );
    }
    c.within(&t, "satisfaction", 1.0, 1.0, "every Interest answered");
    c.within(&t, "timeouts", 0.0, 0.0, "nothing lost");
    let little = t.get("data_per_sec") * t.get("delay_mean_us") / 1e6;
    c.that(
        (0.96..=1.04).contains(&little),
        &t,
        &format!("data_per_sec x delay_mean = {little}, not 1 within 2 exchanges of 50"),
    );
    let rate = t.get("data_per_sec");
    for node in NODES {
        c.within(
            &t,
            &format!("fwd_interests_per_sec.{node}"),
            rate - 1.0,
            rate + 1.0,
            "the consumer's Interests at every node, 2 either way over 2 s; the runner's own management Interests are not the experiment's",
        );
    }
    if runner == "inproc" {
        // the daemon runners sample no PIT
        c.within(&t, "pit_max", 0.0, 1.0, "window 1: at most one PIT entry");
    }
    let first = t.get("link_frames.r0-r1");
    for dir in OUT.iter().chain(BACK.iter()) {
        c.within(
            &t,
            &format!("link_frames.{dir}"),
            first - 1.0,
            first + 1.0,
            "every exchange crosses every direction",
        );
    }
    if runner == "processes" {
        c.within(
            &t,
            "bringup_s",
            f64::MIN_POSITIVE,
            t.wall.as_secs_f64() - 2.3,
            "after the first daemon starts; the 0.3 s warm-up and the 2 s window follow it inside the whole `ndnlab run`",
        );
    }
    let most = t.wall.as_secs_f64() / 0.040;
    c.within(
        &t,
        "link_frames.r0-r1",
        t.get("data"),
        most,
        "from the window's Data to one per 40 ms of the whole run",
    );
    c.finish();
}

#[test]
fn inproc_two_10_ms_links_give_40_ms_plus_processing_within_2_percent() {
    real_time_line("inproc");
}

#[test]
fn processes_two_10_ms_links_give_40_ms_plus_processing_within_2_percent() {
    real_time_line("processes");
}
