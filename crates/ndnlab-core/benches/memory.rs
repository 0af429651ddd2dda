//! Memory per PIT entry and per CS entry (docs/BENCHMARKS.md), two ways:
//!
//! * arithmetic on `size_of` ([`ndnlab_core::mem::layout`]): the table cells an entry
//!   occupies (slab cell, name slot, index cell);
//! * a counting global allocator: heap growth while N entries are inserted, with the
//!   packets built (and their buffers allocated) beforehand, so packet bytes are not
//!   counted. The tables are reserved for exactly N entries inside the measured window.
//!
//! Run: `cargo bench -p ndnlab-core --bench memory` (prints a table; no timing).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use bytes::Bytes;
use ndnlab_core::{
    FaceId, FaceScope, Forwarder, ForwarderConfig, LinkType, LpMeta, UnsolicitedDataPolicy,
};
use ndnlab_wire::{Data, Interest, Name};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: delegates to the system allocator and only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

const N: usize = 200_000;

fn main() {
    let l = ndnlab_core::mem::layout();
    println!("layout (bytes): {l:?}");
    let pit_arith = l.pit_cell + l.slot + l.map_cell;
    println!(
        "PIT entry by arithmetic: cell {} + name slot {} + index cell {} = {} B (target <= 256)",
        l.pit_cell, l.slot, l.map_cell, pit_arith
    );
    let cs_links = 12; // policy queue links (prev, next, queue) per entry
    let cs_arith = l.cs_entry + l.slot + l.map_cell + cs_links;
    println!(
        "CS entry by arithmetic: entry {} (wire Bytes handle, freshness, slot, indirect; no decoded view) + name slot {} \
         + index cell {} + policy links {} = {} B beyond the wire bytes (target <= 128)",
        l.cs_entry, l.slot, l.map_cell, cs_links, cs_arith
    );

    let consumer = FaceId(256);
    let producer = FaceId(257);
    let mut fw = Forwarder::new(ForwarderConfig {
        cs_capacity: N,
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    fw.add_face(consumer, FaceScope::NonLocal, LinkType::PointToPoint);
    fw.add_face(producer, FaceScope::NonLocal, LinkType::PointToPoint);
    fw.fib()
        .add_nexthop(&Name::from_uri("/").unwrap(), producer, 1);

    // Packets first (their vectors stay alive during the measurement). Clone once so
    // each `Bytes` is already shared (as buffers from a runtime's BytesMut are), so the
    // measurement sees only table memory.
    let interests: Vec<Interest> = (0..N)
        .map(|k| {
            let n = Name::from_uri(&format!("/site{}/app/obj{k}/seg=0", k % 1000)).unwrap();
            let i = Interest::builder(n)
                .nonce(k as u32)
                .lifetime_ms(60_000)
                .build_view()
                .unwrap();
            drop(i.clone());
            i
        })
        .collect();
    let datas: Vec<Data> = (0..N)
        .map(|k| {
            let n = Name::from_uri(&format!("/cache{}/app/obj{k}/seg=0", k % 1000)).unwrap();
            let d = Data::decode(
                Data::builder(n)
                    .content(Bytes::from(vec![1u8; 100]))
                    .freshness_ms(10_000)
                    .sign_digest(),
            )
            .unwrap();
            drop(d.clone());
            d
        })
        .collect();

    let mut sink = Vec::new();
    // The tables are reserved for exactly N entries inside the measured window, so the
    // growth is the entries plus the hash map's power-of-two rounding, not the slack
    // of repeated doubling.
    let before = live();
    fw.cs().reserve_pit(N);
    for i in interests.iter().cloned() {
        fw.handle_interest(1, consumer, i, LpMeta::default());
        fw.drain_transmits(&mut sink);
        sink.clear();
    }
    let pit_heap = (live() - before) as f64 / N as f64;
    // What is left in the heap per entry beyond the table cells is the timer queue
    // (and, for shared buffers, nothing else).
    assert_eq!(fw.pit_len(), N);
    println!(
        "PIT: {N} pending entries, heap growth {pit_heap:.1} B/entry (table cells, hash map rounding, timer queue; \
         excl. Interest packets)"
    );

    let before = live();
    fw.cs().reserve_cs(N);
    for d in datas.iter().cloned() {
        fw.handle_data(1, producer, d, LpMeta::default());
    }
    let cs_heap = (live() - before) as f64 / N as f64;
    assert_eq!(fw.cs_ref().len(), N);
    println!(
        "CS: {N} entries, heap growth {cs_heap:.1} B/entry beyond the wire bytes (table cells reserved for N, \
         hash map rounding, policy links; excl. packet buffers; target <= 128)"
    );
    drop((interests, datas));
}
