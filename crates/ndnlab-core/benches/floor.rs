//! The memory floor of a CS hit on this machine (docs/BENCHMARKS.md).
//!
//! A hit cannot avoid four dependent memory accesses: the PCCT index bucket of the
//! name, the name slot the bucket points to, the CS entry the slot points to, and the
//! cached packet's reference count (the clone that sends it out). This bench performs
//! only those four accesses, in tables laid out as the forwarder's (8-byte buckets at
//! twice the entries, 56-byte slots, 48-byte CS entries, 192-byte packet blocks with the
//! count first; every level a random permutation of the next), with no hashing, no name
//! compare and no output. Its time is a lower bound for a hit of the same size, and its
//! spread from 2^10 to 2^21 entries is the flatness the hardware allows:
//!
//! * `floor_single/<n>`: one chain at a time, as `Forwarder::handle_interest` must
//!   (the CPU may still overlap consecutive chains, as it cannot for a forwarder's
//!   hit of ~900 instructions);
//! * `floor_chain/<n>`: each chain waits for the previous one (no overlap);
//! * `floor_burst/<n>`: 64 chains through four staged prefetch loops, as
//!   `Forwarder::handle_burst` does;
//! * the same three with `_split`: the counts in a dense array of 32-byte headers apart
//!   from the packets, as `Bytes::copy_from_slice` and `Bytes::from(Vec)` keep them
//!   (and not prefetched in bursts, since no API gives their address) instead of
//!   inline before the bytes as `ndnlab_wire::packet_bytes` keeps them.
//!
//! * `floor_burst_work/<n>` and `floor_pipelined_work/<n>`: a burst of hits that
//!   each also run [`WORK`] rounds of register-only arithmetic (about the time of a
//!   forwarder's burst hit on a cache-resident CS), first after the four staged loops
//!   (as `Forwarder::handle_burst` does), then software-pipelined, every hit's work
//!   interleaved with the four accesses of the hits [`DIST`] to 4 x [`DIST`] places
//!   behind it. Whether the second stays flat where the first does not says whether
//!   a hit's memory time can hide under its work on this machine.
//!
//! * `floor_pages_chain/<layout>` and `floor_pages_burst/<layout>`: the cost of a
//!   page-table walk alone. [`PAGE_LINES`] cache lines (512 KiB: they stay in L2) read
//!   in random order, either `packed` into 128 contiguous pages or `spread` one per
//!   4 KiB page over 32 MiB, twice the pages the second-level TLB maps. `chain` reads
//!   each line at an address the previous one holds; `burst` prefetches 64 lines, then
//!   reads them, as the staged loops do. A large table's random lines pay both a cache
//!   and a TLB miss; the difference between the layouts is the TLB's share.
//!
//! Run: `cargo bench -p ndnlab-core --bench floor`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

mod support;
use support::Rng;

#[repr(C)]
struct Slot {
    cs: u32,
    _rest: [u8; 52],
}

#[repr(C)]
struct Entry {
    packet: u32,
    _rest: [u8; 44],
}

#[repr(C)]
struct Packet {
    count: AtomicU64,
    _bytes: [u8; 184],
}

/// A `bytes` shared header: the count of a `Vec`-backed buffer, allocated apart from it.
#[repr(C)]
struct Header {
    count: AtomicU64,
    _rest: [u8; 24],
}

struct Tables {
    index: Vec<u64>,
    slots: Vec<Slot>,
    entries: Vec<Entry>,
    packets: Vec<Packet>,
    /// The `_split` rows' counts: one dense array of 32-byte headers, as the headers
    /// of buffers allocated one after another are, and which a prefetch cannot reach
    /// (no `bytes` API gives a header's address).
    headers: Vec<Header>,
}

impl Tables {
    fn new(n: usize, rng: &mut Rng) -> Self {
        let to_slot = rng.permutation(n);
        let to_entry = rng.permutation(n);
        let to_packet = rng.permutation(n);
        Tables {
            // Half the buckets are empty in the forwarder's index; here every bucket
            // leads somewhere (bucket 2k and 2k+1 to the same slot).
            index: (0..2 * n).map(|b| to_slot[b / 2] as u64).collect(),
            slots: to_entry
                .iter()
                .map(|&cs| Slot { cs, _rest: [0; 52] })
                .collect(),
            entries: to_packet
                .iter()
                .map(|&packet| Entry {
                    packet,
                    _rest: [0; 44],
                })
                .collect(),
            packets: (0..n)
                .map(|_| Packet {
                    count: AtomicU64::new(1),
                    _bytes: [0; 184],
                })
                .collect(),
            headers: (0..n)
                .map(|_| Header {
                    count: AtomicU64::new(1),
                    _rest: [0; 24],
                })
                .collect(),
        }
    }

    /// One hit's accesses: bucket, slot, entry, then the count's clone and drop.
    /// Returns the count seen (1 between hits), for a caller that makes the next hit
    /// depend on this one.
    #[inline]
    fn hit<const SPLIT: bool>(&self, bucket: usize) -> u64 {
        let s = self.index[bucket] as usize;
        let c = self.slots[s].cs as usize;
        let p = self.entries[c].packet as usize;
        let count = self.count::<SPLIT>(p);
        let seen = count.fetch_add(1, Relaxed);
        black_box(count).fetch_sub(1, Relaxed);
        seen
    }

    #[inline(always)]
    fn count<const SPLIT: bool>(&self, p: usize) -> &AtomicU64 {
        match SPLIT {
            true => &self.headers[p].count,
            false => &self.packets[p].count,
        }
    }

    /// A burst of hits through four staged prefetch loops (three when the counts are
    /// split off: their address cannot be known).
    fn burst<const SPLIT: bool>(&self, buckets: &[usize], scratch: &mut Vec<usize>) {
        for &b in buckets {
            prefetch(&self.index[b]);
        }
        scratch.clear();
        for &b in buckets {
            let s = self.index[b] as usize;
            prefetch(&self.slots[s]);
            scratch.push(s);
        }
        for s in scratch.iter_mut() {
            let c = self.slots[*s].cs as usize;
            prefetch(&self.entries[c]);
            *s = c;
        }
        for c in scratch.iter_mut() {
            let p = self.entries[*c].packet as usize;
            if !SPLIT {
                prefetch(&self.packets[p]);
            }
            *c = p;
        }
        for &p in scratch.iter() {
            let count = self.count::<SPLIT>(p);
            count.fetch_add(1, Relaxed);
            black_box(count).fetch_sub(1, Relaxed);
        }
    }
}

#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 cannot fault and has no architectural effect; SSE is part of
    // the x86_64 baseline.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

const BURST: usize = 64;

/// Rounds of [`work`] (four independent xorshift chains): 55 ns here, about
/// a forwarder's burst hit on a cache-resident CS (`hit_burst/cs/1024`: 62 ns).
const WORK: u64 = 24;
/// Hits between the pipelined stages of one hit.
const DIST: usize = 4;

/// Register-only work of about a hit's time, seeded by `x`.
#[inline(always)]
fn work(x: u64) -> u64 {
    let mut a = [x, x ^ 1, x ^ 2, x ^ 3];
    for _ in 0..black_box(WORK) {
        for v in a.iter_mut() {
            *v ^= *v << 13;
            *v ^= *v >> 7;
            *v ^= *v << 17;
        }
    }
    a[0] ^ a[1] ^ a[2] ^ a[3]
}

impl Tables {
    /// [`Tables::burst`], then each hit's [`work`].
    fn burst_work(&self, buckets: &[usize], scratch: &mut Vec<usize>) -> u64 {
        self.burst::<false>(buckets, scratch);
        scratch.iter().fold(0, |acc, &p| acc ^ work(p as u64))
    }

    /// The same accesses and work, software-pipelined: step `j` prefetches hit `j`'s
    /// bucket, reads hit `j - DIST`'s bucket, `j - 2 DIST`'s slot and
    /// `j - 3 DIST`'s entry (each prefetching the next level), and completes hit
    /// `j - 4 DIST` (count, then its work).
    fn pipelined_work(&self, buckets: &[usize], at: &mut Vec<usize>) -> u64 {
        let k = buckets.len();
        at.clear();
        at.extend_from_slice(buckets);
        let mut acc = 0;
        for j in 0..k + 4 * DIST {
            if j < k {
                prefetch(&self.index[at[j]]);
            }
            if let Some(i) = j.checked_sub(DIST).filter(|&i| i < k) {
                at[i] = self.index[at[i]] as usize;
                prefetch(&self.slots[at[i]]);
            }
            if let Some(i) = j.checked_sub(2 * DIST).filter(|&i| i < k) {
                at[i] = self.slots[at[i]].cs as usize;
                prefetch(&self.entries[at[i]]);
            }
            if let Some(i) = j.checked_sub(3 * DIST).filter(|&i| i < k) {
                at[i] = self.entries[at[i]].packet as usize;
                prefetch(&self.packets[at[i]]);
            }
            if let Some(i) = j.checked_sub(4 * DIST).filter(|&i| i < k) {
                let count = &self.packets[at[i]].count;
                count.fetch_add(1, Relaxed);
                black_box(count).fetch_sub(1, Relaxed);
                acc ^= work(at[i] as u64);
            }
        }
        acc
    }
}

fn floor(c: &mut Criterion) {
    for n in [1 << 10, 1 << 16, 1 << 21] {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let t = Tables::new(n, &mut rng);
        rows::<false>(c, &t, &mut rng, "");
        rows::<true>(c, &t, &mut rng, "_split");
        work_rows(c, &t, &mut rng);
    }
    page_rows(c, &mut Rng(0x9E37_79B9_7F4A_7C15));
}

/// The single, chained and burst rows of table `t`, with counts inline in the packets
/// or (`SPLIT`) in separate headers.
fn rows<const SPLIT: bool>(c: &mut Criterion, t: &Tables, rng: &mut Rng, suffix: &str) {
    let n = t.slots.len();
    let buckets = 2 * n as u64;
    c.bench_function(&format!("floor_single{suffix}/{n}"), |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(t.hit::<SPLIT>((rng.next() % buckets) as usize));
            }
            start.elapsed()
        })
    });
    // The next bucket depends on this hit's count: no overlap between hits, as when
    // each hit's own work fills the CPU's reorder window.
    c.bench_function(&format!("floor_chain{suffix}/{n}"), |b| {
        b.iter_custom(|iters| {
            let mut seen = 1;
            let start = Instant::now();
            for _ in 0..iters {
                seen = t.hit::<SPLIT>(((rng.next() ^ (seen - 1)) % buckets) as usize);
            }
            start.elapsed()
        })
    });
    c.bench_function(&format!("floor_burst{suffix}/{n}"), |b| {
        let mut scratch = Vec::with_capacity(BURST);
        b.iter_custom(|iters| {
            time_bursts(iters, buckets, rng, |burst| {
                t.burst::<SPLIT>(burst, &mut scratch);
                0
            })
        })
    });
}

/// The time of `iters` hits on random buckets below `buckets`, run by `f` in bursts of
/// [`BURST`] (the bursts are drawn outside the timed region).
fn time_bursts(
    iters: u64,
    buckets: u64,
    rng: &mut Rng,
    mut f: impl FnMut(&[usize]) -> u64,
) -> Duration {
    let mut burst = Vec::with_capacity(BURST);
    let mut left = iters as usize;
    let mut el = Duration::ZERO;
    while left > 0 {
        let k = left.min(BURST);
        burst.clear();
        burst.extend((0..k).map(|_| (rng.next() % buckets) as usize));
        let start = Instant::now();
        black_box(f(&burst));
        el += start.elapsed();
        left -= k;
    }
    el
}

/// `floor_burst_work` and `floor_pipelined_work` over table `t`.
fn work_rows(c: &mut Criterion, t: &Tables, rng: &mut Rng) {
    let n = t.slots.len();
    let buckets = 2 * n as u64;
    for (name, pipelined) in [("floor_burst_work", false), ("floor_pipelined_work", true)] {
        c.bench_function(&format!("{name}/{n}"), |b| {
            let mut scratch = Vec::with_capacity(BURST);
            b.iter_custom(|iters| {
                time_bursts(iters, buckets, rng, |burst| match pipelined {
                    false => t.burst_work(burst, &mut scratch),
                    true => t.pipelined_work(burst, &mut scratch),
                })
            })
        });
    }
}

/// Lines of the `floor_pages` rows (512 KiB).
const PAGE_LINES: usize = 8192;
/// `u64` words in a 64-byte line and in a 4 KiB page.
const LINE_WORDS: usize = 8;
const PAGE_WORDS: usize = 512;

/// `floor_pages_*`: [`PAGE_LINES`] lines packed, or one per page (at a different
/// offset in each page, so that they fill the cache sets evenly).
fn page_rows(c: &mut Criterion, rng: &mut Rng) {
    for (layout, spread) in [("packed", false), ("spread", true)] {
        let at: Vec<usize> = (0..PAGE_LINES)
            .map(|i| match spread {
                false => i * LINE_WORDS,
                true => i * PAGE_WORDS + (i % (PAGE_WORDS / LINE_WORDS)) * LINE_WORDS,
            })
            .collect();
        let mut words = vec![0u64; at[PAGE_LINES - 1] + LINE_WORDS];
        // One cycle through every line, in random order: each line holds the word
        // index of the next.
        let order = rng.permutation(PAGE_LINES);
        for k in 0..PAGE_LINES {
            let next = order[(k + 1) % PAGE_LINES] as usize;
            words[at[order[k] as usize]] = at[next] as u64;
        }
        let words = &words;
        c.bench_function(&format!("floor_pages_chain/{layout}"), |b| {
            let mut w = at[0];
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    w = words[w] as usize;
                }
                black_box(w);
                start.elapsed()
            })
        });
        c.bench_function(&format!("floor_pages_burst/{layout}"), |b| {
            b.iter_custom(|iters| {
                time_bursts(iters, PAGE_LINES as u64, rng, |burst| {
                    for &l in burst {
                        prefetch(&words[at[l]]);
                    }
                    burst.iter().fold(0, |acc, &l| acc ^ words[at[l]])
                })
            })
        });
    }
}

criterion_group!(benches, floor);
criterion_main!(benches);
