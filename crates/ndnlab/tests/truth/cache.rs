//! Truth experiment of caching: `experiments/truth/zipf_lru.toml`, Zipf(0.8)
//! and uniform draws over 10,000 names from one consumer (window 1) against
//! an LRU Content Store of 1000 Data, under `sim`, `inproc` and `processes`.
//! The measured `cs_hit_ratio` must be within half a point plus 4 standard errors of Che's approximation
//! (`ndnlab_analysis::che`) for the same popularity and size.
//!
//! The tolerance, under every runner: Che's approximation is within a few
//! tenths of a point of an exact LRU here (the unit tests of `che` check it
//! to half a point against a simulated LRU), and the window's hit ratio over
//! n lookups has a standard error of sqrt(h (1 - h) / n). The bound is half a
//! point plus 4 standard errors at Che's h and the window's own n, so a slower
//! machine, which makes fewer lookups in the same window, widens the bound
//! instead of failing the run; n must be at least 2000 (at most 5 points).
//! With one Interest in flight no Interest waits on a pending one (no PIT
//! aggregation), so every lookup is one independent draw, as Che's model has
//! it. The runners use the same law: rank k with probability k^-s / sum j^-s
//! (`rand_distr::Zipf` in process, `perf client --zipf` under `processes`).

use ndnlab_analysis::che::{che_hit_ratio, zipf_popularity};

use super::harness::{real_time, truth, within};

const CATALOGUE: usize = 10_000;
const CACHE: usize = 1000;
/// Lookups the window needs for a tolerance of at most 5 points (see the
/// module's doc).
const MIN_LOOKUPS: f64 = 2000.0;

/// Runs the experiment under `runner` with Zipf exponent `s` for `secs`
/// seconds of window (about 10,000 lookups or more at the runner's pace).
fn che_against(runner: &str, s: f64, secs: f64) {
    let zipf = format!("apps.client.zipf={s}");
    let duration = format!("experiment.duration_s={secs}");
    let t = truth("zipf_lru.toml", runner, &[&zipf, &duration]);
    let che = che_hit_ratio(&zipf_popularity(CATALOGUE, s), CACHE);
    // the window's lookups: every Interest of the consumer, one per exchange
    within(
        &t,
        "interests",
        MIN_LOOKUPS,
        1e9,
        "the tolerance needs 2000 lookups in the window",
    );
    let n = t.get("interests");
    let tol = 0.005 + 4.0 * (che * (1.0 - che) / n).sqrt();
    within(
        &t,
        "cs_hit_ratio",
        che - tol,
        che + tol,
        &format!(
            "Che's approximation {che:.4} for Zipf({s}), N = {CATALOGUE}, C = {CACHE}, +-{:.2} points ({n} lookups)",
            100.0 * tol
        ),
    );
    within(
        &t,
        "satisfaction",
        1.0,
        1.0,
        "a lossless line answers everything",
    );
    eprintln!(
        "truth zipf_lru under {runner}, s = {s}: cs_hit_ratio {:.4}, Che {che:.4}, lookups {}",
        t.get("cs_hit_ratio"),
        t.get("interests")
    );
}

// Window lengths: `sim` makes about 30,000 exchanges per virtual second
// (window 1, no service time); `inproc` and `processes` 1600 to 7000 per second
// on a 2-core machine shared with compilations, the fewer the more misses (a
// miss goes on to the producer).

#[test]
fn truth_cache_under_sim_follows_che() {
    // the uniform case has the closed form C / N exactly
    assert!((che_hit_ratio(&zipf_popularity(CATALOGUE, 0.0), CACHE) - 0.1).abs() < 1e-9);
    che_against("sim", 0.8, 1.0);
    che_against("sim", 0.0, 1.0);
}

#[test]
fn truth_cache_under_inproc_follows_che() {
    let _machine = real_time();
    che_against("inproc", 0.8, 4.0);
    che_against("inproc", 0.0, 5.0);
}

#[test]
fn truth_cache_under_processes_follows_che() {
    let _machine = real_time();
    che_against("processes", 0.8, 7.0);
    che_against("processes", 0.0, 7.0);
}
