//! RTT estimator (ndn-cxx `RttEstimator`, used by NFD's ASF): RFC 6298 smoothing
//! with NDN's defaults.
//!
//! * first sample: `srtt = rtt`, `rttvar = rtt / 2`;
//! * later: `rttvar = (1 - beta) rttvar + beta |srtt - rtt|`, `srtt = (1 - alpha) srtt + alpha rtt`
//!   with alpha = 1/8, beta = 1/4;
//! * `rto = clamp(srtt + 4 rttvar, min_rto, max_rto)`, 1 s before any sample;
//! * [`RttEstimator::backoff_rto`] multiplies the RTO by 2 (clamped) after a timeout;
//!   the next sample recomputes it.
//!
//! Integer nanoseconds throughout (alpha and beta are powers of two), so results are
//! exact and deterministic.

use crate::{Time, MS};

/// Estimator options (ndn-cxx `RttEstimator::Options` defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttOptions {
    /// RTO before any measurement (1 s).
    pub initial_rto: Time,
    /// Lower bound of the RTO (200 ms).
    pub min_rto: Time,
    /// Upper bound of the RTO (1 min).
    pub max_rto: Time,
    /// Multiplier of [`RttEstimator::backoff_rto`] (2).
    pub backoff_multiplier: u64,
}

impl Default for RttOptions {
    fn default() -> Self {
        RttOptions {
            initial_rto: 1_000 * MS,
            min_rto: 200 * MS,
            max_rto: 60_000 * MS,
            backoff_multiplier: 2,
        }
    }
}

/// Smoothed RTT, RTT variation and retransmission timeout of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttEstimator {
    opts: RttOptions,
    srtt: Option<Time>,
    rttvar: Time,
    rto: Time,
    samples: u64,
}

impl Default for RttEstimator {
    fn default() -> Self {
        Self::new(RttOptions::default())
    }
}

impl RttEstimator {
    /// An estimator without samples.
    pub fn new(opts: RttOptions) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            rto: opts.initial_rto,
            samples: 0,
            opts,
        }
    }

    /// Add an RTT sample.
    pub fn add_measurement(&mut self, rtt: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                self.rttvar = self.rttvar - self.rttvar / 4 + srtt.abs_diff(rtt) / 4;
                self.srtt = Some(srtt - srtt / 8 + rtt / 8);
            }
        }
        self.samples += 1;
        let srtt = self.srtt.unwrap_or(rtt);
        self.rto = srtt
            .saturating_add(self.rttvar.saturating_mul(4))
            .clamp(self.opts.min_rto, self.opts.max_rto);
    }

    /// Multiply the RTO by the back-off multiplier, within the bounds.
    pub fn backoff_rto(&mut self) {
        self.rto = self
            .rto
            .saturating_mul(self.opts.backoff_multiplier)
            .clamp(self.opts.min_rto, self.opts.max_rto);
    }

    /// Smoothed RTT (`None` before the first sample).
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// RTT variation.
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Current retransmission timeout.
    pub fn rto(&self) -> Time {
        self.rto
    }

    /// Number of samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_smoothing_bounds_and_backoff() {
        let mut e = RttEstimator::default();
        assert_eq!((e.srtt(), e.rto()), (None, 1_000 * MS));
        e.add_measurement(100 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
        assert_eq!(e.rto(), 300 * MS); // 100 + 4 * 50
        e.add_measurement(20 * MS);
        // rttvar = 3/4 * 50 + 1/4 * 80 = 57.5; srtt = 7/8 * 100 + 1/8 * 20 = 90
        assert_eq!(e.rttvar(), 57_500_000);
        assert_eq!(e.srtt(), Some(90 * MS));
        assert_eq!(e.rto(), 320 * MS);
        e.backoff_rto();
        assert_eq!(e.rto(), 640 * MS);
        for _ in 0..20 {
            e.backoff_rto();
        }
        assert_eq!(e.rto(), 60_000 * MS, "clamped at max");
        // A fast, stable path: RTO clamped at min.
        let mut f = RttEstimator::default();
        for _ in 0..50 {
            f.add_measurement(MS);
        }
        assert_eq!(f.rto(), 200 * MS);
        assert_eq!(f.samples(), 50);
    }
}
