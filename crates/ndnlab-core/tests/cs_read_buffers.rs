//! Read buffers the CS keeps alive stay within what it charges:
//!
//! * when consumers ask for the same names again and again: hits copy entries out of
//!   their read buffers, stale entries are refreshed by new Data, and the slices they
//!   leave behind stay charged (as ghosts) until eviction passes them;
//! * when a read buffer holds more than the Data the CS keeps (Interests on a face
//!   that carries both, Data it drops): the reader reports each Data's share of its
//!   buffer, and the CS charges the shares of what it drops to the next slice it
//!   keeps from the same face.

mod common;

use std::collections::BTreeSet;

use bytes::Bytes;
use common::*;
use ndnlab_core::cs::charge;
use ndnlab_core::{CsPolicyKind, ForwarderConfig, LpMeta, UnsolicitedDataPolicy};

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
    // What the previous buffer held after its last Data: the reader adds it to the
    // share of the next buffer's first Data.
    let tail = READ_BUFFER - per_buffer * len;
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
            for (j, (&k, d)) in names.iter().zip(views).enumerate() {
                refreshed += usize::from(lab.fw.cs_ref().contains(&name(&name_of(k))));
                // New bytes for the name: a slice (priority-FIFO copies fresh Data).
                copies.remove(&k);
                let share = if j == 0 { len + tail } else { len };
                let meta = LpMeta {
                    buffer_share: share as u32,
                    ..Default::default()
                };
                let now = lab.now;
                lab.fw.handle_data(now, C, d, meta);
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
        assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
        assert!(cs.bytes() <= bound, "{} > {bound}", cs.bytes());
        let pinned = held.len() * READ_BUFFER;
        let occupied = pinned + copies.len() * copy;
        assert!(
            occupied <= cs.bytes() + READ_BUFFER,
            "{policy:?}: {} read buffers ({pinned} B) and {} copies held, {} B charged \
             ({} entries, {} ghosts)",
            held.len(),
            copies.len(),
            cs.bytes(),
            cs.len(),
            cs.ghosts()
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

/// A frame on a stream face: a Data, or `n` bytes of something the CS never keeps
/// (an Interest, a link-layer idle packet).
enum Frame {
    Data(ndnlab_wire::Data),
    Other(usize),
}

/// `frames` back to back in read buffers as `ndnlab fwd`'s stream reader fills them
/// (a frame that does not fit starts the next buffer), and each Data with the share
/// of its buffer the reader reports: the bytes from the end of the previous Data in
/// the buffer (or its start, plus what the previous buffer held after its last Data)
/// to its own end.
/// Also returns each Data's buffer.
fn read_stream(frames: &[Frame]) -> (Vec<Bytes>, Vec<(ndnlab_wire::Data, u32, usize)>) {
    let mut bufs: Vec<Vec<u8>> = vec![Vec::with_capacity(READ_BUFFER)];
    let mut spans = Vec::new(); // (buffer, start, end, share)
    let (mut last_end, mut carried, mut has_data) = (0, 0, false);
    for f in frames {
        let len = match f {
            Frame::Data(d) => d.wire().len(),
            Frame::Other(n) => *n,
        };
        if bufs.last().unwrap().len() + len > READ_BUFFER {
            carried = if has_data { READ_BUFFER - last_end } else { 0 };
            (last_end, has_data) = (0, false);
            bufs.push(Vec::with_capacity(READ_BUFFER));
        }
        let buf = bufs.last_mut().unwrap();
        let at = buf.len();
        match f {
            Frame::Data(d) => {
                buf.extend_from_slice(d.wire());
                let share = at + len - last_end + carried;
                spans.push((bufs.len() - 1, at, at + len, share as u32));
                (last_end, carried, has_data) = (at + len, 0, true);
            }
            Frame::Other(n) => buf.resize(at + n, 0x05),
        }
    }
    let bufs: Vec<Bytes> = bufs
        .into_iter()
        .map(|mut b| {
            b.resize(READ_BUFFER, 0);
            Bytes::from(b)
        })
        .collect();
    let data = spans
        .into_iter()
        .map(|(b, from, to, share)| {
            let d = ndnlab_wire::Data::decode(bufs[b].slice(from..to)).unwrap();
            (d, share, b)
        })
        .collect();
    (bufs, data)
}

/// Feeds `frames` from face A into a CS of 2 MiB (LRU, own buffers), reporting each
/// Data's share of its buffer when `shares`, after `before(k, lab)` for the `k`th
/// Data; returns the largest excess of the read buffers held over the bytes charged
/// (and the two buffers partly charged).
fn largest_excess(
    frames: &[Frame],
    shares: bool,
    unsolicited: UnsolicitedDataPolicy,
    before: impl Fn(usize, &mut Lab),
) -> isize {
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_policy: CsPolicyKind::Lru,
        cs_capacity: 100_000,
        cs_capacity_bytes: 2 << 20,
        unsolicited,
        ..Default::default()
    });
    lab.fw.cs().set_own_buffers(true);
    lab.route("/", A, 1);
    let (bufs, data) = read_stream(frames);
    let mut worst = isize::MIN;
    for (k, (d, share, b)) in data.into_iter().enumerate() {
        before(k, &mut lab);
        let meta = LpMeta {
            buffer_share: if shares { share } else { 0 },
            ..Default::default()
        };
        let now = lab.now;
        lab.fw.handle_data(now, A, d, meta);
        lab.take();
        // Buffers up to this Data's (later ones are held by the Data still to come).
        let held = bufs[..=b].iter().filter(|b| !b.is_unique()).count();
        let cs = lab.fw.cs_ref();
        assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
        assert!(cs.bytes() <= 2 << 20);
        assert!(cs.carried() <= ndnlab_core::cs::share::CARRY_MAX as usize);
        // Two buffers are partly charged: the one eviction is part way through, and
        // the one being delivered (a face's reader holds it anyway).
        let excess = (held * READ_BUFFER) as isize - (cs.bytes() + 2 * READ_BUFFER) as isize;
        worst = worst.max(excess);
    }
    worst
}

/// A face that carries Interests as well as Data (an app that consumes and produces,
/// a link between forwarders with traffic both ways): half of each read buffer is
/// Interests, which the slices cached around them keep alive.
#[test]
fn interests_between_data_are_charged_to_the_data_around_them() {
    let mut frames = Vec::new();
    for k in 0..600 {
        frames.push(Frame::Data(data_8k(&name_of(k), 10_000)));
        frames.push(Frame::Other(8 * 1024));
    }
    let admit = UnsolicitedDataPolicy::AdmitAll;
    let worst = largest_excess(&frames, true, admit, |_, _| {});
    assert!(worst <= 0, "read buffers held {worst} B beyond the charge");
    // Without the reader's shares, a slice is charged a buffer full of Data.
    let without = largest_excess(&frames, false, admit, |_, _| {});
    assert!(without > 256 << 10, "{without}");
}

/// Data the CS does not keep (unsolicited, dropped) between Data it keeps: the
/// dropped Data's share is carried to the next slice kept from the same face.
#[test]
fn dropped_data_is_charged_to_the_next_slice_from_its_face() {
    let frames: Vec<_> = (0..800)
        .map(|k| Frame::Data(data_8k(&name_of(k), 10_000)))
        .collect();
    // Only every fourth Data was asked for: the others are unsolicited, dropped.
    let ask = |k: usize, lab: &mut Lab| {
        if k.is_multiple_of(4) {
            lab.send_interest(B, interest(&name_of(k as u64), k as u32 + 1));
            lab.take();
        }
    };
    let drop = UnsolicitedDataPolicy::DropAll;
    let worst = largest_excess(&frames, true, drop, ask);
    assert!(worst <= 0, "read buffers held {worst} B beyond the charge");
    let without = largest_excess(&frames, false, drop, ask);
    assert!(without > 256 << 10, "{without}");
}

/// An LRU CS of capacity 40 (own buffers), filled with 40 Data from one stream
/// face's read buffer: `(lab, the Data's wire length)`.
fn full_lru_of_slices(capacity: usize) -> (Lab, usize) {
    let mut lab = Lab::standard_with(ForwarderConfig {
        cs_policy: CsPolicyKind::Lru,
        cs_capacity: capacity,
        cs_capacity_bytes: 64 << 20,
        ..Default::default()
    });
    lab.fw.cs().set_own_buffers(true);
    lab.route("/mem", C, 1);
    let ks: Vec<u64> = (0..capacity as u64).collect();
    deliver_slices(&mut lab, &ks, 1);
    let len = data_fresh(&name_of(0), Some(10_000)).wire().len();
    (lab, len)
}

/// Interests from B for `ks`, then their Data from C back to back in one read
/// buffer, each with its share of it; `nonce` is the first Interest's nonce.
fn deliver_slices(lab: &mut Lab, ks: &[u64], nonce: u32) {
    for (j, &k) in ks.iter().enumerate() {
        lab.send_interest(B, interest(&name_of(k), nonce + j as u32));
        assert_eq!(summary(&lab.take()), vec![(C.0, "I".to_string())]);
    }
    let packets: Vec<_> = ks
        .iter()
        .map(|&k| data_fresh(&name_of(k), Some(10_000)))
        .collect();
    let (_buf, views) = read_buffer(&packets);
    for d in views {
        let meta = LpMeta {
            buffer_share: d.wire().len() as u32,
            ..Default::default()
        };
        let now = lab.now;
        lab.fw.handle_data(now, C, d, meta);
        assert_eq!(summary(&lab.take()), vec![(B.0, "D".to_string())]);
    }
}

/// The CS's capacity counts Data: hits that copy slices out of their shared read
/// buffer leave ghosts (charged in bytes, in eviction order) that take no Data's
/// place, so an LRU of capacity C keeps holding C Data, and evicts exactly the
/// least recently used ones.
#[test]
fn hits_on_shared_slices_keep_the_capacity_in_data() {
    let cap = 40;
    let (mut lab, _) = full_lru_of_slices(cap);
    assert_eq!((lab.fw.cs_ref().len(), lab.fw.cs_ref().ghosts()), (cap, 0));
    // Hits on the newer half: each a copy at the back and a ghost in the middle.
    for k in 20..40u64 {
        lab.send_interest(B, interest(&name_of(k), 1000 + k as u32));
        assert_eq!(summary(&lab.take()), vec![(B.0, "D".to_string())]);
        let cs = lab.fw.cs_ref();
        assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
        assert_eq!(cs.len(), cap, "after the hit on {k}");
    }
    assert_eq!(lab.fw.cs_ref().ghosts(), 20);
    for k in 0..40u64 {
        assert!(lab.fw.cs_ref().contains(&name(&name_of(k))), "{k} evicted");
    }
    // 20 new Data evict the 20 least recently used (0..20, never hit) and the
    // ghosts eviction passes on the way; the CS still holds 40 Data.
    let fresh: Vec<u64> = (100..120).collect();
    deliver_slices(&mut lab, &fresh, 2000);
    let cs = lab.fw.cs_ref();
    assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
    assert_eq!((cs.len(), cs.ghosts()), (cap, 20));
    for k in 0..20u64 {
        assert!(!cs.contains(&name(&name_of(k))), "{k} kept");
    }
    for k in (20..40u64).chain(100..120) {
        assert!(cs.contains(&name(&name_of(k))), "{k} evicted");
    }
    // 20 more: eviction passes the 20 ghosts now at the front, then takes the
    // copies of 20..40, now the least recently used.
    let more: Vec<u64> = (200..220).collect();
    deliver_slices(&mut lab, &more, 3000);
    let cs = lab.fw.cs_ref();
    assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
    assert_eq!((cs.len(), cs.ghosts()), (cap, 0));
    for k in (100..120u64).chain(200..220) {
        assert!(cs.contains(&name(&name_of(k))), "{k} evicted");
    }
}

/// Ghosts have a bound of their own: a name refreshed again and again (stale Data
/// replaced by new Data, each a slice that leaves a ghost where the old one was)
/// never makes the CS hold more ghosts than its capacity. Past the bound,
/// eviction goes from the front, as it would to make room: the first ghost, then
/// the Data that were cached before the next one (their charges keep the read
/// buffers charged in arrival order, so a ghost behind them cannot go first).
#[test]
fn refreshes_keep_the_ghosts_within_the_capacity() {
    let cap = 10;
    let (mut lab, len) = full_lru_of_slices(cap);
    // every cached Data stale
    lab.advance_ms(11_000);
    for round in 0..3 * cap {
        // MustBeFresh misses the stale /mem/00000, and its new Data (stale at
        // once) refreshes the cached slice: one ghost more, the Data at the back
        let i = interest_with(&name_of(0), 5000 + round as u32, |b| b.must_be_fresh(true));
        lab.send_interest(B, i);
        assert_eq!(summary(&lab.take()), vec![(C.0, "I".to_string())]);
        let d = data_fresh(&name_of(0), Some(0));
        let (_buf, views) = read_buffer(std::slice::from_ref(&d));
        let meta = LpMeta {
            buffer_share: len as u32,
            ..Default::default()
        };
        let now = lab.now;
        lab.fw
            .handle_data(now, C, views.into_iter().next().unwrap(), meta);
        lab.take();
        let cs = lab.fw.cs_ref();
        assert_eq!(cs.recount(), (cs.len(), cs.ghosts(), cs.bytes()));
        assert_eq!(cs.ghosts(), (round + 1).min(cap), "round {round}");
        // the ghosts take no Data's place until there are more than `cap`: the
        // 11th goes (the first, in front of /mem/00001..9), the 12th takes the
        // 9 Data in front of the next one
        let data = if round <= cap { cap } else { 1 };
        assert_eq!(cs.len(), data, "round {round}");
        assert!(cs.contains(&name(&name_of(0))));
    }
}
