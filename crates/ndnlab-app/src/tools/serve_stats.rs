//! What a producer measures about itself: the time it takes to sign each Data
//! and the time from an Interest's arrival to its Data leaving (the server's
//! per-chunk delay), as histograms; and what follows from them over a window:
//! the CPU spent signing and the cores a rate needs (NDNperf's "cores needed":
//! signing time per Data times Data per second).
//!
//! `ndnlab perf server` and the laboratory's producer record into the same
//! [`ServeStats`]; each record is of an Interest that arrived at a given
//! instant, and a record given a window ([`ServeStats::set_window`]) keeps
//! only those that arrived inside it. An interval's statistics are the
//! difference of two snapshots ([`ServeStats::since`]); a report carries its
//! histograms as buckets ([`ServeStats::json`]), and the reports of several
//! intervals or producers add up exactly ([`ServeStats::add_json`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::stats::{add_buckets, buckets};

/// Longest time recorded, in nanoseconds (larger values are clamped).
const MAX_NS: u64 = 60_000_000_000;

/// A producer's counts and histograms so far.
#[derive(Debug, Clone)]
pub struct ServeStats {
    /// Nanoseconds each signature took.
    pub sign_ns: Histogram<u64>,
    /// Nanoseconds from each Interest's arrival to its Data's departure.
    pub serve_ns: Histogram<u64>,
    /// Sum of the signing times, in nanoseconds.
    pub sign_busy_ns: u64,
    /// Only Interests that arrived in `[open, close)` are recorded.
    window: Option<(Instant, Instant)>,
}

/// A [`ServeStats`] shared by the threads that record into it.
pub type SharedServeStats = Arc<Mutex<ServeStats>>;

impl Default for ServeStats {
    fn default() -> Self {
        let h = || Histogram::new_with_bounds(1, MAX_NS, 2).expect("valid bounds");
        ServeStats {
            sign_ns: h(),
            serve_ns: h(),
            sign_busy_ns: 0,
            window: None,
        }
    }
}

/// A window's statistics (see [`ServeStats::summary`]); times in µs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServeSummary {
    /// Data signed in the window.
    pub signed: u64,
    /// Data sent in the window (signed now, or from a cache).
    pub served: u64,
    pub sign_mean_us: f64,
    pub sign_p50_us: f64,
    pub sign_p99_us: f64,
    pub serve_mean_us: f64,
    pub serve_p50_us: f64,
    pub serve_p99_us: f64,
    /// Signing CPU seconds per second of the window.
    pub sign_cores: f64,
    /// Cores the window's Data rate needs at its mean signing time.
    pub sign_cores_needed: f64,
}

impl ServeStats {
    /// A new, shared, empty record.
    pub fn shared() -> SharedServeStats {
        Arc::new(Mutex::new(ServeStats::default()))
    }

    /// Keeps only what answers Interests that arrive in `[open, close)`.
    pub fn set_window(&mut self, open: Instant, close: Instant) {
        self.window = Some((open, close));
    }

    fn counts(&self, arrived: Instant) -> bool {
        self.window
            .is_none_or(|(open, close)| arrived >= open && arrived < close)
    }

    /// Records one signature of `took`, for an Interest that `arrived`.
    pub fn record_sign(&mut self, arrived: Instant, took: Duration) {
        if !self.counts(arrived) {
            return;
        }
        let ns = (took.as_nanos() as u64).clamp(1, MAX_NS);
        let _ = self.sign_ns.record(ns);
        self.sign_busy_ns += ns;
    }

    /// Records `n` Data that left `took` after their Interests `arrived`.
    pub fn record_serve(&mut self, arrived: Instant, took: Duration, n: u64) {
        if !self.counts(arrived) {
            return;
        }
        let ns = (took.as_nanos() as u64).clamp(1, MAX_NS);
        let _ = self.serve_ns.record_n(ns, n);
    }

    /// What was recorded after `earlier` (a snapshot of the same record).
    pub fn since(&self, earlier: &ServeStats) -> ServeStats {
        let mut d = self.clone();
        // a snapshot never holds more than what followed it
        let _ = d.sign_ns.subtract(&earlier.sign_ns);
        let _ = d.serve_ns.subtract(&earlier.serve_ns);
        d.sign_busy_ns = self.sign_busy_ns.saturating_sub(earlier.sign_busy_ns);
        d
    }

    /// The record as `--json` fields: `sign_hist_ns` and `serve_hist_ns`, the
    /// histograms' `[nanoseconds, count]` buckets ([`buckets`]), and
    /// `sign_busy_ns`, the signing time summed.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "sign_hist_ns": buckets(&self.sign_ns),
            "serve_hist_ns": buckets(&self.serve_ns),
            "sign_busy_ns": self.sign_busy_ns,
        })
    }

    /// Adds the record a report row holds (the fields of [`Self::json`]);
    /// the error names the field.
    pub fn add_json(&mut self, row: &serde_json::Value) -> Result<(), String> {
        add_buckets(&mut self.sign_ns, &row["sign_hist_ns"])
            .map_err(|e| format!("sign_hist_ns: {e}"))?;
        add_buckets(&mut self.serve_ns, &row["serve_hist_ns"])
            .map_err(|e| format!("serve_hist_ns: {e}"))?;
        let busy = row["sign_busy_ns"].as_u64().ok_or_else(|| {
            format!(
                "sign_busy_ns: not a count of nanoseconds: {}",
                row["sign_busy_ns"]
            )
        })?;
        self.sign_busy_ns += busy;
        Ok(())
    }

    /// Forgets everything recorded.
    pub fn reset(&mut self) {
        self.sign_ns.reset();
        self.serve_ns.reset();
        self.sign_busy_ns = 0;
    }

    /// The statistics of this record taken as a window of `secs` seconds.
    pub fn summary(&self, secs: f64) -> ServeSummary {
        let us = |h: &Histogram<u64>, q: f64| {
            if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64 / 1e3
            }
        };
        let signed = self.sign_ns.len();
        let served = self.serve_ns.len();
        let sign_mean_us = if signed > 0 {
            self.sign_busy_ns as f64 / signed as f64 / 1e3
        } else {
            0.0
        };
        let secs = secs.max(1e-9);
        ServeSummary {
            signed,
            served,
            sign_mean_us,
            sign_p50_us: us(&self.sign_ns, 0.5),
            sign_p99_us: us(&self.sign_ns, 0.99),
            serve_mean_us: if served > 0 {
                self.serve_ns.mean() / 1e3
            } else {
                0.0
            },
            serve_p50_us: us(&self.serve_ns, 0.5),
            serve_p99_us: us(&self.serve_ns, 0.99),
            sign_cores: self.sign_busy_ns as f64 / 1e9 / secs,
            sign_cores_needed: sign_mean_us / 1e6 * served as f64 / secs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1000;

    #[test]
    fn a_window_has_known_statistics() {
        let mut s = ServeStats::default();
        let t = Instant::now();
        // before the window: 10 slow signatures, to be left out
        for _ in 0..10 {
            s.record_sign(t, Duration::from_millis(5));
            s.record_serve(t, Duration::from_millis(9), 1);
        }
        let open = s.clone();
        // in the window (2 s): 98 signatures of 40 µs, 2 of 200 µs; every
        // Data served 50 µs after its Interest, 100 more from a cache at 10 µs
        for i in 0..100 {
            let us = if i < 98 { 40 } else { 200 };
            s.record_sign(t, Duration::from_nanos(us * US));
        }
        s.record_serve(t, Duration::from_micros(50), 100);
        s.record_serve(t, Duration::from_micros(10), 100);
        let w = s.since(&open).summary(2.0);
        assert_eq!(w.signed, 100);
        assert_eq!(w.served, 200);
        // (98 * 40 + 2 * 200) / 100 = 43.2 µs
        assert!((w.sign_mean_us - 43.2).abs() < 1e-9, "{w:?}");
        assert!((w.sign_p50_us - 40.0).abs() < 0.5, "{w:?}");
        assert!((w.sign_p99_us - 200.0).abs() < 2.0, "{w:?}");
        assert!((w.serve_mean_us - 30.0).abs() < 0.3, "{w:?}");
        assert!((w.serve_p50_us - 10.0).abs() < 0.1, "{w:?}");
        assert!((w.serve_p99_us - 50.0).abs() < 0.5, "{w:?}");
        // 4.32 ms of signing over 2 s
        assert!((w.sign_cores - 0.00216).abs() < 1e-12, "{w:?}");
        // 43.2 µs x 100 Data/s
        assert!((w.sign_cores_needed - 0.00432).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn a_window_keeps_what_arrived_inside_it() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut s = ServeStats::default();
        s.set_window(at(100), at(200));
        for (arrived, us) in [(50, 1000), (100, 10), (150, 30), (199, 20), (200, 1000)] {
            s.record_sign(at(arrived), Duration::from_micros(us));
            s.record_serve(at(arrived), Duration::from_micros(us), 2);
        }
        let w = s.summary(0.1);
        assert_eq!((w.signed, w.served), (3, 6));
        assert!((w.sign_mean_us - 20.0).abs() < 1e-9, "{w:?}");
        assert!((w.serve_mean_us - 20.0).abs() < 0.2, "{w:?}");
        // 60 µs over 0.1 s; 20 µs x 60 Data/s
        assert!((w.sign_cores - 0.0006).abs() < 1e-12, "{w:?}");
        assert!((w.sign_cores_needed - 0.0012).abs() < 1e-12, "{w:?}");
    }

    #[test]
    fn reports_add_up_to_the_record_of_all_their_samples() {
        let t = Instant::now();
        let (mut a, mut b, mut all) = (
            ServeStats::default(),
            ServeStats::default(),
            ServeStats::default(),
        );
        for (i, us) in [40u64, 41, 45, 300, 2000].into_iter().enumerate() {
            let s = if i % 2 == 0 { &mut a } else { &mut b };
            for r in [&mut *s, &mut all] {
                r.record_sign(t, Duration::from_micros(us));
                r.record_serve(t, Duration::from_micros(us + 5), 2);
            }
        }
        let mut merged = ServeStats::default();
        for s in [&a, &b] {
            let row: serde_json::Value = serde_json::from_str(&s.json().to_string()).unwrap();
            merged.add_json(&row).unwrap();
        }
        assert_eq!(merged.sign_busy_ns, 2_426_000);
        assert_eq!(merged.summary(1.0), all.summary(1.0));
        let e = merged
            .add_json(&serde_json::json!({"sign_hist_ns": []}))
            .unwrap_err();
        assert!(e.starts_with("serve_hist_ns: "), "{e}");
    }

    #[test]
    fn an_empty_window_is_zero() {
        let s = ServeStats::default();
        assert_eq!(s.since(&s).summary(1.0), ServeSummary::default());
    }
}
