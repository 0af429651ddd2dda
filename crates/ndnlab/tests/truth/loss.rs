//! Truth experiments of loss: `experiments/truth/loss.toml` (a link losing 5%
//! of its frames each way, a rate consumer that never retransmits) and
//! `experiments/truth/loss-mtu.toml` (Data larger than an unfragmented
//! link's MTU), under `sim`, `inproc` and `processes`.
//!
//! Every random count is checked against its binomial distribution's central
//! 99.9% interval (`ndnlab_testkit::binomial_interval`, exact): under `sim`
//! the seeded counts are the same on every run, and the interval is what they
//! are checked against, not their one value; under the real-time runners a
//! correct emulator fails one such check in 1000 runs.

use ndnlab_testkit::binomial_interval;

use super::harness::{real_time, truth, within, Truth};

/// The loss of each link direction (`link.loss_pct` = 5).
const LOSS: f64 = 0.05;
/// An exchange succeeds when its Interest and its Data both cross.
const SUCCESS: f64 = (1.0 - LOSS) * (1.0 - LOSS);
const CONFIDENCE: f64 = 0.999;

/// Asserts that the count `k` of `t` lies in the 99.9% interval of a
/// Binomial(`n`, `p`), where `n` is the count named `trials`.
fn binomial(t: &Truth, k: &str, trials: &str, p: f64) {
    let n = t.get(trials);
    let (lo, hi) = binomial_interval(n as u64, p, CONFIDENCE);
    within(
        t,
        k,
        lo as f64,
        hi as f64,
        &format!("Binomial({trials} = {n}, {p}), central 99.9%"),
    );
}

/// The loss experiment's answers under `runner`; `late_s` is how late the
/// consumer's wake-ups around the window's ends may be.
fn lossy_link(runner: &str, late_s: f64) {
    let t = truth("loss.toml", runner, &[]);
    // 2000 Interests/s at even gaps for 3 s, each counted by the time it
    // leaves: a consumer late at the opening sends its backlog inside the
    // window (more), late at the close sends what was due after its last
    // wake-up never (fewer)
    let expected = 2000.0 * 3.0;
    within(
        &t,
        "interests",
        expected - 2000.0 * late_s - 1.0,
        expected + 2000.0 * late_s + 1.0,
        &format!("2000/s x 3 s, +- {late_s} s of a late wake-up at either end"),
    );
    binomial(&t, "data", "interests", SUCCESS);
    let (n, data) = (t.get("interests"), t.get("data"));
    // no retransmission, no Nack: what is not answered times out
    within(&t, "timeouts", n - data, n - data, "interests - data");
    within(&t, "nacks", 0.0, 0.0, "nothing refuses an Interest");
    let sat = data / n;
    // results.csv keeps 6 decimals
    within(
        &t,
        "satisfaction",
        sat - 1e-6,
        sat + 1e-6,
        "data / interests",
    );
    within(
        &t,
        "loss",
        1.0 - sat - 1e-6,
        1.0 - sat + 1e-6,
        "1 - satisfaction",
    );
    // each direction loses its own frames, over the whole run
    for dir in ["r0-r1", "r1-r0"] {
        binomial(
            &t,
            &format!("link_drops_loss.{dir}"),
            &format!("link_frames.{dir}"),
            LOSS,
        );
        within(
            &t,
            &format!("link_drops_queue.{dir}"),
            0.0,
            0.0,
            "no queue limit",
        );
        within(&t, &format!("link_drops_mtu.{dir}"), 0.0, 0.0, "no mtu");
    }
    // every Interest that crossed is answered by one Data (CS off, names distinct)
    let crossed = t.get("link_frames.r0-r1") - t.get("link_drops_loss.r0-r1");
    within(
        &t,
        "link_frames.r1-r0",
        crossed,
        crossed,
        "link_frames.r0-r1 - link_drops_loss.r0-r1",
    );
    eprintln!(
        "truth loss under {runner}: interests {n}, data {data}, satisfaction {sat:.4} (expected {SUCCESS}), drops r0-r1 {} of {}, r1-r0 {} of {}",
        t.get("link_drops_loss.r0-r1"),
        t.get("link_frames.r0-r1"),
        t.get("link_drops_loss.r1-r0"),
        t.get("link_frames.r1-r0"),
    );
}

#[test]
fn truth_loss_under_sim_is_binomial() {
    // virtual time: every Interest leaves on time
    lossy_link("sim", 0.0);
}

#[test]
fn truth_loss_under_inproc_is_binomial() {
    let _machine = real_time();
    // a timer wake-up on a loaded 2-core machine may be tens of ms late: 50 ms
    lossy_link("inproc", 0.05);
}

#[test]
fn truth_loss_under_processes_is_binomial() {
    let _machine = real_time();
    lossy_link("processes", 0.05);
}

/// The MTU experiment's answers: exactly one MTU drop per Interest for /big.
fn mtu_drops(runner: &str) {
    mtu_drops_with(runner, &[]);
}

/// [`mtu_drops`] with `sets` (`--set` values).
fn mtu_drops_with(runner: &str, sets: &[&str]) {
    let t = truth("loss-mtu.toml", runner, sets);
    let big = 20.0;
    within(
        &t,
        "link_drops_mtu.r1-r0",
        big,
        big,
        "the 20 Interests for /big, each answered by a Data of 2000 bytes of content, larger than the mtu of 1500 with fragment = false",
    );
    within(
        &t,
        "link_drops_mtu.r0-r1",
        0.0,
        0.0,
        "Interests fit the mtu",
    );
    for dir in ["r0-r1", "r1-r0"] {
        within(&t, &format!("link_drops_loss.{dir}"), 0.0, 0.0, "no loss");
        within(
            &t,
            &format!("link_drops_queue.{dir}"),
            0.0,
            0.0,
            "no queue limit",
        );
    }
    // one Data for every Interest; a frame dropped for its size never reaches
    // the transmitter, so link_frames leaves it out
    let answered = t.get("link_frames.r0-r1") - big;
    within(
        &t,
        "link_frames.r1-r0",
        answered,
        answered,
        "one Data per Interest (link_frames.r0-r1), less the 20 too large",
    );
    within(
        &t,
        "timeouts",
        big,
        big,
        "every Interest for /big, none for /small",
    );
    let n = t.get("interests");
    within(&t, "data", n - big, n - big, "interests - 20");
    within(&t, "nacks", 0.0, 0.0, "nothing refuses an Interest");
    eprintln!(
        "truth loss-mtu under {runner}: mtu drops r1-r0 {}, frames r0-r1 {}, r1-r0 {}, timeouts {}",
        t.get("link_drops_mtu.r1-r0"),
        t.get("link_frames.r0-r1"),
        t.get("link_frames.r1-r0"),
        t.get("timeouts"),
    );
}

#[test]
fn truth_loss_mtu_under_inproc_drops_each_large_data() {
    let _machine = real_time();
    mtu_drops("inproc");
}

#[test]
fn truth_loss_mtu_under_processes_drops_each_large_data() {
    let _machine = real_time();
    mtu_drops("processes");
}

/// Under `netns` over UDP and over Ethernet: the faces send each packet whole
/// (an Ethernet link's interfaces carry any packet), and the emulator drops
/// the Data over the mtu.
#[test]
fn truth_loss_mtu_under_netns_drops_each_large_data() {
    if !super::lab_common::netns_or_skip() {
        return;
    }
    let _machine = real_time();
    mtu_drops_with("netns", &["link.face=udp"]);
    mtu_drops_with("netns", &["link.face=ether"]);
}
