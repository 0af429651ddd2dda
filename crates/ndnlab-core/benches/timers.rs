//! The PIT timer queue at daemon scale (docs/BENCHMARKS.md): steady state with
//! `pending` armed timers, one element = push one timer (deadline `now + 4 s`, the
//! default Interest lifetime) and pop every due one, the clock advancing so that
//! pushes and pops balance. Compares the core's timing wheel (`TimerQueue`) with the
//! `BinaryHeap` it replaced (the daemon profile showed `BinaryHeap::pop` at 11.6%).
//!
//! Timed in thread CPU time. Run: `cargo bench -p ndnlab-core --bench timers`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndnlab_core::timer::TimerQueue;
use ndnlab_testkit::cpu::thread_time;

const LIFETIME: u64 = 4_000_000_000;

trait Queue {
    fn push(&mut self, at: u64, i: u32);
    fn pop_due(&mut self, now: u64) -> Option<u32>;
}

impl Queue for TimerQueue {
    fn push(&mut self, at: u64, i: u32) {
        TimerQueue::push(self, at, i, 0);
    }
    fn pop_due(&mut self, now: u64) -> Option<u32> {
        TimerQueue::pop_due(self, now).map(|t| t.1)
    }
}

#[derive(Default)]
struct Heap(BinaryHeap<Reverse<(u64, u32, u32)>>);

impl Queue for Heap {
    fn push(&mut self, at: u64, i: u32) {
        self.0.push(Reverse((at, i, 0)));
    }
    fn pop_due(&mut self, now: u64) -> Option<u32> {
        match self.0.peek() {
            Some(Reverse((t, _, _))) if *t <= now => self.0.pop().map(|Reverse(x)| x.1),
            _ => None,
        }
    }
}

/// Fill with `pending` timers spread over one lifetime; returns the clock.
fn fill(q: &mut impl Queue, pending: u64) -> u64 {
    let step = LIFETIME / pending;
    for k in 0..pending {
        // Jitter so deadlines are not perfectly sorted (as with varying lifetimes).
        q.push(k * step + (k * 7919) % step.max(1), k as u32);
    }
    0
}

fn run(q: &mut impl Queue, now: &mut u64, step: u64, iters: u64) {
    for k in 0..iters {
        *now += step;
        q.push(*now + LIFETIME, k as u32);
        if k % 64 == 63 {
            // Once per burst, as the forwarder's handle_timeout.
            while let Some(i) = q.pop_due(*now) {
                black_box(i);
            }
        }
    }
}

fn timers(c: &mut Criterion) {
    let mut g = c.benchmark_group("timers");
    g.throughput(Throughput::Elements(1));
    for pending in [10_000u64, 1_000_000, 4_000_000] {
        let step = LIFETIME / pending;
        let mut wheel: Option<(TimerQueue, u64)> = None;
        g.bench_function(BenchmarkId::new("wheel", pending), |b| {
            let (q, now) = wheel.get_or_insert_with(|| {
                let mut q = TimerQueue::default();
                let now = fill(&mut q, pending);
                (q, now)
            });
            b.iter_custom(|iters| {
                let t = thread_time();
                run(q, now, step, iters);
                thread_time() - t
            })
        });
        drop(wheel);
        let mut heap: Option<(Heap, u64)> = None;
        g.bench_function(BenchmarkId::new("heap", pending), |b| {
            let (q, now) = heap.get_or_insert_with(|| {
                let mut q = Heap::default();
                let now = fill(&mut q, pending);
                (q, now)
            });
            b.iter_custom(|iters| {
                let t = thread_time();
                run(q, now, step, iters);
                thread_time() - t
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = timers
}
criterion_main!(benches);
