//! NFD's priority FIFO: three FIFO queues, evicted in order unsolicited, stale, fresh.
//! A fresh entry moves to the stale queue when its FreshnessPeriod ends (in deadline
//! order, as NFD's per-entry timers move them); the move is done lazily, before a
//! victim is picked, so no timer is needed. The freshness deadline itself is the CS
//! entry's (passed in as `fresh_until(i)`), not a second copy here: the CS costs
//! <= 128 B per entry.
//!
//! Finding the entries that went stale takes one of two shapes:
//! * Sorted (the common case): the fresh queue is in arrival order, and while every
//!   entry queued had a deadline no earlier than the ones queued before it (one
//!   FreshnessPeriod, as a producer typically uses, and a clock that does not go
//!   back), arrival order is deadline order. The expired entries are then a prefix of
//!   the queue, found by looking at its head: an insertion costs no heap push, and no
//!   heap grows by 16 B per cached Data (reallocating as it grows) while fresh entries
//!   are evicted before they go stale.
//! * Heap: after an insertion out of deadline order, every fresh entry has an item in
//!   a min-heap of staleness times, drained before picking a victim. The queue goes
//!   back to sorted once the fresh queue is empty.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Lists;
use crate::Time;

const UNSOLICITED: usize = 0;
const STALE: usize = 1;
const FRESH: usize = 2;

pub(crate) struct PriorityFifo {
    queues: Lists<3>,
    /// Staleness times of the fresh entries, only while `!sorted` (items of entries
    /// that left the fresh queue are dropped lazily).
    stale_at: BinaryHeap<Reverse<(Time, u32)>>,
    /// Whether the fresh queue is in deadline order (no heap items needed).
    sorted: bool,
    /// The deadline of the last entry queued into the fresh queue while `sorted`.
    fresh_max: Time,
}

impl PriorityFifo {
    pub(crate) fn new() -> Self {
        PriorityFifo {
            queues: Lists::new(),
            stale_at: BinaryHeap::new(),
            sorted: true,
            fresh_max: 0,
        }
    }

    /// Room for `n` more entries (the staleness heap grows only with Data queued out of
    /// deadline order).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.queues.reserve(n);
    }

    /// Entry `i` (deadline `fresh_until`) was cached; `fresh_until_of(j)` is CS entry
    /// `j`'s deadline (read only when the fresh queue leaves deadline order).
    #[inline]
    pub(crate) fn on_insert(
        &mut self,
        i: u32,
        fresh_until: Time,
        unsolicited: bool,
        fresh_until_of: impl Fn(u32) -> Time,
    ) {
        if unsolicited {
            self.queues.push_back(UNSOLICITED, i);
            return;
        }
        // An entry with no FreshnessPeriod is stale at once (fresh_until == insertion time).
        if self.queues.len(FRESH) == 0 {
            // Nothing fresh: sorted again, and any heap items left are outdated.
            self.sorted = true;
            self.fresh_max = 0;
            self.stale_at.clear();
        }
        if self.sorted {
            if fresh_until >= self.fresh_max {
                self.fresh_max = fresh_until;
                self.queues.push_back(FRESH, i);
                return;
            }
            self.unsort(fresh_until_of);
        }
        self.queues.push_back(FRESH, i);
        self.stale_at.push(Reverse((fresh_until, i)));
    }

    /// Leave the sorted shape: a heap item for every fresh entry.
    #[cold]
    fn unsort(&mut self, fresh_until_of: impl Fn(u32) -> Time) {
        self.sorted = false;
        let q = &self.queues;
        self.stale_at
            .extend(q.iter(FRESH).map(|j| Reverse((fresh_until_of(j), j))));
    }

    #[inline]
    pub(crate) fn on_remove(&mut self, i: u32) {
        self.queues.remove(i);
    }

    /// Whether a fresh entry may have expired: the queue head (sorted) or the heap's
    /// earliest item.
    #[inline]
    fn may_have_expired(&self, now: Time, fresh_until: &impl Fn(u32) -> Time) -> bool {
        if self.sorted {
            self.queues
                .front(FRESH)
                .is_some_and(|h| fresh_until(h) <= now)
        } else {
            self.stale_at
                .peek()
                .is_some_and(|Reverse((t, _))| *t <= now)
                || self.heap_too_large()
        }
    }

    /// Move the fresh entries whose deadline passed to the stale queue, earliest
    /// deadline first. Sorted, they are a prefix of the fresh queue. Otherwise, a heap
    /// item `(t, i)` is current only if `i` is still fresh with deadline `t` (entries
    /// are removed and their indices reused without touching the heap).
    fn migrate(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) {
        if self.sorted {
            while let Some(h) = self.queues.front(FRESH) {
                if fresh_until(h) > now {
                    break;
                }
                self.queues.remove(h);
                self.queues.push_back(STALE, h);
            }
            return;
        }
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

    #[inline(always)]
    pub(crate) fn victim(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) -> Option<u32> {
        // No `migrate` call when it has nothing to do (the common case).
        if self.may_have_expired(now, &fresh_until) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Insert solicited entries `(index, deadline)` into a fresh policy.
    fn with(deadlines: &[(u32, Time)]) -> (PriorityFifo, Vec<Time>) {
        let mut p = PriorityFifo::new();
        let mut d = vec![0; 16];
        for &(i, t) in deadlines {
            d[i as usize] = t;
            let dd = d.clone();
            p.on_insert(i, t, false, |j| dd[j as usize]);
        }
        (p, d)
    }

    #[test]
    fn one_period_stays_sorted_without_heap_items() {
        let (mut p, d) = with(&[(0, 10), (1, 20), (2, 20), (3, 40)]);
        assert!(p.sorted && p.stale_at.is_empty());
        let f = |j: u32| d[j as usize];
        assert_eq!(p.victim(5, f), Some(0));
        p.on_insert(4, 3, true, f);
        // Unsolicited first, then the expired prefix (in deadline order), then fresh.
        assert_eq!(p.order(25, f), vec![4, 0, 1, 2, 3]);
        assert_eq!(p.queues.len(STALE), 3);
        assert!(p.stale_at.is_empty());
    }

    #[test]
    fn out_of_order_deadlines_go_stale_in_deadline_order() {
        let (mut p, mut d) = with(&[(0, 30), (1, 20), (2, 10), (3, 50)]);
        assert!(!p.sorted);
        let f = |j: u32| d[j as usize];
        assert_eq!(p.victim(25, f), Some(2));
        assert_eq!(p.order(35, f), vec![2, 1, 0, 3]);
        // Once nothing is fresh, the queue is sorted again and the heap emptied.
        for i in 0..4 {
            p.on_remove(i);
        }
        d[5] = 60;
        d[6] = 70;
        let f = |j: u32| d[j as usize];
        p.on_insert(5, 60, false, f);
        p.on_insert(6, 70, false, f);
        assert!(p.sorted && p.stale_at.is_empty());
        assert_eq!(p.order(65, f), vec![5, 6]);
    }

    #[test]
    fn removed_entries_do_not_go_stale() {
        let (mut p, d) = with(&[(0, 10), (1, 20), (2, 30)]);
        let f = |j: u32| d[j as usize];
        p.on_remove(0);
        p.on_remove(1);
        assert_eq!(p.victim(25, f), Some(2));
        assert_eq!(p.queues.len(STALE), 0);
    }
}
