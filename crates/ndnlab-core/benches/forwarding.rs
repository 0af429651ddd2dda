//! Forwarder core throughput, in-process, one core, no I/O (docs/BENCHMARKS.md).
//!
//! * `miss/4comp`, `miss/16comp`: one exchange = Interest in -> FIB -> PIT -> out,
//!   then Data in (PIT token echoed) -> PIT -> CS insert -> out. Every name is new
//!   and the CS is full, so each exchange also evicts.
//! * `hit/4comp`: Interest in -> CS hit -> Data out.
//! * `miss_cs/<2^k>`, `hit_cs/<2^k>`: the same, CS capacity 2^10 .. 2^21 (full).
//! * `miss_fib/<n>`: the miss path with 10^3 .. 10^6 FIB prefixes.
//! * `miss_burst/*`, `hit_burst/cs/<n>`: the same through `handle_burst` (64 packets,
//!   two-pass group prefetching) and `drain_transmits`.
//! * `hit_cs_hot/<2^k>`, `hit_burst_cs_hot/<2^k>`, `miss_fib_hot/<n>`: table size alone
//!   (seed 001's factor A): the same 1,024 cached names / 1,000 FIB prefixes requested
//!   at every CS capacity / FIB size, where the rows above let the requested set grow
//!   with the table.
//!
//! * `miss_fresh/*`, `hit_fresh/*`: the same paths with packets built just before
//!   they are forwarded (256 exchanges at a time, still in cache, as a runtime hands
//!   over packets it has just received and decoded); the rows above build 8,192 at a
//!   time, so each packet is out of L2 when forwarded.
//! * `miss_fresh/burst_cs/<n>`, `hit_fresh/burst_cs/<n>`: the burst rows of the CS
//!   capacity sweep with such packets (flatness without the harness's own misses: with
//!   8,192 exchanges built ahead, a 2^21-entry table pushes them out of L3 too).
//! * `hit_zipf/<n>`, `hit_zipf/burst/<n>`: CS hits, names requested with Zipf(1.0)
//!   popularity over a full CS of `n` entries.
//!
//! Packets are built and decoded outside the timed region (`iter_custom` times only
//! the forwarding calls). FIB: `n` prefixes of 1, 2 or 3 components; names hit them
//! uniformly.
//!
//! Clock: the timed region is measured in *thread CPU time*
//! (`CLOCK_THREAD_CPUTIME_ID`), so that other processes on a shared machine do not
//! inflate the figures; `NDNLAB_BENCH_CLOCK=wall` measures wall time instead.

mod support;

/// The allocator the `ndnlab` binary uses (glibc's `free` of packet buffers was ~10%
/// of a CS-miss exchange's instructions).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndnlab_core::{
    FaceId, FaceScope, Forwarder, ForwarderConfig, InPacket, LinkType, LpMeta,
    UnsolicitedDataPolicy,
};
use ndnlab_wire::{packet_bytes, Data, Interest, Name};
use support::{received, Rng};

const CONSUMER: FaceId = FaceId(256);
const PRODUCER: FaceId = FaceId(257);
/// Packets built ahead of each timed stretch: by default 8,192 exchanges' worth (~8 MB,
/// so a packet is out of L2 by the time it is forwarded: the pessimistic case) ...
const BATCH: u64 = 8192;
/// ... and for the `*_fresh` rows 256 (~256 KB): each stretch forwards packets built
/// just before, still in cache, as a runtime hands the core the packets it has just
/// received and decoded. Two thread-CPU clock reads (~0.5 us each here) per stretch
/// add <= 4 ns per exchange to these rows.
const FRESH_BATCH: u64 = 256;

/// A stopwatch on thread CPU time (default) or wall time.
#[derive(Clone, Copy)]
struct Clock {
    wall: bool,
}

impl Clock {
    fn from_env() -> Self {
        Clock {
            wall: std::env::var("NDNLAB_BENCH_CLOCK").is_ok_and(|v| v == "wall"),
        }
    }

    fn now(self) -> Duration {
        if self.wall {
            return WALL_EPOCH.with(|e| e.elapsed());
        }
        ndnlab_testkit::cpu::thread_time()
    }
}

thread_local! {
    static WALL_EPOCH: Instant = Instant::now();
}

struct Setup {
    fw: Forwarder,
    fib_size: u64,
    /// Names fall under the first `hot` prefixes only (fixed workload), not all.
    hot: Option<u64>,
    comps: usize,
    next_id: u64,
    rng: Rng,
    now: u64,
    /// Exchanges built ahead of each timed stretch (`BATCH` or `FRESH_BATCH`).
    batch: u64,
}

fn prefix_uri(i: u64) -> String {
    match i % 3 {
        0 => format!("/p{i}"),
        1 => format!("/p{i}/x"),
        _ => format!("/p{i}/x/y"),
    }
}

impl Setup {
    fn new(fib_size: u64, cs_capacity: usize, comps: usize) -> Self {
        let mut fw = Forwarder::new(ForwarderConfig {
            cs_capacity,
            unsolicited: UnsolicitedDataPolicy::AdmitAll,
            ..Default::default()
        });
        fw.add_face(CONSUMER, FaceScope::NonLocal, LinkType::PointToPoint);
        fw.add_face(PRODUCER, FaceScope::NonLocal, LinkType::PointToPoint);
        fw.fib().reserve(fib_size as usize);
        for i in 0..fib_size {
            fw.fib()
                .add_nexthop(&Name::from_uri(&prefix_uri(i)).unwrap(), PRODUCER, 1);
        }
        fw.cs().reserve(cs_capacity);
        let mut s = Setup {
            fw,
            fib_size,
            hot: None,
            comps,
            next_id: 0,
            rng: Rng(0x9E37_79B9_7F4A_7C15),
            now: 1,
            batch: BATCH,
        };
        // Fill the CS to capacity (unsolicited Data, admitted by policy).
        let mut filled = 0;
        while filled < cs_capacity {
            let n = (cs_capacity - filled).min(65536);
            for (_, d) in s.packets(n) {
                s.fw.handle_data(s.now, PRODUCER, d, LpMeta::default());
            }
            filled += n;
        }
        s
    }

    fn name(&mut self) -> String {
        let p = self.rng.next() % self.hot.unwrap_or(self.fib_size);
        let id = self.next_id;
        self.next_id += 1;
        let mut uri = format!("/p{p}/x/y/o{id}");
        for c in 4..self.comps {
            uri.push_str(&format!("/c{c}"));
        }
        uri
    }

    /// `n` new (Interest, Data) pairs with fresh names.
    fn packets(&mut self, n: usize) -> Vec<(Interest, Data)> {
        let (is, ds): (Vec<_>, Vec<_>) = (0..n)
            .map(|_| {
                let uri = self.name();
                let name = Name::from_uri(&uri).unwrap();
                let nonce = self.rng.next() as u32;
                let i = Interest::builder(name.clone())
                    .nonce(nonce)
                    .lifetime_ms(4000)
                    .build();
                let d = Data::builder(name)
                    .content(Bytes::from(vec![0x5a; 100]))
                    .freshness_ms(10_000)
                    .sign_digest();
                (i, d)
            })
            .unzip();
        // In buffers as the UDP face receives them.
        let is = received(is)
            .into_iter()
            .map(|w| Interest::decode(w).unwrap());
        let ds = received(ds).into_iter().map(|w| Data::decode(w).unwrap());
        is.zip(ds).collect()
    }

    /// One exchange: Interest from the consumer, Data back from the producer.
    #[inline]
    fn exchange(&mut self, i: Interest, d: Data) {
        self.now += 1_000;
        self.fw
            .handle_interest(self.now, CONSUMER, i, LpMeta::default());
        let t = self.fw.poll_transmit().expect("Interest forwarded");
        let meta = LpMeta {
            pit_token: t.meta.pit_token.clone(),
            ..Default::default()
        };
        drop(black_box(t));
        self.fw.handle_data(self.now, PRODUCER, d, meta);
        let out = self.fw.poll_transmit().expect("Data returned");
        drop(black_box(out));
    }

    fn time_misses(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let n = left.min(self.batch);
            let batch = self.packets(n as usize);
            let clock = Clock::from_env();
            let start = clock.now();
            for (k, (i, d)) in batch.into_iter().enumerate() {
                self.exchange(i, d);
                if k % 64 == 63 {
                    // A runtime runs the timers once per burst.
                    self.fw.handle_timeout(self.now);
                }
            }
            total += clock.now() - start;
            left -= n;
        }
        total
    }
}

impl Setup {
    /// Miss path in bursts of `BURST`: a burst of Interests, then the burst of Data.
    fn time_misses_burst(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = iters;
        let mut ins = Vec::with_capacity(BURST);
        let mut outs = Vec::with_capacity(BURST);
        while left > 0 {
            let n = left.min(self.batch);
            let batch = self.packets(n as usize);
            let clock = Clock::from_env();
            let start = clock.now();
            let mut it = batch.into_iter().peekable();
            while it.peek().is_some() {
                self.now += 1_000;
                let mut datas = Vec::with_capacity(BURST);
                for (i, d) in it.by_ref().take(BURST) {
                    ins.push((CONSUMER, InPacket::Interest(i), LpMeta::default()));
                    datas.push(d);
                }
                self.fw.handle_burst(self.now, &mut ins);
                self.fw.drain_transmits(&mut outs);
                for (t, d) in outs.drain(..).zip(datas) {
                    let meta = LpMeta {
                        pit_token: t.meta.pit_token.clone(),
                        ..Default::default()
                    };
                    ins.push((PRODUCER, InPacket::Data(d), meta));
                }
                self.fw.handle_burst(self.now, &mut ins);
                self.fw.drain_transmits(&mut outs);
                outs.clear();
                self.fw.handle_timeout(self.now);
            }
            total += clock.now() - start;
            left -= n;
        }
        total
    }
}

const BURST: usize = 64;

/// CS hit setup: `pool` Interests for names already cached, drawn across the whole CS.
struct HitSetup {
    s: Setup,
    pool: Vec<Interest>,
    at: usize,
}

/// Which cached names the hit pool requests.
#[derive(Clone, Copy)]
enum Draw {
    /// Uniformly over the whole CS (the working set grows with the capacity).
    Uniform,
    /// Uniformly over the `n` names cached last (content diversity held fixed).
    Hot(usize),
    /// Zipf popularity with exponent `alpha` over every cached name (rank 1 = a random
    /// name), the request mix the seed papers' caching experiments use.
    Zipf(f64),
}

/// Ranks `0..n` drawn with probability proportional to `1 / (rank + 1)^alpha`
/// (inverse-CDF sampling over a precomputed table).
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, alpha: f64) -> Self {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|r| {
                acc += 1.0 / (r as f64).powf(alpha);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf { cdf }
    }

    fn sample(&self, rng: &mut Rng) -> usize {
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

impl HitSetup {
    /// `pool` Interests for names drawn across the whole CS (the working set grows
    /// with the capacity, up to `pool` names).
    fn new(cs_capacity: usize, pool: usize) -> Self {
        Self::build(cs_capacity, pool, Draw::Uniform)
    }

    /// `pool` Interests for the `hot` names cached last (content diversity held fixed
    /// while the capacity grows: seed 001's factor A alone).
    fn hot(cs_capacity: usize, pool: usize, hot: usize) -> Self {
        Self::build(cs_capacity, pool, Draw::Hot(hot))
    }

    fn build(cs_capacity: usize, pool: usize, draw: Draw) -> Self {
        let mut s = Setup::new(100_000, 0, 4);
        s.fw.cs().set_capacity(cs_capacity, 0);
        s.fw.cs().reserve(cs_capacity);
        let mut names = Vec::with_capacity(cs_capacity);
        let mut filled = 0;
        while filled < cs_capacity {
            let n = (cs_capacity - filled).min(65536);
            for (i, d) in s.packets(n) {
                names.push(i.name().clone());
                s.fw.handle_data(s.now, PRODUCER, d, LpMeta::default());
            }
            filled += n;
        }
        assert_eq!(s.fw.cs_ref().len(), cs_capacity);
        let hot = match draw {
            Draw::Hot(h) => h.min(names.len()),
            _ => names.len(),
        };
        let names = &names[names.len() - hot..];
        // Popularity rank -> name: a fixed random permutation, so that popular names
        // are spread over the table rather than cached next to each other.
        let by_rank = s.rng.permutation(names.len());
        let zipf = match draw {
            Draw::Zipf(alpha) => Some(Zipf::new(names.len(), alpha)),
            _ => None,
        };
        let wires = (0..pool)
            .map(|k| {
                let at = match &zipf {
                    Some(z) => by_rank[z.sample(&mut s.rng)] as usize,
                    None => (s.rng.next() % names.len() as u64) as usize,
                };
                Interest::builder(names[at].clone())
                    .nonce(k as u32)
                    .lifetime_ms(4000)
                    .build()
            })
            .collect();
        let pool = received(wires)
            .into_iter()
            .map(|w| Interest::decode(w).unwrap())
            .collect();
        HitSetup { s, pool, at: 0 }
    }

    /// The next Interest of the pool: shared with the pool (`BATCH`), or decoded from a
    /// copy of its bytes just now (`FRESH_BATCH`), as a face hands one over.
    fn next_interest(&mut self) -> Interest {
        self.at = (self.at + 1) % self.pool.len();
        let i = &self.pool[self.at];
        if self.s.batch == FRESH_BATCH {
            Interest::decode(packet_bytes(i.wire())).unwrap()
        } else {
            i.clone()
        }
    }

    /// Hits one by one, or through `handle_burst`.
    fn time(&mut self, iters: u64, burst: bool) -> Duration {
        match burst {
            true => self.time_hits_burst(iters),
            false => self.time_hits(iters),
        }
    }

    fn time_hits(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let n = left.min(self.s.batch) as usize;
            let batch: Vec<Interest> = (0..n).map(|_| self.next_interest()).collect();
            let fw = &mut self.s.fw;
            let now = self.s.now;
            let clock = Clock::from_env();
            let start = clock.now();
            for (k, i) in batch.into_iter().enumerate() {
                if k % 64 == 63 {
                    fw.handle_timeout(now);
                }
                fw.handle_interest(now, CONSUMER, i, LpMeta::default());
                let out = fw.poll_transmit().expect("CS hit");
                drop(black_box(out));
            }
            total += clock.now() - start;
            left -= n as u64;
        }
        total
    }
}

// Setups are built lazily inside the closures, so a filtered run only pays for the
// benchmarks it runs.

impl HitSetup {
    fn time_hits_burst(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut left = iters;
        let mut ins = Vec::with_capacity(BURST);
        let mut outs = Vec::with_capacity(BURST);
        while left > 0 {
            let n = left.min(self.s.batch) as usize;
            let batch: Vec<Interest> = (0..n).map(|_| self.next_interest()).collect();
            let fw = &mut self.s.fw;
            let now = self.s.now;
            let clock = Clock::from_env();
            let start = clock.now();
            let mut it = batch.into_iter().peekable();
            while it.peek().is_some() {
                ins.extend(
                    it.by_ref()
                        .take(BURST)
                        .map(|i| (CONSUMER, InPacket::Interest(i), LpMeta::default())),
                );
                fw.handle_burst(now, &mut ins);
                fw.drain_transmits(&mut outs);
                outs.clear();
                fw.handle_timeout(now);
            }
            total += clock.now() - start;
            left -= n as u64;
        }
        total
    }
}

fn burst_paths(c: &mut Criterion) {
    let mut g = c.benchmark_group("miss_burst");
    g.throughput(Throughput::Elements(1));
    for comps in [4, 16] {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::from_parameter(format!("{comps}comp")), |b| {
            let s = s.get_or_insert_with(|| Setup::new(100_000, 65_536, comps));
            b.iter_custom(|iters| s.time_misses_burst(iters))
        });
    }
    for cap in cs_sizes() {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::new("cs", cap), |b| {
            let s = s.get_or_insert_with(|| Setup::new(100_000, cap, 4));
            b.iter_custom(|iters| s.time_misses_burst(iters))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("hit_burst");
    g.throughput(Throughput::Elements(1));
    for cap in cs_sizes() {
        let mut h: Option<HitSetup> = None;
        g.bench_function(BenchmarkId::new("cs", cap), |b| {
            let h = h.get_or_insert_with(|| HitSetup::new(cap, 65_536));
            b.iter_custom(|iters| h.time_hits_burst(iters))
        });
    }
    g.finish();
}

fn miss_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("miss");
    g.throughput(Throughput::Elements(1));
    for comps in [4, 16] {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::from_parameter(format!("{comps}comp")), |b| {
            let s = s.get_or_insert_with(|| Setup::new(100_000, 65_536, comps));
            b.iter_custom(|iters| s.time_misses(iters))
        });
        if let Some(s) = s {
            assert_eq!(s.fw.pit_len(), 0);
            assert_eq!(s.fw.counters().n_cs_hits, 0);
        }
    }
    g.finish();
}

fn hit_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("hit");
    g.throughput(Throughput::Elements(1));
    let mut h: Option<HitSetup> = None;
    g.bench_function("4comp", |b| {
        let h = h.get_or_insert_with(|| HitSetup::new(65_536, 65_536));
        b.iter_custom(|iters| h.time_hits(iters))
    });
    if let Some(h) = h {
        assert_eq!(h.s.fw.counters().n_cs_misses, 0);
    }
    g.finish();
}

/// CS capacities 2^10 .. 2^21 (`NDNLAB_BENCH_CS_MAX_LOG2` lowers the top, e.g. on small machines).
fn cs_sizes() -> Vec<usize> {
    let max: u32 = std::env::var("NDNLAB_BENCH_CS_MAX_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    [10u32, 13, 16, 19, 21]
        .into_iter()
        .filter(|&k| k <= max)
        .map(|k| 1usize << k)
        .collect()
}

fn cs_capacity_sweep(c: &mut Criterion) {
    let mut g = c.benchmark_group("miss_cs");
    g.throughput(Throughput::Elements(1));
    for cap in cs_sizes() {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::from_parameter(cap), |b| {
            let s = s.get_or_insert_with(|| Setup::new(100_000, cap, 4));
            b.iter_custom(|iters| s.time_misses(iters))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("hit_cs");
    g.throughput(Throughput::Elements(1));
    for cap in cs_sizes() {
        let mut h: Option<HitSetup> = None;
        g.bench_function(BenchmarkId::from_parameter(cap), |b| {
            let h = h.get_or_insert_with(|| HitSetup::new(cap, 65_536));
            b.iter_custom(|iters| h.time_hits(iters))
        });
    }
    g.finish();
}

/// Content diversity for the fixed-workload sweeps: hits go to this many names (all
/// cached at every capacity)...
const HOT: usize = 1024;
/// ... and misses fall under this many FIB prefixes (present at every FIB size).
const HOT_PREFIXES: u64 = 1000;

/// Table size alone (seed 001's factor A: the workload held fixed while the table
/// grows): CS hits for the same `HOT` names at every capacity, and misses under the
/// same `HOT` prefixes with 10^3 .. 10^6 prefixes in the FIB. The CS is full and the
/// FIB holds all its prefixes in every case; LPM probes for absent prefix lengths
/// still land anywhere in the index.
fn table_size_sweep(c: &mut Criterion) {
    for (group, burst) in [("hit_cs_hot", false), ("hit_burst_cs_hot", true)] {
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Elements(1));
        for cap in cs_sizes() {
            let mut h: Option<HitSetup> = None;
            g.bench_function(BenchmarkId::from_parameter(cap), |b| {
                let h = h.get_or_insert_with(|| HitSetup::hot(cap, 65_536, HOT));
                b.iter_custom(|iters| h.time(iters, burst))
            });
        }
        g.finish();
    }
    let mut g = c.benchmark_group("miss_fib_hot");
    g.throughput(Throughput::Elements(1));
    for n in [1_000u64, 10_000, 100_000, 1_000_000] {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let s = s.get_or_insert_with(|| {
                let mut s = Setup::new(n, 65_536, 4);
                s.hot = Some(HOT_PREFIXES);
                s
            });
            b.iter_custom(|iters| s.time_misses(iters))
        });
    }
    g.finish();
}

fn fib_size_sweep(c: &mut Criterion) {
    let mut g = c.benchmark_group("miss_fib");
    g.throughput(Throughput::Elements(1));
    for n in [1_000u64, 10_000, 100_000, 1_000_000] {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let s = s.get_or_insert_with(|| Setup::new(n, 65_536, 4));
            b.iter_custom(|iters| s.time_misses(iters))
        });
    }
    g.finish();
}

/// Zipf exponent of the `hit_zipf` rows.
const ZIPF_ALPHA: f64 = 1.0;

/// The same paths with packets that are still in cache when they are forwarded
/// (`FRESH_BATCH`), and CS hits under Zipf popularity.
fn fresh_and_zipf(c: &mut Criterion) {
    let fresh_misses = |comps| {
        let mut s = Setup::new(100_000, 65_536, comps);
        s.batch = FRESH_BATCH;
        s
    };
    let mut g = c.benchmark_group("miss_fresh");
    g.throughput(Throughput::Elements(1));
    for (id, comps, burst) in [
        ("4comp", 4, false),
        ("16comp", 16, false),
        ("burst_4comp", 4, true),
    ] {
        let mut s: Option<Setup> = None;
        g.bench_function(id, |b| {
            let s = s.get_or_insert_with(|| fresh_misses(comps));
            b.iter_custom(|iters| match burst {
                true => s.time_misses_burst(iters),
                false => s.time_misses(iters),
            })
        });
    }
    for cap in cs_sizes() {
        let mut s: Option<Setup> = None;
        g.bench_function(BenchmarkId::new("burst_cs", cap), |b| {
            let s = s.get_or_insert_with(|| {
                let mut s = Setup::new(100_000, cap, 4);
                s.batch = FRESH_BATCH;
                s
            });
            b.iter_custom(|iters| s.time_misses_burst(iters))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("hit_fresh");
    g.throughput(Throughput::Elements(1));
    for (id, burst) in [("4comp", false), ("burst_4comp", true)] {
        let mut h: Option<HitSetup> = None;
        g.bench_function(id, |b| {
            let h = h.get_or_insert_with(|| {
                let mut h = HitSetup::new(65_536, 65_536);
                h.s.batch = FRESH_BATCH;
                h
            });
            b.iter_custom(|iters| h.time(iters, burst))
        });
    }
    for cap in cs_sizes() {
        let mut h: Option<HitSetup> = None;
        g.bench_function(BenchmarkId::new("burst_cs", cap), |b| {
            let h = h.get_or_insert_with(|| {
                let mut h = HitSetup::new(cap, 65_536);
                h.s.batch = FRESH_BATCH;
                h
            });
            b.iter_custom(|iters| h.time(iters, true))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("hit_zipf");
    g.throughput(Throughput::Elements(1));
    for cap in [65_536usize, 1 << 21] {
        for burst in [false, true] {
            let id = match burst {
                true => BenchmarkId::new("burst", cap),
                false => BenchmarkId::from_parameter(cap),
            };
            let mut h: Option<HitSetup> = None;
            g.bench_function(id, |b| {
                let h =
                    h.get_or_insert_with(|| HitSetup::build(cap, 65_536, Draw::Zipf(ZIPF_ALPHA)));
                b.iter_custom(|iters| h.time(iters, burst))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = miss_path, hit_path, cs_capacity_sweep, fib_size_sweep, burst_paths, table_size_sweep, fresh_and_zipf
}
criterion_main!(benches);
