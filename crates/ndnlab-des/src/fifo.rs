//! The data-plane model's stations: a FIFO server with tail drop computed by
//! Lindley's recursion, or [`Station`] itself when Data must go first. This
//! is the model's specialised copy of a tail-drop [`Station`].
//!
//! A FIFO station's packets leave in the order they came, so each packet's
//! departure is known the moment it arrives: it starts when both it and the
//! server are there, `start = max(arrival, previous departure)`, and leaves a
//! service time later. The queue then only holds departure times, and the
//! engine's next event for the station is the head's departure. This is the
//! same queue as [`Station`] with [`DropPolicy::TailDrop`] (the service time
//! is drawn at arrival rather than at the start of service, which for
//! independent service times is the same law). `data-first` reorders the
//! queue, so it uses [`Station`]. A [`Passage`] is the same recursion for a
//! station whose departures need no event at all.
//!
//! Why it exists: an offer and a completion cost a fraction of a
//! [`Station`]'s, which counts per class and keeps each packet's class and
//! arrival (`cargo bench -p ndnlab-des --bench hot_paths -- fifo`, figures
//! in docs/BENCHMARKS.md). `tests` holds the server to the tail-drop
//! [`Station`] packet for packet, and the passage to the server.

use std::collections::VecDeque;

use crate::station::{Class, DropPolicy, DropReason, Station};

/// What an offer did.
pub enum Offered<T> {
    /// Queued; `Some(t)` when the station was idle and now completes at `t`.
    Queued(Option<u64>),
    /// Queued, pushing out a waiting Interest (`data-first`).
    PushedOut(Option<u64>, T),
    /// Refused: the queue was full.
    Full(T),
}

/// One station of the model.
#[derive(Clone)]
pub enum Server<T> {
    Fifo(Fifo<T>),
    Priority(Box<Station<T>>),
}

/// A FIFO single server with a bounded waiting room.
#[derive(Clone)]
pub struct Fifo<T> {
    /// Departure time and packet of everything in the system, in order.
    q: VecDeque<(u64, T)>,
    capacity: usize,
    last_done: u64,
    busy_ns: u64,
    wait_ns: u64,
}

impl<T> Server<T> {
    /// A station holding `capacity` waiting packets (0 = unbounded).
    pub fn new(capacity: usize, policy: DropPolicy) -> Server<T> {
        match policy {
            DropPolicy::TailDrop => Server::Fifo(Fifo {
                q: VecDeque::new(),
                capacity,
                last_done: 0,
                busy_ns: 0,
                wait_ns: 0,
            }),
            DropPolicy::DataFirst => Server::Priority(Box::new(Station::new(capacity, policy))),
        }
    }

    /// Offers a packet arriving at `now`; `service` gives its service time.
    #[inline]
    pub fn offer(
        &mut self,
        now: u64,
        class: Class,
        item: T,
        service: &mut impl FnMut(Class, &mut T) -> u64,
    ) -> Offered<T> {
        match self {
            Server::Fifo(f) => {
                let n = f.q.len();
                if f.capacity != 0 && n > f.capacity {
                    return Offered::Full(item);
                }
                let mut item = item;
                let d = service(class, &mut item);
                let start = now.max(f.last_done);
                let done = start + d;
                f.wait_ns += start - now;
                f.busy_ns += d;
                f.last_done = done;
                f.q.push_back((done, item));
                Offered::Queued((n == 0).then_some(done))
            }
            Server::Priority(s) => match s.offer(now, class, item, service) {
                Ok(a) => match a.pushed_out {
                    Some(x) => Offered::PushedOut(a.started, x.item),
                    None => Offered::Queued(a.started),
                },
                Err(d) => {
                    debug_assert_eq!(d.reason, DropReason::QueueFull);
                    Offered::Full(d.item)
                }
            },
        }
    }

    /// Ends the service in progress at `now`: the packet, and the next
    /// completion time if another packet is there.
    #[inline]
    pub fn complete(
        &mut self,
        now: u64,
        service: &mut impl FnMut(Class, &mut T) -> u64,
    ) -> (T, Option<u64>) {
        match self {
            Server::Fifo(f) => {
                let (_, item) = f.q.pop_front().expect("a packet in service");
                (item, f.q.front().map(|e| e.0))
            }
            Server::Priority(s) => s.complete(now, service).expect("a packet in service"),
        }
    }

    /// Packets waiting (not the one in service).
    #[inline]
    pub fn queue_len(&self) -> usize {
        match self {
            Server::Fifo(f) => f.q.len().saturating_sub(1),
            Server::Priority(s) => s.queue_len(),
        }
    }

    /// Total time packets waited before their service began, ns.
    pub fn wait_ns(&self) -> f64 {
        match self {
            Server::Fifo(f) => f.wait_ns as f64,
            Server::Priority(s) => s.counters().wait_ns as f64,
        }
    }

    /// Total service time, ns.
    pub fn busy_ns(&self) -> f64 {
        match self {
            Server::Fifo(f) => f.busy_ns as f64,
            Server::Priority(s) => s.counters().busy_ns as f64,
        }
    }
}

/// A FIFO station whose departures need no event: nothing downstream of it
/// competes with other traffic before a constant delay or the end of the
/// path (the output threads, the producer), so each packet's departure is
/// computed on arrival and the packet goes straight on.
#[derive(Clone, Debug, Default)]
pub struct Passage {
    capacity: usize,
    /// Departures still ahead (bounded stations only, to count who is there).
    ahead: VecDeque<u64>,
    last_done: u64,
    busy_ns: u64,
    wait_ns: u64,
}

impl Passage {
    /// A station holding `capacity` waiting packets (0 = unbounded).
    pub fn new(capacity: usize) -> Passage {
        Passage {
            capacity,
            ..Passage::default()
        }
    }

    /// Whether the server has nothing to do at `now` (its thread is parked).
    #[inline]
    pub fn idle_at(&self, now: u64) -> bool {
        now >= self.last_done
    }

    /// A packet arriving at `now` with service `d`: its departure time, or
    /// `None` when the waiting room is full.
    #[inline]
    pub fn pass(&mut self, now: u64, d: u64) -> Option<u64> {
        if self.capacity != 0 {
            while self.ahead.front().is_some_and(|&t| t <= now) {
                self.ahead.pop_front();
            }
            if self.ahead.len() > self.capacity {
                return None;
            }
        }
        let start = now.max(self.last_done);
        let done = start + d;
        self.wait_ns += start - now;
        self.busy_ns += d;
        self.last_done = done;
        if self.capacity != 0 {
            self.ahead.push_back(done);
        }
        Some(done)
    }

    pub fn wait_ns(&self) -> f64 {
        self.wait_ns as f64
    }

    pub fn busy_ns(&self) -> f64 {
        self.busy_ns as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FIFO server and the simulator's tail-drop station agree packet for
    /// packet on a random arrival stream with a bounded queue.
    #[test]
    fn fifo_matches_the_tail_drop_station() {
        let mut fifo: Server<u32> = Server::new(3, DropPolicy::TailDrop);
        let mut st: Station<u32> = Station::new(3, DropPolicy::TailDrop);
        let svc = |i: u32| u64::from(i * 7919 % 23 + 1);
        let mut cost = |_: Class, i: &mut u32| svc(*i);
        let (mut t, mut fifo_done, mut st_done) = (0u64, Vec::new(), Vec::new());
        let (mut fnext, mut snext): (Option<u64>, Option<u64>) = (None, None);
        for i in 0..2000u32 {
            t += u64::from(i * 104_729 % 11);
            // Complete everything due before this arrival, on both.
            while let Some(d) = fnext.filter(|d| *d <= t) {
                let (x, n) = fifo.complete(d, &mut cost);
                fifo_done.push((d, x));
                fnext = n;
            }
            while let Some(d) = snext.filter(|d| *d <= t) {
                let (x, n) = st.complete(d, &mut cost).unwrap();
                st_done.push((d, x));
                snext = n;
            }
            match fifo.offer(t, Class::Interest, i, &mut cost) {
                Offered::Queued(Some(d)) => fnext = Some(d),
                Offered::Queued(None) => {}
                _ => fifo_done.push((t, u32::MAX - i)),
            }
            match st.offer(t, Class::Interest, i, &mut cost) {
                Ok(a) => {
                    if let Some(d) = a.started {
                        snext = Some(d)
                    }
                }
                Err(_) => st_done.push((t, u32::MAX - i)),
            }
            assert_eq!(fifo.queue_len(), st.queue_len());
        }
        while let Some(d) = fnext {
            let (x, n) = fifo.complete(d, &mut cost);
            fifo_done.push((d, x));
            fnext = n;
        }
        while let Some(d) = snext {
            let (x, n) = st.complete(d, &mut cost).unwrap();
            st_done.push((d, x));
            snext = n;
        }
        assert_eq!(fifo_done, st_done);
        assert_eq!(fifo.busy_ns(), st.counters().busy_ns as f64);
        assert!(fifo_done.iter().any(|(_, x)| *x > 1_000_000), "some drops");
        assert_eq!(fifo.wait_ns(), st.counters().wait_ns as f64);
    }

    /// A passage gives the same departures and drops as the FIFO server.
    #[test]
    fn passage_matches_the_fifo_server() {
        let mut fifo: Server<u32> = Server::new(2, DropPolicy::TailDrop);
        let mut pass = Passage::new(2);
        let svc = |i: u32| u64::from(i * 7919 % 19 + 1);
        let mut cost = |_: Class, i: &mut u32| svc(*i);
        let (mut t, mut next) = (0u64, None::<u64>);
        let (mut by_fifo, mut by_pass, mut drops) = (Vec::new(), Vec::new(), 0);
        for i in 0..3000u32 {
            t += u64::from(i * 104_729 % 13);
            while let Some(d) = next.filter(|d| *d <= t) {
                let (x, n) = fifo.complete(d, &mut cost);
                by_fifo.push((x, d));
                next = n;
            }
            let p = pass.pass(t, svc(i));
            match fifo.offer(t, Class::Data, i, &mut cost) {
                Offered::Queued(started) => next = started.or(next),
                _ => drops += 1,
            }
            match p {
                Some(d) => by_pass.push((i, d)),
                None => drops -= 1,
            }
        }
        while let Some(d) = next {
            let (x, n) = fifo.complete(d, &mut cost);
            by_fifo.push((x, d));
            next = n;
        }
        assert_eq!(drops, 0, "the same packets dropped");
        assert_eq!(by_fifo, by_pass);
        assert!(by_pass.len() < 3000, "some drops");
        assert!(pass.busy_ns() > 0.0 && pass.wait_ns() > 0.0);
    }
}
