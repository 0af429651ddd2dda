//! NFD's priority FIFO: three FIFO queues, evicted in order unsolicited, stale, fresh.
//! A fresh entry moves to the stale queue when its FreshnessPeriod ends; the move is
//! done lazily (a min-heap of staleness times drained before picking a victim), so
//! no timer is needed. The freshness deadline itself is the CS entry's (passed in as
//! `fresh_until(i)`), not a second copy here: the CS costs <= 128 B per entry.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Lists;
use crate::Time;

const UNSOLICITED: usize = 0;
const STALE: usize = 1;
const FRESH: usize = 2;

pub(crate) struct PriorityFifo {
    queues: Lists<3>,
    stale_at: BinaryHeap<Reverse<(Time, u32)>>,
}

impl PriorityFifo {
    pub(crate) fn new() -> Self {
        PriorityFifo {
            queues: Lists::new(),
            stale_at: BinaryHeap::new(),
        }
    }

    /// Room for `n` more entries (the staleness heap grows only with solicited Data).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.queues.reserve(n);
    }

    #[inline]
    pub(crate) fn on_insert(&mut self, i: u32, fresh_until: Time, unsolicited: bool) {
        if unsolicited {
            self.queues.push_back(UNSOLICITED, i);
            return;
        }
        // An entry with no FreshnessPeriod is stale at once (fresh_until == insertion time).
        self.queues.push_back(FRESH, i);
        self.stale_at.push(Reverse((fresh_until, i)));
    }

    #[inline]
    pub(crate) fn on_remove(&mut self, i: u32) {
        self.queues.remove(i);
    }

    /// Move the fresh entries whose deadline passed to the stale queue. A heap item
    /// `(t, i)` is current only if `i` is still fresh with deadline `t` (entries are
    /// removed and their indices reused without touching the heap).
    fn migrate(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) {
        while let Some(&Reverse((t, i))) = self.stale_at.peek() {
            if t > now {
                break;
            }
            self.stale_at.pop();
            if self.queues.queue_of(i) == Some(FRESH) && fresh_until(i) == t {
                self.queues.remove(i);
                self.queues.push_back(STALE, i);
            }
        }
        // Bound the heap: stale timers of removed entries are dropped when it grows large.
        if self.heap_too_large() {
            let q = &self.queues;
            self.stale_at
                .retain(|Reverse((t, i))| q.queue_of(*i) == Some(FRESH) && fresh_until(*i) == *t);
        }
    }

    #[inline]
    fn heap_too_large(&self) -> bool {
        self.stale_at.len() > 2 * self.queues.len(FRESH) + 1024
    }

    #[inline]
    pub(crate) fn victim(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) -> Option<u32> {
        // No `migrate` call when it has nothing to do (the common case).
        if self
            .stale_at
            .peek()
            .is_some_and(|Reverse((t, _))| *t <= now)
            || self.heap_too_large()
        {
            self.migrate(now, fresh_until);
        }
        self.queues
            .front(UNSOLICITED)
            .or_else(|| self.queues.front(STALE))
            .or_else(|| self.queues.front(FRESH))
    }

    /// The next three victims (`NIL` where none), as [`PriorityFifo::peek_victims`].
    #[inline]
    pub(crate) fn peek_victims3(&self) -> [u32; 3] {
        self.queues.first3(&[UNSOLICITED, STALE, FRESH])
    }

    /// The next `k` victims as of now, without migrating fresh entries that went stale
    /// (a prefetch hint, not an eviction order guarantee).
    pub(crate) fn peek_victims(&self, k: usize, out: &mut Vec<u32>) {
        for q in [UNSOLICITED, STALE, FRESH] {
            let need = k.saturating_sub(out.len());
            out.extend(self.queues.iter(q).take(need));
        }
    }

    pub(crate) fn order(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) -> Vec<u32> {
        self.migrate(now, fresh_until);
        let mut v: Vec<u32> = self.queues.iter(UNSOLICITED).collect();
        v.extend(self.queues.iter(STALE));
        v.extend(self.queues.iter(FRESH));
        v
    }
}
