//! Resource bounds: the PIT size in total and per face, and the Interest rate of
//! each face. Each limit is counted when it bites (drop reason and the face's
//! `n_in_limited`), and a flood on one face leaves the others their share.

mod common;

use common::*;
use ndnlab_core::{DropReason, ForwarderConfig, Limits};

fn lab(limits: Limits) -> Lab {
    let mut lab = Lab::standard_with(ForwarderConfig {
        limits,
        ..Default::default()
    });
    lab.route("/", D, 1);
    lab
}

fn drops(lab: &Lab, r: DropReason) -> u64 {
    lab.fw.counters().drops.get(r)
}

fn limited(lab: &Lab, f: ndnlab_core::FaceId) -> u64 {
    lab.fw.face_counters(f).unwrap().n_in_limited
}

#[test]
fn the_pit_never_exceeds_its_bound_and_refusals_are_nacked_and_counted() {
    let mut lab = lab(Limits {
        pit_max_entries: 10,
        ..Default::default()
    });
    for i in 0..25 {
        lab.send_interest(A, interest(&format!("/flood/{i}"), i));
    }
    assert_eq!(lab.fw.pit_len(), 10);
    assert_eq!(drops(&lab, DropReason::PitFull), 15);
    assert_eq!(limited(&lab, A), 15);
    let out = lab.take();
    let nacks = summary(&out)
        .into_iter()
        .filter(|(f, k)| *f == A.0 && k == "N:congestion")
        .count();
    assert_eq!(nacks, 15, "{:?}", summary(&out));
    // An Interest joining a pending entry needs no new entry: accepted.
    lab.send_interest(B, interest("/flood/3", 1000));
    assert_eq!(drops(&lab, DropReason::PitFull), 15);
    // Entries expire: room again.
    lab.run_for_ms(5000);
    assert_eq!(lab.fw.pit_len(), 0);
    lab.send_interest(A, interest("/after", 9));
    assert_eq!(lab.fw.pit_len(), 1);
}

#[test]
fn a_flooding_face_is_held_to_its_share_and_the_others_keep_theirs() {
    let mut lab = lab(Limits {
        pit_max_entries: 100,
        pit_max_per_face: 40,
        ..Default::default()
    });
    for i in 0..1000 {
        lab.send_interest(A, interest(&format!("/flood/{i}"), i));
    }
    assert_eq!(lab.fw.pit_len(), 40);
    assert_eq!(drops(&lab, DropReason::PitFaceFull), 960);
    // The legitimate face still gets every one of its Interests through.
    lab.take();
    for i in 0..40 {
        lab.send_interest(B, interest(&format!("/legit/{i}"), 5000 + i));
    }
    assert_eq!(limited(&lab, B), 0);
    assert_eq!(lab.fw.pit_len(), 80);
    let sent = lab.take();
    assert_eq!(summary(&sent).iter().filter(|(f, _)| *f == D.0).count(), 40);
    // Satisfied entries give the face its share back.
    for t in sent.iter().filter(|t| t.face == D).take(10) {
        let i = as_interest(t);
        lab.send_data(D, data(&i.name().to_string()), t.meta.pit_token.clone());
    }
    assert_eq!(lab.fw.pit_len(), 70);
    for i in 0..10 {
        lab.send_interest(B, interest(&format!("/legit2/{i}"), 9000 + i));
    }
    assert_eq!(limited(&lab, B), 0);
    // Expired entries too.
    lab.run_for_ms(5000);
    assert_eq!(lab.fw.pit_len(), 0);
    for i in 0..40 {
        lab.send_interest(A, interest(&format!("/again/{i}"), 20_000 + i));
    }
    assert_eq!(lab.fw.pit_len(), 40);
    assert_eq!(drops(&lab, DropReason::PitFaceFull), 960);
}

#[test]
fn a_removed_face_gives_its_entries_back() {
    let mut lab = lab(Limits {
        pit_max_per_face: 5,
        ..Default::default()
    });
    for i in 0..5 {
        lab.send_interest(A, interest(&format!("/x/{i}"), i));
    }
    lab.fw.remove_face(A, lab.now);
    assert_eq!(lab.fw.pit_len(), 0);
    lab.fw.add_face(
        A,
        ndnlab_core::FaceScope::NonLocal,
        ndnlab_core::LinkType::PointToPoint,
    );
    for i in 0..5 {
        lab.send_interest(A, interest(&format!("/y/{i}"), 100 + i));
    }
    assert_eq!(lab.fw.pit_len(), 5);
}

#[test]
fn the_interest_rate_of_a_face_is_policed_with_its_burst() {
    let mut lab = lab(Limits {
        interest_rate: 100, // one per 10 ms
        interest_burst: 5,
        ..Default::default()
    });
    // A full bucket: 5 back to back, then the rest of the burst is dropped.
    for i in 0..20 {
        lab.send_interest(A, interest(&format!("/r/{i}"), i));
    }
    assert_eq!(drops(&lab, DropReason::InterestRateLimit), 15);
    assert_eq!(limited(&lab, A), 15);
    // 50 ms refill 5 Interests.
    lab.advance_ms(50);
    for i in 20..30 {
        lab.send_interest(A, interest(&format!("/r/{i}"), i));
    }
    assert_eq!(drops(&lab, DropReason::InterestRateLimit), 20);
    // Another face has its own bucket; Data is never limited.
    for i in 0..5 {
        lab.send_interest(B, interest(&format!("/b/{i}"), 100 + i));
    }
    assert_eq!(limited(&lab, B), 0);
    assert_eq!(lab.fw.pit_len(), 15);
    // At the rate (one per 10 ms), nothing is dropped.
    for i in 0..100 {
        lab.advance_ms(10);
        lab.send_interest(C, interest(&format!("/c/{i}"), 1000 + i));
    }
    assert_eq!(limited(&lab, C), 0);
}

#[test]
fn limits_are_off_by_default() {
    let mut lab = lab(Limits::default());
    for i in 0..5000 {
        lab.send_interest(A, interest(&format!("/n/{i}"), i));
    }
    assert_eq!(lab.fw.pit_len(), 5000);
    assert_eq!(lab.fw.counters().drops.total(), 0);
}

#[test]
fn the_cs_stays_within_its_bytes_and_counts_its_evictions() {
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_capacity: 1000,
        cs_capacity_bytes: 2000,
        ..Default::default()
    });
    lab.route("/", D, 1);
    for i in 0..50 {
        let uri = format!("/c/{i}");
        lab.send_interest(A, interest(&uri, i));
        let out = lab.take();
        lab.send_data(D, data(&uri), out[0].meta.pit_token.clone());
        lab.take();
    }
    let info = lab.fw.cs_ref().info();
    assert!(info.n_bytes <= 2000, "{info:?}");
    assert!(info.n_entries > 0 && info.n_entries < 50, "{info:?}");
    assert_eq!(info.n_evictions, 50 - info.n_entries as u64, "{info:?}");
}
