//! The discrete-event engine: a priority queue of events keyed by virtual time.
//!
//! Time is a `u64` count of virtual nanoseconds from the start of the run.
//! Events scheduled for the same instant come out in the order they were
//! scheduled (a sequence number breaks ties), so a run never depends on the
//! heap's internal order.

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
