//! A stage's service time ready to draw: the resolved [`ServiceDist`] with
//! its distribution's sampling constants computed once per model, not once
//! per packet.

use ndnlab_analysis::fit::Sampler;
use ndnlab_sim::ServiceDist;
use rand::Rng;
use rand_distr::Distribution;

/// One service time law, prepared.
#[derive(Debug, Clone)]
pub struct Draw {
    pub dist: ServiceDist,
    sampler: Option<Sampler>,
}

impl PartialEq for Draw {
    fn eq(&self, other: &Self) -> bool {
        self.dist == other.dist
    }
}

impl From<ServiceDist> for Draw {
    fn from(dist: ServiceDist) -> Draw {
        let sampler = match &dist {
            ServiceDist::Dist(d) => Some(d.sampler()),
            _ => None,
        };
        Draw { dist, sampler }
    }
}

impl Draw {
    /// One service time, ns: as [`ServiceDist::sample`] (negative or
    /// non-finite draws count as 0, others are rounded).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        match (&self.dist, &self.sampler) {
            (ServiceDist::Zero, _) => 0,
            (ServiceDist::Constant(ns), _) => *ns,
            (_, Some(s)) => {
                let x = s.sample(rng);
                if x.is_finite() && x > 0.0 {
                    (x + 0.5) as u64
                } else {
                    0
                }
            }
            (ServiceDist::Dist(d), None) => ServiceDist::Dist(d.clone()).sample(rng),
        }
    }

    /// The mean, ns.
    pub fn mean_ns(&self) -> f64 {
        self.dist.mean_ns()
    }
}
