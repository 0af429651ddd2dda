//! Truth experiment of caching: `experiments/truth/zipf_lru.toml`, Zipf(0.8)
//! and uniform draws over 10,000 names from one consumer (window 1) against
//! an LRU Content Store of 1000 Data, under `sim`, `inproc` and `processes`.
//! The measured `cs_hit_ratio` must be within 2 points of Che's approximation
//! (`ndnlab_analysis::che`) for the same popularity and size.
//!
//! Why 2 points, under every runner: Che's approximation is within a few
//! tenths of a point of an exact LRU here (the unit tests of `che` check it
//! to half a point against a simulated LRU), and the window's hit ratio over
//! n lookups has a standard error of about sqrt(h (1 - h) / n), at most
//! 0.5 / sqrt(n): the test requires n >= 10,000 lookups (0.5 point), so 2
//! points hold the approximation's error plus more than 3 standard errors.
//! With one Interest in flight no Interest waits on a pending one (no PIT
//! aggregation), so every lookup is one independent draw, as Che's model has
//! it. The runners use the same law: rank k with probability k^-s / sum j^-s
//! (`rand_distr::Zipf` in process, `perf client --zipf` under `processes`).

use ndnlab_analysis::che::{che_hit_ratio, zipf_popularity};

use super::harness::{real_time, truth, within};

const CATALOGUE: usize = 10_000;
const CACHE: usize = 1000;
/// Lookups the window needs for the 2-point tolerance (see the module's doc).
const MIN_LOOKUPS: f64 = 10_000.0;

/// Runs the experiment under `runner` with Zipf exponent `s` for `secs`
/// seconds of window (enough for 10,000 lookups at the runner's pace).
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
        "the 2-point tolerance needs 10,000 lookups in the window",
    );
    within(
        &t,
        "cs_hit_ratio",
        che - 0.02,
        che + 0.02,
        &format!(
            "Che's approximation {che:.4} for Zipf({s}), N = {CATALOGUE}, C = {CACHE}, +-2 points"
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
