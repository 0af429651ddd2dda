//! The forwarder against cache poisoning and scope leaks: it never serves a cached
//! Data under a name that Data does not match, drops unsolicited Data by default,
//! never forwards `/localhost` onto a non-local face, and lets `/localhop` go at
//! most one hop.

mod common;

use common::*;
use ndnlab_core::{DropReason, FaceId, FaceScope, LinkType};

#[test]
fn data_answering_another_name_is_unsolicited_and_never_cached_under_the_asked_name() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, interest("/a/1", 1));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "I".into())]);
    // The upstream answers /a/1 with /a/2 (and the forwarder's own PIT token).
    lab.send_data(B, data("/a/2"), out[0].meta.pit_token.clone());
    assert!(lab.take().is_empty(), "nothing goes to the consumer");
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
    assert!(!lab.fw.cs_ref().contains(&name("/a/2")));
    // Nor is anything served for /a/1 or /a/2 from the CS.
    lab.send_interest(C, interest("/a/2", 2));
    lab.send_interest(C, interest("/a/1", 3));
    assert!(summary(&lab.take())
        .iter()
        .all(|(f, k)| *f == B.0 && k == "I"));
    assert_eq!(lab.fw.counters().n_cs_hits, 0);
}

#[test]
fn cached_data_is_served_only_to_interests_it_matches() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, interest("/a/b", 1));
    let out = lab.take();
    let d = data("/a/b");
    lab.send_data(B, d.clone(), out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert!(lab.fw.cs_ref().contains(&name("/a/b")));
    // A sibling name, a longer name, and the prefix without CanBePrefix all miss.
    for (i, uri) in ["/a/c", "/a/b/c", "/a"].iter().enumerate() {
        lab.send_interest(C, interest(uri, 10 + i as u32));
        let out = lab.take();
        assert_eq!(summary(&out), vec![(B.0, "I".into())], "{uri}");
    }
    // A wrong implicit digest misses; the right one hits with the Data's own name.
    let mut wrong = d.implicit_digest();
    wrong[0] ^= 1;
    let with_digest = |dg: [u8; 32]| {
        let hex: String = dg.iter().map(|b| format!("{b:02x}")).collect();
        format!("/a/b/sha256digest={hex}")
    };
    lab.send_interest(C, interest(&with_digest(wrong), 20));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    lab.send_interest(D, interest(&with_digest(d.implicit_digest()), 21));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(D.0, "D".into())]);
    assert_eq!(as_data(&out[0]).name(), &name("/a/b"));
}

#[test]
fn localhost_never_leaves_on_a_non_local_face() {
    let mut lab = Lab::standard();
    lab.route("/localhost/x", B, 1);
    // From a local face: the only next hop is non-local, so nothing is forwarded.
    lab.send_interest(APP, interest("/localhost/x/1", 1));
    let out = lab.take();
    assert!(out.iter().all(|t| t.face == APP), "{:?}", summary(&out));
    // From a non-local face: dropped on arrival, counted.
    lab.send_interest(A, interest("/localhost/x/2", 2));
    assert!(lab.take().is_empty());
    assert_eq!(
        lab.fw.counters().drops.get(DropReason::LocalhostViolation),
        1
    );
}

#[test]
fn localhop_goes_at_most_one_hop() {
    let mut lab = Lab::standard();
    let local2 = FaceId(301);
    lab.fw
        .add_face(local2, FaceScope::Local, LinkType::PointToPoint);
    lab.route("/localhop/x", B, 1);
    // From an app on this host: one hop out to the neighbour.
    lab.send_interest(APP, interest("/localhop/x/1", 1));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    // From the neighbour (non-local): not forwarded onto another non-local face.
    lab.send_interest(A, interest("/localhop/x/2", 2));
    let out = lab.take();
    assert!(
        out.iter().all(|t| t.face == A),
        "no second hop: {:?}",
        summary(&out)
    );
    // ...but delivered to an app on this host.
    lab.route("/localhop/x", local2, 0);
    lab.send_interest(A, interest("/localhop/x/3", 3));
    assert_eq!(summary(&lab.take()), vec![(local2.0, "I".into())]);
}
