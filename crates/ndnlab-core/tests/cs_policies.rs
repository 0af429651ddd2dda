//! Content Store eviction order for each policy, and capacity in packets and bytes.

mod common;

use common::*;
use ndnlab_core::{CsPolicyKind, ForwarderConfig, UnsolicitedDataPolicy};

fn lab(policy: CsPolicyKind, capacity: usize) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_policy: policy,
        cs_capacity: capacity,
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    lab.route("/", C, 1);
    lab
}

fn cached(lab: &mut Lab) -> Vec<String> {
    let now = lab.now;
    lab.fw
        .cs()
        .eviction_order(now)
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn hit(lab: &mut Lab, uri: &str, nonce: u32) {
    lab.send_interest(B, interest(uri, nonce));
    assert_eq!(
        summary(&lab.take()),
        vec![(B.0, "D".into())],
        "{uri} should be a hit"
    );
}

#[test]
fn lru_evicts_least_recently_used() {
    let mut lab = lab(CsPolicyKind::Lru, 3);
    for n in ["/1", "/2", "/3"] {
        lab.send_data(A, data(n), None);
    }
    hit(&mut lab, "/1", 1);
    assert_eq!(cached(&mut lab), vec!["/2", "/3", "/1"]);
    lab.send_data(A, data("/4"), None);
    assert_eq!(cached(&mut lab), vec!["/3", "/1", "/4"]);
}

#[test]
fn priority_fifo_evicts_unsolicited_then_stale_then_fresh() {
    let mut lab = lab(CsPolicyKind::PriorityFifo, 3);
    // Solicited: fresh /f (10 s) and /s (stale after 10 ms).
    for (uri, fresh) in [("/f", Some(10_000)), ("/s", Some(10))] {
        lab.send_interest(A, interest(uri, 1));
        lab.take();
        lab.send_data(C, data_fresh(uri, fresh), None);
        lab.take();
    }
    lab.send_data(A, data("/u"), None); // unsolicited
    lab.advance_ms(20);
    assert_eq!(cached(&mut lab), vec!["/u", "/s", "/f"]);
    // Hits do not reorder a FIFO.
    hit(&mut lab, "/f", 2);
    lab.send_interest(A, interest("/g", 3));
    lab.take();
    lab.send_data(C, data("/g"), None);
    lab.take();
    assert_eq!(cached(&mut lab), vec!["/s", "/f", "/g"]);
    lab.send_data(A, data("/u2"), None);
    assert_eq!(cached(&mut lab), vec!["/u2", "/f", "/g"]);
}

#[test]
fn tinylfu_keeps_popular_entries_against_one_hit_wonders() {
    let mut lab = lab(CsPolicyKind::TinyLfu, 2);
    lab.send_data(A, data("/pop1"), None);
    lab.send_data(A, data("/pop2"), None);
    for k in 0..4 {
        hit(&mut lab, "/pop1", 10 + k);
        hit(&mut lab, "/pop2", 20 + k);
    }
    // One-hit wonders are requested once (a miss) and then arrive: not admitted.
    for k in 0..5u32 {
        let uri = format!("/once/{k}");
        lab.send_interest(A, interest(&uri, 100 + k));
        lab.take();
        lab.send_data(C, data(&uri), None);
        assert_eq!(
            summary(&lab.take()),
            vec![(A.0, "D".into())],
            "still forwarded"
        );
    }
    assert_eq!(cached(&mut lab), vec!["/pop1", "/pop2"]);
    // A name requested often enough gets in, replacing the LRU victim.
    for k in 0..8u32 {
        lab.send_interest(A, interest("/rising", 200 + k));
        lab.take();
        lab.advance_ms(5_000); // the entry expires, so the next Interest looks up the CS again
    }
    lab.send_data(C, data("/rising"), None);
    lab.take();
    let c = cached(&mut lab);
    assert!(c.contains(&"/rising".to_string()), "{c:?}");
    assert_eq!(c.len(), 2);
}

#[test]
fn lru_without_admission_is_flushed_by_one_hit_wonders() {
    // Same workload as above, plain LRU: the popular entries are lost.
    let mut lab = lab(CsPolicyKind::Lru, 2);
    lab.send_data(A, data("/pop1"), None);
    lab.send_data(A, data("/pop2"), None);
    for k in 0..4 {
        hit(&mut lab, "/pop1", 10 + k);
    }
    for k in 0..2u32 {
        lab.send_data(A, data(&format!("/once/{k}")), None);
    }
    assert_eq!(cached(&mut lab), vec!["/once/0", "/once/1"]);
}

#[test]
fn capacity_in_bytes_and_runtime_reconfiguration() {
    let mut lab = lab(CsPolicyKind::Lru, 100);
    let size = data("/b/0").wire().len();
    let now = lab.now;
    lab.fw.cs().set_capacity_bytes(3 * size + size / 2, now);
    for k in 0..5 {
        lab.send_data(A, data(&format!("/b/{k}")), None);
    }
    assert_eq!(cached(&mut lab), vec!["/b/2", "/b/3", "/b/4"]);
    assert_eq!(lab.fw.cs_ref().bytes(), 3 * size);
    lab.fw.cs().set_capacity(1, now);
    assert_eq!(cached(&mut lab), vec!["/b/4"]);
    lab.fw.cs().set_policy(CsPolicyKind::PriorityFifo, now);
    assert_eq!(lab.fw.cs_ref().policy(), CsPolicyKind::PriorityFifo);
    assert_eq!(lab.fw.cs_ref().info().n_entries, 1);
    lab.fw.cs().set_capacity(0, now);
    assert!(lab.fw.cs_ref().is_empty());
    lab.send_data(A, data("/b/9"), None);
    assert!(lab.fw.cs_ref().is_empty(), "capacity 0 caches nothing");
}
