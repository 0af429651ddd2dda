//! The data-plane model's hot paths, each against the general primitive it
//! specialises (docs/BENCHMARKS.md). A specialised copy stays in this crate
//! only where it is at least twice as fast here:
//!
//! * `events/{scan,heap}/<sources>`: one event of a hold model (pop the
//!   earliest pending time, reschedule its source), by [`earliest`] over an
//!   array of pending times and by [`EventQueue`]. 12 sources are the
//!   NDN-DPDK model with 8 forwarding threads (2 input threads, 8 forwarding
//!   threads, the consumer and the return line); 66 its largest, 64 threads.
//! * `fifo/{lindley,station}`: one packet through a bounded tail-drop queue
//!   at 90% load (an offer, a completion), by [`Server`] and by [`Station`].
//! * `sampler/{table,exact}/<family>`: one service time drawn by
//!   [`Tabulated`] and by the distribution's own sampler prepared once
//!   (`Dist::sampler`), on the same generator.
//! * `rng/{fast,std}`: one uniform `f64` from [`FastRng`] and from [`Rng`].
//!
//! Timed in thread CPU time. Run: `cargo bench -p ndnlab-des --bench hot_paths`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndnlab_des::fifo::{Offered, Server};
use ndnlab_des::rng::{fast_rng, rng, FastRng, Rng};
use ndnlab_des::{
    earliest, Class, Dist, DropPolicy, EventQueue, Nanos, ServiceDist, Station, Tabulated, IDLE,
};
use ndnlab_testkit::cpu::thread_time;
use rand::distributions::Distribution;
use rand::Rng as _;

/// 4096 pseudo-random delays in 1..=1000 ns, cheap to read in the loops.
fn delays() -> Vec<Nanos> {
    let mut r = fast_rng(1);
    (0..4096).map(|_| r.gen_range(1..=1000)).collect()
}

fn events(c: &mut Criterion) {
    let mut g = c.benchmark_group("events");
    g.throughput(Throughput::Elements(1));
    let d = delays();
    for sources in [12usize, 66] {
        g.bench_function(BenchmarkId::new("scan", sources), |b| {
            let mut times: Vec<Nanos> = (0..sources).map(|i| d[i]).collect();
            let mut k = 0usize;
            b.iter_custom(|iters| {
                let t0 = thread_time();
                for _ in 0..iters {
                    let (i, at) = earliest(black_box(&times)).expect("pending");
                    times[i] = at + d[k & 4095];
                    k += 1;
                }
                black_box(&times);
                thread_time() - t0
            })
        });
        g.bench_function(BenchmarkId::new("heap", sources), |b| {
            let mut q = EventQueue::new();
            for (i, &t) in d.iter().take(sources).enumerate() {
                q.schedule(t, i);
            }
            let mut k = 0usize;
            b.iter_custom(|iters| {
                let t0 = thread_time();
                for _ in 0..iters {
                    let (at, i) = q.pop().expect("pending");
                    q.schedule(at + d[k & 4095], black_box(i));
                    k += 1;
                }
                thread_time() - t0
            })
        });
    }
    // The scan must still see an idle source as idle.
    assert_eq!(earliest(&[IDLE]), None);
    g.finish();
}

/// `iters` packets through a queue of 64 at 90% load: arrivals every
/// `gap[k]`, services `svc[k]`, both averaging so that service / gap = 0.9.
fn fifo(c: &mut Criterion) {
    let mut g = c.benchmark_group("fifo");
    g.throughput(Throughput::Elements(1));
    let d = delays();
    let gaps: Vec<Nanos> = d.iter().map(|x| x * 10 / 9).collect();
    g.bench_function("lindley", |b| {
        let mut s: Server<u32> = Server::new(64, DropPolicy::TailDrop);
        let (mut now, mut next, mut k) = (0u64, None::<u64>, 0usize);
        b.iter_custom(|iters| {
            let t0 = thread_time();
            for _ in 0..iters {
                now += gaps[k & 4095];
                let mut cost = |_: Class, _: &mut u32| d[k & 4095];
                while let Some(done) = next.filter(|t| *t <= now) {
                    let (p, n) = s.complete(done, &mut cost);
                    black_box(p);
                    next = n;
                }
                if let Offered::Queued(Some(t)) = s.offer(now, Class::Interest, k as u32, &mut cost)
                {
                    next = Some(t);
                }
                k += 1;
            }
            thread_time() - t0
        })
    });
    g.bench_function("station", |b| {
        let mut s: Station<u32> = Station::new(64, DropPolicy::TailDrop);
        let (mut now, mut next, mut k) = (0u64, None::<u64>, 0usize);
        b.iter_custom(|iters| {
            let t0 = thread_time();
            for _ in 0..iters {
                now += gaps[k & 4095];
                let mut cost = |_: Class, _: &mut u32| d[k & 4095];
                while let Some(done) = next.filter(|t| *t <= now) {
                    let (p, n) = s.complete(done, &mut cost).expect("in service");
                    black_box(p);
                    next = n;
                }
                if let Ok(a) = s.offer(now, Class::Interest, k as u32, &mut cost) {
                    if let Some(t) = a.started {
                        next = Some(t);
                    }
                }
                k += 1;
            }
            thread_time() - t0
        })
    });
    g.finish();
}

fn sampler(c: &mut Criterion) {
    let mut g = c.benchmark_group("sampler");
    g.throughput(Throughput::Elements(1));
    let families = [
        (
            "gamma",
            Dist::Gamma {
                shape: 6.0,
                scale: 35.0,
            },
        ),
        (
            "lognormal",
            Dist::Lognormal {
                mu: 2000f64.ln(),
                sigma: 0.25,
            },
        ),
    ];
    for (name, dist) in families {
        let table = Tabulated::from(ServiceDist::Dist(dist.clone()));
        g.bench_function(BenchmarkId::new("table", name), |b| {
            let mut r = fast_rng(5);
            b.iter_custom(|iters| {
                let t0 = thread_time();
                for _ in 0..iters {
                    black_box(table.sample(&mut r));
                }
                thread_time() - t0
            })
        });
        let exact = dist.sampler();
        g.bench_function(BenchmarkId::new("exact", name), |b| {
            let mut r = fast_rng(5);
            b.iter_custom(|iters| {
                let t0 = thread_time();
                for _ in 0..iters {
                    black_box(ndnlab_des::service::to_ns(exact.sample(&mut r)));
                }
                thread_time() - t0
            })
        });
    }
    g.finish();
}

fn uniforms(c: &mut Criterion) {
    let mut g = c.benchmark_group("rng");
    g.throughput(Throughput::Elements(1));
    fn draw<R: rand::Rng>(mut r: R) -> impl FnMut(u64) -> Duration {
        move |iters| {
            let t0 = thread_time();
            for _ in 0..iters {
                black_box(r.gen::<f64>());
            }
            thread_time() - t0
        }
    }
    let (fast, std): (FastRng, Rng) = (fast_rng(7), rng(7));
    g.bench_function("fast", |b| b.iter_custom(draw(fast.clone())));
    g.bench_function("std", |b| b.iter_custom(draw(std.clone())));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = events, fifo, sampler, uniforms
}
criterion_main!(benches);
