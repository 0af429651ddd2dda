//! Truth experiment `experiments/truth/retransmissions.toml`: a get of 100
//! segments, window 1, over one link losing 5% of its frames each way. Each
//! exchange succeeds with q = 0.95^2 on its own, and the get resends a
//! segment only when its timer expires, so its retransmissions are the
//! failures before the 100th success: NegativeBinomial(100, q), checked
//! against the exact central 99.9% interval
//! (`ndnlab_testkit::negative_binomial_interval`) under every runner, as
//! `loss.rs` checks its binomial counts. The file's header derives the rest.

use ndnlab_testkit::negative_binomial_interval;

use super::harness::{real_time, truth, Checks};

const FILE: &str = "retransmissions.toml";
/// The object's segments: size 100000 in payloads of 1000.
const SEGMENTS: f64 = 100.0;
/// The loss of each link direction (`link.loss_pct` = 5).
const LOSS: f64 = 0.05;
/// An exchange succeeds when its Interest and its Data both cross.
const SUCCESS: f64 = (1.0 - LOSS) * (1.0 - LOSS);
const CONFIDENCE: f64 = 0.999;

fn retransmissions(runner: &str) {
    let t = truth(FILE, runner, &[]);
    let mut c = Checks::default();
    let (lo, hi) = negative_binomial_interval(SEGMENTS as u64, SUCCESS, CONFIDENCE);
    c.within(
        &t,
        "retransmissions",
        lo as f64,
        hi as f64,
        &format!("NegativeBinomial({SEGMENTS}, {SUCCESS}), central 99.9%"),
    );
    let retx = t.get("retransmissions");
    // each segment asked for and answered once, whatever its resends
    c.within(&t, "interests", SEGMENTS, SEGMENTS, "the object's segments");
    c.within(&t, "data", SEGMENTS, SEGMENTS, "the object's segments");
    c.within(&t, "satisfaction", 1.0, 1.0, "every segment fetched");
    c.within(&t, "nacks", 0.0, 0.0, "a route to the put");
    // a segment is resent only when its timer expires
    c.within(&t, "timeouts", retx, retx, "one per retransmission");
    // a failed exchange loses exactly one frame: its Interest, or its Data
    // (an Interest lost never has one); nothing else crosses the link
    let drops = t.get("link_drops_loss.r0-r1") + t.get("link_drops_loss.r1-r0");
    c.that(
        drops == retx,
        &t,
        &format!("retransmissions {retx} = the link's loss drops {drops}, one per failed exchange"),
    );
    c.within(
        &t,
        "link_frames.r0-r1",
        SEGMENTS + retx,
        SEGMENTS + retx,
        "one Interest per segment and per retransmission",
    );
    let crossed = t.get("link_frames.r0-r1") - t.get("link_drops_loss.r0-r1");
    c.within(
        &t,
        "link_frames.r1-r0",
        crossed,
        crossed,
        "a Data for every Interest that crossed",
    );
    c.finish();
    eprintln!(
        "truth retransmissions under {runner}: {retx} (NegativeBinomial({SEGMENTS}, {SUCCESS}): mean {:.1}, 99.9% [{lo}, {hi}]), download {} s",
        SEGMENTS * (1.0 - SUCCESS) / SUCCESS,
        t.get("download_time_s"),
    );
}

#[test]
fn sim_retransmissions_of_a_get_over_a_lossy_link_are_negative_binomial() {
    retransmissions("sim");
}

#[test]
fn inproc_retransmissions_of_a_get_over_a_lossy_link_are_negative_binomial() {
    let _machine = real_time();
    retransmissions("inproc");
}

#[test]
fn processes_retransmissions_of_a_get_over_a_lossy_link_are_negative_binomial() {
    let _machine = real_time();
    retransmissions("processes");
}
