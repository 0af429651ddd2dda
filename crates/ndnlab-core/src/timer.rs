//! The core's timer queue: a min-heap of `(deadline, pit entry, generation)` with lazy
//! deletion. An entry whose expiry moved later is re-queued when its old deadline
//! pops; an entry that was freed (generation changed) is skipped. The forwarder
//! drops stale timers in bulk when they outnumber live PIT entries 4 to 1, so the
//! queue stays proportional to the PIT (amortized O(1) per Interest).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Time;

/// A timer queue of PIT entry deadlines.
#[derive(Default)]
pub struct TimerQueue {
    heap: BinaryHeap<Reverse<(Time, u32, u32)>>,
}

impl TimerQueue {
    /// Arm a deadline for `(index, generation)`.
    #[inline]
    pub fn push(&mut self, at: Time, index: u32, generation: u32) {
        self.heap.push(Reverse((at, index, generation)));
    }

    /// The earliest deadline (possibly of a stale timer: waking early is harmless).
    #[inline]
    pub fn next(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Pop one timer due at `now`.
    #[inline]
    pub fn pop_due(&mut self, now: Time) -> Option<(Time, u32, u32)> {
        match self.heap.peek() {
            Some(Reverse((t, _, _))) if *t <= now => self.heap.pop().map(|Reverse(x)| x),
            _ => None,
        }
    }

    /// Keep only the timers for which `live(index, generation)` holds.
    pub fn retain(&mut self, mut live: impl FnMut(u32, u32) -> bool) {
        self.heap.retain(|Reverse((_, i, g))| live(*i, *g));
    }

    /// Number of armed timers (stale ones included).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no timer is armed.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_deadline_order() {
        let mut q = TimerQueue::default();
        q.push(30, 1, 0);
        q.push(10, 2, 0);
        q.push(20, 3, 0);
        assert_eq!(q.next(), Some(10));
        assert_eq!(q.pop_due(5), None);
        assert_eq!(q.pop_due(25), Some((10, 2, 0)));
        assert_eq!(q.pop_due(25), Some((20, 3, 0)));
        assert_eq!(q.pop_due(25), None);
        assert_eq!(q.len(), 1);
        q.push(40, 4, 1);
        q.retain(|i, _| i == 4);
        assert_eq!(q.pop_due(100), Some((40, 4, 1)));
        assert!(q.is_empty());
    }
}
