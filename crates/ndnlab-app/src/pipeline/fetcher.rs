//! The windowed request engine shared by `get` (segments `0..=final`) and
//! `perf` (an endless sequence): sans-IO, time passed in.
//!
//! Call order: [`Fetcher::poll_request`] until `None` and send each request
//! (a retransmission must carry a new Nonce); feed [`Fetcher::on_data`] /
//! [`Fetcher::on_nack`] as answers arrive; call [`Fetcher::handle_timeout`]
//! when [`Fetcher::poll_timeout`] is reached. Loss and congestion marks are
//! acted on at most once per RTT (conservative window adaptation, as
//! ndn-tools' adaptive pipelines), unless `disable_cwa`.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use super::rtt::{RttEstimator, RttOptions};
use super::window::{Window, WindowOptions};

/// How often in-flight requests are checked against the RTO (ndn-tools
/// `rtoCheckInterval`).
pub const RTO_CHECK_INTERVAL: Duration = Duration::from_millis(10);

/// Options of a fetch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FetchOptions {
    pub window: WindowOptions,
    pub rtt: RttOptions,
    /// Retransmissions allowed per request after a timeout or Nack
    /// (`None`: no limit), ndncatchunks' `--retries`.
    pub max_retries: Option<u32>,
    /// Do not react to congestion marks (`--ignore-marks`).
    pub ignore_marks: bool,
    /// React to every loss, not once per RTT (`--no-cwa`).
    pub disable_cwa: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            window: WindowOptions::default(),
            rtt: RttOptions::default(),
            max_retries: Some(15),
            ignore_marks: false,
            disable_cwa: false,
        }
    }
}

/// Nack reasons as the pipeline sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NackKind {
    Congestion,
    Duplicate,
    NoRoute,
    Other,
}

/// One request to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub seg: u64,
    pub retx: bool,
}

/// What [`Fetcher::on_data`] made of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataVerdict {
    /// First copy of a wanted segment, with its RTT if it was not retransmitted.
    New { rtt: Option<Duration> },
    /// Already received, or never requested: ignore it.
    Duplicate,
}

/// A fetch that cannot finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// A request was retransmitted `retries` times without an answer.
    #[error("segment {seg}: no answer after {retries} retransmissions (last: {last})")]
    TooManyRetries {
        seg: u64,
        retries: u32,
        last: &'static str,
    },
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    sent_at: Duration,
    retx_count: u32,
    is_retx: bool,
    /// A non-congestion Nack arrived: retry when the RTO expires.
    nacked: bool,
}

/// Counters of a fetch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FetchStats {
    pub sent: u64,
    pub retransmissions: u64,
    pub received: u64,
    pub duplicates: u64,
    pub timeouts: u64,
    pub nacks: u64,
    pub congestion_nacks: u64,
    pub marks: u64,
    pub window_decreases: u64,
}

/// The engine.
#[derive(Debug)]
pub struct Fetcher {
    opts: FetchOptions,
    window: Window,
    rtt: RttEstimator,
    next_seg: u64,
    final_seg: Option<u64>,
    in_flight: HashMap<u64, InFlight>,
    retx_queue: VecDeque<(u64, u32)>,
    high_interest: u64,
    rec_point: Option<u64>,
    last_check: Duration,
    stats: FetchStats,
}

impl Fetcher {
    /// A fetch starting at segment `start`.
    pub fn new(opts: FetchOptions, start: u64) -> Self {
        Fetcher {
            window: Window::new(opts.window),
            rtt: RttEstimator::new(opts.rtt),
            opts,
            next_seg: start,
            final_seg: None,
            in_flight: HashMap::new(),
            retx_queue: VecDeque::new(),
            high_interest: start,
            rec_point: None,
            last_check: Duration::ZERO,
            stats: FetchStats::default(),
        }
    }

    /// The last segment number (from FinalBlockId). Requests beyond it are
    /// forgotten.
    pub fn set_final(&mut self, last: u64) {
        if self.final_seg == Some(last) {
            return;
        }
        self.final_seg = Some(last);
        self.in_flight.retain(|&s, _| s <= last);
        self.retx_queue.retain(|&(s, _)| s <= last);
    }

    pub fn final_seg(&self) -> Option<u64> {
        self.final_seg
    }

    /// Next request to send, if the window allows one.
    pub fn poll_request(&mut self, now: Duration) -> Option<Request> {
        if self.in_flight.len() >= self.window.size() {
            return None;
        }
        if let Some((seg, retx_count)) = self.retx_queue.pop_front() {
            self.in_flight.insert(
                seg,
                InFlight {
                    sent_at: now,
                    retx_count: retx_count + 1,
                    is_retx: true,
                    nacked: false,
                },
            );
            self.stats.sent += 1;
            self.stats.retransmissions += 1;
            return Some(Request { seg, retx: true });
        }
        if self.final_seg.is_some_and(|f| self.next_seg > f) {
            return None;
        }
        let seg = self.next_seg;
        self.next_seg += 1;
        self.high_interest = self.high_interest.max(seg);
        self.in_flight.insert(
            seg,
            InFlight {
                sent_at: now,
                retx_count: 0,
                is_retx: false,
                nacked: false,
            },
        );
        self.stats.sent += 1;
        Some(Request { seg, retx: false })
    }

    /// A Data for `seg` arrived; `marked` if it carried a congestion mark.
    pub fn on_data(&mut self, now: Duration, seg: u64, marked: bool) -> DataVerdict {
        let entry = match self.in_flight.remove(&seg) {
            Some(e) => Some(e),
            None => match self.retx_queue.iter().position(|&(s, _)| s == seg) {
                // a late answer to a request already queued for retransmission
                Some(i) => {
                    self.retx_queue.remove(i);
                    None
                }
                None => {
                    self.stats.duplicates += 1;
                    return DataVerdict::Duplicate;
                }
            },
        };
        self.stats.received += 1;
        let mut rtt = None;
        if let Some(e) = entry.filter(|e| !e.is_retx) {
            let sample = now.saturating_sub(e.sent_at);
            self.rtt.add_measurement(sample, self.in_flight.len() + 1);
            rtt = Some(sample);
        }
        if marked {
            self.stats.marks += 1;
            if !self.opts.ignore_marks {
                self.congestion_signal(now, seg, false);
                return DataVerdict::New { rtt };
            }
        }
        self.window.increase(now);
        DataVerdict::New { rtt }
    }

    /// A Nack for `seg` arrived.
    pub fn on_nack(&mut self, now: Duration, seg: u64, reason: NackKind) -> Result<(), FetchError> {
        let Some(e) = self.in_flight.get_mut(&seg) else {
            return Ok(());
        };
        self.stats.nacks += 1;
        match reason {
            // the same Interest loops: let the RTO retry it with a new Nonce
            NackKind::Duplicate => Ok(()),
            NackKind::Congestion => {
                self.stats.congestion_nacks += 1;
                let e = self.in_flight.remove(&seg).expect("present");
                self.check_retries(seg, e.retx_count, "congestion nack")?;
                self.retx_queue.push_back((seg, e.retx_count));
                self.congestion_signal(now, seg, true);
                Ok(())
            }
            // no route (producer gone?) or other: retry after the RTO, so a
            // restarting producer has time to come back
            NackKind::NoRoute | NackKind::Other => {
                e.nacked = true;
                Ok(())
            }
        }
    }

    /// Retransmits what exceeded the RTO. Call at [`Fetcher::poll_timeout`].
    pub fn handle_timeout(&mut self, now: Duration) -> Result<(), FetchError> {
        self.last_check = now;
        let rto = self.rtt.rto();
        let mut expired: Vec<(u64, InFlight)> = self
            .in_flight
            .iter()
            .filter(|(_, e)| now.saturating_sub(e.sent_at) >= rto)
            .map(|(&s, &e)| (s, e))
            .collect();
        expired.sort_unstable_by_key(|&(s, _)| s);
        for (seg, e) in expired {
            self.in_flight.remove(&seg);
            let last = if e.nacked { "nack" } else { "timeout" };
            self.check_retries(seg, e.retx_count, last)?;
            if !e.nacked {
                self.stats.timeouts += 1;
            }
            self.retx_queue.push_back((seg, e.retx_count));
            self.congestion_signal(now, seg, true);
        }
        Ok(())
    }

    /// When to call [`Fetcher::handle_timeout`] next.
    pub fn poll_timeout(&self) -> Option<Duration> {
        (!self.in_flight.is_empty()).then(|| self.last_check + RTO_CHECK_INTERVAL)
    }

    /// All segments up to the final one arrived.
    pub fn is_done(&self) -> bool {
        self.final_seg.is_some_and(|f| self.next_seg > f)
            && self.in_flight.is_empty()
            && self.retx_queue.is_empty()
    }

    pub fn stats(&self) -> &FetchStats {
        &self.stats
    }
    pub fn window(&self) -> &Window {
        &self.window
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    fn check_retries(
        &self,
        seg: u64,
        retx_count: u32,
        last: &'static str,
    ) -> Result<(), FetchError> {
        match self.opts.max_retries {
            Some(max) if retx_count >= max => Err(FetchError::TooManyRetries {
                seg,
                retries: retx_count,
                last,
            }),
            _ => Ok(()),
        }
    }

    /// Decrease the window at most once per RTT: only for a segment sent
    /// after the previous decrease (its recovery point).
    fn congestion_signal(&mut self, now: Duration, seg: u64, is_loss: bool) {
        if self.opts.disable_cwa || self.rec_point.is_none_or(|r| seg > r) {
            self.rec_point = Some(self.high_interest);
            self.window.decrease(now);
            if is_loss {
                self.rtt.backoff_rto();
            }
            self.stats.window_decreases += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::window::WindowKind;
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn opts(kind: WindowKind) -> FetchOptions {
        FetchOptions {
            window: WindowOptions {
                kind,
                fixed_size: 4,
                init_cwnd: 2.0,
                ..Default::default()
            },
            rtt: RttOptions {
                initial_rto: ms(100),
                min_rto: ms(100),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn drain(f: &mut Fetcher, now: Duration) -> Vec<Request> {
        std::iter::from_fn(|| f.poll_request(now)).collect()
    }

    #[test]
    fn fixed_window_fetches_all_segments_in_order() {
        let mut f = Fetcher::new(opts(WindowKind::Fixed), 0);
        f.set_final(9);
        let mut now = ms(0);
        let mut got = Vec::new();
        while !f.is_done() {
            let reqs = drain(&mut f, now);
            assert!(reqs.len() <= 4);
            now += ms(5);
            for r in reqs {
                assert!(!r.retx);
                assert!(matches!(
                    f.on_data(now, r.seg, false),
                    DataVerdict::New { rtt: Some(_) }
                ));
                got.push(r.seg);
            }
        }
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert_eq!(f.stats().received, 10);
        assert_eq!(f.rtt().srtt(), Some(ms(5)));
    }

    #[test]
    fn final_block_discovered_late_drops_extra_requests() {
        let mut f = Fetcher::new(opts(WindowKind::Fixed), 0);
        let reqs = drain(&mut f, ms(0));
        assert_eq!(reqs.len(), 4);
        f.on_data(ms(1), 0, false);
        f.set_final(1);
        assert_eq!(f.in_flight(), 1);
        f.on_data(ms(2), 1, false);
        assert!(f.is_done());
    }

    #[test]
    fn timeout_retransmits_and_halves_aimd_window_once_per_rtt() {
        let mut f = Fetcher::new(
            FetchOptions {
                window: WindowOptions {
                    kind: WindowKind::Aimd,
                    init_cwnd: 8.0,
                    ..Default::default()
                },
                ..opts(WindowKind::Aimd)
            },
            0,
        );
        let reqs = drain(&mut f, ms(0));
        assert_eq!(reqs.len(), 8);
        // nothing answered: all 8 time out in the same check
        f.handle_timeout(ms(100)).unwrap();
        assert_eq!(f.stats().timeouts, 8);
        assert_eq!(f.stats().window_decreases, 1, "once per RTT");
        assert_eq!(f.window().cwnd(), 4.0);
        assert_eq!(f.rtt().rto(), ms(200), "backed off");
        let retx = drain(&mut f, ms(100));
        assert_eq!(retx.len(), 4);
        assert!(retx.iter().all(|r| r.retx));
        assert_eq!(
            retx.iter().map(|r| r.seg).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        // a retransmitted segment gives no RTT sample (Karn)
        assert_eq!(f.on_data(ms(150), 0, false), DataVerdict::New { rtt: None });
        assert_eq!(f.rtt().samples(), 0);
    }

    #[test]
    fn congestion_mark_decreases_window_once_per_rtt() {
        let mut f = Fetcher::new(
            FetchOptions {
                window: WindowOptions {
                    kind: WindowKind::Aimd,
                    init_cwnd: 10.0,
                    init_ssthresh: 10.0,
                    ..Default::default()
                },
                ..opts(WindowKind::Aimd)
            },
            0,
        );
        drain(&mut f, ms(0));
        f.on_data(ms(10), 0, true);
        assert_eq!(f.window().cwnd(), 5.0);
        f.on_data(ms(10), 1, true); // same RTT: ignored for the window
        assert_eq!(f.window().cwnd(), 5.0);
        assert_eq!(f.stats().marks, 2);
        // a segment sent after the decrease may decrease again
        let reqs = drain(&mut f, ms(11));
        assert!(reqs.is_empty(), "8 still in flight, window 5");
        for s in 2..10 {
            f.on_data(ms(12), s, false);
        }
        let reqs = drain(&mut f, ms(13));
        let seg = reqs[0].seg;
        assert!(seg >= 10);
        let before = f.window().cwnd();
        f.on_data(ms(20), seg, true);
        assert!(f.window().cwnd() < before);
    }

    #[test]
    fn ignore_marks_keeps_growing() {
        let mut o = opts(WindowKind::Aimd);
        o.ignore_marks = true;
        let mut f = Fetcher::new(o, 0);
        drain(&mut f, ms(0));
        f.on_data(ms(1), 0, true);
        assert_eq!(f.window().cwnd(), 3.0);
        assert_eq!(f.stats().marks, 1);
    }

    #[test]
    fn congestion_nack_requeues_immediately_noroute_waits_rto() {
        let mut f = Fetcher::new(opts(WindowKind::Fixed), 0);
        f.set_final(1);
        drain(&mut f, ms(0));
        f.on_nack(ms(1), 0, NackKind::Congestion).unwrap();
        f.on_nack(ms(1), 1, NackKind::NoRoute).unwrap();
        let r = drain(&mut f, ms(2));
        assert_eq!(r, vec![Request { seg: 0, retx: true }]);
        f.handle_timeout(ms(50)).unwrap();
        assert!(drain(&mut f, ms(50)).is_empty());
        // the congestion Nack backed the RTO off to 200 ms
        assert_eq!(f.rtt().rto(), ms(200));
        f.handle_timeout(ms(101)).unwrap();
        assert!(drain(&mut f, ms(101)).is_empty());
        f.handle_timeout(ms(200)).unwrap();
        assert_eq!(drain(&mut f, ms(200)), vec![Request { seg: 1, retx: true }]);
        assert_eq!(f.stats().nacks, 2);
        assert_eq!(f.stats().timeouts, 0);
    }

    #[test]
    fn gives_up_after_max_retries() {
        let mut o = opts(WindowKind::Fixed);
        o.max_retries = Some(2);
        o.rtt.max_rto = ms(100);
        let mut f = Fetcher::new(o, 0);
        f.set_final(0);
        let mut now = ms(0);
        drain(&mut f, now);
        for _ in 0..2 {
            now += ms(100);
            f.handle_timeout(now).unwrap();
            assert_eq!(drain(&mut f, now).len(), 1);
        }
        now += ms(100);
        let err = f.handle_timeout(now).unwrap_err();
        assert_eq!(
            err,
            FetchError::TooManyRetries {
                seg: 0,
                retries: 2,
                last: "timeout"
            }
        );
    }

    #[test]
    fn late_data_for_queued_retransmission_is_accepted() {
        let mut f = Fetcher::new(opts(WindowKind::Fixed), 0);
        f.set_final(0);
        drain(&mut f, ms(0));
        f.handle_timeout(ms(100)).unwrap();
        // window 4 but we hold off sending; the original Data arrives late
        assert!(matches!(
            f.on_data(ms(120), 0, false),
            DataVerdict::New { .. }
        ));
        assert!(f.is_done());
        assert_eq!(f.on_data(ms(121), 0, false), DataVerdict::Duplicate);
    }

    #[test]
    fn unbounded_sequence_for_perf() {
        let mut f = Fetcher::new(opts(WindowKind::Fixed), 1000);
        let r = drain(&mut f, ms(0));
        assert_eq!(
            r.iter().map(|r| r.seg).collect::<Vec<_>>(),
            vec![1000, 1001, 1002, 1003]
        );
        assert!(!f.is_done());
        f.on_data(ms(1), 1001, false);
        assert_eq!(
            drain(&mut f, ms(1)),
            vec![Request {
                seg: 1004,
                retx: false
            }]
        );
    }
}
