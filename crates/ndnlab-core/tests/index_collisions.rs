//! The name index stores 32-bit key fingerprints (8 B buckets): names whose keys
//! share a fingerprint share a bucket and are told apart by the collision chain's
//! full-name comparison. These scenarios use a real colliding pair of names.

mod common;

use common::*;
use ndnlab_core::hash::key;
use ndnlab_core::index::fingerprint;
use ndnlab_core::{ForwarderConfig, UnsolicitedDataPolicy};
use ndnlab_wire::Name;

/// Two distinct 3-component names under `/a` whose index keys share a fingerprint
/// (deterministic birthday search).
fn colliding_pair() -> (String, String) {
    let mut seen = std::collections::HashMap::new();
    for i in 0u64.. {
        let uri = format!("/a/fp/{i}");
        let n: Name = name(&uri);
        let fp = fingerprint(key(n.prefix_hash(3), 3));
        if let Some(other) = seen.insert(fp, uri.clone()) {
            return (other, uri);
        }
    }
    unreachable!()
}

#[test]
fn colliding_names_keep_separate_cs_entries() {
    let (a, b) = colliding_pair();
    let mut lab = Lab::standard_with(ForwarderConfig {
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    lab.route("/a", C, 1);
    lab.send_data(D, data(&a), None);
    lab.send_data(D, data(&b), None);
    lab.send_interest(A, interest(&b, 1));
    lab.send_interest(B, interest(&a, 2));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "D".into()), (B.0, "D".into())]);
    assert_eq!(as_data(&out[0]).name(), &name(&b));
    assert_eq!(as_data(&out[1]).name(), &name(&a));
    assert_eq!(lab.fw.counters().n_cs_hits, 2);
    // Erasing one leaves the other reachable.
    lab.fw.cs().erase(&name(&a), 10);
    lab.send_interest(A, interest(&a, 3));
    lab.send_interest(B, interest(&b, 4));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(C.0, "I".into()), (B.0, "D".into())]);
    assert_eq!(as_data(&out[1]).name(), &name(&b));
}

#[test]
fn colliding_names_keep_separate_pit_entries() {
    let (a, b) = colliding_pair();
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_interest(A, interest(&a, 1));
    lab.send_interest(B, interest(&b, 2));
    // Not aggregated: two upstream Interests, two PIT entries.
    assert_eq!(
        summary(&lab.take()),
        vec![(C.0, "I".into()), (C.0, "I".into())]
    );
    assert_eq!(lab.fw.pit_len(), 2);
    lab.send_data(C, data(&b), None);
    let out = lab.take();
    assert_eq!(summary(&out), vec![(B.0, "D".into())]);
    assert_eq!(lab.fw.pit_len(), 1);
    lab.send_data(C, data(&a), None);
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(lab.fw.pit_len(), 0);
}
