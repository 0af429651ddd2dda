//! Scenario tests of best-route, multicast and StrategyChoice (ASF: `tests/asf.rs`).

mod common;

use common::*;
use ndnlab_core::{DropReason, StrategyChoiceError, StrategyKind};
use ndnlab_wire::NackReason;

fn set(lab: &mut Lab, prefix: &str, strategy: &str) {
    lab.fw
        .strategy_choice()
        .set(&name(prefix), &name(strategy))
        .unwrap();
}

#[test]
fn multicast_fans_out_to_every_next_hop_but_the_downstream() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    for f in [A, B, C, D] {
        lab.route("/m", f, 1);
    }
    lab.send_interest(A, interest("/m/1", 1));
    let mut faces: Vec<u64> = lab.take().iter().map(|t| t.face.0).collect();
    faces.sort();
    assert_eq!(faces, vec![B.0, C.0, D.0]);
    assert_eq!(lab.fw.counters().n_out_interests, 3);
    // The first Data satisfies the entry; later copies are unsolicited.
    lab.send_data(C, data("/m/1"), None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    lab.send_data(D, data("/m/1"), None);
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
}

#[test]
fn multicast_suppresses_retransmissions_per_upstream() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast");
    lab.route("/m", B, 1);
    lab.route("/m", C, 1);
    lab.send_interest(A, interest("/m/1", 1));
    assert_eq!(lab.take().len(), 2);
    lab.advance_ms(5);
    lab.send_interest(A, interest("/m/1", 2));
    assert!(lab.take().is_empty());
    lab.advance_ms(10);
    lab.send_interest(A, interest("/m/1", 3));
    assert_eq!(lab.take().len(), 2);
}

#[test]
fn strategy_choice_per_prefix() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    lab.route("/", B, 1);
    lab.route("/", C, 2);
    lab.send_interest(A, interest("/m/x/1", 1));
    assert_eq!(lab.take().len(), 2, "multicast under /m");
    lab.send_interest(A, interest("/other/1", 2));
    assert_eq!(
        summary(&lab.take()),
        vec![(B.0, "I".into())],
        "best-route elsewhere"
    );
    assert_eq!(
        lab.fw.strategy_choice().find_effective(&name("/m/q")),
        StrategyKind::Multicast
    );
    lab.fw.strategy_choice().unset(&name("/m")).unwrap();
    lab.send_interest(A, interest("/m/x/2", 3));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    let listed: Vec<String> = lab
        .fw
        .strategy_choice()
        .iter()
        .map(|(_, k)| k.uri())
        .collect();
    assert_eq!(
        listed,
        vec!["/localhost/nfd/strategy/best-route/v=5".to_string()]
    );
}

#[test]
fn best_route_nack_is_returned_after_the_only_upstream_nacks() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    let i = interest("/a/1", 1);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "I".into())]);
    lab.send_nack(B, i, NackReason::Congestion, out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:congestion".into())]);
    assert_eq!(lab.fw.counters().n_in_nacks, 1);
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
}

/// Send a retransmission of `uri` from A with a fresh nonce; returns the faces it left on.
fn retx(lab: &mut Lab, uri: &str, nonce: u32) -> Vec<u64> {
    lab.send_interest(A, interest(uri, nonce));
    lab.take().iter().map(|t| t.face.0).collect()
}

#[test]
fn best_route_backoff_is_nfd_exponential_10ms_x2_up_to_250ms() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    assert_eq!(retx(&mut lab, "/a/1", 1), vec![B.0]);
    // Retransmission k is suppressed until min(10 ms * 2^(k-1), 250 ms) after the
    // previous forwarded transmission, then forwarded.
    let mut nonce = 2;
    for interval in [10u64, 20, 40, 80, 160, 250, 250] {
        lab.advance_ms(interval - 1);
        assert!(
            retx(&mut lab, "/a/1", nonce).is_empty(),
            "suppressed 1 ms before the {interval} ms interval ends"
        );
        nonce += 1;
        lab.advance_ms(1);
        assert_eq!(
            retx(&mut lab, "/a/1", nonce),
            vec![B.0],
            "forwarded when the {interval} ms interval ends"
        );
        nonce += 1;
    }
    assert_eq!(lab.fw.counters().drops.get(DropReason::RetxSuppressed), 7);
}

#[test]
fn best_route_retransmissions_walk_the_next_hops_in_cost_order() {
    let mut lab = Lab::standard();
    lab.route("/a", D, 30);
    lab.route("/a", B, 10);
    lab.route("/a", C, 20);
    assert_eq!(retx(&mut lab, "/a/1", 1), vec![B.0], "new: lowest cost");
    lab.advance_ms(10);
    assert_eq!(
        retx(&mut lab, "/a/1", 2),
        vec![C.0],
        "first retx: next unused"
    );
    lab.advance_ms(20);
    assert_eq!(
        retx(&mut lab, "/a/1", 3),
        vec![D.0],
        "second retx: next unused"
    );
    lab.advance_ms(40);
    assert_eq!(
        retx(&mut lab, "/a/1", 4),
        vec![B.0],
        "all used: oldest out-record"
    );
    lab.advance_ms(80);
    assert_eq!(retx(&mut lab, "/a/1", 5), vec![C.0], "then the next oldest");
    // The downstream itself is never a next hop, even when it is the cheapest.
    let mut lab = Lab::standard();
    lab.route("/b", A, 1);
    lab.route("/b", B, 2);
    assert_eq!(retx(&mut lab, "/b/1", 1), vec![B.0]);
}

#[test]
fn best_route_nacks_every_downstream_once_the_only_upstream_nacked() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    lab.send_interest(A, interest("/a/1", 1));
    lab.send_interest(D, interest("/a/1", 2)); // aggregated, second downstream
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "I".into())]);
    lab.send_nack(
        B,
        as_interest(&out[0]).clone(),
        NackReason::NoRoute,
        out[0].meta.pit_token.clone(),
    );
    let mut nacks = summary(&lab.take());
    nacks.sort();
    assert_eq!(
        nacks,
        vec![(A.0, "N:no-route".into()), (D.0, "N:no-route".into())],
        "the only upstream Nacked: every downstream gets the Nack"
    );
    assert_eq!(lab.fw.pit_len(), 0);
}

#[test]
fn multicast_nacks_are_absorbed_until_every_upstream_nacked_then_least_severe() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    for f in [B, C, D] {
        lab.route("/m", f, 1);
    }
    lab.send_interest(A, interest("/m/1", 1));
    let out = lab.take();
    assert_eq!(out.len(), 3);
    let sent = as_interest(&out[0]).clone();
    let token = |f: ndnlab_core::FaceId| {
        out.iter()
            .find(|t| t.face == f)
            .unwrap()
            .meta
            .pit_token
            .clone()
    };
    lab.send_nack(C, sent.clone(), NackReason::NoRoute, token(C));
    assert!(lab.take().is_empty(), "absorbed: B and D still pending");
    lab.send_nack(D, sent.clone(), NackReason::Duplicate, token(D));
    assert!(lab.take().is_empty(), "absorbed: B still pending");
    lab.send_nack(B, sent, NackReason::NoRoute, token(B));
    assert_eq!(
        summary(&lab.take()),
        vec![(A.0, "N:duplicate".into())],
        "least severe of NoRoute, Duplicate, NoRoute"
    );
    assert_eq!(lab.fw.counters().n_unsatisfied_interests, 1);
    assert_eq!(lab.fw.pit_len(), 0);
}

#[test]
fn multicast_nacks_the_last_pending_upstream_when_it_is_also_a_downstream() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast");
    lab.route("/m", B, 1);
    lab.route("/m", C, 1);
    lab.send_interest(A, interest("/m/1", 1));
    let out = lab.take();
    assert_eq!(out.len(), 2);
    // B also expresses the Interest (a consumer-and-producer neighbour).
    lab.send_interest(B, interest("/m/1", 9));
    assert!(
        lab.take().is_empty(),
        "aggregated; B and C were just sent to: suppressed"
    );
    let c = out.iter().find(|t| t.face == C).unwrap();
    lab.send_nack(
        C,
        as_interest(c).clone(),
        NackReason::Congestion,
        c.meta.pit_token.clone(),
    );
    // Only B is left upstream, and B waits for the same Data: Nack B (not A).
    assert_eq!(summary(&lab.take()), vec![(B.0, "N:congestion".into())]);
    assert_eq!(lab.fw.pit_len(), 1, "A still waits for B's answer");
}

#[test]
fn multicast_suppression_is_per_upstream_and_a_new_next_hop_gets_the_retransmission() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    lab.route("/m", B, 1);
    lab.route("/m", C, 1);
    assert_eq!(retx(&mut lab, "/m/1", 1).len(), 2);
    lab.route("/m", D, 1);
    lab.advance_ms(5);
    assert_eq!(
        retx(&mut lab, "/m/1", 2),
        vec![D.0],
        "B and C suppressed, the new upstream D is not"
    );
    lab.advance_ms(5); // 10 ms after B and C: forwarded there; D (5 ms) suppressed
    let mut f = retx(&mut lab, "/m/1", 3);
    f.sort();
    assert_eq!(f, vec![B.0, C.0]);
    lab.advance_ms(15); // B, C: 15 ms < 20 ms; D: 20 ms >= 10 ms
    assert_eq!(retx(&mut lab, "/m/1", 4), vec![D.0]);
    lab.advance_ms(5); // B, C: 20 ms
    let mut f = retx(&mut lab, "/m/1", 5);
    f.sort();
    assert_eq!(f, vec![B.0, C.0]);
    lab.advance_ms(1);
    assert!(retx(&mut lab, "/m/1", 6).is_empty());
    assert!(lab.fw.counters().drops.get(DropReason::RetxSuppressed) >= 1);
}

#[test]
fn multicast_without_eligible_next_hop_nacks_no_route() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    lab.route("/m", A, 1); // only the downstream itself
    lab.send_interest(A, interest("/m/1", 1));
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
    assert_eq!(lab.fw.pit_len(), 0);
}

#[test]
fn retx_suppression_parameters_in_the_strategy_name() {
    let mut lab = Lab::standard();
    set(
        &mut lab,
        "/p",
        "/localhost/nfd/strategy/best-route/v=5/retx-suppression-initial~50/retx-suppression-max~60",
    );
    lab.route("/p", B, 1);
    lab.route("/q", B, 1);
    assert_eq!(retx(&mut lab, "/p/1", 1), vec![B.0]);
    assert_eq!(retx(&mut lab, "/q/1", 2), vec![B.0]);
    lab.advance_ms(20);
    assert_eq!(
        retx(&mut lab, "/q/1", 3),
        vec![B.0],
        "default 10 ms elsewhere"
    );
    assert!(retx(&mut lab, "/p/1", 4).is_empty(), "50 ms under /p");
    lab.advance_ms(30);
    assert_eq!(retx(&mut lab, "/p/1", 5), vec![B.0]);
    lab.advance_ms(59);
    assert!(
        retx(&mut lab, "/p/1", 6).is_empty(),
        "next interval min(100, 60) ms"
    );
    lab.advance_ms(1);
    assert_eq!(retx(&mut lab, "/p/1", 7), vec![B.0]);
    assert_eq!(
        lab.fw.strategy_choice().instance_name(&name("/p")).unwrap().to_string(),
        "/localhost/nfd/strategy/best-route/v=5/retx-suppression-initial~50/retx-suppression-max~60"
    );
}

#[test]
fn bad_strategy_names_are_rejected_with_a_reason() {
    let mut lab = Lab::standard();
    let err = lab
        .fw
        .strategy_choice()
        .set(
            &name("/a"),
            &name("/localhost/nfd/strategy/multicast/v=5/retx-suppression-max~abc"),
        )
        .unwrap_err();
    assert!(matches!(err, StrategyChoiceError::BadParameters { .. }));
    assert!(err.to_string().contains("retx-suppression-max"), "{err}");
    let err = lab
        .fw
        .strategy_choice()
        .set(&name("/a"), &name("/localhost/nfd/strategy/multicast/v=4"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MulticastStrategy does not support version 4"
    );
    assert_eq!(lab.fw.strategy_choice().len(), 1, "nothing was set");
}

/// NFD `afterNewNextHop`: a next hop added while an Interest is pending under a
/// multicast prefix gets that Interest at once; a cost update, a shadowed prefix, or a
/// best-route entry does not.
#[test]
fn multicast_sends_pending_interests_to_a_new_next_hop() {
    let mut lab = Lab::standard();
    set(&mut lab, "/m", "/localhost/nfd/strategy/multicast/v=5");
    lab.route("/m", B, 1);
    lab.route("/m/a", B, 1);
    lab.route("/b", B, 1);
    lab.send_interest(A, interest("/m/1", 1));
    lab.send_interest(A, interest("/m/a/1", 2));
    lab.send_interest(A, interest("/b/1", 3));
    assert_eq!(lab.take().len(), 3);

    // New next hop on /m: only /m/1 (whose longest match is /m) goes to C.
    let now = lab.now;
    lab.fw.add_nexthop(now, &name("/m"), C, 5);
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())]);
    assert_eq!(as_interest(&out[0]).name(), &name("/m/1"));
    // The out-record exists: C's Data satisfies the entry.
    lab.send_data(C, data("/m/1"), None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);

    // A cost update is not a new next hop.
    lab.fw.add_nexthop(now, &name("/m/a"), B, 7);
    assert!(lab.take().is_empty());
    // Never back to the downstream itself; best-route entries are left alone.
    lab.fw.add_nexthop(now, &name("/m/a"), A, 1);
    lab.fw.add_nexthop(now, &name("/b"), C, 1);
    assert!(lab.take().is_empty());
    lab.fw.add_nexthop(now, &name("/m/a"), D, 1);
    assert_eq!(summary(&lab.take()), vec![(D.0, "I".into())]);
}
