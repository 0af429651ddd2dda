//! Virtual time and the events waiting for it.
//!
//! Time is a `u64` count of virtual nanoseconds from the start of the run.
//!
//! [`EventQueue`] is the general event queue, a binary heap: events scheduled
//! for the same instant come out in the order they were scheduled (a sequence
//! number breaks ties), so a run never depends on the heap's internal order.
//! The simulator runs on it.
//!
//! [`earliest`] is its specialised copy for the stochastic data-plane model,
//! whose every event source (each station's completion, the consumer's next
//! Interest, the head of the return line) has at most one event pending at a
//! time: the pending times sit in a small array indexed by source, and the
//! next event is the smallest, found by a scan. Why it exists: at the model's
//! 12 sources (2 input threads, 8 forwarding threads, the consumer, the
//! return line) the scan and an update cost a fraction of a heap's pop and
//! push (`cargo bench -p ndnlab-des --bench hot_paths -- events`;
//! docs/BENCHMARKS.md has the figures). Ties go to the lowest index (the
//! model's rule: the consumer, then the return line, then the stations in
//! order) where the queue gives the event scheduled first; with distinct
//! times the two give the same events in the same order, which
//! `tests::earliest_pops_what_the_event_queue_pops` checks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Virtual nanoseconds since the start of a run.
pub type Nanos = u64;

struct Entry<E> {
    at: Nanos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// No event pending: the time of an idle source in [`earliest`]'s array.
pub const IDLE: Nanos = Nanos::MAX;

/// The next event of a fixed set of sources, each with at most one pending:
/// the index and time of the smallest of `times`, the lowest index on ties;
/// `None` when every source is [`IDLE`].
#[inline]
pub fn earliest(times: &[Nanos]) -> Option<(usize, Nanos)> {
    let mut best = IDLE;
    let mut which = usize::MAX;
    for (i, &t) in times.iter().enumerate() {
        if t < best {
            best = t;
            which = i;
        }
    }
    (best != IDLE).then_some((which, best))
}

/// Events of type `E` waiting for their virtual time.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
    now: Nanos,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
        }
    }

    /// The virtual time of the last event popped (0 before the first).
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Schedules `event` at `at`. A time in the past is taken as now: the
    /// clock never runs backwards.
    pub fn schedule(&mut self, at: Nanos, event: E) {
        let at = at.max(self.now);
        self.heap.push(Reverse(Entry {
            at,
            seq: self.seq,
            event,
        }));
        self.seq += 1;
    }

    /// Schedules `event` `delay` nanoseconds from now.
    pub fn schedule_in(&mut self, delay: Nanos, event: E) {
        self.schedule(self.now.saturating_add(delay), event);
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Nanos> {
        self.heap.peek().map(|Reverse(e)| e.at)
    }

    /// Takes the next event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        let Reverse(e) = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }

    /// Takes the next event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Nanos) -> Option<(Nanos, E)> {
        if self.peek_time()? > until {
            return None;
        }
        self.pop()
    }

    /// Events still waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events scheduled so far, popped or not.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_time_order_and_ties_in_schedule_order() {
        let mut q = EventQueue::new();
        q.schedule(30, "c");
        q.schedule(10, "a1");
        q.schedule(20, "b");
        q.schedule(10, "a2");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, "a1"), (10, "a2"), (20, "b"), (30, "c")]);
        assert_eq!(q.now(), 30);
    }

    /// A hold model driven by both: each event's source schedules its next
    /// event at a pseudo-random delay, or goes idle until a later event wakes
    /// it. Times are distinct (the source's index in the low bits), so the two
    /// must give the same events in the same order.
    #[test]
    fn earliest_pops_what_the_event_queue_pops() {
        for sources in [1usize, 3, 12, 66] {
            let mut times = vec![IDLE; sources];
            let mut q = EventQueue::new();
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut next = move |at: Nanos, i: usize| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (at / 128 + 1 + x % 40) * 128 + i as Nanos
            };
            for (i, t) in times.iter_mut().enumerate() {
                *t = next(0, i);
                q.schedule(*t, i);
            }
            let mut asleep = Vec::new();
            for step in 0..20_000u32 {
                let (i, at) = earliest(&times).expect("a pending source");
                assert_eq!(q.pop(), Some((at, i)), "{sources} sources, event {step}");
                if step % 7 == 3 && times.iter().filter(|t| **t != IDLE).count() > 1 {
                    times[i] = IDLE;
                    asleep.push(i);
                } else {
                    times[i] = next(at, i);
                    q.schedule(times[i], i);
                }
                if step % 5 == 0 {
                    if let Some(s) = asleep.pop() {
                        times[s] = next(at, s);
                        q.schedule(times[s], s);
                    }
                }
            }
        }
    }

    #[test]
    fn earliest_of_nothing_pending_is_none() {
        assert_eq!(earliest(&[]), None);
        assert_eq!(earliest(&[IDLE, IDLE]), None);
        assert_eq!(earliest(&[IDLE, 5, 3, 3]), Some((2, 3)));
    }

    #[test]
    fn the_clock_never_runs_backwards() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        assert_eq!(q.pop(), Some((100, 1)));
        q.schedule(50, 2);
        q.schedule_in(5, 3);
        assert_eq!(q.pop(), Some((100, 2)));
        assert_eq!(q.pop(), Some((105, 3)));
        assert!(q.pop_until(1_000).is_none());
    }
}
