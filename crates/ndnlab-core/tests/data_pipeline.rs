//! Scenario tests of the Data pipelines and the Content Store: freshness,
//! CanBePrefix, implicit digest, unsolicited Data, PIT tokens, NoCache.

mod common;

use bytes::Bytes;
use common::*;
use ndnlab_core::{
    CsPolicyKind, DropReason, FaceId, ForwarderConfig, LpMeta, UnsolicitedDataPolicy,
};

fn fetch(
    lab: &mut Lab,
    from: FaceId,
    i: ndnlab_wire::Interest,
    upstream: FaceId,
    d: ndnlab_wire::Data,
) {
    lab.send_interest(from, i);
    let out = lab.take();
    assert_eq!(summary(&out), vec![(upstream.0, "I".into())]);
    lab.send_data(upstream, d, out[0].meta.pit_token.clone());
    lab.take();
}

#[test]
fn cs_hit_serves_from_cache_with_content_store_face_id() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    fetch(&mut lab, A, interest("/a/1", 1), C, data("/a/1"));
    let tok = Bytes::from_static(b"t");
    lab.send_interest_meta(
        APP,
        interest("/a/1", 2),
        LpMeta {
            pit_token: Some(tok.clone()),
            ..Default::default()
        },
    );
    let out = lab.take();
    assert_eq!(summary(&out), vec![(APP.0, "D".into())]);
    assert_eq!(
        out[0].meta.incoming_face_id,
        FaceId::CONTENT_STORE.incoming_face_id()
    );
    assert_eq!(out[0].meta.pit_token, Some(tok));
    let c = lab.fw.counters();
    assert_eq!(
        (c.n_cs_hits, c.n_cs_misses, c.n_satisfied_interests),
        (1, 1, 2)
    );
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.cs_ref().info().n_hits, 1);
}

#[test]
fn cs_freshness_stale_data_only_for_interests_without_must_be_fresh() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    fetch(
        &mut lab,
        A,
        interest("/a/1", 1),
        C,
        data_fresh("/a/1", Some(100)),
    );
    // Fresh: MustBeFresh is served.
    lab.advance_ms(50);
    lab.send_interest(B, interest_with("/a/1", 2, |b| b.must_be_fresh(true)));
    assert_eq!(summary(&lab.take()), vec![(B.0, "D".into())]);
    // Stale: MustBeFresh goes upstream, a plain Interest is still served.
    lab.advance_ms(60);
    lab.send_interest(B, interest_with("/a/1", 3, |b| b.must_be_fresh(true)));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    lab.send_interest(D, interest("/a/1", 4));
    assert_eq!(summary(&lab.take()), vec![(D.0, "D".into())]);
    // No FreshnessPeriod: stale at once.
    fetch(
        &mut lab,
        A,
        interest("/a/2", 5),
        C,
        data_fresh("/a/2", None),
    );
    lab.send_interest(B, interest_with("/a/2", 6, |b| b.must_be_fresh(true)));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    assert_eq!(lab.fw.counters().n_cs_hits, 2);
}

#[test]
fn can_be_prefix_matches_longer_data_in_pit_and_cs() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    // PIT: /a/b with CanBePrefix is satisfied by /a/b/v=1/seg=0.
    lab.send_interest(A, interest_with("/a/b", 1, |b| b.can_be_prefix(true)));
    let out = lab.take();
    lab.send_data(C, data("/a/b/v=1/seg=0"), None); // no token echoed: name lookup
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(lab.fw.counters().n_satisfied_interests, 1);
    drop(out);
    // CS: a later CanBePrefix Interest /a/b hits it; an exact /a/b does not.
    lab.send_interest(B, interest_with("/a/b", 2, |b| b.can_be_prefix(true)));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "D".into())]);
    assert_eq!(as_data(&out[0]).name(), &name("/a/b/v=1/seg=0"));
    lab.send_interest(B, interest("/a/b", 3));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // Exact Interest for the full name hits the direct entry.
    lab.send_interest(D, interest("/a/b/v=1/seg=0", 4));
    assert_eq!(summary(&lab.take()), vec![(D.0, "D".into())]);
}

/// Several matched entries and downstreams: each downstream gets the Data exactly once
/// (the pipeline keeps the first downstream apart from the others).
#[test]
fn every_downstream_of_every_matched_entry_gets_the_data_once() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    // Exact /a/b from A, B and D; CanBePrefix /a from B and A (again) and APP.
    for (face, nonce) in [(A, 1), (B, 2), (D, 3)] {
        lab.send_interest(face, interest("/a/b", nonce));
    }
    for (face, nonce) in [(B, 4), (A, 5), (APP, 6)] {
        lab.send_interest(face, interest_with("/a", nonce, |b| b.can_be_prefix(true)));
    }
    lab.take();
    assert_eq!(lab.fw.pit_len(), 2);
    lab.send_data(C, data("/a/b"), None);
    let mut got: Vec<u64> = summary(&lab.take()).into_iter().map(|(f, _)| f).collect();
    got.sort_unstable();
    assert_eq!(got, vec![A.0, B.0, D.0, APP.0]);
    assert_eq!(lab.fw.pit_len(), 0);
    assert_eq!(lab.fw.counters().n_out_data, 4);
}

#[test]
fn data_without_can_be_prefix_does_not_satisfy_a_shorter_interest() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/b", 1));
    lab.take();
    lab.send_data(C, data("/a/b/c"), None);
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
    assert_eq!(lab.fw.pit_len(), 1);
}

#[test]
fn implicit_digest_interest_matches_only_that_data() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    let d = data("/a/1");
    let other = data_fresh("/a/1", Some(5)); // same name, different bytes
    assert_ne!(d.implicit_digest(), other.implicit_digest());
    let full = d.full_name().to_string();
    lab.send_interest(A, interest(&full, 1));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into())]);
    // Data with the same name but another digest does not satisfy it (unsolicited).
    lab.send_data(C, other, None);
    assert!(lab.take().is_empty());
    assert_eq!(lab.fw.counters().drops.get(DropReason::UnsolicitedData), 1);
    lab.send_data(C, d.clone(), out[0].meta.pit_token.clone());
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    // The CS answers the digest Interest, but not one with another digest.
    lab.send_interest(B, interest(&full, 2));
    assert_eq!(summary(&lab.take()), vec![(B.0, "D".into())]);
    let other_full = format!("/a/1/sha256digest={}", "00".repeat(32));
    lab.send_interest(B, interest(&other_full, 3));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}

#[test]
fn unsolicited_data_policies() {
    for (policy, from, cached) in [
        (UnsolicitedDataPolicy::DropAll, A, false),
        (UnsolicitedDataPolicy::DropAll, APP, false),
        (UnsolicitedDataPolicy::AdmitLocal, A, false),
        (UnsolicitedDataPolicy::AdmitLocal, APP, true),
        (UnsolicitedDataPolicy::AdmitNetwork, A, true),
        (UnsolicitedDataPolicy::AdmitNetwork, APP, false),
        (UnsolicitedDataPolicy::AdmitAll, A, true),
    ] {
        let mut lab = Lab::standard_with(ForwarderConfig {
            unsolicited: policy,
            ..Default::default()
        });
        lab.send_data(from, data("/u/1"), None);
        assert!(lab.take().is_empty());
        assert_eq!(
            lab.fw.cs_ref().contains(&name("/u/1")),
            cached,
            "{policy:?} from {from}"
        );
        assert_eq!(
            lab.fw.counters().drops.get(DropReason::UnsolicitedData),
            u64::from(!cached)
        );
        if cached {
            lab.send_interest(B, interest("/u/1", 1));
            assert_eq!(summary(&lab.take()), vec![(B.0, "D".into())]);
        }
    }
}

#[test]
fn pit_token_finds_entry_and_falls_back_to_name_lookup() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/1", 1));
    lab.send_interest(A, interest("/a/2", 2));
    let out = lab.take();
    let (t1, t2) = (
        out[0].meta.pit_token.clone().unwrap(),
        out[1].meta.pit_token.clone().unwrap(),
    );
    assert_ne!(t1, t2);
    assert_eq!(ndnlab_core::dispatch_by_token(&t1, 1), Some(0));
    // Echoed token.
    lab.send_data(C, data("/a/1"), Some(t1.clone()));
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    // No token: name lookup.
    lab.send_data(C, data("/a/2"), None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    // A stale token (entry gone, slot reused) is not trusted: /a/3 is matched by name.
    lab.send_interest(A, interest("/a/3", 3));
    lab.take();
    lab.send_data(C, data("/a/3"), Some(t1));
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    // A foreign token (not ours) also falls back.
    lab.send_interest(A, interest("/a/4", 4));
    lab.take();
    lab.send_data(C, data("/a/4"), Some(Bytes::from_static(b"foreign")));
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(lab.fw.counters().n_satisfied_interests, 4);
}

#[test]
fn no_cache_and_admit_serve_flags() {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest("/a/1", 1));
    lab.take();
    lab.fw.handle_data(
        lab.now,
        C,
        data("/a/1"),
        LpMeta {
            cache_policy_no_cache: true,
            ..Default::default()
        },
    );
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert!(!lab.fw.cs_ref().contains(&name("/a/1")));

    lab.fw.cs().set_admit(false);
    fetch(&mut lab, A, interest("/a/2", 2), C, data("/a/2"));
    assert!(lab.fw.cs_ref().is_empty());
    lab.fw.cs().set_admit(true);
    fetch(&mut lab, A, interest("/a/3", 3), C, data("/a/3"));
    assert_eq!(lab.fw.cs_ref().len(), 1);
    lab.fw.cs().set_serve(false);
    lab.send_interest(B, interest("/a/3", 4));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}

#[test]
fn cs_erase_by_prefix_with_limit() {
    let mut lab = Lab::standard_with(ForwarderConfig {
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        cs_policy: CsPolicyKind::Lru,
        ..Default::default()
    });
    for i in 0..5 {
        lab.send_data(A, data(&format!("/x/{i}")), None);
        lab.send_data(A, data(&format!("/y/{i}")), None);
    }
    assert_eq!(lab.fw.cs_ref().len(), 10);
    assert_eq!(lab.fw.cs().erase(&name("/x"), 3), 3);
    assert_eq!(lab.fw.cs().erase(&name("/x"), 100), 2);
    assert_eq!(lab.fw.cs_ref().len(), 5);
    assert!(lab.fw.cs_ref().contains(&name("/y/4")));
    assert_eq!(lab.fw.cs().erase(&name("/"), usize::MAX), 5);
    assert!(lab.fw.cs_ref().is_empty());
}

#[test]
fn data_with_localhost_name_from_non_local_face_is_dropped() {
    let mut lab = Lab::standard();
    lab.send_data(A, data("/localhost/x"), None);
    assert_eq!(
        lab.fw.counters().drops.get(DropReason::LocalhostViolation),
        1
    );
}
