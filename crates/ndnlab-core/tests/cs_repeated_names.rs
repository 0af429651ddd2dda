//! Read buffers the CS keeps alive stay within what it charges when consumers ask for
//! the same names again and again: hits copy entries out of their read buffers, stale
//! entries are refreshed by new Data, and the slices they leave behind stay charged
//! (as husks) until eviction passes them.

mod common;

use std::collections::BTreeSet;

use bytes::Bytes;
use common::*;
use ndnlab_core::cs::charge;
use ndnlab_core::{CsPolicyKind, ForwarderConfig};

/// A stream face's read buffer ([`ndnlab_proto`]'s framing reads into exactly this).
const READ_BUFFER: usize = 256 * 1024;
/// Content of each Data: 8 KB, as `perf` serves.
const CONTENT: usize = 8192;

/// A seeded xorshift generator (the test must not depend on the run).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn name_of(k: u64) -> String {
    format!("/mem/{k:05}")
}

fn data_8k(uri: &str, freshness_ms: u64) -> ndnlab_wire::Data {
    let b = ndnlab_wire::Data::builder(name(uri))
        .content(vec![7u8; CONTENT])
        .freshness_ms(freshness_ms);
    ndnlab_wire::Data::decode(b.sign_digest()).unwrap()
}

/// Data back to back in one read buffer of [`READ_BUFFER`] bytes, as a stream face
/// hands them over: the buffer, and views over slices of it.
fn read_buffer(packets: &[ndnlab_wire::Data]) -> (Bytes, Vec<ndnlab_wire::Data>) {
    let mut buf = Vec::with_capacity(READ_BUFFER);
    let mut spans = Vec::new();
    for d in packets {
        let at = buf.len();
        buf.extend_from_slice(d.wire());
        spans.push(at..buf.len());
    }
    assert!(buf.len() <= READ_BUFFER);
    buf.resize(READ_BUFFER, 0);
    let buf = Bytes::from(buf);
    let views = spans
        .into_iter()
        .map(|r| ndnlab_wire::Data::decode(buf.slice(r)).unwrap())
        .collect();
    (buf, views)
}

/// Consumers on face B ask for names drawn from a pool of `pool`, with MustBeFresh;
/// the producer on face C answers the misses in full read buffers (a buffer's worth
/// at a time, so some wait a round or more), with Data fresh
/// for `freshness_ms` while the clock moves 10 ms a round. After every round the
/// read buffers the CS keeps alive, plus the copies hits made, fit in what the CS
/// charges, give or take the one read buffer eviction is part way through.
fn pinned_within_charge(policy: CsPolicyKind, pool: u64, freshness_ms: u64, seed: u64) {
    let bound = 2 << 20;
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_policy: policy,
        cs_capacity: 100_000,
        cs_capacity_bytes: bound,
        ..Default::default()
    });
    lab.fw.cs().set_own_buffers(true);
    lab.route("/mem", C, 1);
    let len = data_8k(&name_of(0), freshness_ms).wire().len();
    let per_buffer = READ_BUFFER / len;
    let mut waiting: Vec<u64> = Vec::new();
    let (slice, copy) = (charge(len, false), charge(len, true));
    let mut rng = Rng(seed);
    let mut held: Vec<Bytes> = Vec::new();
    let mut copies = BTreeSet::new();
    let (mut hits, mut refreshed, mut nonce) = (0, 0, 0);
    for _round in 0..400 {
        for _ in 0..24 {
            let k = rng.below(pool);
            nonce += 1;
            let uri = name_of(k);
            let i = interest_with(&uri, nonce, |b| b.must_be_fresh(true));
            lab.send_interest(B, i);
            match summary(&lab.take()).as_slice() {
                [(face, kind)] if *face == B.0 && kind == "D" => {
                    hits += 1;
                    if policy != CsPolicyKind::PriorityFifo {
                        copies.insert(k);
                    }
                }
                // A retransmission forwarded again is answered once (a second Data
                // would be unsolicited, a packet in the read buffer the CS does not
                // cache).
                [(face, kind)] if *face == C.0 && kind == "I" => {
                    if !waiting.contains(&k) {
                        waiting.push(k);
                    }
                }
                [] => {} // aggregated with a pending Interest
                other => panic!("{uri}: {other:?}"),
            }
        }
        while waiting.len() >= per_buffer {
            let names: Vec<u64> = waiting.drain(..per_buffer).collect();
            let packets: Vec<_> = names
                .iter()
                .map(|&k| data_8k(&name_of(k), freshness_ms))
                .collect();
            let (buf, views) = read_buffer(&packets);
            held.push(buf);
            for (&k, d) in names.iter().zip(views) {
                refreshed += usize::from(lab.fw.cs_ref().contains(&name(&name_of(k))));
                // New bytes for the name: a slice (priority-FIFO copies fresh Data).
                copies.remove(&k);
                lab.send_data(C, d, None);
                if policy == CsPolicyKind::PriorityFifo && freshness_ms > 0 {
                    copies.insert(k);
                }
            }
        }
        lab.take();
        held.retain(|b| !b.is_unique());
        copies.retain(|&k| lab.fw.cs_ref().contains(&name(&name_of(k))));
        lab.advance_ms(10);

        let cs = lab.fw.cs_ref();
        assert_eq!(cs.recount(), (cs.len(), cs.husks(), cs.bytes()));
        assert!(cs.bytes() <= bound, "{} > {bound}", cs.bytes());
        let pinned = held.len() * READ_BUFFER;
        let occupied = pinned + copies.len() * copy;
        assert!(
            occupied <= cs.bytes() + READ_BUFFER,
            "{policy:?}: {} read buffers ({pinned} B) and {} copies held, {} B charged \
             ({} entries, {} husks)",
            held.len(),
            copies.len(),
            cs.bytes(),
            cs.len(),
            cs.husks()
        );
    }
    // The workload did what it is for.
    assert!(hits > 500 || freshness_ms == 0, "{hits} hits");
    assert!(refreshed > 1_000, "{refreshed} refreshes");
    assert!(
        lab.fw.cs_ref().bytes() + slice > bound,
        "the byte bound was reached"
    );
}

#[test]
fn lru_hits_and_refreshes_keep_read_buffers_charged() {
    pinned_within_charge(CsPolicyKind::Lru, 400, 20, 0x9e37_79b9);
}

#[test]
fn priority_fifo_refreshes_keep_read_buffers_charged() {
    // Stale Data stays a slice under priority-FIFO: freshness 0 refreshes every time.
    pinned_within_charge(CsPolicyKind::PriorityFifo, 400, 0, 0xfeed);
}
