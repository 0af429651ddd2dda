//! CoDel-style congestion marking on a send queue (NFD's algorithm): once the queue
//! has stayed above its threshold for an interval, mark one packet, then mark again
//! after interval / sqrt(marks + 1), until the queue drains below the threshold.

use super::Nanos;

/// A send queue's marking parameters (NFD: 100 ms and 64 KiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CongestionLimits {
    /// BaseCongestionMarkingInterval.
    pub interval_ns: Nanos,
    /// DefaultCongestionThreshold, in bytes queued.
    pub threshold: usize,
}

impl Default for CongestionLimits {
    fn default() -> Self {
        CongestionLimits {
            interval_ns: 100_000_000,
            threshold: 65536,
        }
    }
}

/// The marker of one send queue.
#[derive(Debug, Default)]
pub struct CongestionMarker {
    next_mark: Option<Nanos>,
    marks_in_episode: u64,
}

impl CongestionMarker {
    /// Whether to mark the packet being sent now with `queued` bytes behind it.
    pub fn should_mark(&mut self, now: Nanos, queued: usize, limits: &CongestionLimits) -> bool {
        if queued <= limits.threshold {
            self.next_mark = None;
            self.marks_in_episode = 0;
            return false;
        }
        match self.next_mark {
            None => {
                self.next_mark = Some(now.saturating_add(limits.interval_ns));
                false
            }
            Some(t) if now >= t => {
                self.marks_in_episode += 1;
                let step = limits.interval_ns as f64 / ((self.marks_in_episode + 1) as f64).sqrt();
                self.next_mark = Some(t.saturating_add(step as u64));
                true
            }
            Some(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codel_marks_after_an_interval_then_faster() {
        let l = CongestionLimits::default();
        let mut m = CongestionMarker::default();
        let ms = 1_000_000;
        assert!(!m.should_mark(0, 100_000, &l));
        assert!(!m.should_mark(50 * ms, 100_000, &l));
        assert!(m.should_mark(100 * ms, 100_000, &l));
        // next after 100/sqrt(2) = 70.7 ms
        assert!(!m.should_mark(170 * ms, 100_000, &l));
        assert!(m.should_mark(171 * ms, 100_000, &l));
        // queue drains: episode ends
        assert!(!m.should_mark(172 * ms, 10, &l));
        assert!(!m.should_mark(400 * ms, 100_000, &l));
    }

    /// BaseCongestionMarkingInterval comes from faces/update (any u64 ns): the
    /// longest one postpones the first mark to the clock's end instead of
    /// wrapping into the past; 1 ns marks at the next packet.
    #[test]
    fn extreme_intervals_do_not_wrap() {
        let late = u64::MAX - 10;
        let long = CongestionLimits {
            interval_ns: u64::MAX,
            ..CongestionLimits::default()
        };
        let mut m = CongestionMarker::default();
        assert!(!m.should_mark(late, 100_000, &long));
        assert!(!m.should_mark(late + 5, 100_000, &long));
        assert!(m.should_mark(u64::MAX, 100_000, &long));
        let short = CongestionLimits {
            interval_ns: 1,
            ..CongestionLimits::default()
        };
        let mut m = CongestionMarker::default();
        assert!(!m.should_mark(late, 100_000, &short));
        assert!(m.should_mark(late + 1, 100_000, &short));
    }
}
