//! An emulated link layer: what `tc netem` and `tc tbf` do to frames, sans-IO.
//!
//! [`LinkEmulator`] stands on one direction of a link. A frame offered with
//! [`LinkEmulator::send`] waits in a bounded FIFO for the transmitter (bandwidth),
//! is serialized at the link rate, may be lost, and arrives `delay ± jitter` after
//! it left; [`LinkEmulator::poll`] hands out the frames that have arrived by `now`,
//! and [`LinkEmulator::next_arrival`] says when to poll next. Frames larger than the
//! MTU are refused, as an interface refuses them.
//!
//! Time is passed in (nanoseconds on the caller's clock) and randomness comes from a
//! seeded generator, so a run is reproducible: the same frames at the same times give
//! the same arrivals, in real time (the forwarder's faces, the laboratory's in-memory
//! links) and in virtual time (the simulator). It works on every kernel, including
//! those without `netem`.
//!
//! Arrivals keep the order of departures unless [`LinkParams::reorder`] is set (as
//! netem does with jitter): jitter then lets a later frame overtake an earlier one.
//!
//! [`config`] holds the same parameters as configuration files write them
//! ([`LinkConfig`]: milliseconds, percent, Mbit/s), the one type the forwarder's and
//! the laboratory's file formats embed, and its conversion to [`LinkParams`].

pub mod config;

pub use config::{LinkConfig, LinkOverrides};

use std::collections::{BinaryHeap, VecDeque};

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::lp::Nanos;

/// What the link does to frames. The default is a perfect link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkParams {
    /// One-way propagation delay.
    pub delay_ns: Nanos,
    /// Each frame's delay varies uniformly within `delay ± jitter` (at least 0).
    pub jitter_ns: Nanos,
    /// Probability that a frame is lost, 0..=1.
    pub loss: f64,
    /// Link rate in bits per second (`None`: unlimited, no serialization delay).
    pub rate_bps: Option<u64>,
    /// Frames waiting for the transmitter at most (Mini-NDN's `max_queue_size`);
    /// `None`: unbounded. Only meaningful with a rate.
    pub queue_frames: Option<usize>,
    /// Largest frame the link carries (`None`: any).
    pub mtu: Option<usize>,
    /// Let jitter reorder frames.
    pub reorder: bool,
}

impl LinkParams {
    /// Whether the link changes nothing (frames pass at once, all of them).
    pub fn is_perfect(&self) -> bool {
        self.delay_ns == 0
            && self.jitter_ns == 0
            && self.loss == 0.0
            && self.rate_bps.is_none()
            && self.mtu.is_none()
    }

    /// Checks the values: a message naming the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.loss) || self.loss.is_nan() {
            return Err(format!("loss must be within 0..=1, not {}", self.loss));
        }
        if self.rate_bps == Some(0) {
            return Err("rate must be positive".into());
        }
        if self.queue_frames == Some(0) {
            return Err("queue must hold at least one frame".into());
        }
        if self.mtu.is_some_and(|m| m < 64) {
            return Err("mtu must be at least 64".into());
        }
        Ok(())
    }
}

/// Why the emulator refused or lost a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmuDrop {
    /// The transmit queue was full (tail drop).
    QueueFull,
    /// Lost on the link (random loss).
    Lost,
    /// Larger than the link's MTU.
    OverMtu,
}

/// Counters of one direction of an emulated link, plain integers the emulator
/// updates as it goes (nothing to turn on, nothing to pay when unread).
///
/// Every frame offered is counted once: refused ([`EmuDrop::OverMtu`] or
/// [`EmuDrop::QueueFull`]), or sent (it used the transmitter), and a sent frame
/// is then lost or delivered (or still in flight). So
/// `sent_frames = lost + delivered_frames + in flight`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmuCounters {
    /// Frames the transmitter took (lost ones included).
    pub sent_frames: u64,
    pub sent_bytes: u64,
    /// Frames handed out by [`LinkEmulator::poll`].
    pub delivered_frames: u64,
    pub delivered_bytes: u64,
    /// Frames refused by a full transmit queue.
    pub queue_drops: u64,
    pub queue_drop_bytes: u64,
    /// Frames lost on the link (random loss).
    pub lost: u64,
    pub lost_bytes: u64,
    /// Frames refused for exceeding the MTU.
    pub over_mtu: u64,
    pub over_mtu_bytes: u64,
}

impl EmuCounters {
    /// Frames dropped for any reason.
    pub fn drops(&self) -> u64 {
        self.queue_drops + self.lost + self.over_mtu
    }
}

/// A frame in flight, ordered by arrival time (then by departure order).
#[derive(Debug)]
struct InFlight {
    at: Nanos,
    seq: u64,
    frame: Bytes,
}

impl PartialEq for InFlight {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for InFlight {
    // BinaryHeap is a max-heap: the earliest arrival must compare greatest.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// One direction of an emulated link (see the module documentation).
#[derive(Debug)]
pub struct LinkEmulator {
    params: LinkParams,
    rng: StdRng,
    /// When the transmitter finishes the frames already queued.
    busy_until: Nanos,
    /// Departure (end of serialization) times and sizes of the frames still queued.
    queued: VecDeque<(Nanos, usize)>,
    /// Bytes of the frames in `queued`.
    queued_bytes: usize,
    in_flight: BinaryHeap<InFlight>,
    /// Latest arrival handed out so far, to keep FIFO order without `reorder`.
    last_arrival: Nanos,
    seq: u64,
    counters: EmuCounters,
}

impl LinkEmulator {
    pub fn new(params: LinkParams, seed: u64) -> LinkEmulator {
        LinkEmulator {
            params,
            rng: StdRng::seed_from_u64(seed),
            busy_until: 0,
            queued: VecDeque::new(),
            queued_bytes: 0,
            in_flight: BinaryHeap::new(),
            last_arrival: 0,
            seq: 0,
            counters: EmuCounters::default(),
        }
    }

    pub fn params(&self) -> &LinkParams {
        &self.params
    }

    pub fn counters(&self) -> EmuCounters {
        self.counters
    }

    /// Frames waiting for the transmitter at `now` (the one being serialized
    /// included).
    pub fn queue_len(&mut self, now: Nanos) -> usize {
        self.advance_queue(now);
        self.queued.len()
    }

    /// Bytes of the frames waiting for the transmitter at `now`.
    pub fn queue_bytes(&mut self, now: Nanos) -> usize {
        self.advance_queue(now);
        self.queued_bytes
    }

    fn advance_queue(&mut self, now: Nanos) {
        while let Some(&(d, n)) = self.queued.front() {
            if d > now {
                break;
            }
            self.queued_bytes -= n;
            self.queued.pop_front();
        }
    }

    /// Offers a frame at `now`. `Err` says why it will never arrive.
    pub fn send(&mut self, now: Nanos, frame: Bytes) -> Result<(), EmuDrop> {
        if self.params.mtu.is_some_and(|m| frame.len() > m) {
            self.counters.over_mtu += 1;
            self.counters.over_mtu_bytes += frame.len() as u64;
            return Err(EmuDrop::OverMtu);
        }
        let departure = match self.params.rate_bps {
            None => now,
            Some(rate) => {
                if let Some(limit) = self.params.queue_frames {
                    if self.queue_len(now) >= limit {
                        self.counters.queue_drops += 1;
                        self.counters.queue_drop_bytes += frame.len() as u64;
                        return Err(EmuDrop::QueueFull);
                    }
                }
                let bits = frame.len() as u128 * 8;
                let tx = (bits * 1_000_000_000).div_ceil(rate as u128) as Nanos;
                let d = self.busy_until.max(now) + tx;
                self.busy_until = d;
                self.queued.push_back((d, frame.len()));
                self.queued_bytes += frame.len();
                d
            }
        };
        self.counters.sent_frames += 1;
        self.counters.sent_bytes += frame.len() as u64;
        // A lost frame still used the transmitter.
        if self.params.loss > 0.0 && self.rng.gen::<f64>() < self.params.loss {
            self.counters.lost += 1;
            self.counters.lost_bytes += frame.len() as u64;
            return Err(EmuDrop::Lost);
        }
        let mut at = departure + self.params.delay_ns;
        let j = self.params.jitter_ns;
        if j > 0 {
            let offset = self.rng.gen_range(0..=2 * j);
            at = (at + offset).saturating_sub(j);
        }
        if !self.params.reorder {
            at = at.max(self.last_arrival);
            self.last_arrival = at;
        }
        self.seq += 1;
        self.in_flight.push(InFlight {
            at,
            seq: self.seq,
            frame,
        });
        Ok(())
    }

    /// The next frame that has arrived by `now`, in arrival order.
    pub fn poll(&mut self, now: Nanos) -> Option<Bytes> {
        if self.in_flight.peek()?.at > now {
            return None;
        }
        let f = self.in_flight.pop()?.frame;
        self.counters.delivered_frames += 1;
        self.counters.delivered_bytes += f.len() as u64;
        Some(f)
    }

    /// When the next frame arrives (`None`: nothing in flight).
    pub fn next_arrival(&self) -> Option<Nanos> {
        self.in_flight.peek().map(|f| f.at)
    }

    /// Frames in flight (sent, not yet polled).
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    fn frame(n: usize) -> Bytes {
        Bytes::from(vec![0u8; n])
    }

    fn drain(e: &mut LinkEmulator) -> Vec<(Nanos, usize)> {
        let mut out = Vec::new();
        while let Some(at) = e.next_arrival() {
            let f = e.poll(at).unwrap();
            out.push((at, f.len()));
        }
        out
    }

    #[test]
    fn a_perfect_link_delivers_at_once() {
        let mut e = LinkEmulator::new(LinkParams::default(), 1);
        assert!(e.params().is_perfect());
        e.send(5, frame(100)).unwrap();
        assert_eq!(e.next_arrival(), Some(5));
        assert_eq!(e.poll(5).unwrap().len(), 100);
        assert_eq!(e.poll(5), None);
    }

    #[test]
    fn delay_postpones_and_poll_waits_for_it() {
        let p = LinkParams {
            delay_ns: 10 * MS,
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 1);
        e.send(0, frame(10)).unwrap();
        e.send(MS, frame(20)).unwrap();
        assert_eq!(e.poll(10 * MS - 1), None);
        assert_eq!(drain(&mut e), vec![(10 * MS, 10), (11 * MS, 20)]);
    }

    #[test]
    fn rate_serializes_back_to_back() {
        // 1000-byte frames at 8 Mbit/s take 1 ms each.
        let p = LinkParams {
            rate_bps: Some(8_000_000),
            delay_ns: 2 * MS,
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 1);
        for _ in 0..3 {
            e.send(0, frame(1000)).unwrap();
        }
        assert_eq!(e.queue_len(0), 3);
        assert_eq!(e.queue_len(MS), 2);
        let arrivals: Vec<Nanos> = drain(&mut e).into_iter().map(|(t, _)| t).collect();
        assert_eq!(arrivals, vec![3 * MS, 4 * MS, 5 * MS]);
        // An idle transmitter starts at once.
        e.send(100 * MS, frame(1000)).unwrap();
        assert_eq!(e.next_arrival(), Some(103 * MS));
    }

    #[test]
    fn a_full_queue_drops_at_the_tail() {
        let p = LinkParams {
            rate_bps: Some(8_000_000),
            queue_frames: Some(2),
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 1);
        assert!(e.send(0, frame(1000)).is_ok());
        assert!(e.send(0, frame(1000)).is_ok());
        assert_eq!(e.send(0, frame(1000)), Err(EmuDrop::QueueFull));
        // once the first frame left, there is room again
        assert!(e.send(MS, frame(1000)).is_ok());
        assert_eq!(e.counters().queue_drops, 1);
        assert_eq!(e.counters().sent_frames, 3);
    }

    #[test]
    fn mtu_refuses_large_frames() {
        let p = LinkParams {
            mtu: Some(1500),
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 1);
        assert!(e.send(0, frame(1500)).is_ok());
        assert_eq!(e.send(0, frame(1501)), Err(EmuDrop::OverMtu));
        assert_eq!(e.counters().over_mtu, 1);
    }

    #[test]
    fn loss_rate_is_honoured_and_reproducible() {
        let p = LinkParams {
            loss: 0.1,
            ..Default::default()
        };
        let run = |seed| {
            let mut e = LinkEmulator::new(p.clone(), seed);
            (0..10_000)
                .map(|i| e.send(i, frame(1)).is_err())
                .collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7), "same seed, same losses");
        let lost = a.iter().filter(|&&x| x).count();
        // 10 000 Bernoulli(0.1) trials: 1000 ± 5 sd (sd = 30).
        assert!((850..=1150).contains(&lost), "{lost}");
    }

    #[test]
    fn jitter_stays_in_bounds_and_keeps_order_unless_asked() {
        let p = LinkParams {
            delay_ns: 10 * MS,
            jitter_ns: 5 * MS,
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p.clone(), 3);
        for i in 0..200 {
            e.send(i * 100_000, frame(i as usize + 1)).unwrap();
        }
        let got = drain(&mut e);
        let sizes: Vec<usize> = got.iter().map(|&(_, n)| n).collect();
        assert_eq!(sizes, (1..=200).collect::<Vec<_>>(), "FIFO by default");
        for (i, &(at, _)) in got.iter().enumerate() {
            let sent = i as Nanos * 100_000;
            assert!(at >= sent + 5 * MS, "{at} too early");
        }
        let mut e = LinkEmulator::new(LinkParams { reorder: true, ..p }, 3);
        for i in 0..200 {
            e.send(i * 100_000, frame(i as usize + 1)).unwrap();
        }
        let got = drain(&mut e);
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(got.windows(2).any(|w| w[0].1 > w[1].1), "jitter reorders");
        for &(at, n) in &got {
            let sent = (n as Nanos - 1) * 100_000;
            assert!((sent + 5 * MS..=sent + 15 * MS).contains(&at));
        }
    }

    #[test]
    fn counters_account_for_every_frame() {
        // 1000-byte frames at 8 Mbit/s (1 ms each), a queue of 3, an MTU of 1200,
        // 30 % loss: each frame offered is counted exactly once by its fate.
        let p = LinkParams {
            rate_bps: Some(8_000_000),
            queue_frames: Some(3),
            mtu: Some(1200),
            loss: 0.3,
            delay_ns: MS,
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 11);
        let (mut lost, mut full, mut big, mut ok) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..400u64 {
            let n = if i % 10 == 9 { 1300 } else { 1000 };
            match e.send(i * MS / 2, frame(n)) {
                Ok(()) => ok += 1,
                Err(EmuDrop::Lost) => lost += 1,
                Err(EmuDrop::QueueFull) => full += 1,
                Err(EmuDrop::OverMtu) => big += 1,
            }
        }
        let got = drain(&mut e).len() as u64;
        let c = e.counters();
        assert_eq!(c.lost, lost);
        assert_eq!(c.queue_drops, full);
        assert_eq!(c.over_mtu, big);
        assert_eq!(big, 40);
        assert!(
            lost > 0 && full > 0,
            "{lost} lost, {full} refused by the queue"
        );
        assert_eq!(c.delivered_frames, ok);
        assert_eq!(got, ok);
        assert_eq!(c.sent_frames, ok + lost);
        assert_eq!(c.drops(), lost + full + big);
        assert_eq!(c.sent_bytes, c.sent_frames * 1000);
        assert_eq!(c.delivered_bytes, ok * 1000);
        assert_eq!(
            (c.lost_bytes, c.queue_drop_bytes, c.over_mtu_bytes),
            (lost * 1000, full * 1000, big * 1300)
        );
    }

    #[test]
    fn queue_bytes_follow_departures() {
        let p = LinkParams {
            rate_bps: Some(8_000_000),
            ..Default::default()
        };
        let mut e = LinkEmulator::new(p, 1);
        e.send(0, frame(1000)).unwrap();
        e.send(0, frame(500)).unwrap();
        assert_eq!((e.queue_len(0), e.queue_bytes(0)), (2, 1500));
        // the first leaves at 1 ms, the second at 1.5 ms
        assert_eq!(e.queue_bytes(MS), 500);
        assert_eq!((e.queue_len(2 * MS), e.queue_bytes(2 * MS)), (0, 0));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |p: LinkParams| p.validate().unwrap_err();
        assert!(bad(LinkParams {
            loss: 1.5,
            ..Default::default()
        })
        .contains("loss"));
        assert!(bad(LinkParams {
            rate_bps: Some(0),
            ..Default::default()
        })
        .contains("rate"));
        assert!(bad(LinkParams {
            mtu: Some(10),
            ..Default::default()
        })
        .contains("mtu"));
    }
}
