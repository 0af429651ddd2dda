//! Truth experiment of `verify_data`: `experiments/truth/verify.toml`, an
//! ECDSA-signing and a DigestSha256 producer on r1, consumers on r0, r0
//! checking every Data's signature (and r1 too, or not), under `sim`,
//! `inproc` and `processes`; and `experiments/truth/verify-untrusted.toml`, a
//! producer whose key no forwarder trusts.
//!
//! The counts are known exactly, whatever the machine: in verify.toml no Data
//! is refused (every forwarder trusts every producer's key, and every digest
//! is true); in verify-untrusted.toml each Data of the untrusted producer is,
//! and each Data that reaches a verifying forwarder is checked once. With
//! the Content Stores off, names distinct and a link without loss or MTU,
//! the Data r0 receives are the frames of the link's r1-r0 direction, and r1
//! receives each of them from its producers first. Both counts are over the
//! whole run, as `link_frames` is.

use super::harness::{real_time, truth, within};

fn verified(runner: &str, r1_verifies: bool) {
    let sets: &[&str] = if r1_verifies {
        &["nodes.r1.verify_data=signature"]
    } else {
        &[]
    };
    let t = truth("verify.toml", runner, sets);
    let data_frames = t.get("link_frames.r1-r0");
    let checkers = if r1_verifies { 2.0 } else { 1.0 };
    let expected = checkers * data_frames;
    within(
        &t,
        "data_verified",
        expected,
        expected,
        &format!("{checkers} verifying node(s) x link_frames.r1-r0"),
    );
    within(
        &t,
        "data_refused",
        0.0,
        0.0,
        "every key trusted, every digest true",
    );
    within(
        &t,
        "satisfaction",
        1.0,
        1.0,
        "nothing refused, nothing lost",
    );
    within(&t, "link_drops_loss.r1-r0", 0.0, 0.0, "no loss");
    // the window's Data are a part of the run's
    within(
        &t,
        "data",
        1.0,
        data_frames,
        "Data of the window <= Data of the run",
    );
    eprintln!(
        "truth verify under {runner}, r1 verifying {r1_verifies}: data_verified {}, link_frames.r1-r0 {data_frames}, data_refused {}",
        t.get("data_verified"),
        t.get("data_refused")
    );
}

#[test]
fn truth_verify_under_sim_counts_every_data_once_per_checker() {
    verified("sim", false);
    verified("sim", true);
}

#[test]
fn truth_verify_under_inproc_counts_every_data_once_per_checker() {
    let _machine = real_time();
    verified("inproc", false);
    verified("inproc", true);
}

/// `experiments/truth/verify-untrusted.toml`: a producer signing with a key no
/// forwarder trusts (`apps.rogue.trusted = false`), 20 Interests for its Data,
/// each answered once and refused at r0.
fn refused(runner: &str, sets: &[&str]) {
    let t = truth("verify-untrusted.toml", runner, sets);
    let rogue = 20.0;
    within(
        &t,
        "data_refused",
        rogue,
        rogue,
        "the untrusted producer's 20 Data, each crossing to r0 once (CS off, names distinct, no loss)",
    );
    let data_frames = t.get("link_frames.r1-r0");
    within(
        &t,
        "data_verified",
        data_frames,
        data_frames,
        "r0 checks every Data the link brings it, refused ones included",
    );
    within(
        &t,
        "timeouts",
        rogue,
        rogue,
        "every Interest for /rogue, none for /signed",
    );
    within(
        &t,
        "nacks",
        0.0,
        0.0,
        "a refused Data satisfies nothing and Nacks nothing",
    );
    let n = t.get("interests");
    within(&t, "data", n - rogue, n - rogue, "interests - 20");
    eprintln!(
        "truth verify-untrusted under {runner}: data_refused {}, data_verified {}, link_frames.r1-r0 {data_frames}, timeouts {}",
        t.get("data_refused"),
        t.get("data_verified"),
        t.get("timeouts")
    );
}

#[test]
fn truth_verify_under_sim_refuses_each_untrusted_data() {
    refused("sim", &[]);
}

#[test]
fn truth_verify_under_inproc_refuses_each_untrusted_data() {
    let _machine = real_time();
    refused("inproc", &[]);
}

/// Under `processes` the forwarders' counts come from their `status/limits`
/// (`verify.data`, `verify.refused`). The 20 Interests for /rogue are sent at
/// an even 50/s: a window consumer there is `perf client`, which sends a
/// timed-out Interest again, and each copy would be answered and refused.
#[test]
fn truth_verify_under_processes_counts_and_refuses() {
    let _machine = real_time();
    verified("processes", false);
    verified("processes", true);
    refused(
        "processes",
        &[
            "apps.rogueclient.pattern=constant",
            "apps.rogueclient.rate=50",
        ],
    );
}
