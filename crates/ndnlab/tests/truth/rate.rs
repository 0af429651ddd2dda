//! Truth experiments of a 5 Mbit/s bottleneck (`experiments/truth/
//! bottleneck*.toml`; each file's header derives its known answers): content
//! goodput of the link's rate less the headers, two consumers sharing it in
//! the ratio of their windows, and a transmit queue that overflows.
//!
//! The Data frame's size on the wire is the one the run reports: the bytes the
//! bottleneck direction's transmitter took over the frames it took
//! (`link_bytes.r1-r0 / link_frames.r1-r0`; every frame there is one Data).
//! Content goodput is then 5 Mbit/s x payload / frame.

use super::harness::{real_time, truth, within, Checks, Truth};

const RATE_BPS: f64 = 5e6;
const PAYLOAD: f64 = 1000.0;
const WINDOW: f64 = 32.0;

/// The Data frame's mean size on the bottleneck (r1 toward r0), in bytes.
fn frame(t: &Truth) -> f64 {
    let f = t.get("link_bytes.r1-r0") / t.get("link_frames.r1-r0");
    // a Data carries the payload and its name, MetaInfo, signature and LP
    // header: tens of bytes, not hundreds
    within(
        t,
        "link_frames.r1-r0",
        1.0,
        f64::INFINITY,
        "Data crossed the bottleneck",
    );
    assert!(
        (PAYLOAD + 40.0..PAYLOAD + 200.0).contains(&f),
        "{} under {}: a Data frame of {f} bytes for a payload of {PAYLOAD}: {:?}",
        t.file,
        t.runner,
        t.row
    );
    f
}

/// The Data per second a saturated bottleneck carries.
fn link_data_per_sec(t: &Truth) -> f64 {
    RATE_BPS / (8.0 * frame(t))
}

/// Checks the bottleneck's goodput within `[lo, hi]` x the link's, and the
/// metrics that follow from it: throughput_mbps is data_per_sec x the content
/// bytes (not the wire's), Little's law gives the mean delivery time within
/// `little` (relative), satisfaction 1.
fn goodput(c: &mut Checks, t: &Truth, lo: f64, hi: f64, little: f64, why: &str) {
    let cap = link_data_per_sec(t);
    c.within(t, "data_per_sec", lo * cap, hi * cap, why);
    let mbps = RATE_BPS / 1e6 * PAYLOAD / frame(t);
    c.within(t, "throughput_mbps", lo * mbps, hi * mbps, why);
    let content = t.get("data_per_sec") * PAYLOAD * 8.0 / 1e6;
    c.within(
        t,
        "throughput_mbps",
        content * (1.0 - 1e-9),
        content * (1.0 + 1e-9),
        "content bytes of the Data counted in data_per_sec",
    );
    let l = WINDOW / t.get("data_per_sec") * 1e6;
    c.within(
        t,
        "delay_mean_us",
        l * (1.0 - little),
        l * (1.0 + little),
        "Little's law: 32 in flight at data_per_sec",
    );
    c.within(
        t,
        "satisfaction",
        1.0,
        1.0,
        "an unbounded queue drops nothing",
    );
    c.within(t, "timeouts", 0.0, 0.0, "nothing dropped");
    c.within(t, "link_drops_queue.r1-r0", 0.0, 0.0, "an unbounded queue");
}

/// Exact but for the window's edges: the transmitter never idles, so the
/// window's Interests (sent one per Data arrival) number its length x the
/// link's Data rate, within a Data of 1,100; 1% holds it. The queue holds
/// 32 less the link's 8 in flight throughout, so Little's law holds to the
/// same 1%.
#[test]
fn sim_a_5_mbit_bottleneck_gives_its_rate_less_the_headers_to_1_percent() {
    let t = truth("bottleneck.toml", "sim", &[]);
    let mut c = Checks::default();
    goodput(
        &mut c,
        &t,
        0.99,
        1.01,
        0.01,
        "5 Mbit/s over the Data frame, 1%",
    );
    // 32 Interests pending at every instant: r0's PIT holds all of them
    c.within(&t, "pit_max", WINDOW, WINDOW, "window 32: 32 PIT entries");
    c.finish();
}

/// In real time the emulator serializes by the same arithmetic, so the link
/// carries no more than its rate (+1%: the window's edges); it carries less
/// only when r1's queue empties, which takes the consumer, the forwarders or
/// the producer stalling for longer than the 24 queued frames' 42 ms. On 2
/// cores shared with other work such stalls happen: one of 167 ms at the
/// window's opening was seen at a load average of 9 (8% of a 2 s window),
/// so up to 10% is allowed, 0.90 below (at a load average of 3 every run
/// carried the link's rate to 0.1%). Little's law holds to 10% for the
/// same reason.
fn real_time_bottleneck(runner: &str) {
    let _one = real_time();
    let t = truth(
        "bottleneck.toml",
        runner,
        &["experiment.duration_s=2.0", "experiment.warmup_s=0.3"],
    );
    let mut c = Checks::default();
    goodput(
        &mut c,
        &t,
        0.90,
        1.01,
        0.10,
        "at most the link's rate (+1%, the window's edges), at least 90% (CPU stalls)",
    );
    if runner == "inproc" {
        // the daemon runners sample no PIT
        c.within(
            &t,
            "pit_max",
            0.0,
            WINDOW,
            "window 32: at most 32 PIT entries",
        );
    }
    c.finish();
}

#[test]
fn inproc_a_5_mbit_bottleneck_gives_its_rate_less_the_headers() {
    real_time_bottleneck("inproc");
}

#[test]
fn processes_a_5_mbit_bottleneck_gives_its_rate_less_the_headers() {
    real_time_bottleneck("processes");
}

/// Windows 8 and 24 behind one first-in first-out queue: both see the same
/// round trip, so each gets its window's share of the link, 1/4 and 3/4,
/// within `tol` (absolute share); the total is the link's rate, as for one
/// consumer.
fn shares(c: &mut Checks, t: &Truth, tol: f64, lo: f64, why: &str) {
    let total = t.get("data_per_sec");
    c.within(
        t,
        "data_per_sec",
        lo * link_data_per_sec(t),
        1.01 * link_data_per_sec(t),
        why,
    );
    for (app, share) in [("small@r0", 0.25), ("large@r0", 0.75)] {
        c.within(
            t,
            &format!("data_per_sec.{app}"),
            (share - tol) * total,
            (share + tol) * total,
            &format!("window share {share} of the link, within {tol}"),
        );
    }
    let sum = t.get("data_per_sec.small@r0") + t.get("data_per_sec.large@r0");
    c.within(
        t,
        "data_per_sec",
        sum * (1.0 - 1e-9),
        sum * (1.0 + 1e-9),
        "the sum over the consumers",
    );
}

/// Exact but for the window's edges (a Data of 1,100 each side): 1 point.
#[test]
fn sim_two_consumers_share_a_bottleneck_in_the_ratio_of_their_windows() {
    let t = truth("bottleneck-share.toml", "sim", &[]);
    let mut c = Checks::default();
    shares(&mut c, &t, 0.01, 0.99, "5 Mbit/s over the Data frame, 1%");
    c.finish();
}

/// In real time the two consumers are threads of their own: one that runs
/// late sends its next Interest late and loses a little of its share; 2
/// points of share. The total is the bottleneck's, at least 90% of the link
/// (CPU stalls, as for one consumer).
#[test]
fn inproc_two_consumers_share_a_bottleneck_in_the_ratio_of_their_windows() {
    let _one = real_time();
    let t = truth(
        "bottleneck-share.toml",
        "inproc",
        &["experiment.duration_s=2.0", "experiment.warmup_s=0.3"],
    );
    let mut c = Checks::default();
    shares(
        &mut c,
        &t,
        0.02,
        0.90,
        "the link's rate, at least 90% (CPU stalls)",
    );
    c.finish();
}

/// The bounds of `bottleneck-queue.toml`'s header; `in_flight` is how many
/// Interests may still be on their way to the producer when the counters are
/// read (0 in virtual time, where the run ends with every Interest settled).
fn overflowing_queue(c: &mut Checks, t: &Truth, in_flight: f64) {
    for dir in ["r0-r1", "r1-r0"] {
        c.within(
            t,
            &format!("link_queue_max.{dir}"),
            0.0,
            10.0,
            "a queue of 10 frames at most",
        );
    }
    c.within(
        t,
        "link_drops_queue.r0-r1",
        54.0,
        t.get("interests") + t.get("link_frames.r0-r1"),
        "the opening burst of 64 Interests at a queue of 10, at most every Interest",
    );
    let data_drops = t.get("link_drops_queue.r1-r0");
    let taken = t.get("link_frames.r1-r0") + data_drops;
    c.within(
        t,
        "link_frames.r0-r1",
        taken,
        taken + in_flight,
        "every Interest the link carried answered: each Data sent or dropped by r1's queue",
    );
    c.within(
        t,
        "timeouts",
        1.0,
        data_drops + t.get("link_drops_queue.r0-r1"),
        "only a dropped Interest or Data leaves an Interest unanswered",
    );
    c.within(
        t,
        "data_per_sec",
        0.0,
        1.01 * link_data_per_sec(t),
        "at most the link's rate",
    );
}

/// In virtual time the queues are sampled every millisecond and are full
/// then; the transmitter toward r0 never idles, so the link's Data rate holds
/// to 1% as in `bottleneck.toml`.
#[test]
fn sim_an_overflowing_bottleneck_queue_drops_what_it_cannot_hold() {
    let t = truth("bottleneck-queue.toml", "sim", &[]);
    let mut c = Checks::default();
    overflowing_queue(&mut c, &t, 0.0);
    c.finish();
    for dir in ["r0-r1", "r1-r0"] {
        within(
            &t,
            &format!("link_queue_max.{dir}"),
            10.0,
            10.0,
            "the queue fills to its limit",
        );
    }
    let cap = link_data_per_sec(&t);
    within(
        &t,
        "data_per_sec",
        0.99 * cap,
        1.01 * cap,
        "a saturated link, 1%",
    );
}

/// In real time the same identities hold, less the Interests still in flight
/// toward the producer when the counters are read: at most the window.
#[test]
fn inproc_an_overflowing_bottleneck_queue_drops_what_it_cannot_hold() {
    let _one = real_time();
    let t = truth(
        "bottleneck-queue.toml",
        "inproc",
        &["experiment.duration_s=2.0", "experiment.warmup_s=0.3"],
    );
    let mut c = Checks::default();
    overflowing_queue(&mut c, &t, 64.0);
    c.finish();
}
