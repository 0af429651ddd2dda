//! ASF v4 scenario tests: per-face RTO timers, max-timeouts, ranking, probing,
//! retransmissions, Nacks and parameters in the strategy name.

mod common;

use common::*;
use ndnlab_core::strategy::asf::LastRtt;
use ndnlab_core::{DropReason, FaceId, ForwarderConfig, Transmit, MS};
use ndnlab_wire::NackReason;

fn asf_lab(strategy: &str) -> Lab {
    let mut lab = Lab::standard();
    lab.fw
        .strategy_choice()
        .set(&name("/a"), &name(strategy))
        .unwrap();
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    lab
}

fn first_face(out: &[Transmit]) -> FaceId {
    out.first().expect("something was sent").face
}

#[test]
fn rto_timeouts_count_up_to_max_timeouts_then_the_face_ranks_last() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf");
    lab.send_interest(A, interest("/a/1", 1));
    assert_eq!(
        summary(&lab.take()),
        vec![(B.0, "I".into())],
        "unmeasured: by cost"
    );
    let b = lab.fw.asf_stats(&name("/a"), B).unwrap();
    assert!(b.timeout_pending);
    assert_eq!((b.rto, b.last_rtt), (1_000 * MS, LastRtt::NoMeasurement));
    assert_eq!(
        lab.fw.poll_timeout(),
        Some(lab.now + 1_000 * MS),
        "RTO timer, not PIT expiry"
    );

    // Each silent RTO expiry counts a timeout and backs the RTO off; the third one
    // (max-timeouts = 3) marks B timed out.
    for (n, (rto_ms, uri)) in [(1_000u64, "/a/2"), (2_000, "/a/3")]
        .into_iter()
        .enumerate()
    {
        lab.run_for_ms(rto_ms);
        let b = lab.fw.asf_stats(&name("/a"), B).unwrap();
        assert_eq!(b.n_timeouts, n as u32 + 1);
        assert_eq!(
            b.last_rtt,
            LastRtt::NoMeasurement,
            "below max-timeouts: ignored"
        );
        assert_eq!(b.rto, 2 * rto_ms * MS, "backed off");
        assert!(!b.timeout_pending);
        lab.send_interest(A, interest(uri, n as u32 + 2));
        assert_eq!(first_face(&lab.take()), B, "still ranked first");
    }
    lab.run_for_ms(4_000);
    let b = lab.fw.asf_stats(&name("/a"), B).unwrap();
    assert_eq!((b.last_rtt, b.n_timeouts), (LastRtt::Timeout, 0));
    lab.send_interest(A, interest("/a/4", 9));
    assert_eq!(
        first_face(&lab.take()),
        C,
        "timed-out B ranks after unmeasured C"
    );
}

#[test]
fn max_timeouts_parameter_and_its_legacy_spelling() {
    for s in [
        "/localhost/nfd/strategy/asf/v=5/max-timeouts~1",
        "/localhost/nfd/strategy/asf/v=5/n-silent-timeouts~0",
    ] {
        let mut lab = asf_lab(s);
        lab.send_interest(A, interest("/a/1", 1));
        assert_eq!(first_face(&lab.take()), B);
        lab.run_for_ms(1_000);
        assert_eq!(
            lab.fw.asf_stats(&name("/a"), B).unwrap().last_rtt,
            LastRtt::Timeout,
            "{s}: the first timeout marks the face"
        );
        lab.send_interest(A, interest("/a/2", 2));
        assert_eq!(first_face(&lab.take()), C, "{s}");
    }
}

#[test]
fn data_records_the_rtt_cancels_the_timer_and_resets_the_timeout_count() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf/v=5");
    lab.send_interest(A, interest("/a/1", 1));
    lab.take();
    lab.run_for_ms(1_000);
    assert_eq!(lab.fw.asf_stats(&name("/a"), B).unwrap().n_timeouts, 1);
    lab.send_interest(A, interest("/a/2", 2));
    let out = lab.take();
    assert_eq!(out[0].face, B);
    lab.advance_ms(30);
    lab.send_data(B, data("/a/2"), out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    let b = lab.fw.asf_stats(&name("/a"), B).unwrap();
    assert_eq!(b.last_rtt, LastRtt::Rtt(30 * MS));
    assert_eq!((b.srtt, b.rttvar), (Some(30 * MS), 15 * MS));
    assert_eq!(
        b.rto,
        200 * MS,
        "30 + 4 * 15 ms, raised to the 200 ms minimum"
    );
    assert_eq!((b.n_timeouts, b.timeout_pending, b.samples), (0, false, 1));
    // A measured face outranks an unmeasured one whatever the cost.
    lab.fw.fib().add_nexthop(&name("/a"), B, 100);
    lab.send_interest(A, interest("/a/3", 3));
    assert_eq!(first_face(&lab.take()), B);
}

#[test]
fn a_nack_marks_the_face_timed_out_at_once_and_is_processed_like_nfd() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf");
    let i = interest("/a/1", 1);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "I".into())]);
    lab.send_nack(B, i, NackReason::Congestion, out[0].meta.pit_token.clone());
    // B was the only upstream: the downstream gets the Nack (no retry on C: NFD's
    // ASF v4 leaves retrying to the consumer).
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:congestion".into())]);
    assert_eq!(
        lab.fw.asf_stats(&name("/a"), B).unwrap().last_rtt,
        LastRtt::Timeout
    );
    lab.send_interest(A, interest("/a/1", 2));
    assert_eq!(first_face(&lab.take()), C, "the consumer's retry goes to C");
}

#[test]
fn retransmissions_prefer_unused_faces_with_per_upstream_suppression_only() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf");
    lab.send_interest(A, interest("/a/1", 1));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    lab.advance_ms(5);
    lab.send_interest(A, interest("/a/1", 2));
    assert_eq!(
        summary(&lab.take()),
        vec![(C.0, "I".into())],
        "unused C at once: no per-entry suppression"
    );
    lab.advance_ms(1);
    lab.send_interest(A, interest("/a/1", 3));
    assert!(
        lab.take().is_empty(),
        "oldest out-record B, 6 ms < 10 ms: suppressed"
    );
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 1);
    lab.advance_ms(4);
    lab.send_interest(A, interest("/a/1", 4));
    assert_eq!(
        summary(&lab.take()),
        vec![(B.0, "I".into())],
        "B after 10 ms"
    );
    lab.advance_ms(5);
    lab.send_interest(A, interest("/a/1", 5));
    assert_eq!(
        summary(&lab.take()),
        vec![(C.0, "I".into())],
        "then the oldest, C"
    );
    lab.advance_ms(5);
    lab.send_interest(A, interest("/a/1", 6));
    assert!(
        lab.take().is_empty(),
        "B: 10 ms < 20 ms after its first retransmission"
    );
}

#[test]
fn probes_go_to_the_unmeasured_face_within_5s_then_every_probing_interval() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf/v=5/probing-interval~1000");
    let start = lab.now;
    let mut probes = Vec::new();
    for n in 0..120u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        assert_eq!(out[0].face, B, "B answers, C never: B stays best");
        if out.len() == 2 {
            assert_eq!(out[1].face, C);
            let (n0, n1) = (as_interest(&out[0]).nonce(), as_interest(&out[1]).nonce());
            assert_ne!(n0, n1, "a probe carries a new Nonce");
            probes.push(lab.now - start);
        }
        lab.advance_ms(10);
        lab.send_data(B, data(&uri), out[0].meta.pit_token.clone());
        lab.take();
        lab.advance_ms(90);
    }
    assert!(probes.len() >= 5, "{probes:?}");
    assert!(
        probes[0] <= 5_100 * MS,
        "first probe within the 5 s window: {probes:?}"
    );
    for w in probes.windows(2) {
        let gap = w[1] - w[0];
        assert!(
            (1_000 * MS..=1_100 * MS).contains(&gap),
            "probes every probing-interval: {probes:?}"
        );
    }
    // C never answered: its RTO timers marked it timed out, and B is measured.
    let c = lab.fw.asf_stats(&name("/a"), C).unwrap();
    assert_eq!(c.last_rtt, LastRtt::Timeout);
    assert!(lab.fw.asf_stats(&name("/a"), B).unwrap().srtt.unwrap() <= 11 * MS);
}

#[test]
fn learns_the_faster_path_by_probing() {
    let mut lab = Lab::standard_with(ForwarderConfig {
        asf_probing_interval: 100 * MS, // the lab default (no 1 s minimum for the config knob)
        ..Default::default()
    });
    lab.fw
        .strategy_choice()
        .set(&name("/a"), &name("/localhost/nfd/strategy/asf"))
        .unwrap();
    lab.route("/a", B, 1); // cheap but slow: 50 ms
    lab.route("/a", C, 10); // expensive but fast: 5 ms
    let mut to_c = 0;
    for n in 0..200u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        let sent_to: Vec<_> = out.iter().map(|t| t.face).collect();
        let (face, delay) = if sent_to.contains(&C) {
            (C, 5)
        } else {
            (B, 50)
        };
        if n >= 150 && sent_to[0] == C {
            to_c += 1;
        }
        lab.advance_ms(delay);
        lab.send_data(face, data(&uri), None);
        lab.take();
        lab.advance_ms(10);
    }
    let c = lab
        .fw
        .asf_stats(&name("/a"), C)
        .expect("C was probed and measured");
    assert!(c.srtt.unwrap() <= 6 * MS, "{c:?}");
    assert!(to_c >= 45, "after probing, C is preferred: {to_c}/50");
}

#[test]
fn removing_a_face_drops_its_measurements() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf");
    lab.send_interest(A, interest("/a/1", 1));
    lab.take();
    assert!(lab.fw.asf_stats(&name("/a"), B).is_some());
    lab.fw.remove_face(B, lab.now);
    assert!(lab.fw.asf_stats(&name("/a"), B).is_none());
    lab.run_for_ms(2_000); // B's stale timer fires harmlessly
    lab.send_interest(A, interest("/a/2", 2));
    assert_eq!(first_face(&lab.take()), C);
}

#[test]
fn cancelled_rto_timers_do_not_pile_up() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf");
    // Every answered Interest cancels B's timer and the next one re-arms it: without
    // compaction 10,000 cancelled timers would wait for their deadlines.
    for n in 0..10_000u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        lab.send_data(out[0].face, data(&uri), out[0].meta.pit_token.clone());
        lab.take();
    }
    assert!(
        lab.fw.asf_pending_timers() <= 4 * 2 + 4096 + 1,
        "{}",
        lab.fw.asf_pending_timers()
    );
    assert_eq!(lab.fw.asf_stats(&name("/a"), B).unwrap().samples, 10_000);
}

/// NFD keeps a satisfied ASF entry 50 ms more: the Data of a slower probe is still
/// measured (and goes nowhere downstream); after the grace the entry is gone and a
/// later Data is unsolicited.
#[test]
fn late_probe_data_within_the_grace_is_measured() {
    let mut lab = asf_lab("/localhost/nfd/strategy/asf/v=5/probing-interval~1000");
    let mut probed = Vec::new();
    for n in 0..200u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        assert_eq!(out[0].face, B);
        lab.advance_ms(10);
        lab.send_data(B, data(&uri), out[0].meta.pit_token.clone());
        assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
        if out.len() == 2 {
            probed.push((uri, out[1].meta.pit_token.clone()));
            if probed.len() == 2 {
                break;
            }
        }
        lab.advance_ms(1_000);
    }
    assert_eq!(probed.len(), 2, "two probes to C");
    // The second probe's Data comes 30 ms after B's (40 ms RTT): measured, not sent on.
    let (uri, token) = probed.pop().unwrap();
    assert_eq!(
        lab.fw.pit_len(),
        1,
        "the satisfied entry waits for late Data"
    );
    lab.advance_ms(30);
    lab.send_data(C, data(&uri), token);
    assert!(lab.take().is_empty());
    let c = lab.fw.asf_stats(&name("/a"), C).unwrap();
    assert_eq!(c.last_rtt, LastRtt::Rtt(40 * MS));
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 0);
    // 50 ms after the first Data the entry is finalized, counted satisfied once.
    let satisfied = lab.fw.counters().n_satisfied_interests;
    lab.run_for_ms(19);
    assert_eq!(lab.fw.pit_len(), 1);
    lab.run_for_ms(2);
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_satisfied_interests, satisfied + 1);
    lab.send_data(C, data(&uri), None);
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
}
