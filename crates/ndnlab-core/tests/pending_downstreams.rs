//! Where each Interest from one downstream ends when it meets an entry of its name
//! (pending, just satisfied, expired but not yet timed out) or the Dead Nonce List:
//! answered, forwarded, Nacked, or counted (aggregated into the downstream's
//! in-record, suppressed, a loop). A face's `n_in_interests` above its Data, Nacks
//! and forwarded Interests is exactly `n_aggregated_interests` plus the counted
//! drops, and an aggregated Interest shares the one Data its in-record gets (NFD:
//! one Data per pending downstream face).

mod common;

use bytes::Bytes;
use common::*;
use ndnlab_core::{
    DropReason, FaceId, FaceScope, InPacket, LinkType, LpMeta, OutPacket, Transmit, MS,
};

fn fresh(uri: &str, nonce: u32) -> ndnlab_wire::Interest {
    interest_with(uri, nonce, |b| b.must_be_fresh(true).lifetime_ms(2000))
}

fn token(t: &'static [u8]) -> LpMeta {
    LpMeta {
        pit_token: Some(Bytes::from_static(t)),
        ..Default::default()
    }
}

/// The Data sent to `to` among `out`, with the PIT token each carries.
fn data_to(out: &[Transmit], to: FaceId) -> Vec<Option<Bytes>> {
    out.iter()
        .filter(|t| t.face == to && matches!(t.packet, OutPacket::Data(_)))
        .map(|t| t.meta.pit_token.clone())
        .collect()
}

/// The Interest ledger holds and the PIT is as the counters say.
fn ledger_holds(lab: &Lab) {
    let c = lab.fw.counters();
    assert_eq!(c.pending_interests(0), Some(lab.fw.pit_len() as u64));
}

#[test]
fn a_second_interest_of_a_pending_name_from_the_same_face_joins_its_in_record() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest_meta(A, fresh("/a/1", 1), token(b"t1"));
    let up = lab.take();
    assert_eq!(summary(&up), vec![(B.0, "I".into())]);
    // Within the 10 ms suppression interval: neither forwarded nor answered yet.
    lab.now += MS;
    lab.send_interest_meta(A, fresh("/a/1", 2), token(b"t2"));
    assert!(lab.take().is_empty());
    let c = lab.fw.counters();
    assert_eq!(c.n_aggregated_interests, 1);
    assert_eq!(c.drops.get(DropReason::RetxSuppressed), 1);
    ledger_holds(&lab);

    lab.send_data(B, data("/a/1"), up[0].meta.pit_token.clone());
    let out = lab.take();
    // One Data for the face's one in-record, with the latest Interest's token: the
    // downstream matches it to both of its Interests by name.
    assert_eq!(data_to(&out, A), vec![Some(Bytes::from_static(b"t2"))]);
    let fa = lab.fw.face_counters(A).unwrap();
    assert_eq!(
        (fa.n_in_interests, fa.n_out_data, fa.n_out_nacks),
        (2, 1, 0)
    );
    let c = lab.fw.counters();
    assert_eq!(fa.n_in_interests - fa.n_out_data, c.n_aggregated_interests);
    assert_eq!(lab.fw.pit_len(), 0);
    ledger_holds(&lab);
}

#[test]
fn an_interest_right_after_its_data_is_answered_from_the_cs_or_forwarded() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, fresh("/a/1", 1));
    let up = lab.take();
    lab.send_data(
        B,
        data_fresh("/a/1", Some(1000)),
        up[0].meta.pit_token.clone(),
    );
    assert_eq!(data_to(&lab.take(), A).len(), 1);
    // The entry is gone with its in-records: the next Interest at the same instant
    // is a CS hit, not merged into a leftover in-record.
    assert_eq!(lab.fw.pit_len(), 0);
    lab.send_interest(A, fresh("/a/1", 2));
    assert_eq!(data_to(&lab.take(), A).len(), 1);
    assert_eq!(lab.fw.counters().n_cs_hits, 1);

    // Data without FreshnessPeriod is stale at once: MustBeFresh misses and the
    // Interest goes upstream.
    lab.send_interest(A, fresh("/a/2", 3));
    let up = lab.take();
    lab.send_data(B, data_fresh("/a/2", None), up[0].meta.pit_token.clone());
    assert_eq!(data_to(&lab.take(), A).len(), 1);
    lab.send_interest(A, fresh("/a/2", 4));
    assert_eq!(summary(&lab.take()), vec![(B.0, "I".into())]);
    assert_eq!(lab.fw.counters().n_aggregated_interests, 0);
    ledger_holds(&lab);
}

#[test]
fn an_interest_and_its_data_in_one_burst_are_answered_in_either_order() {
    for interest_first in [true, false] {
        let mut lab = Lab::standard();
        lab.route("/a", B, 1);
        lab.send_interest_meta(A, fresh("/a/1", 1), token(b"t1"));
        let up = lab.take();
        // After a stall both wait in the same read.
        lab.now += 130 * MS;
        let i = (A, InPacket::Interest(fresh("/a/1", 2)), token(b"t2"));
        let d = (
            B,
            InPacket::Data(data("/a/1")),
            LpMeta {
                pit_token: up[0].meta.pit_token.clone(),
                ..Default::default()
            },
        );
        let mut burst = if interest_first {
            vec![i, d]
        } else {
            vec![d, i]
        };
        lab.fw.handle_burst(lab.now, &mut burst);
        let out = lab.take();
        let to_a = data_to(&out, A);
        let c = lab.fw.counters();
        if interest_first {
            // 130 ms after the first transmission: a retransmission, forwarded.
            assert_eq!(to_a, vec![Some(Bytes::from_static(b"t2"))]);
            assert_eq!(c.n_aggregated_interests, 1);
        } else {
            assert_eq!(
                to_a,
                vec![
                    Some(Bytes::from_static(b"t1")),
                    Some(Bytes::from_static(b"t2"))
                ]
            );
            assert_eq!((c.n_cs_hits, c.n_aggregated_interests), (1, 0));
        }
        assert_eq!(lab.fw.pit_len(), 0);
        ledger_holds(&lab);
    }
}

#[test]
fn an_entry_past_its_lifetime_before_its_timer_runs_forwards_the_next_interest() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, fresh("/a/1", 1));
    lab.take();
    // A stall: the clock passes the lifetime, no timer has run yet.
    lab.now += 2500 * MS;
    lab.send_interest_meta(A, fresh("/a/1", 2), token(b"t2"));
    let up = lab.take();
    assert_eq!(summary(&up), vec![(B.0, "I".into())]);
    lab.fw.handle_timeout(lab.now);
    assert_eq!(
        lab.fw.pit_len(),
        1,
        "the refreshed in-record keeps the entry"
    );
    lab.send_data(B, data("/a/1"), up[0].meta.pit_token.clone());
    assert_eq!(
        data_to(&lab.take(), A),
        vec![Some(Bytes::from_static(b"t2"))]
    );
    ledger_holds(&lab);
}

#[test]
fn a_nonce_seen_again_after_its_data_is_a_loop_nacked_or_counted() {
    for link in [LinkType::PointToPoint, LinkType::MultiAccess] {
        let mut lab = Lab::standard();
        let e = FaceId(400);
        lab.fw.add_face(e, FaceScope::NonLocal, link);
        lab.route("/a", B, 1);
        lab.send_interest(e, fresh("/a/1", 7));
        let up = lab.take();
        // No FreshnessPeriod: the copy would miss the CS, so the Nonce went to the
        // Dead Nonce List.
        lab.send_data(B, data_fresh("/a/1", None), up[0].meta.pit_token.clone());
        lab.take();
        lab.now += 500 * MS;
        lab.send_interest(e, fresh("/a/1", 7));
        let out = lab.take();
        let c = lab.fw.counters();
        assert_eq!(c.drops.get(DropReason::DuplicateNonce), 1);
        let nacks = lab.fw.face_counters(e).unwrap().n_out_nacks;
        match link {
            LinkType::PointToPoint => {
                assert_eq!(summary(&out), vec![(e.0, "N:duplicate".into())]);
                assert_eq!(nacks, 1);
            }
            _ => {
                assert!(out.is_empty());
                assert_eq!(nacks, 0);
            }
        }
        ledger_holds(&lab);
    }
}

#[test]
fn a_nonce_seen_again_after_data_fresher_than_the_dead_nonce_list_is_a_cs_hit() {
    let mut lab = Lab::standard();
    lab.route("/a", B, 1);
    lab.send_interest(A, fresh("/a/1", 7));
    let up = lab.take();
    // 10 s of freshness outlasts the list's 6 s: NFD inserts no Nonce, the copy is
    // answered from the CS.
    lab.send_data(
        B,
        data_fresh("/a/1", Some(10_000)),
        up[0].meta.pit_token.clone(),
    );
    lab.take();
    assert_eq!(lab.fw.dead_nonce_len(), 0);
    lab.now += 500 * MS;
    lab.send_interest(A, fresh("/a/1", 7));
    assert_eq!(summary(&lab.take()), vec![(A.0, "D".into())]);
    assert_eq!(lab.fw.counters().drops.get(DropReason::DuplicateNonce), 0);
    ledger_holds(&lab);
}

#[test]
fn an_asf_entry_kept_for_late_data_puts_the_answering_nonce_in_the_dead_nonce_list() {
    let mut lab = Lab::standard();
    lab.fw
        .strategy_choice()
        .set(&name("/a"), &name("/localhost/nfd/strategy/asf"))
        .unwrap();
    lab.route("/a", B, 1);
    lab.send_interest(A, fresh("/a/1", 7));
    let up = lab.take();
    assert_eq!(summary(&up), vec![(B.0, "I".into())]);
    lab.send_data(B, data_fresh("/a/1", None), up[0].meta.pit_token.clone());
    assert_eq!(data_to(&lab.take(), A).len(), 1);
    assert_eq!(lab.fw.pit_len(), 1, "kept for late Data");
    assert_eq!(lab.fw.dead_nonce_len(), 1);
    // The copy from another downstream is a loop, Nacked.
    lab.send_interest(C, fresh("/a/1", 7));
    assert_eq!(summary(&lab.take()), vec![(C.0, "N:duplicate".into())]);
    assert_eq!(lab.fw.counters().drops.get(DropReason::DuplicateNonce), 1);
    lab.run_for_ms(3000);
    assert_eq!(lab.fw.pit_len(), 0);
    ledger_holds(&lab);
}
