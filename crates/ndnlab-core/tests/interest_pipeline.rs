//! Scenario tests of the Interest pipelines: forwarding, aggregation, retransmission,
//! loops, no route, expiry, HopLimit, scope, NextHopFaceId, ForwardingHint.

mod common;

use common::*;
use ndnlab_core::{DropReason, FaceId, FaceScope, LinkType, LpMeta, MS};
use ndnlab_wire::NackReason;

#[test]
fn forwards_to_lowest_cost_and_returns_data() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 10);
    lab.route("/a", C, 5);
    lab.send_interest(A, interest("/a/1", 1));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())]);
    let token = out[0].meta.pit_token.clone();
    assert!(token.is_some(), "outgoing Interests carry our PIT token");
    assert_eq!(lab.fw.pit_len(), 1);

    lab.send_data(C, data("/a/1"), token);
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "D".into())]);
    let c = lab.fw.counters();
    assert_eq!(
        (
            c.n_in_interests,
            c.n_out_interests,
            c.n_in_data,
            c.n_out_data
        ),
        (1, 1, 1, 1)
    );
    assert_eq!((c.n_satisfied_interests, c.n_unsatisfied_interests), (1, 0));
    assert_eq!((c.n_cs_hits, c.n_cs_misses), (0, 1));
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.face_counters(C).unwrap().n_out_interests, 1);
    assert_eq!(lab.fw.face_counters(A).unwrap().n_out_data, 1);
}

#[test]
fn outgoing_interest_is_the_incoming_bytes_with_hop_limit_decremented() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    let i = interest_with("/a/1", 7, |b| b.hop_limit(5).lifetime_ms(1000));
    let mut expected = i.wire().to_vec();
    let hop_pos = expected.len() - 1; // HopLimit is the last element here
    assert_eq!(expected[hop_pos], 5);
    expected[hop_pos] = 4;
    lab.send_interest(A, i);
    let out = lab.take();
    let sent = as_interest(&out[0]);
    assert_eq!(sent.hop_limit(), Some(4));
    assert_eq!(&sent.wire()[..], &expected[..]);
    assert_eq!(sent.nonce(), Some(7));
}

#[test]
fn hop_limit_zero_is_dropped_and_one_goes_only_to_local_faces() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, interest_with("/a/1", 1, |b| b.hop_limit(0)));
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::HopLimitZero), 1);
    assert_eq!(lab.fw.face_counters(A).unwrap().n_in_hop_limit_zero, 1);

    // HopLimit 1 becomes 0: cannot leave on a non-local face...
    lab.send_interest(A, interest_with("/a/2", 2, |b| b.hop_limit(1)));
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::OutHopLimitZero), 1);
    // ...but can reach a local application.
    lab.route("/b", APP, 1);
    lab.send_interest(A, interest_with("/b/1", 3, |b| b.hop_limit(1)));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(APP.0, "I".into())]);
    assert_eq!(out[0].meta.incoming_face_id, A.incoming_face_id());
}

#[test]
fn aggregation_forwards_once_and_answers_every_downstream_with_its_token() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    let t_a = bytes::Bytes::from_static(b"tokA");
    let t_b = bytes::Bytes::from_static(b"tokB");
    lab.send_interest_meta(
        A,
        interest("/a/1", 1),
        LpMeta {
            pit_token: Some(t_a.clone()),
            ..Default::default()
        },
    );
    lab.send_interest_meta(
        B,
        interest("/a/1", 2),
        LpMeta {
            pit_token: Some(t_b.clone()),
            ..Default::default()
        },
    );
    let out = lab.take();
    assert_eq!(
        summary(&out),
        vec![(C.0, "I".into())],
        "second Interest is aggregated (suppressed)"
    );
    assert_eq!(lab.fw.pit_len(), 1);
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 1);

    lab.send_data(C, data("/a/1"), out[0].meta.pit_token.clone());
    let out = lab.take();
    let mut got: Vec<_> = out
        .iter()
        .map(|t| (t.face, t.meta.pit_token.clone()))
        .collect();
    got.sort_by_key(|x| x.0);
    assert_eq!(got, vec![(A, Some(t_a)), (B, Some(t_b))]);
    assert_eq!(lab.fw.counters().n_satisfied_interests, 1);
    assert_eq!(lab.fw.counters().n_out_data, 2);
}

#[test]
fn retransmission_suppression_backs_off_exponentially() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    lab.send_interest(A, interest("/a/1", 1));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);

    // Within 10 ms: suppressed.
    lab.advance_ms(5);
    lab.send_interest(A, interest("/a/1", 2));
    assert!(lab.take().is_empty());
    // After 10 ms: forwarded to the unused next hop C; the interval doubles to 20 ms.
    lab.advance_ms(6);
    lab.send_interest(A, interest("/a/1", 3));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // 15 ms later: suppressed (interval is now 20 ms since the last transmission).
    lab.advance_ms(15);
    lab.send_interest(A, interest("/a/1", 4));
    assert!(lab.take().is_empty());
    // 21 ms after the last transmission: forwarded to the next hop used earliest (B).
    lab.advance_ms(6);
    lab.send_interest(A, interest("/a/1", 5));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 2);
    assert_eq!(lab.fw.counters().n_out_interests, 3);
}

#[test]
fn duplicate_nonce_from_another_face_is_a_loop_nacked_duplicate() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/1", 42));
    lab.take();
    lab.send_interest(B, interest("/a/1", 42));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "N:duplicate".into())]);
    assert_eq!(as_nack(&out[0]).interest.nonce(), Some(42));
    assert_eq!(lab.fw.counters().drops.get(DropReason::DuplicateNonce), 1);
    assert_eq!(lab.fw.counters().n_out_nacks, 1);

    // On a multi-access face a loop is dropped silently.
    lab.fw
        .add_face(FaceId(400), FaceScope::NonLocal, LinkType::MultiAccess);
    lab.send_interest(FaceId(400), interest("/a/1", 42));
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::DuplicateNonce), 2);
}

#[test]
fn same_nonce_from_same_point_to_point_face_is_not_a_loop() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/1", 42));
    lab.take();
    lab.advance_ms(50);
    lab.send_interest(A, interest("/a/1", 42));
    let out = lab.take();
    assert_eq!(
        summary(&out),
        vec![(C.0, "I".into())],
        "a retransmission, forwarded again"
    );
    assert_eq!(lab.fw.counters().drops.get(DropReason::DuplicateNonce), 0);
}

#[test]
fn dead_nonce_list_catches_loops_after_the_entry_expired() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest_with("/a/1", 9, |b| b.lifetime_ms(100)));
    lab.take();
    lab.run_for_ms(150);
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
    assert!(lab.fw.dead_nonce_len() >= 1);
    lab.send_interest(B, interest("/a/1", 9));
    assert_eq!(summary(&lab.take()), vec![(B.0, "N:duplicate".into())]);
    // After the DNL lifetime (6 s) the same nonce is accepted again.
    lab.run_for_ms(7_000);
    lab.send_interest(B, interest("/a/1", 9));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}

#[test]
fn no_route_gets_nack_no_route() {
    let mut lab = Lab::standard();
    lab.send_interest(A, interest("/nowhere/1", 5));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "N:no-route".into())]);
    assert_eq!(as_nack(&out[0]).interest.nonce(), Some(5));
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
    // The only next hop is the downstream itself: also no route.
    lab.route("/a", A, 1);
    lab.send_interest(A, interest("/a/1", 6));
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
}

#[test]
fn lifetime_expiry_finalizes_unsatisfied_and_late_data_is_unsolicited() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest_with("/a/1", 1, |b| b.lifetime_ms(200)));
    let out = lab.take();
    let deadline = lab.fw.poll_timeout().expect("expiry timer armed");
    assert_eq!(deadline, lab.now + 200 * MS);
    lab.run_for_ms(199);
    assert_eq!(lab.fw.pit_len(), 1);
    lab.run_for_ms(2);
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
    lab.send_data(C, data("/a/1"), out[0].meta.pit_token.clone());
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
}

#[test]
fn later_interest_extends_entry_lifetime() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest_with("/a/1", 1, |b| b.lifetime_ms(100)));
    lab.run_for_ms(50);
    lab.send_interest(B, interest_with("/a/1", 2, |b| b.lifetime_ms(100)));
    lab.run_for_ms(60);
    assert_eq!(lab.fw.pit_len(), 1, "B's in-record keeps the entry alive");
    lab.run_for_ms(50);
    assert_eq!(lab.fw.pit_len(), 0);
}

#[test]
fn localhost_interests_are_confined_to_local_faces() {
    let mut lab = Lab::standard();
    lab.route("/localhost", APP, 1);
    lab.route("/localhost/x", B, 1);
    lab.send_interest(A, interest("/localhost/nfd/status", 1));
    assert!(lab.take().is_empty());
    assert_eq!(
        lab.fw.counters().drops.get(DropReason::LocalhostViolation),
        1
    );
    // From a local face, it may reach a local face but never a non-local one.
    lab.fw
        .add_face(FaceId(301), FaceScope::Local, LinkType::PointToPoint);
    lab.send_interest(FaceId(301), interest("/localhost/nfd/status", 2));
    assert_eq!(summary(&lab.take()), vec![(APP.0, "I".into())]);
    lab.send_interest(FaceId(301), interest("/localhost/x/1", 3));
    assert_eq!(summary(&lab.take()), vec![(301, "N:no-route".into())]);
}

#[test]
fn next_hop_face_id_from_local_face_bypasses_the_strategy() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    let meta = LpMeta {
        next_hop_face_id: Some(C.0),
        ..Default::default()
    };
    lab.send_interest_meta(APP, interest("/a/1", 1), meta.clone());
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // Ignored from a non-local face.
    lab.send_interest_meta(A, interest("/a/2", 2), meta);
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    // Unknown face: dropped and counted.
    let bad = LpMeta {
        next_hop_face_id: Some(999),
        ..Default::default()
    };
    lab.send_interest_meta(APP, interest("/a/3", 3), bad);
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::BadNextHopFaceId), 1);
}

#[test]
fn forwarding_hint_is_used_for_fib_lookup() {
    let mut lab = Lab::standard();
    lab.route("/isp", C, 1);
    lab.route("/producer", B, 1);
    // The first delegation with a FIB match that has next hops wins.
    let i = interest_with("/producer/file", 1, |b| {
        b.forwarding_hint([name("/unknown"), name("/isp/router")])
    });
    lab.send_interest(A, i);
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // As in NFD, a hinted Interest is not routed by its name: no delegation -> no route.
    let i = interest_with("/producer/file2", 2, |b| {
        b.forwarding_hint([name("/unknown")])
    });
    lab.send_interest(A, i);
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
    // In a consumer region the default route matches the first delegation.
    lab.route("/", D, 100);
    let i = interest_with("/producer/file3", 3, |b| {
        b.forwarding_hint([name("/unknown"), name("/isp/router")])
    });
    lab.send_interest(A, i);
    assert_eq!(summary(&lab.take()), vec![(D.0, "I".into())]);
}

#[test]
fn packets_from_unknown_faces_are_dropped_and_removed_faces_cleaned_up() {
    let mut lab = Lab::standard();
    lab.send_interest(FaceId(999), interest("/a", 1));
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnknownFace), 1);
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/1", 1));
    lab.send_interest(A, interest("/zzz/1", 2)); // queues a Nack to A
    lab.fw.remove_face(A, lab.now);
    assert_eq!(lab.fw.pit_len(), 0, "entry lost its only downstream");
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 2);
    assert_eq!(
        summary(&lab.take()),
        vec![(C.0, "I".into())],
        "queued transmits to A are dropped"
    );
    assert!(lab.fw.face_counters(A).is_none());
}

#[test]
fn nack_from_upstream_is_returned_downstream_when_all_upstreams_nacked() {
    let mut lab = Lab::standard();
    lab.fw
        .strategy_choice()
        .set(&name("/a"), &name("/localhost/nfd/strategy/multicast/v=5"))
        .unwrap();
    lab.route("/a", B, 1);
    lab.route("/a", C, 1);
    let i = interest("/a/1", 11);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    assert_eq!(out.len(), 2);
    let tok = out[0].meta.pit_token.clone();
    lab.send_nack(B, i.clone(), NackReason::NoRoute, tok.clone());
    assert!(lab.take().is_empty(), "C has not answered yet");
    lab.send_nack(C, i.clone(), NackReason::Congestion, None);
    let out = lab.take();
    assert_eq!(
        summary(&out),
        vec![(A.0, "N:congestion".into())],
        "least severe reason"
    );
    assert_eq!(lab.fw.pit_len(), 0);
    // Nack for nothing: dropped.
    lab.send_nack(C, i, NackReason::NoRoute, tok);
    assert_eq!(lab.fw.counters().drops.get(DropReason::NackNoPitEntry), 1);
}

#[test]
fn nack_with_wrong_nonce_or_from_wrong_face_is_dropped() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, interest("/a/1", 11));
    lab.take();
    lab.send_nack(B, interest("/a/1", 12), NackReason::NoRoute, None);
    assert_eq!(
        lab.fw.counters().drops.get(DropReason::NackNonceMismatch),
        1
    );
    lab.send_nack(C, interest("/a/1", 11), NackReason::NoRoute, None);
    assert_eq!(lab.fw.counters().drops.get(DropReason::NackNoOutRecord), 1);
    lab.send_nack(B, interest("/a/1", 11), NackReason::NoRoute, None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
}

#[test]
fn timer_queue_stays_proportional_to_the_pit() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    for k in 0..20_000u32 {
        let uri = format!("/a/{k}");
        lab.send_interest(A, interest(&uri, k + 1));
        let out = lab.take();
        lab.send_data(C, data(&uri), out[0].meta.pit_token.clone());
        lab.take();
    }
    assert_eq!(lab.fw.pit_len(), 0);
    assert!(
        lab.fw.pending_timers() <= 4096 + 1,
        "{}",
        lab.fw.pending_timers()
    );
    assert_eq!(lab.fw.counters().n_satisfied_interests, 20_000);
}
