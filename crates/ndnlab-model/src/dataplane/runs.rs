//! Many runs of one model: seeded, spread over threads, summarised.
//!
//! Run `i` of a campaign with seed `s` is seeded by [`run_seed`]`(s, i)`
//! (`ndnlab_des::rng::stream_seed`), so its result does not depend on how
//! many threads ran the campaign or in which order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::Serialize;

use super::engine::simulate;
use super::observe::{Observables, NAMES};
use super::spec::Resolved;

/// The seed of run `i` of a campaign seeded `base`.
pub use ndnlab_des::rng::stream_seed as run_seed;

/// The threads to use by default: the machine's cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Calls `f(i)` for `i` in `0..n` on `threads` threads; results in index order.
/// `progress` is called with the number done after each.
pub fn par_map<T: Send>(
    n: u64,
    threads: usize,
    f: impl Fn(u64) -> T + Sync,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<T> {
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let threads = threads.clamp(1, n.max(1) as usize);
    let mut parts: Vec<Vec<(u64, T)>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return out;
                        }
                        out.push((i, f(i)));
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a run panicked"))
            .collect()
    });
    let mut all: Vec<(u64, T)> = parts.drain(..).flatten().collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, t)| t).collect()
}

/// `n` runs of `r`, seeded from `seed`.
pub fn runs(
    r: &Resolved,
    seed: u64,
    n: u64,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<Observables> {
    par_map(
        n,
        threads,
        |i| simulate(r, run_seed(seed, i), 0).0,
        progress,
    )
}

/// One observable over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stat {
    pub name: &'static str,
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// Half-width of the 95% normal confidence interval of the mean.
    pub ci95: f64,
}

/// Mean, spread and range of every observable (infinite values, such as
/// `first_loss` of a run without loss, are left out of its mean).
pub fn summarize(obs: &[Observables]) -> Vec<Stat> {
    let vals: Vec<_> = obs.iter().map(Observables::values).collect();
    NAMES
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let xs: Vec<f64> = vals
                .iter()
                .map(|v| v[k])
                .filter(|x| x.is_finite())
                .collect();
            let n = xs.len() as f64;
            let mean = if xs.is_empty() {
                f64::INFINITY
            } else {
                xs.iter().sum::<f64>() / n
            };
            let sd = if xs.len() > 1 {
                (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
            } else {
                0.0
            };
            Stat {
                name,
                mean,
                sd,
                min: xs.iter().copied().fold(f64::INFINITY, f64::min),
                max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                ci95: if n > 1.0 { 1.96 * sd / n.sqrt() } else { 0.0 },
            }
        })
        .collect()
}

/// How fast a campaign ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Speed {
    pub runs: u64,
    pub threads: usize,
    pub wall_s: f64,
    /// Packets the simulated forwarder received, over all runs.
    pub packets: f64,
    /// Simulated packets per wall-clock second per thread.
    pub packets_per_s_per_core: f64,
}

/// Times `f` and reports the speed of the runs it returns.
pub fn timed(threads: usize, f: impl FnOnce() -> Vec<Observables>) -> (Vec<Observables>, Speed) {
    let t0 = Instant::now();
    let obs = f();
    let wall_s = t0.elapsed().as_secs_f64();
    let packets: f64 = obs.iter().map(|o| o.packets).sum();
    let used = threads.clamp(1, obs.len().max(1));
    let speed = Speed {
        runs: obs.len() as u64,
        threads: used,
        wall_s,
        packets,
        packets_per_s_per_core: packets / wall_s / used as f64,
    };
    (obs, speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn par_map_keeps_index_order_whatever_the_threads() {
        let f = |i: u64| run_seed(7, i);
        let a = par_map(100, 1, f, &|_| {});
        let b = par_map(100, 3, f, &|_| {});
        assert_eq!(a, b);
        assert_eq!(a.len(), 100);
        assert_ne!(a[0], a[1]);
    }
}
