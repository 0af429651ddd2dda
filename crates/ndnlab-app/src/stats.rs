//! Measurement helpers shared by the tools: latency histograms (hdrhistogram,
//! microsecond resolution), their summaries, and rates. CPU time comes from
//! `ndnlab_testkit::cpu`.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// Latency histogram from 1 µs to 10 min, 3 significant digits.
#[derive(Debug, Clone)]
pub struct Latency {
    h: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            h: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
        }
    }
}

impl Latency {
    pub fn record(&mut self, d: Duration) {
        let us = (d.as_micros() as u64).clamp(1, 600_000_000);
        // cannot fail: the value is clamped into the bounds
        let _ = self.h.record(us);
    }
    pub fn count(&self) -> u64 {
        self.h.len()
    }
    pub fn merge(&mut self, other: &Latency) {
        let _ = self.h.add(&other.h);
    }
    pub fn reset(&mut self) {
        self.h.reset();
    }
    pub fn summary(&self) -> LatencySummary {
        if self.h.is_empty() {
            return LatencySummary::default();
        }
        let ms = |us: f64| us / 1000.0;
        let (mut n, mut sum, mut sq) = (0.0, 0.0, 0.0);
        for v in self.h.iter_recorded() {
            let c = v.count_at_value() as f64;
            let x = self.h.median_equivalent(v.value_iterated_to()) as f64;
            n += c;
            sum += c * x;
            sq += c * x * x;
        }
        let mean = sum / n;
        LatencySummary {
            count: self.h.len(),
            min_ms: ms(self.h.min() as f64),
            mean_ms: ms(self.h.mean()),
            p50_ms: ms(self.h.value_at_quantile(0.5) as f64),
            p99_ms: ms(self.h.value_at_quantile(0.99) as f64),
            max_ms: ms(self.h.max() as f64),
            mdev_ms: ms((sq / n - mean * mean).max(0.0).sqrt()),
        }
    }
}

/// Summary of a latency distribution, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ms: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Standard deviation (ping's "mdev").
    pub mdev_ms: f64,
}

/// Megabits per second.
pub fn mbps(bytes: u64, over: Duration) -> f64 {
    if over.is_zero() {
        return 0.0;
    }
    bytes as f64 * 8.0 / over.as_secs_f64() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let mut l = Latency::default();
        for ms in [1u64, 2, 3, 4, 100] {
            l.record(Duration::from_millis(ms));
        }
        let s = l.summary();
        assert_eq!(s.count, 5);
        assert!((s.min_ms - 1.0).abs() < 0.01);
        assert!((s.p50_ms - 3.0).abs() < 0.01);
        assert!((s.max_ms - 100.0).abs() < 0.1);
        assert!((s.mean_ms - 22.0).abs() < 0.05);
        // population std-dev of 1,2,3,4,100 = 39.0
        assert!((s.mdev_ms - 39.0).abs() < 0.1, "{}", s.mdev_ms);
    }

    #[test]
    fn empty_summary_is_zero() {
        assert_eq!(Latency::default().summary(), LatencySummary::default());
    }

    #[test]
    fn mbps_math() {
        assert_eq!(mbps(1_000_000, Duration::from_secs(8)), 1.0);
        assert_eq!(mbps(5, Duration::ZERO), 0.0);
    }
}
