//! Scenario tests of the strategies and StrategyChoice.

mod common;

use common::*;
use ndnlab_core::{DropReason, ForwarderConfig, StrategyKind, MS};
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

#[test]
fn asf_retries_another_next_hop_on_nack() {
    let mut lab = Lab::standard();
    set(&mut lab, "/a", "/localhost/nfd/strategy/asf/v=4");
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    let i = interest("/a/1", 1);
    lab.send_interest(A, i.clone());
    let out = lab.take();
    assert_eq!(
        summary(&out),
        vec![(B.0, "I".into())],
        "unmeasured: by cost"
    );
    lab.send_nack(
        B,
        i.clone(),
        NackReason::NoRoute,
        out[0].meta.pit_token.clone(),
    );
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())], "retried on C");
    lab.send_nack(C, i, NackReason::NoRoute, None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "N:no-route".into())]);
    // B and C each count a failure.
    assert_eq!(lab.fw.asf_stats(&name("/a"), B).unwrap().failures, 1);
}

#[test]
fn asf_learns_the_faster_path_by_probing() {
    let mut lab = Lab::standard_with(ForwarderConfig {
        asf_probing_interval: 100 * MS,
        ..Default::default()
    });
    set(&mut lab, "/a", "/localhost/nfd/strategy/asf");
    lab.route("/a", B, 1); // cheap but slow: 50 ms
    lab.route("/a", C, 10); // expensive but fast: 5 ms
    let mut to_c = 0;
    for n in 0..200u32 {
        let uri = format!("/a/{n}");
        lab.send_interest(A, interest(&uri, n + 1));
        let out = lab.take();
        assert!(!out.is_empty());
        // Answer from the fastest face that got it.
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
fn asf_ranks_timed_out_faces_last() {
    let mut lab = Lab::standard();
    set(&mut lab, "/a", "/localhost/nfd/strategy/asf");
    lab.route("/a", B, 1);
    lab.route("/a", C, 2);
    lab.send_interest(A, interest_with("/a/1", 1, |b| b.lifetime_ms(100)));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    lab.run_for_ms(150); // B times out
    assert_eq!(lab.fw.asf_stats(&name("/a"), B).unwrap().failures, 1);
    lab.send_interest(A, interest("/a/2", 2));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}
