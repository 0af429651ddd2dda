//! The processing-cost model of one forwarding thread: a single server with a
//! bounded FIFO input queue.
//!
//! A [`Station`] is sans-IO: the caller passes the virtual time in and
//! schedules the completion times it gets back on its own event queue. It is
//! generic over the item queued (a packet with its face, say), and over how
//! long an item takes to serve ([`ServiceTime`]).
//!
//! # Use
//!
//! ```text
//! arrival at t:    match st.offer(t, class, item, &mut cost)
//!                    Ok(a)  => if let Some(done) = a.started { schedule Complete at done }
//!                              if let Some(x) = a.pushed_out { count / drop x }
//!                    Err(d) => count / drop d.item (d.reason)
//! Complete at t:   let (item, next) = st.complete(t, &mut cost).unwrap();
//!                    hand item on; if let Some(done) = next { schedule Complete at done }
//! ```
//!
//! # Capacity
//!
//! `capacity` counts the packets *waiting*, not the one in service; 0 means
//! unbounded. A station of capacity `c` is therefore the M/M/1/K queue of
//! queueing theory with K = c + 1 places in the system.
//!
//! # Packet classes and how the caller chooses them
//!
//! [`Class`] is `Interest`, `Data`, `Nack`, `CsHit` or `CsMiss`. Whether an
//! Interest hits the Content Store is only known once the forwarder has
//! processed it, that is at the *start* of its service. So:
//!
//! - at [`Station::offer`] the caller passes the class it knows on arrival:
//!   `Interest`, `Data` or `Nack`. The drop policy and priority use it.
//! - at service start the station calls [`ServiceTime::service_time`] with
//!   that class and `&mut item`. A caller that distinguishes hits from misses
//!   runs the forwarder core on the item right there (virtual time is the
//!   start of service), stores the core's output in the item, and returns the
//!   cost of [`Class::CsHit`] or [`Class::CsMiss`]. The output leaves the
//!   station when [`Station::complete`] hands the item back. A caller may
//!   also pass `CsHit`/`CsMiss` to `offer` directly if it already knows.
//!
//! # Drop policies
//!
//! - [`DropPolicy::TailDrop`]: one FIFO; a packet arriving at a full queue is
//!   dropped ([`DropReason::QueueFull`]).
//! - [`DropPolicy::DataFirst`]: Data and Nacks are served before Interests
//!   (each kind FIFO), and a Data or Nack arriving at a full queue pushes out
//!   the newest queued Interest ([`DropReason::PushedOut`]), which
//!   [`Admitted::pushed_out`] hands back. An Interest arriving at a full
//!   queue, or a Data when no Interest is queued, is dropped as `QueueFull`.
//!   A Data answers an Interest already forwarded: losing it wastes the whole
//!   round trip upstream, losing a new Interest costs one retransmission
//!   (seed 004's recommendation).

use std::collections::VecDeque;

use crate::events::Nanos;

/// The kind of packet a station serves; indexes the counters and the cost model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// An Interest whose Content Store outcome is not (yet) distinguished.
    Interest,
    Data,
    Nack,
    /// An Interest answered from the Content Store.
    CsHit,
    /// An Interest that missed the Content Store (forwarded upstream).
    CsMiss,
}

impl Class {
    /// Every class, in counter order.
    pub const ALL: [Class; 5] = [
        Class::Interest,
        Class::Data,
        Class::Nack,
        Class::CsHit,
        Class::CsMiss,
    ];

    /// The index of this class in per-class arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name used in experiment files and tables: `interest`, `data`,
    /// `nack`, `cs_hit`, `cs_miss`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Interest => "interest",
            Class::Data => "data",
            Class::Nack => "nack",
            Class::CsHit => "cs_hit",
            Class::CsMiss => "cs_miss",
        }
    }

    /// Parses [`Class::name`].
    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Whether this is an Interest (of any CS outcome).
    pub fn is_interest(self) -> bool {
        matches!(self, Class::Interest | Class::CsHit | Class::CsMiss)
    }
}

/// What happens when the input queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DropPolicy {
    /// One FIFO, the arriving packet is dropped.
    #[default]
    TailDrop,
    /// Data and Nacks first; an arriving Data/Nack pushes out the newest Interest.
    DataFirst,
}

impl DropPolicy {
    /// `tail-drop` or `data-first`.
    pub fn name(self) -> &'static str {
        match self {
            DropPolicy::TailDrop => "tail-drop",
            DropPolicy::DataFirst => "data-first",
        }
    }

    /// Parses [`DropPolicy::name`].
    pub fn parse(s: &str) -> Option<DropPolicy> {
        [DropPolicy::TailDrop, DropPolicy::DataFirst]
            .into_iter()
            .find(|p| p.name() == s)
    }
}

/// Why a packet was dropped by a station.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// It arrived at a full queue.
    QueueFull,
    /// It was queued and a Data/Nack took its place (`DataFirst`).
    PushedOut,
}

/// A packet the station refused, handed back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped<T> {
    pub item: T,
    pub class: Class,
    pub reason: DropReason,
}

/// The outcome of an accepted [`Station::offer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted<T> {
    /// The completion time if the packet went straight into service (the
    /// station was idle): schedule a completion then.
    pub started: Option<Nanos>,
    /// A queued Interest this packet pushed out (`DataFirst` only).
    pub pushed_out: Option<Dropped<T>>,
}

/// How long an item takes to serve, decided when its service starts.
pub trait ServiceTime<T> {
    /// The service time of `item`, offered as `class`, starting now. May run
    /// the forwarder on `item` (see the module docs).
    fn service_time(&mut self, class: Class, item: &mut T) -> Nanos;
}

impl<T, F: FnMut(Class, &mut T) -> Nanos> ServiceTime<T> for F {
    fn service_time(&mut self, class: Class, item: &mut T) -> Nanos {
        self(class, item)
    }
}

/// What a station has seen, per [`Class`] (indexed by [`Class::index`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StationCounters {
    /// Packets offered.
    pub arrived: [u64; 5],
    /// Packets whose service completed.
    pub served: [u64; 5],
    /// Packets dropped on arrival at a full queue.
    pub dropped_full: [u64; 5],
    /// Queued packets pushed out by a Data/Nack.
    pub pushed_out: [u64; 5],
    /// Virtual time spent serving, over completed services.
    pub busy_ns: Nanos,
    /// The longest the waiting queue has been.
    pub max_queue: usize,
    /// Sum over served packets of their wait in the queue (arrival to start).
    pub wait_ns: u128,
}

impl StationCounters {
    pub fn arrived_total(&self) -> u64 {
        self.arrived.iter().sum()
    }
    pub fn served_total(&self) -> u64 {
        self.served.iter().sum()
    }
    /// Drops of every reason and class.
    pub fn dropped_total(&self) -> u64 {
        self.dropped_full.iter().sum::<u64>() + self.pushed_out.iter().sum::<u64>()
    }
    /// Drops for one reason, all classes.
    pub fn dropped(&self, reason: DropReason) -> u64 {
        match reason {
            DropReason::QueueFull => self.dropped_full.iter().sum(),
            DropReason::PushedOut => self.pushed_out.iter().sum(),
        }
    }
    /// The mean wait in the queue of served packets, in ns.
    pub fn mean_wait_ns(&self) -> f64 {
        let n = self.served_total();
        if n == 0 {
            0.0
        } else {
            self.wait_ns as f64 / n as f64
        }
    }
}

#[derive(Clone)]
struct Waiting<T> {
    item: T,
    class: Class,
    arrived: Nanos,
}

#[derive(Clone)]
struct InService<T> {
    item: T,
    class: Class,
    started: Nanos,
    done: Nanos,
}

/// One forwarding thread: a server and its bounded input queue.
#[derive(Clone)]
pub struct Station<T> {
    capacity: usize,
    policy: DropPolicy,
    /// Data and Nacks under `DataFirst`; unused under `TailDrop`.
    high: VecDeque<Waiting<T>>,
    /// Everything under `TailDrop`; Interests under `DataFirst`.
    low: VecDeque<Waiting<T>>,
    busy: Option<InService<T>>,
    counters: StationCounters,
}

impl<T> Station<T> {
    /// A station whose queue holds `capacity` waiting packets (0 = unbounded).
    pub fn new(capacity: usize, policy: DropPolicy) -> Station<T> {
        Station {
            capacity,
            policy,
            high: VecDeque::new(),
            low: VecDeque::new(),
            busy: None,
            counters: StationCounters::default(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn policy(&self) -> DropPolicy {
        self.policy
    }

    /// Packets waiting (not counting the one in service).
    pub fn queue_len(&self) -> usize {
        self.high.len() + self.low.len()
    }

    /// Whether a packet is in service.
    pub fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    /// Packets in the system: waiting plus in service.
    pub fn in_system(&self) -> usize {
        self.queue_len() + usize::from(self.is_busy())
    }

    /// Whether a packet offered now would be taken without a drop: the server
    /// is idle, the queue is unbounded or has a free place. A sender that
    /// waits for room (an app face in the simulator) asks this first.
    pub fn has_room(&self) -> bool {
        self.busy.is_none() || self.capacity == 0 || self.queue_len() < self.capacity
    }

    /// When the packet in service completes, if one is.
    pub fn next_completion(&self) -> Option<Nanos> {
        self.busy.as_ref().map(|b| b.done)
    }

    pub fn counters(&self) -> &StationCounters {
        &self.counters
    }

    /// Offers a packet arriving at `now`. If the station is idle the packet's
    /// service starts at once and its completion time is returned; otherwise
    /// it waits, or is dropped by the policy.
    pub fn offer<S: ServiceTime<T>>(
        &mut self,
        now: Nanos,
        class: Class,
        item: T,
        cost: &mut S,
    ) -> Result<Admitted<T>, Dropped<T>> {
        self.counters.arrived[class.index()] += 1;
        if self.busy.is_none() {
            debug_assert_eq!(self.queue_len(), 0);
            let done = self.start(now, now, class, item, cost);
            return Ok(Admitted {
                started: Some(done),
                pushed_out: None,
            });
        }
        let mut pushed_out = None;
        if self.capacity != 0 && self.queue_len() >= self.capacity {
            let evict = self.policy == DropPolicy::DataFirst && !class.is_interest();
            let victim = if evict { self.low.pop_back() } else { None };
            match victim {
                Some(w) => {
                    self.counters.pushed_out[w.class.index()] += 1;
                    pushed_out = Some(Dropped {
                        item: w.item,
                        class: w.class,
                        reason: DropReason::PushedOut,
                    });
                }
                None => {
                    self.counters.dropped_full[class.index()] += 1;
                    return Err(Dropped {
                        item,
                        class,
                        reason: DropReason::QueueFull,
                    });
                }
            }
        }
        let w = Waiting {
            item,
            class,
            arrived: now,
        };
        if self.policy == DropPolicy::DataFirst && !class.is_interest() {
            self.high.push_back(w);
        } else {
            self.low.push_back(w);
        }
        self.counters.max_queue = self.counters.max_queue.max(self.queue_len());
        Ok(Admitted {
            started: None,
            pushed_out,
        })
    }

    /// Ends the service in progress at `now` (its completion time): hands the
    /// item back and starts the next waiting packet, returning its completion
    /// time. `None` if nothing was in service.
    pub fn complete<S: ServiceTime<T>>(
        &mut self,
        now: Nanos,
        cost: &mut S,
    ) -> Option<(T, Option<Nanos>)> {
        let b = self.busy.take()?;
        self.counters.served[b.class.index()] += 1;
        self.counters.busy_ns += b.done - b.started;
        let next = self
            .high
            .pop_front()
            .or_else(|| self.low.pop_front())
            .map(|w| self.start(now, w.arrived, w.class, w.item, cost));
        Some((b.item, next))
    }

    fn start<S: ServiceTime<T>>(
        &mut self,
        now: Nanos,
        arrived: Nanos,
        class: Class,
        mut item: T,
        cost: &mut S,
    ) -> Nanos {
        let d = cost.service_time(class, &mut item);
        let done = now.saturating_add(d);
        self.counters.wait_ns += u128::from(now - arrived.min(now));
        self.busy = Some(InService {
            item,
            class,
            started: now,
            done,
        });
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(d: Nanos) -> impl FnMut(Class, &mut u32) -> Nanos {
        move |_, _| d
    }

    #[test]
    fn idle_station_starts_at_once_and_serves_fifo() {
        let mut s = Station::new(0, DropPolicy::TailDrop);
        let mut c = fixed(10);
        assert_eq!(
            s.offer(0, Class::Interest, 1, &mut c).unwrap().started,
            Some(10)
        );
        assert_eq!(
            s.offer(3, Class::Interest, 2, &mut c).unwrap().started,
            None
        );
        assert_eq!(s.offer(4, Class::Data, 3, &mut c).unwrap().started, None);
        assert_eq!(s.queue_len(), 2);
        assert_eq!(s.complete(10, &mut c), Some((1, Some(20))));
        assert_eq!(s.complete(20, &mut c), Some((2, Some(30))));
        assert_eq!(s.complete(30, &mut c), Some((3, None)));
        assert_eq!(s.complete(30, &mut c), None);
        let k = s.counters();
        assert_eq!(k.served_total(), 3);
        assert_eq!(k.busy_ns, 30);
        // waits: 0, 10 - 3, 20 - 4
        assert_eq!(k.wait_ns, 7 + 16);
        assert_eq!(k.max_queue, 2);
    }

    #[test]
    fn tail_drop_refuses_the_arrival_when_full() {
        let mut s = Station::new(1, DropPolicy::TailDrop);
        let mut c = fixed(10);
        s.offer(0, Class::Interest, 1, &mut c).unwrap();
        s.offer(1, Class::Interest, 2, &mut c).unwrap();
        let d = s.offer(2, Class::Data, 3, &mut c).unwrap_err();
        assert_eq!((d.item, d.reason), (3, DropReason::QueueFull));
        assert_eq!(s.counters().dropped_full[Class::Data.index()], 1);
        assert_eq!(s.in_system(), 2);
    }

    #[test]
    fn data_first_serves_data_first_and_pushes_out_the_newest_interest() {
        let mut s = Station::new(2, DropPolicy::DataFirst);
        let mut c = fixed(10);
        s.offer(0, Class::Interest, 1, &mut c).unwrap(); // in service
        s.offer(1, Class::Interest, 2, &mut c).unwrap();
        s.offer(2, Class::Interest, 3, &mut c).unwrap();
        // Full: the Data pushes out Interest 3, the newest.
        let a = s.offer(3, Class::Data, 4, &mut c).unwrap();
        let p = a.pushed_out.unwrap();
        assert_eq!(
            (p.item, p.class, p.reason),
            (3, Class::Interest, DropReason::PushedOut)
        );
        // Full again: a Nack pushes out Interest 2.
        let a = s.offer(4, Class::Nack, 5, &mut c).unwrap();
        assert_eq!(a.pushed_out.unwrap().item, 2);
        // Full of Data: another Data has nothing to push out; an Interest neither.
        assert_eq!(
            s.offer(5, Class::Data, 6, &mut c).unwrap_err().reason,
            DropReason::QueueFull
        );
        assert_eq!(
            s.offer(5, Class::Interest, 7, &mut c).unwrap_err().reason,
            DropReason::QueueFull
        );
        // Data and Nack in arrival order.
        assert_eq!(s.complete(10, &mut c).unwrap().0, 1);
        assert_eq!(s.complete(20, &mut c).unwrap().0, 4);
        assert_eq!(s.complete(30, &mut c).unwrap().0, 5);
        let k = s.counters();
        assert_eq!(k.dropped(DropReason::PushedOut), 2);
        assert_eq!(k.dropped(DropReason::QueueFull), 2);
        assert_eq!(k.arrived_total(), k.served_total() + k.dropped_total());
    }

    #[test]
    fn has_room_says_whether_an_offer_would_be_taken() {
        let mut s = Station::new(1, DropPolicy::TailDrop);
        let mut c = fixed(10);
        assert!(s.has_room(), "idle");
        s.offer(0, Class::Interest, 1, &mut c).unwrap();
        assert!(s.has_room(), "busy, one free place");
        s.offer(0, Class::Interest, 2, &mut c).unwrap();
        assert!(!s.has_room(), "busy, queue full");
        assert!(s.offer(0, Class::Interest, 3, &mut c).is_err());
        s.complete(10, &mut c).unwrap();
        assert!(s.has_room(), "a completion frees a place");
        let mut u = Station::new(0, DropPolicy::TailDrop);
        for i in 0..100 {
            u.offer(0, Class::Data, i, &mut c).unwrap();
        }
        assert!(u.has_room(), "unbounded");
    }

    #[test]
    fn data_first_serves_data_before_older_interests() {
        let mut s = Station::new(0, DropPolicy::DataFirst);
        let mut c = fixed(1);
        s.offer(0, Class::Interest, 1, &mut c).unwrap();
        s.offer(0, Class::Interest, 2, &mut c).unwrap();
        s.offer(0, Class::Data, 3, &mut c).unwrap();
        let order: Vec<u32> = (1..=3).map(|t| s.complete(t, &mut c).unwrap().0).collect();
        assert_eq!(order, vec![1, 3, 2]);
    }

    #[test]
    fn the_service_time_sees_the_item_at_service_start() {
        // The caller learns the CS outcome at service start and prices it.
        let mut s = Station::new(0, DropPolicy::TailDrop);
        let mut c = |class: Class, hit: &mut bool| -> Nanos {
            assert_eq!(class, Class::Interest);
            if *hit {
                5
            } else {
                50
            }
        };
        assert_eq!(
            s.offer(0, Class::Interest, true, &mut c).unwrap().started,
            Some(5)
        );
        s.offer(1, Class::Interest, false, &mut c).unwrap();
        assert_eq!(s.complete(5, &mut c), Some((true, Some(55))));
    }
}
