//! A service-time law and its sampler.
//!
//! A [`ServiceDist`] is zero, a constant, or a distribution in ns
//! (`ndnlab_analysis::fit::Dist`, as the cost strings and the fitted model
//! files give it). [`ServiceDist::sample`] draws with the distribution's own
//! exact sampler (`Dist::sampler`: `rand_distr`'s for the parametric
//! families, the quantile function for the others), rounds to whole ns and
//! counts a negative or non-finite draw as 0. The simulator's stations draw
//! this way; the data-plane model draws from the same law through
//! [`crate::tabulated::Tabulated`].

use ndnlab_analysis::fit::Dist;
use rand::Rng;

use crate::events::Nanos;

/// One class's or stage's resolved service time.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceDist {
    Zero,
    Constant(Nanos),
    /// In ns; draws below 0 (or not finite) count as 0, others are rounded.
    Dist(Dist),
}

/// `x` ns as a service time: negative or non-finite values count as 0,
/// others are rounded to the nearest ns.
#[inline]
pub fn to_ns(x: f64) -> Nanos {
    if x.is_finite() && x > 0.0 {
        x.round() as Nanos
    } else {
        0
    }
}

impl ServiceDist {
    /// One service time, by the distribution's exact sampler.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Nanos {
        match self {
            ServiceDist::Zero => 0,
            ServiceDist::Constant(ns) => *ns,
            ServiceDist::Dist(d) => to_ns(d.sample(rng)),
        }
    }

    /// The mean, in ns (of the distribution, before clamping at 0).
    pub fn mean_ns(&self) -> f64 {
        match self {
            ServiceDist::Zero => 0.0,
            ServiceDist::Constant(ns) => *ns as f64,
            ServiceDist::Dist(d) => d.mean(),
        }
    }

    /// Whether every draw is 0.
    pub fn is_zero(&self) -> bool {
        *self == ServiceDist::Zero
    }
}
