//! The perf client's measurement window (`--window-start` or `--window-at`,
//! and `--window-secs`):
//! the Interests sent inside it, each counted once with its outcome whenever
//! that comes, as the laboratory's consumers count them. An Interest sent
//! before the window opens is left out even when its answer arrives inside;
//! one sent inside and answered after the close, within its lifetime, is in.
//!
//! An Interest's outcome is the first of: its Data (the delivery time is from
//! this Interest's departure), a Nack, a retransmission of its segment (the
//! client gave up on it: a timeout), or its lifetime passing unanswered (a
//! timeout). Every Interest sent counts, retransmissions too (`retx` of them).
//! The tally is sans-IO: times are durations since the client's start.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::client::Counts;

/// A flow and a segment: what one Interest asks for.
pub(super) type Key = (usize, u64);

/// When the window opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opening {
    /// This long after the client's start (`--window-start`).
    AfterStart(Duration),
    /// At this instant of the client's clock (`--window-at`, converted once).
    At(Instant),
}

impl Opening {
    /// The window of `secs` as (opening, length) in durations since `base`,
    /// the client's start; a window opened before it is cut at the start (the
    /// client sent nothing before), one closed before it is empty.
    pub fn since(self, base: Instant, secs: Duration) -> (Duration, Duration) {
        match self {
            Opening::AfterStart(open) => (open, secs),
            Opening::At(at) => {
                let open = at.saturating_duration_since(base);
                let close = (at + secs).saturating_duration_since(base);
                (open, close - open)
            }
        }
    }
}

/// See the module documentation.
pub(super) struct WindowTally {
    open: Duration,
    close: Duration,
    lifetime: Duration,
    /// Key → when its latest Interest left, until it has its outcome.
    pending: HashMap<Key, Duration>,
    counts: Counts,
}

impl WindowTally {
    /// The window `[open, open + secs)` for Interests of `lifetime`.
    pub fn new(open: Duration, secs: Duration, lifetime: Duration) -> WindowTally {
        WindowTally {
            open,
            close: open + secs,
            lifetime,
            pending: HashMap::new(),
            counts: Counts::default(),
        }
    }

    fn inside(&self, t: Duration) -> bool {
        t >= self.open && t < self.close
    }

    /// An Interest for `key` left at `now` (`retx`: a retransmission).
    pub fn sent(&mut self, key: Key, now: Duration, retx: bool) {
        if let Some(earlier) = self.pending.insert(key, now) {
            self.timed_out(earlier);
        }
        if self.inside(now) {
            self.counts.sent += 1;
            self.counts.retx += u64::from(retx);
        }
    }

    /// The Data for `key` arrived at `now` with `bytes` of content.
    pub fn data(&mut self, key: Key, now: Duration, bytes: u64, marked: bool) {
        let Some(t) = self.pending.remove(&key) else {
            return;
        };
        if self.inside(t) {
            let c = &mut self.counts;
            c.data += 1;
            c.bytes += bytes;
            c.marks += u64::from(marked);
            c.rtt.record(now.saturating_sub(t));
        }
    }

    /// A Data for `key` whose signature did not verify.
    pub fn rejected(&mut self, key: Key) {
        if self.pending.remove(&key).is_some_and(|t| self.inside(t)) {
            self.counts.rejected += 1;
        }
    }

    /// A Nack for `key`.
    pub fn nack(&mut self, key: Key) {
        if self.pending.remove(&key).is_some_and(|t| self.inside(t)) {
            self.counts.nacks += 1;
        }
    }

    /// Gives up the Interests unanswered for their lifetime at `now`.
    pub fn expire(&mut self, now: Duration) {
        let lifetime = self.lifetime;
        let mut expired = Vec::new();
        self.pending.retain(|_, t| {
            let gone = now.saturating_sub(*t) >= lifetime;
            if gone {
                expired.push(*t);
            }
            !gone
        });
        for t in expired {
            self.timed_out(t);
        }
    }

    fn timed_out(&mut self, sent: Duration) {
        if self.inside(sent) {
            self.counts.timeouts += 1;
        }
    }

    /// Whether an Interest sent inside the window still awaits its outcome.
    pub fn waiting(&self) -> bool {
        self.pending.values().any(|&t| self.inside(t))
    }

    /// The window's counts, every Interest still waiting given up.
    pub fn finish(mut self) -> Counts {
        for t in std::mem::take(&mut self.pending).into_values() {
            self.timed_out(t);
        }
        self.counts
    }
}

/// How long after its start (`base`) the client sends: its `--duration`
/// (`deadline`, from the instant the command began, before it connected),
/// and at least to the window's close. The window counts from the client's
/// start, so a start slowed by the connection would otherwise cut the
/// window's tail by as long as it took, and a start slower than the window
/// would leave it without an Interest.
pub(super) fn send_until(deadline: Duration, window: Option<(Duration, Duration)>) -> Duration {
    window.map_or(deadline, |(open, secs)| deadline.max(open + secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn an_absolute_opening_is_taken_from_the_clients_start() {
        let base = Instant::now();
        let secs = ms(1000);
        assert_eq!(
            Opening::AfterStart(ms(300)).since(base, secs),
            (ms(300), ms(1000))
        );
        // opens 250 ms after the start
        assert_eq!(
            Opening::At(base + ms(250)).since(base, secs),
            (ms(250), ms(1000))
        );
        // opened 40 ms before the client started: the 960 ms left
        if let Some(early) = base.checked_sub(ms(40)) {
            assert_eq!(Opening::At(early).since(base, secs), (ms(0), ms(960)));
        }
        // closed before the start: empty
        if let Some(gone) = base.checked_sub(ms(1500)) {
            assert_eq!(Opening::At(gone).since(base, secs), (ms(0), ms(0)));
        }
    }

    #[test]
    fn interests_count_by_their_departure() {
        // window 1 s .. 2 s, lifetime 300 ms
        let mut w = WindowTally::new(ms(1000), ms(1000), ms(300));
        // sent before the opening, answered inside it: left out
        w.sent((0, 0), ms(990), false);
        w.data((0, 0), ms(1010), 100, false);
        // sent inside, answered inside after 20 ms (marked)
        w.sent((0, 1), ms(1000), false);
        w.data((0, 1), ms(1020), 100, true);
        // sent inside, answered after the close, within its lifetime
        w.sent((0, 2), ms(1999), false);
        assert!(w.waiting());
        w.data((1, 2), ms(2100), 100, false);
        w.data((0, 2), ms(2199), 100, false);
        assert!(!w.waiting());
        // sent at the close: left out
        w.sent((0, 3), ms(2000), false);
        w.data((0, 3), ms(2001), 100, false);
        // a Nack, a rejected Data, a duplicate Data
        w.sent((1, 0), ms(1100), false);
        w.nack((1, 0));
        w.sent((1, 1), ms(1100), false);
        w.rejected((1, 1));
        w.data((1, 1), ms(1101), 100, false);
        // unanswered for its lifetime; then given up by a retransmission
        // (sent before the window: its timeout is not counted, the resend is)
        w.sent((1, 2), ms(1500), false);
        w.expire(ms(1799));
        assert!(w.waiting());
        w.expire(ms(1800));
        w.sent((1, 3), ms(900), false);
        w.sent((1, 3), ms(1150), true);
        w.data((1, 3), ms(1160), 50, false);
        // still waiting when the client stops
        w.sent((1, 4), ms(1900), false);
        let c = w.finish();
        assert_eq!(
            (c.sent, c.data, c.nacks, c.timeouts, c.rejected, c.retx),
            (7, 3, 1, 2, 1, 1)
        );
        assert_eq!((c.bytes, c.marks), (250, 1));
        let s = c.rtt.summary();
        // 20, 200 and 10 ms
        assert_eq!(s.count, 3);
        assert!((s.p50_ms - 20.0).abs() < 0.02, "{s:?}");
        assert!((s.max_ms - 200.0).abs() < 0.2, "{s:?}");
    }

    #[test]
    fn the_client_sends_until_its_window_closes() {
        // --duration 0.8 s with a window from 0.3 s for 0.5 s: the command
        // connected 0.6 s after it began, so its deadline is 0.2 s after its
        // start, before the window opens; it sends until the close, 0.8 s
        assert_eq!(send_until(ms(200), Some((ms(300), ms(500)))), ms(800));
        // a quick start: the deadline, 0.79 s, raised to the close
        assert_eq!(send_until(ms(790), Some((ms(300), ms(500)))), ms(800));
        // a later deadline, or no window, stays
        assert_eq!(send_until(ms(900), Some((ms(300), ms(500)))), ms(900));
        assert_eq!(send_until(ms(200), None), ms(200));
    }
}
