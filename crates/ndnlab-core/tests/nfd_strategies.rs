//! Scenario tests of random, access and self-learning (NFD 24.07's RandomStrategy,
//! AccessStrategy and SelfLearningStrategy): fake clock, seeded generator, recording
//! faces.

mod common;

use bytes::Bytes;
use common::*;
use ndnlab_core::{
    DropReason, FaceId, FaceScope, ForwarderConfig, LinkType, LpMeta, RibRequest, MS,
};
use ndnlab_wire::{NackReason, Name, PrefixAnnouncement};

fn set(lab: &mut Lab, prefix: &str, strategy: &str) {
    lab.fw
        .strategy_choice()
        .set(&name(prefix), &name(strategy))
        .unwrap();
}

fn faces(out: &[ndnlab_core::Transmit]) -> Vec<u64> {
    out.iter().map(|t| t.face.0).collect()
}

// ---------------------------------------------------------------- random

fn random_lab(seed: u64) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        seed,
        ..Default::default()
    });
    set(&mut lab, "/r", "/localhost/nfd/strategy/random");
    for f in [A, B, C, D] {
        lab.route("/r", f, 1);
    }
    lab
}

/// The upstream each of `n` new Interests from A went to.
fn random_choices(lab: &mut Lab, n: u32) -> Vec<u64> {
    (0..n)
        .map(|i| {
            lab.send_interest(A, interest(&format!("/r/{i}"), i + 1));
            let out = lab.take();
            assert_eq!(out.len(), 1, "one upstream per Interest");
            out[0].face.0
        })
        .collect()
}

#[test]
fn random_draws_among_eligible_next_hops_reproducibly() {
    let mut lab = random_lab(7);
    let picks = random_choices(&mut lab, 300);
    // Never the downstream; every other next hop drawn a fair share of the time.
    assert!(!picks.contains(&A.0));
    for f in [B, C, D] {
        let k = picks.iter().filter(|&&x| x == f.0).count();
        assert!((60..=140).contains(&k), "face {f}: {k} of 300");
    }
    // The same seed makes the same draws; another seed other draws.
    assert_eq!(random_choices(&mut random_lab(7), 300), picks);
    assert_ne!(random_choices(&mut random_lab(8), 300), picks);
}

#[test]
fn random_nacks_no_route_and_forwards_every_retransmission() {
    let mut lab = random_lab(1);
    // A namespace under random without a route.
    set(&mut lab, "/q", "/localhost/nfd/strategy/random/v=1");
    lab.send_interest(A, interest("/q/1", 1));
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);

    // No retransmission suppression: a retransmission 1 ms later goes out at once.
    lab.send_interest(A, interest("/r/x", 2));
    assert_eq!(lab.take().len(), 1);
    lab.advance_ms(1);
    lab.send_interest(A, interest("/r/x", 3));
    assert_eq!(lab.take().len(), 1);
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 0);
}

#[test]
fn random_returns_the_nack_once_every_upstream_nacked() {
    let mut lab = random_lab(3);
    let i = interest("/r/n", 9);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    let (up, token) = (out[0].face, out[0].meta.pit_token.clone());
    lab.send_nack(up, i, NackReason::Congestion, token);
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:congestion".into())]);
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
}

// ---------------------------------------------------------------- access

fn access_lab() -> Lab {
    let mut lab = Lab::standard();
    set(&mut lab, "/acc", "/localhost/nfd/strategy/access/v=1");
    for f in [A, B, C, D] {
        lab.route("/acc", f, 1);
    }
    lab
}

/// Data for `uri` from `from`, echoing the token of the Interest sent to it.
fn answer(lab: &mut Lab, out: &[ndnlab_core::Transmit], from: FaceId, uri: &str) {
    let t = out.iter().find(|t| t.face == from).expect("sent there");
    lab.send_data(from, data(uri), t.meta.pit_token.clone());
}

#[test]
fn access_multicasts_first_then_uses_the_last_working_next_hop() {
    let mut lab = access_lab();
    lab.send_interest(A, interest("/acc/v/1", 1));
    let out = lab.take();
    let mut sent = faces(&out);
    sent.sort();
    assert_eq!(sent, vec![B.0, C.0, D.0], "no measurements: multicast");
    lab.advance_ms(30);
    answer(&mut lab, &out, C, "/acc/v/1");
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    // Measurements at the Data name's parent: C, with its RTT.
    let st = lab.fw.access_stats(&name("/acc/v"), lab.now).unwrap();
    assert_eq!(st.last_nexthop, C);
    assert_eq!(st.srtt, Some(30 * MS));
    // RTO = srtt + 4 * srtt / 2 = 90 ms, below the 200 ms minimum.
    assert_eq!(st.rto, 200 * MS);

    // The next Interest under /acc/v goes to C alone, with an RTO timer.
    lab.send_interest(A, interest("/acc/v/2", 2));
    let out = lab.take();
    assert_eq!(faces(&out), vec![C.0]);
    assert_eq!(lab.fw.access_armed_timers(), 1);
    lab.advance_ms(10);
    answer(&mut lab, &out, C, "/acc/v/2");
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(lab.fw.access_armed_timers(), 0, "Data cancels the timer");
    // 30 ms, then 10 ms: srtt = 30 - 30/8 + 10/8 = 27.5 ms.
    let st = lab.fw.access_stats(&name("/acc/v"), lab.now).unwrap();
    assert_eq!(st.srtt, Some(27_500_000));
    // Another prefix has no measurements: multicast.
    lab.send_interest(A, interest("/acc/w/1", 3));
    assert_eq!(lab.take().len(), 3);
}

#[test]
fn access_rto_timeout_multicasts_to_the_other_next_hops() {
    let mut lab = access_lab();
    lab.send_interest(A, interest("/acc/v/1", 1));
    let out = lab.take();
    lab.advance_ms(50);
    answer(&mut lab, &out, B, "/acc/v/1");
    lab.take();
    lab.send_interest(A, interest("/acc/v/2", 2));
    assert_eq!(faces(&lab.take()), vec![B.0]);
    // RTO 200 ms: nothing before it, then every next hop but A and B.
    lab.run_for_ms(199);
    assert!(lab.take().is_empty());
    lab.run_for_ms(1);
    let out = lab.take();
    let mut sent = faces(&out);
    sent.sort();
    assert_eq!(sent, vec![C.0, D.0]);
    // The copies carry the downstream's Nonce.
    assert!(out.iter().all(|t| as_interest(t).nonce() == Some(2)));
    // D answers first: it becomes the prefix's last next hop.
    lab.advance_ms(5);
    answer(&mut lab, &out, D, "/acc/v/2");
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(
        lab.fw
            .access_stats(&name("/acc/v"), lab.now)
            .unwrap()
            .last_nexthop,
        D
    );
}

#[test]
fn access_suppresses_retransmissions_for_100ms_then_multicasts() {
    let mut lab = access_lab();
    lab.send_interest(A, interest("/acc/x", 1));
    assert_eq!(lab.take().len(), 3);
    lab.advance_ms(99);
    lab.send_interest(A, interest("/acc/x", 2));
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 1);
    lab.advance_ms(1);
    lab.send_interest(A, interest("/acc/x", 3));
    assert_eq!(lab.take().len(), 3);
}

#[test]
fn access_rejects_without_nack_and_ignores_nacks() {
    let mut lab = access_lab();
    set(&mut lab, "/lone", "/localhost/nfd/strategy/access");
    lab.route("/lone", A, 1);
    // The only next hop is the downstream: rejected, no Nack.
    lab.send_interest(A, interest("/lone/1", 1));
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
    assert_eq!(lab.fw.pit_len(), 0);
    // A Nack from every upstream changes nothing: the entry waits.
    let i = interest("/acc/n", 5);
    lab.send_interest(A, i.clone());
    for t in lab.take() {
        lab.send_nack(t.face, i.clone(), NackReason::NoRoute, t.meta.pit_token);
    }
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.pit_len(), 1);
}

// ---------------------------------------------------------------- self-learning

const SL: &str = "/localhost/nfd/strategy/self-learning";

fn sl_lab() -> Lab {
    let mut lab = Lab::standard();
    set(&mut lab, "/", SL);
    lab
}

fn announcement(prefix: &str) -> Bytes {
    PrefixAnnouncement::builder(&name(prefix), 3_600_000, None, 1).sign_digest()
}

fn requests(lab: &mut Lab) -> Vec<RibRequest> {
    std::iter::from_fn(|| lab.fw.poll_rib_request()).collect()
}

fn data_meta(token: Option<Bytes>, ann: Option<Bytes>) -> LpMeta {
    LpMeta {
        pit_token: token,
        prefix_announcement: ann.map(Box::new),
        ..Default::default()
    }
}

#[test]
fn self_learning_broadcasts_discovery_and_learns_from_the_announcement() {
    let mut lab = sl_lab();
    lab.send_interest(A, interest("/sl/file/1", 1));
    let out = lab.take();
    // No route: every non-local face but the downstream, highest id first, unmarked.
    assert_eq!(faces(&out), vec![D.0, C.0, B.0]);
    assert!(out.iter().all(|t| !t.meta.non_discovery));
    // C answers with a prefix announcement.
    let ann = announcement("/sl");
    let token = out
        .iter()
        .find(|t| t.face == C)
        .unwrap()
        .meta
        .pit_token
        .clone();
    let now = lab.now;
    lab.fw.handle_data(
        now,
        C,
        data("/sl/file/1"),
        data_meta(token, Some(ann.clone())),
    );
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "D".into())]);
    assert_eq!(out[0].meta.prefix_announcement(), Some(&ann), "travels on");
    assert_eq!(
        requests(&mut lab),
        vec![RibRequest::Announce {
            announcement: ann,
            face: C,
            max_lifetime: 600_000 * MS,
        }]
    );
    assert_eq!(lab.fw.counters().n_satisfied_interests, 1);
    assert_eq!(lab.fw.pit_len(), 0);
}

#[test]
fn self_learning_marks_interests_that_follow_a_route() {
    let mut lab = sl_lab();
    lab.route("/sl", C, 2048);
    // A discovery Interest with a route goes along it, marked NonDiscovery.
    lab.send_interest(A, interest("/sl/a", 1));
    let out = lab.take();
    assert_eq!(faces(&out), vec![C.0]);
    assert!(out[0].meta.non_discovery);
    // A NonDiscovery Interest stays marked; without a route it is Nacked.
    let nd = LpMeta {
        non_discovery: true,
        ..Default::default()
    };
    lab.send_interest_meta(B, interest("/sl/b", 2), nd.clone());
    let out = lab.take();
    assert_eq!(faces(&out), vec![C.0]);
    assert!(out[0].meta.non_discovery);
    lab.send_interest_meta(B, interest("/elsewhere/b", 3), nd);
    assert_eq!(summary(&lab.take()), vec![(B.0, "N:no-route".into())]);
}

#[test]
fn self_learning_asks_the_rib_for_an_announcement_for_a_discovery_downstream() {
    let mut lab = sl_lab();
    lab.route("/sl", C, 2048);
    // A asked by discovery; the Interest went to C marked NonDiscovery.
    lab.send_interest(A, interest("/sl/a", 1));
    let out = lab.take();
    let token = out[0].meta.pit_token.clone();
    lab.fw
        .handle_data(lab.now, C, data("/sl/a"), data_meta(token, None));
    assert!(lab.take().is_empty(), "held for the announcement");
    let id = match requests(&mut lab).as_slice() {
        [RibRequest::FindAnnouncement { name: n, id }] => {
            assert_eq!(n, &name("/sl/a"));
            *id
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(lab.fw.pending_announcements(), 1);
    lab.advance_ms(20);
    let ann = announcement("/sl");
    lab.fw.handle_announcement(lab.now, id, Some(ann.clone()));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "D".into())]);
    assert_eq!(out[0].meta.prefix_announcement(), Some(&ann));
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_satisfied_interests, 1);
    assert_eq!(lab.fw.pending_announcements(), 0);

    // Without an announcement the Data never goes out; the entry ends after 1 s.
    lab.send_interest(A, interest("/sl/b", 2));
    let token = lab.take()[0].meta.pit_token.clone();
    lab.fw
        .handle_data(lab.now, C, data("/sl/b"), data_meta(token, None));
    let id = match requests(&mut lab).as_slice() {
        [RibRequest::FindAnnouncement { id, .. }] => *id,
        other => panic!("{other:?}"),
    };
    lab.fw.handle_announcement(lab.now, id, None);
    assert!(lab.take().is_empty());
    lab.run_for_ms(999);
    assert_eq!(lab.fw.pit_len(), 1);
    lab.run_for_ms(1);
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_satisfied_interests, 2);
}

#[test]
fn self_learning_sends_at_once_to_a_local_consumer() {
    let mut lab = sl_lab();
    lab.route("/sl", C, 2048);
    // A local application's discovery Interest: no announcement needed.
    lab.send_interest(APP, interest("/sl/app", 1));
    let out = lab.take();
    assert_eq!(faces(&out), vec![C.0]);
    let token = out[0].meta.pit_token.clone();
    lab.fw
        .handle_data(lab.now, C, data("/sl/app"), data_meta(token, None));
    assert_eq!(summary(&lab.take()), vec![(APP.0, "D".into())]);
    assert!(requests(&mut lab).is_empty());
    // A local application's discovery Interest without a route: broadcast to the
    // non-local faces only.
    lab.fw
        .add_face(FaceId(301), FaceScope::Local, LinkType::PointToPoint);
    lab.send_interest(APP, interest("/other/x", 2));
    assert_eq!(faces(&lab.take()), vec![D.0, C.0, B.0, A.0]);
}

#[test]
fn self_learning_nack_no_route_drops_the_learned_route() {
    let mut lab = sl_lab();
    lab.route("/sl", C, 2048);
    let i = interest("/sl/gone", 4);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    // Other Nacks change nothing.
    lab.send_nack(
        C,
        i.clone(),
        NackReason::Congestion,
        out[0].meta.pit_token.clone(),
    );
    assert!(lab.take().is_empty());
    assert!(requests(&mut lab).is_empty());
    lab.send_nack(C, i, NackReason::NoRoute, out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
    assert_eq!(
        requests(&mut lab),
        vec![RibRequest::Renew {
            name: Name::from_uri("/sl/gone").unwrap(),
            face: C,
            max_lifetime: 0,
        }]
    );
}
