//! Round-trip time estimation and retransmission timeout, RFC 6298 style,
//! with the options of ndn-tools' `ndncatchunks` (`--rto-alpha`, `--rto-beta`,
//! `--rto-k`, `--min-rto`, `--max-rto`).

use std::time::Duration;

/// Options of the RTT estimator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RttOptions {
    /// Gain of the smoothed RTT (RFC 6298 alpha, 1/8).
    pub alpha: f64,
    /// Gain of the RTT variation (RFC 6298 beta, 1/4).
    pub beta: f64,
    /// Multiplier of the RTT variation in the RTO (RFC 6298 K; ndncatchunks uses 8).
    pub k: f64,
    /// RTO before the first sample.
    pub initial_rto: Duration,
    /// Lower bound of the RTO.
    pub min_rto: Duration,
    /// Upper bound of the RTO.
    pub max_rto: Duration,
    /// Factor applied to the RTO on each timeout (exponential back-off).
    pub backoff_multiplier: f64,
}

impl Default for RttOptions {
    fn default() -> Self {
        RttOptions {
            alpha: 0.125,
            beta: 0.25,
            k: 8.0,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            backoff_multiplier: 2.0,
        }
    }
}

/// RFC 6298 estimator: smoothed RTT, RTT variation, RTO with back-off, plus
/// min/max/mean of the samples for summaries.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    opts: RttOptions,
    srtt: Option<f64>,
    rttvar: f64,
    rto: f64,
    min: f64,
    max: f64,
    sum: f64,
    samples: u64,
}

impl RttEstimator {
    pub fn new(opts: RttOptions) -> Self {
        RttEstimator {
            rto: opts.initial_rto.as_secs_f64(),
            opts,
            srtt: None,
            rttvar: 0.0,
            min: f64::INFINITY,
            max: 0.0,
            sum: 0.0,
            samples: 0,
        }
    }

    /// Adds one sample. `n_expected` is the number of samples expected in
    /// this RTT (the window): the gains are divided by it, as ndn-cxx does,
    /// so a large window does not make the estimate jumpy.
    pub fn add_measurement(&mut self, rtt: Duration, n_expected: usize) {
        let r = rtt.as_secs_f64();
        let n = n_expected.max(1) as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                let a = self.opts.alpha / n;
                let b = self.opts.beta / n;
                self.rttvar = (1.0 - b) * self.rttvar + b * (srtt - r).abs();
                self.srtt = Some((1.0 - a) * srtt + a * r);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = self.clamp(srtt + self.opts.k * self.rttvar);
        self.min = self.min.min(r);
        self.max = self.max.max(r);
        self.sum += r;
        self.samples += 1;
    }

    /// Doubles (by `backoff_multiplier`) the RTO after a timeout.
    pub fn backoff_rto(&mut self) {
        self.rto = self.clamp(self.rto * self.opts.backoff_multiplier);
    }

    fn clamp(&self, v: f64) -> f64 {
        v.clamp(
            self.opts.min_rto.as_secs_f64(),
            self.opts.max_rto.as_secs_f64(),
        )
    }

    pub fn rto(&self) -> Duration {
        Duration::from_secs_f64(self.rto)
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.map(Duration::from_secs_f64)
    }
    pub fn rttvar(&self) -> Duration {
        Duration::from_secs_f64(self.rttvar)
    }
    pub fn samples(&self) -> u64 {
        self.samples
    }
    pub fn min(&self) -> Option<Duration> {
        (self.samples > 0).then(|| Duration::from_secs_f64(self.min))
    }
    pub fn max(&self) -> Option<Duration> {
        (self.samples > 0).then(|| Duration::from_secs_f64(self.max))
    }
    pub fn mean(&self) -> Option<Duration> {
        (self.samples > 0).then(|| Duration::from_secs_f64(self.sum / self.samples as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_var() {
        let mut e = RttEstimator::new(RttOptions {
            k: 4.0,
            ..Default::default()
        });
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.add_measurement(ms(100), 1);
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        // 100 + 4 * 50 = 300 ms
        assert!((e.rto().as_secs_f64() - 0.3).abs() < 1e-9);
    }

    #[test]
    fn second_sample_follows_rfc6298() {
        let mut e = RttEstimator::new(RttOptions {
            k: 4.0,
            min_rto: ms(1),
            ..Default::default()
        });
        e.add_measurement(ms(100), 1);
        e.add_measurement(ms(200), 1);
        // rttvar = 0.75*50 + 0.25*100 = 62.5; srtt = 0.875*100 + 0.125*200 = 112.5
        assert!((e.rttvar().as_secs_f64() - 0.0625).abs() < 1e-9);
        assert!((e.srtt().unwrap().as_secs_f64() - 0.1125).abs() < 1e-9);
        assert!((e.rto().as_secs_f64() - (0.1125 + 4.0 * 0.0625)).abs() < 1e-9);
        assert_eq!(e.min(), Some(ms(100)));
        assert_eq!(e.max(), Some(ms(200)));
        assert_eq!(e.mean(), Some(ms(150)));
    }

    #[test]
    fn rto_is_clamped_and_backs_off() {
        let mut e = RttEstimator::new(RttOptions {
            min_rto: ms(200),
            max_rto: ms(1000),
            ..Default::default()
        });
        e.add_measurement(ms(1), 1);
        assert_eq!(e.rto(), ms(200));
        e.backoff_rto();
        assert_eq!(e.rto(), ms(400));
        e.backoff_rto();
        e.backoff_rto();
        assert_eq!(e.rto(), ms(1000));
    }
}
