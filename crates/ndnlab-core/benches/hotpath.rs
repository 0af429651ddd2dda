//! Instruction-count harness for the forwarding hot paths (docs/BENCHMARKS.md).
//!
//! Runs `n` CS-miss exchanges or `n` CS hits with packets built beforehand, the
//! forwarding calls inside one non-inlined function per path, so that
//! `valgrind --tool=callgrind --toggle-collect='hotpath::run_*'` counts exactly the
//! forwarder's instructions (load-independent, unlike timings on a shared machine).
//! Also prints thread-CPU nanoseconds per operation. Same setup as the `forwarding`
//! bench: 100,000 FIB prefixes, best-route, full priority-FIFO CS, PIT tokens echoed.
//!
//! Run: `cargo bench -p ndnlab-core --bench hotpath -- <miss|hit|burst-miss|burst-hit> [cs_capacity] [n] [comps] [prefix]`
//! (`burst-*`: the same packets through `handle_burst` in bursts of 64; `fresh-*`: packets
//! built 256 at a time just before they are forwarded, instead of all `n` beforehand)
//! (defaults: miss 1024 100000 4; `prefix` enables the CS's NFD-style CanBePrefix index).

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_core::{
    FaceId, FaceScope, Forwarder, ForwarderConfig, InPacket, LinkType, LpMeta,
    UnsolicitedDataPolicy,
};
use ndnlab_wire::{Data, Interest, Name};

const CONSUMER: FaceId = FaceId(256);
const PRODUCER: FaceId = FaceId(257);
const FIB: u64 = 100_000;
/// Packets built at a time in the `fresh-*` modes.
const FRESH_CHUNK: usize = 256;

mod support;
use ndnlab_testkit::cpu::thread_time;
use support::received;

/// The allocator the `ndnlab` binary uses (see the forwarding bench).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Gen {
    rng: u64,
    next_id: u64,
    comps: usize,
}

impl Gen {
    fn rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// The wires of a new (Interest, Data) pair.
    fn pair_wires(&mut self) -> (Bytes, Bytes) {
        let p = self.rand() % FIB;
        let id = self.next_id;
        self.next_id += 1;
        let mut uri = format!("/p{p}/x/y/o{id}");
        for c in 4..self.comps {
            uri.push_str(&format!("/c{c}"));
        }
        let name = Name::from_uri(&uri).expect("valid uri");
        let i = Interest::builder(name.clone())
            .nonce(self.rand() as u32)
            .lifetime_ms(4000)
            .build();
        let d = Data::builder(name)
            .content(Bytes::from(vec![0x5a; 100]))
            .freshness_ms(10_000)
            .sign_digest();
        (i, d)
    }

    /// `n` new (Interest, Data) pairs, in buffers as the UDP face receives them.
    fn pairs(&mut self, n: usize) -> Vec<(Interest, Data)> {
        let (is, ds): (Vec<_>, Vec<_>) = (0..n).map(|_| self.pair_wires()).unzip();
        let is = received(is)
            .into_iter()
            .map(|w| Interest::decode(w).expect("valid Interest"));
        let ds = received(ds)
            .into_iter()
            .map(|w| Data::decode(w).expect("valid Data"));
        is.zip(ds).collect()
    }
}

fn forwarder(cs: usize) -> Forwarder {
    let mut fw = Forwarder::new(ForwarderConfig {
        cs_capacity: cs,
        unsolicited: UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    fw.add_face(CONSUMER, FaceScope::NonLocal, LinkType::PointToPoint);
    fw.add_face(PRODUCER, FaceScope::NonLocal, LinkType::PointToPoint);
    fw.fib().reserve(FIB as usize);
    for i in 0..FIB {
        let uri = match i % 3 {
            0 => format!("/p{i}"),
            1 => format!("/p{i}/x"),
            _ => format!("/p{i}/x/y"),
        };
        fw.fib()
            .add_nexthop(&Name::from_uri(&uri).expect("uri"), PRODUCER, 1);
    }
    fw.cs().reserve(cs);
    fw
}

#[inline(never)]
fn run_misses(fw: &mut Forwarder, pkts: Vec<(Interest, Data)>, now: &mut u64) {
    for (k, (i, d)) in pkts.into_iter().enumerate() {
        *now += 1_000;
        fw.handle_interest(*now, CONSUMER, i, LpMeta::default());
        let t = fw.poll_transmit().expect("Interest forwarded");
        let meta = LpMeta {
            pit_token: t.meta.pit_token.clone(),
            ..Default::default()
        };
        drop(black_box(t));
        fw.handle_data(*now, PRODUCER, d, meta);
        drop(black_box(fw.poll_transmit().expect("Data returned")));
        if k % 64 == 63 {
            fw.handle_timeout(*now);
        }
    }
}

#[inline(never)]
fn run_hits(fw: &mut Forwarder, pkts: Vec<Interest>, now: u64) {
    for (k, i) in pkts.into_iter().enumerate() {
        fw.handle_interest(now, CONSUMER, i, LpMeta::default());
        drop(black_box(fw.poll_transmit().expect("CS hit")));
        if k % 64 == 63 {
            fw.handle_timeout(now);
        }
    }
}

const BURST: usize = 64;

#[inline(never)]
fn run_burst_misses(fw: &mut Forwarder, pkts: Vec<(Interest, Data)>, now: &mut u64) {
    let mut ins = Vec::with_capacity(BURST);
    let mut outs = Vec::with_capacity(BURST);
    let mut datas = Vec::with_capacity(BURST);
    let mut it = pkts.into_iter().peekable();
    while it.peek().is_some() {
        *now += 1_000;
        for (i, d) in it.by_ref().take(BURST) {
            ins.push((CONSUMER, InPacket::Interest(i), LpMeta::default()));
            datas.push(d);
        }
        fw.handle_burst(*now, &mut ins);
        fw.drain_transmits(&mut outs);
        for (t, d) in outs.drain(..).zip(datas.drain(..)) {
            let meta = LpMeta {
                pit_token: t.meta.pit_token.clone(),
                ..Default::default()
            };
            ins.push((PRODUCER, InPacket::Data(d), meta));
        }
        fw.handle_burst(*now, &mut ins);
        fw.drain_transmits(&mut outs);
        drop(black_box(outs.drain(..)));
        fw.handle_timeout(*now);
    }
}

#[inline(never)]
fn run_burst_hits(fw: &mut Forwarder, pkts: Vec<Interest>, now: u64) {
    let mut ins = Vec::with_capacity(BURST);
    let mut outs = Vec::with_capacity(BURST);
    let mut it = pkts.into_iter().peekable();
    while it.peek().is_some() {
        for i in it.by_ref().take(BURST) {
            ins.push((CONSUMER, InPacket::Interest(i), LpMeta::default()));
        }
        fw.handle_burst(now, &mut ins);
        fw.drain_transmits(&mut outs);
        drop(black_box(outs.drain(..)));
        fw.handle_timeout(now);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; ignore flags.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let mode = args.first().map_or("miss", String::as_str).to_string();
    let cs: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(1024);
    let n: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let comps: usize = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(4);
    let mut g = Gen {
        rng: 0x9E37_79B9_7F4A_7C15,
        next_id: 0,
        comps,
    };
    let mut fw = forwarder(cs);
    if args.get(4).is_some_and(|a| a == "prefix") {
        fw.cs().set_prefix_match(true);
    }
    let mut now = 1u64;
    // Fill the CS (unsolicited Data, admitted by policy).
    let mut names = Vec::with_capacity(cs);
    while names.len() < cs {
        for (i, d) in g.pairs((cs - names.len()).min(65536)) {
            names.push(i.name().clone());
            fw.handle_data(now, PRODUCER, d, LpMeta::default());
        }
    }
    assert_eq!(fw.cs_ref().len(), cs);
    // Room for a burst of PIT entries beyond the full CS, so that the slot vector
    // does not grow (copying the whole table) in the first run, whose instructions
    // callgrind counts too.
    fw.cs().reserve_pit(64);
    // `fresh-<mode>`: packets built 256 at a time just before they are forwarded (still
    // in cache, as a runtime hands them over), not all `n` beforehand.
    let fresh = mode.starts_with("fresh-");
    let path = mode.trim_start_matches("fresh-");
    let burst = path.starts_with("burst-");
    let (ops, elapsed) = match path.trim_start_matches("burst-") {
        "miss" => {
            // Warm up (timers, pools, slabs at steady state), then measure.
            let run = if burst { run_burst_misses } else { run_misses };
            let warm = g.pairs(n.min(20_000));
            run(&mut fw, warm, &mut now);
            let chunk = if fresh { FRESH_CHUNK } else { n };
            let mut el = Duration::ZERO;
            for at in (0..n).step_by(chunk) {
                let pkts = g.pairs(n.min(at + chunk) - at);
                let t0 = thread_time();
                run(&mut fw, pkts, &mut now);
                el += thread_time() - t0;
            }
            assert_eq!(fw.pit_len(), 0);
            (n, el)
        }
        "hit" => {
            let mk = |g: &mut Gen, n: usize| -> Vec<Interest> {
                let wires = (0..n)
                    .map(|_| {
                        let name = names[(g.rand() % names.len() as u64) as usize].clone();
                        Interest::builder(name)
                            .nonce(g.rand() as u32)
                            .lifetime_ms(4000)
                            .build()
                    })
                    .collect();
                received(wires)
                    .into_iter()
                    .map(|w| Interest::decode(w).expect("valid Interest"))
                    .collect()
            };
            let run = if burst { run_burst_hits } else { run_hits };
            let warm = mk(&mut g, n.min(20_000));
            run(&mut fw, warm, now);
            let chunk = if fresh { FRESH_CHUNK } else { n };
            let mut el = Duration::ZERO;
            for at in (0..n).step_by(chunk) {
                let pkts = mk(&mut g, n.min(at + chunk) - at);
                let t0 = thread_time();
                run(&mut fw, pkts, now);
                el += thread_time() - t0;
            }
            assert_eq!(fw.counters().n_cs_misses, 0);
            (n, el)
        }
        other => panic!(
            "unknown mode {other:?}: use miss, hit, burst-miss or burst-hit, each optionally prefixed by fresh-"
        ),
    };
    println!(
        "{mode} cs={cs} comps={comps}: {ops} ops, {:.1} ns/op (thread CPU)",
        elapsed.as_nanos() as f64 / ops as f64
    );
}
