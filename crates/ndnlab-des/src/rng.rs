//! The seeded random number generators of virtual time, and the seeds of a
//! campaign's runs.
//!
//! Every generator is seeded from a `u64` with `SeedableRng::seed_from_u64`,
//! so a seed names one stream on every machine. [`Rng`] (ChaCha12,
//! `rand::rngs::StdRng`) is the family: the simulator's service times, the
//! emulated links' jitter and loss (`ndnlab_proto::emu`), the laboratory's
//! applications and the fitted models' generator draw from it.
//!
//! [`FastRng`] (xoshiro256++, `rand::rngs::SmallRng`) is the specialised copy
//! for the data-plane model, which draws several uniforms per packet at
//! millions of packets per second. Why it exists: a uniform `f64` from it
//! costs a fraction of one from [`Rng`] (`cargo bench -p ndnlab-des --bench
//! hot_paths -- rng`, figures in docs/BENCHMARKS.md). It is not a
//! cryptographic generator, which no model needs. `tests` holds both to
//! uniform draws.
//!
//! [`stream_seed`] derives run `i`'s seed from a campaign's: runs get
//! unrelated streams, and a run's result depends on the campaign's seed and
//! its index only, never on how many threads ran the campaign.

use rand::rngs::{SmallRng, StdRng};
use rand::SeedableRng;

/// The generator of virtual time: ChaCha12.
pub type Rng = StdRng;

/// The data-plane model's generator: xoshiro256++.
pub type FastRng = SmallRng;

/// An [`Rng`] seeded by `seed`.
pub fn rng(seed: u64) -> Rng {
    StdRng::seed_from_u64(seed)
}

/// A [`FastRng`] seeded by `seed`.
pub fn fast_rng(seed: u64) -> FastRng {
    SmallRng::seed_from_u64(seed)
}

/// The seed of run `i` of a campaign seeded `base` (murmur3's 64-bit
/// finaliser of `base ^ i·φ`).
pub fn stream_seed(base: u64, i: u64) -> u64 {
    let mut x = base ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// splitmix64's finaliser: a well-mixed hash of a number.
#[inline]
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    /// Uniform draws of both generators: 16 equal bins of 160,000 draws each
    /// within 5% of their share (5 standard deviations), and the same seed the same stream.
    #[test]
    fn both_generators_draw_uniforms_and_repeat_by_seed() {
        fn bins(mut next: impl FnMut() -> f64) -> [u32; 16] {
            let mut b = [0u32; 16];
            for _ in 0..160_000 {
                b[(next() * 16.0) as usize] += 1;
            }
            b
        }
        let (mut a, mut b) = (rng(3), fast_rng(3));
        for counts in [bins(|| a.gen::<f64>()), bins(|| b.gen::<f64>())] {
            for c in counts {
                assert!((f64::from(c) - 10_000.0).abs() < 500.0, "{counts:?}");
            }
        }
        let draws = |mut r: FastRng| -> Vec<u64> { (0..4).map(|_| r.gen()).collect() };
        assert_eq!(draws(fast_rng(9)), draws(fast_rng(9)));
        assert_ne!(draws(fast_rng(9)), draws(fast_rng(10)));
        assert_eq!(rng(9).gen::<u64>(), rng(9).gen::<u64>());
    }

    #[test]
    fn stream_seeds_differ_by_index_and_base() {
        assert_ne!(stream_seed(7, 0), stream_seed(7, 1));
        assert_ne!(stream_seed(7, 0), stream_seed(8, 0));
        assert_eq!(stream_seed(7, 3), stream_seed(7, 3));
    }
}
