//! NFD-style CanBePrefix matching in the CS (`ContentStore::set_prefix_match`), and
//! the default NDN-DPDK-style behaviour without it.

mod common;

use common::*;
use ndnlab_core::{ForwarderConfig, UnsolicitedDataPolicy, MS};

fn lab() -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    lab.route("/a", C, 1);
    lab
}

#[test]
fn default_cs_answers_can_be_prefix_only_for_exact_or_indirect_entries() {
    let mut lab = lab();
    assert!(!lab.fw.cs_ref().prefix_match());
    // Cached by exact name (unsolicited, admitted by policy).
    lab.send_data(D, data("/a/b/c"), None);
    lab.send_interest(A, interest_with("/a/b", 1, |b| b.can_be_prefix(true)));
    assert_eq!(
        summary(&lab.take()),
        vec![(C.0, "I".into())],
        "forwarded, not a CS hit"
    );
    assert_eq!(lab.fw.counters().n_cs_hits, 0);
}

#[test]
fn prefix_match_answers_any_cached_data_under_the_name() {
    let mut lab = lab();
    lab.fw.cs().set_prefix_match(true);
    lab.send_data(D, data("/a/b/c"), None);
    lab.send_data(D, data("/a/bb"), None);
    // /a/b with CanBePrefix: /a/b/c is under it, /a/bb is not (component boundary).
    lab.send_interest(A, interest_with("/a/b", 1, |b| b.can_be_prefix(true)));
    let out = lab.take();
    assert_eq!(summary(&out), vec![(A.0, "D".into())]);
    assert_eq!(as_data(&out[0]).name(), &name("/a/b/c"));
    assert_eq!(lab.fw.counters().n_cs_hits, 1);
    assert_eq!(lab.fw.pit_len(), 0);
    // Without CanBePrefix it is still an exact-name lookup: a miss, forwarded.
    lab.send_interest(A, interest("/a/b", 2));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // A prefix with nothing cached under it misses.
    lab.send_interest(B, interest_with("/a/x", 3, |b| b.can_be_prefix(true)));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}

#[test]
fn prefix_match_skips_stale_data_for_must_be_fresh_and_forgets_evicted_data() {
    let mut lab = lab();
    // Enabled after caching: the index is built from the current entries.
    lab.send_data(D, data_fresh("/a/p/1", Some(10)), None);
    lab.send_data(D, data_fresh("/a/p/2", Some(60_000)), None);
    lab.fw.cs().set_prefix_match(true);
    lab.now += 100 * MS;
    lab.send_interest(
        A,
        interest_with("/a/p", 1, |b| b.can_be_prefix(true).must_be_fresh(true)),
    );
    let out = lab.take();
    assert_eq!(
        as_data(&out[0]).name(),
        &name("/a/p/2"),
        "stale /a/p/1 skipped"
    );
    // Erase /a/p/2 (and /a/p/1): nothing is left under /a/p.
    assert_eq!(lab.fw.cs().erase(&name("/a/p"), 10), 2);
    lab.send_interest(B, interest_with("/a/p", 2, |b| b.can_be_prefix(true)));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
    // Turning it off restores the default behaviour.
    lab.send_data(D, data("/a/q/1"), None);
    lab.fw.cs().set_prefix_match(false);
    lab.send_interest(B, interest_with("/a/q", 3, |b| b.can_be_prefix(true)));
    assert_eq!(summary(&lab.take()), vec![(C.0, "I".into())]);
}

#[test]
fn prefix_index_follows_capacity_evictions() {
    let mut lab = lab();
    lab.fw.cs().set_prefix_match(true);
    lab.fw.cs().set_capacity(2, lab.now);
    for k in 0..10 {
        lab.send_data(D, data(&format!("/a/e/{k}")), None);
    }
    assert_eq!(lab.fw.cs_ref().len(), 2);
    lab.send_interest(A, interest_with("/a/e", 1, |b| b.can_be_prefix(true)));
    let out = lab.take();
    let got = as_data(&out[0]).name().to_string();
    assert!(
        got == "/a/e/8" || got == "/a/e/9",
        "an evicted entry was served: {got}"
    );
}
