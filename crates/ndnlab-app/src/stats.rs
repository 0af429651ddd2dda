//! Measurement helpers shared by the tools: latency histograms (hdrhistogram,
//! microsecond resolution), their summaries, their buckets as JSON (which merge
//! exactly), and rates. CPU time comes from `ndnlab_cputime`.

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
    /// The recorded buckets, as [`buckets`] gives them (microseconds).
    pub fn buckets(&self) -> Vec<[u64; 2]> {
        buckets(&self.h)
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

/// A histogram's recorded buckets as `[value, count]` pairs, values
/// increasing: `value` is the highest value equivalent to the bucket's (the
/// tools' `--json` `*_hist_*` fields). Recorded back into a histogram of the
/// same bounds and precision ([`add_buckets`]) each pair lands in the bucket it
/// came from, so the histograms of intervals or processes merge exactly: the
/// merged percentiles are those of all the samples, never a mean of
/// percentiles.
pub fn buckets(h: &Histogram<u64>) -> Vec<[u64; 2]> {
    h.iter_recorded()
        .map(|v| [v.value_iterated_to(), v.count_at_value()])
        .collect()
}

/// Adds the `[value, count]` pairs of `pairs` (a JSON array, as [`buckets`]
/// writes it) to `h`; returns how many samples they hold, or what is wrong
/// with them.
pub fn add_buckets(h: &mut Histogram<u64>, pairs: &serde_json::Value) -> Result<u64, String> {
    let rows = pairs
        .as_array()
        .ok_or_else(|| format!("not an array of [value, count] pairs: {pairs}"))?;
    let mut n = 0u64;
    for r in rows {
        let (v, c) = match r.as_array().map(Vec::as_slice) {
            Some([v, c]) => (v.as_u64(), c.as_u64()),
            _ => (None, None),
        };
        let (Some(v), Some(c)) = (v, c) else {
            return Err(format!("not a [value, count] pair of integers: {r}"));
        };
        h.record_n(v, c)
            .map_err(|e| format!("[{v}, {c}]: {e:?} (bounds {}..{})", h.low(), h.high()))?;
        n += c;
    }
    Ok(n)
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
    fn buckets_merge_exactly() {
        let (mut a, mut b, mut both) = (Latency::default(), Latency::default(), Latency::default());
        for us in [1u64, 7, 999, 1001, 12_345, 12_346, 599_999_000] {
            a.record(Duration::from_micros(us));
            both.record(Duration::from_micros(us));
        }
        for us in [3u64, 7, 45_678_901] {
            b.record(Duration::from_micros(us));
            both.record(Duration::from_micros(us));
        }
        let mut merged = Latency::default();
        let text = serde_json::json!([a.buckets(), b.buckets()]).to_string();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(add_buckets(&mut merged.h, &back[0]), Ok(7));
        assert_eq!(add_buckets(&mut merged.h, &back[1]), Ok(3));
        assert_eq!(merged.buckets(), both.buckets());
        assert_eq!(merged.summary(), both.summary());
        for bad in [
            "{}",
            "[[1]]",
            "[[1, -2]]",
            "[[\"a\", 1]]",
            "[[1000000000000000, 1]]",
        ] {
            let v: serde_json::Value = serde_json::from_str(bad).unwrap();
            assert!(add_buckets(&mut merged.h, &v).is_err(), "{bad}");
        }
    }

    #[test]
    fn mbps_math() {
        assert_eq!(mbps(1_000_000, Duration::from_secs(8)), 1.0);
        assert_eq!(mbps(5, Duration::ZERO), 0.0);
    }
}
