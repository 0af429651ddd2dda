//! Seeded uniform numbers for the synthetic sources of the tests: the value
//! for (stream, i) is a fixed hash, so run i of stream s is reproducible.

#![allow(dead_code)]

use ndnlab_smc::splitting::trajectory_seed;

/// A uniform number in [0, 1) for run `i` of `stream`.
pub fn uniform(stream: u64, i: u64) -> f64 {
    (trajectory_seed(stream, 0xB0B, i) >> 11) as f64 / (1u64 << 53) as f64
}

/// A Bernoulli(p) run.
pub fn bernoulli(stream: u64, p: f64) -> impl Fn(u64) -> bool + Sync {
    move |i| uniform(stream, i) < p
}
