//! Content Store replacement policies: which entry to evict when the CS is full.
//!
//! * `lru` — least recently used (NFD `lru`).
//! * `priority_fifo` — NFD's default: evict unsolicited Data first, then stale, then
//!   fresh, each in FIFO order.
//! * `tinylfu` — LRU eviction with TinyLFU admission: under skewed popularity a new
//!   Data only replaces the LRU victim if its name is requested more often.
//!
//! Policies see CS entries only by index (and name hash), never the packets.

mod lists;
mod lru;
mod priority_fifo;
mod tinylfu;

use crate::Time;

pub(crate) use lists::Lists;

/// The replacement policy of a Content Store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CsPolicyKind {
    /// Least recently used.
    Lru,
    /// NFD's priority FIFO (unsolicited, then stale, then fresh).
    #[default]
    PriorityFifo,
    /// LRU eviction with TinyLFU frequency-based admission.
    TinyLfu,
}

impl CsPolicyKind {
    /// NFD-style policy name.
    pub fn as_str(self) -> &'static str {
        match self {
            CsPolicyKind::Lru => "lru",
            CsPolicyKind::PriorityFifo => "priority_fifo",
            CsPolicyKind::TinyLfu => "tinylfu",
        }
    }

    /// Parse a policy name (`lru`, `priority_fifo`, `tinylfu`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lru" => Some(CsPolicyKind::Lru),
            "priority_fifo" | "priority-fifo" => Some(CsPolicyKind::PriorityFifo),
            "tinylfu" | "tiny-lfu" => Some(CsPolicyKind::TinyLfu),
            _ => None,
        }
    }
}

/// A policy instance.
pub(crate) enum Policy {
    Lru(lru::Lru),
    PriorityFifo(priority_fifo::PriorityFifo),
    TinyLfu(lru::Lru, tinylfu::Sketch),
}

impl Policy {
    pub(crate) fn new(kind: CsPolicyKind, capacity: usize) -> Self {
        match kind {
            CsPolicyKind::Lru => Policy::Lru(lru::Lru::new()),
            CsPolicyKind::PriorityFifo => Policy::PriorityFifo(priority_fifo::PriorityFifo::new()),
            CsPolicyKind::TinyLfu => {
                Policy::TinyLfu(lru::Lru::new(), tinylfu::Sketch::new(capacity))
            }
        }
    }

    pub(crate) fn kind(&self) -> CsPolicyKind {
        match self {
            Policy::Lru(_) => CsPolicyKind::Lru,
            Policy::PriorityFifo(_) => CsPolicyKind::PriorityFifo,
            Policy::TinyLfu(..) => CsPolicyKind::TinyLfu,
        }
    }

    /// A new entry `i` was inserted. `fresh_until_of(j)` is CS entry `j`'s freshness
    /// deadline.
    #[inline]
    pub(crate) fn on_insert(
        &mut self,
        i: u32,
        fresh_until: Time,
        unsolicited: bool,
        fresh_until_of: impl Fn(u32) -> Time,
    ) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.on_insert(i),
            Policy::PriorityFifo(p) => p.on_insert(i, fresh_until, unsolicited, fresh_until_of),
        }
    }

    /// Entry `i` was refreshed by a new copy of its Data.
    #[inline]
    pub(crate) fn on_refresh(
        &mut self,
        i: u32,
        fresh_until: Time,
        fresh_until_of: impl Fn(u32) -> Time,
    ) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.on_hit(i),
            Policy::PriorityFifo(p) => {
                p.on_remove(i);
                p.on_insert(i, fresh_until, false, fresh_until_of)
            }
        }
    }

    /// Entry `i` served a CS hit.
    #[inline]
    pub(crate) fn on_hit(&mut self, i: u32) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.on_hit(i),
            Policy::PriorityFifo(_) => {}
        }
    }

    /// A lookup for the name with hash `h` happened (hit or miss).
    #[inline]
    pub(crate) fn on_lookup(&mut self, h: u64) {
        if let Policy::TinyLfu(_, s) = self {
            s.increment(h);
        }
    }

    /// Entry `i` left the CS.
    #[inline]
    pub(crate) fn on_remove(&mut self, i: u32) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.on_remove(i),
            Policy::PriorityFifo(p) => p.on_remove(i),
        }
    }

    /// Room for `n` more entries (policy links).
    pub(crate) fn reserve(&mut self, n: usize) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.reserve(n),
            Policy::PriorityFifo(p) => p.reserve(n),
        }
    }

    /// The entry to evict next. `fresh_until(i)` is CS entry `i`'s freshness deadline.
    #[inline(always)]
    pub(crate) fn victim(&mut self, now: Time, fresh_until: impl Fn(u32) -> Time) -> Option<u32> {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.victim(),
            Policy::PriorityFifo(p) => p.victim(now, fresh_until),
        }
    }

    /// The next three victims (`lists::NIL` where none), without changing any state
    /// (the single-packet eviction prefetch).
    #[inline]
    pub(crate) fn peek_victims3(&self) -> [u32; 3] {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.peek_victims3(),
            Policy::PriorityFifo(p) => p.peek_victims3(),
        }
    }

    /// Append the next `k` victims to `out`, without changing any state (a prefetch
    /// hint for bursts: priority-FIFO does not migrate newly stale entries here).
    pub(crate) fn peek_victims(&self, k: usize, out: &mut Vec<u32>) {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.peek_victims(k, out),
            Policy::PriorityFifo(p) => p.peek_victims(k, out),
        }
    }

    /// Whether a candidate named with hash `candidate()` may replace a victim named
    /// `victim()` (both called only by a policy that filters admission: TinyLFU).
    #[inline]
    pub(crate) fn admit(
        &self,
        candidate: impl FnOnce() -> u64,
        victim: impl FnOnce() -> u64,
    ) -> bool {
        match self {
            Policy::TinyLfu(_, s) => s.frequency(candidate()) > s.frequency(victim()),
            _ => true,
        }
    }

    /// Entries in eviction order (first evicted first); for tests and management.
    pub(crate) fn eviction_order(
        &mut self,
        now: Time,
        fresh_until: impl Fn(u32) -> Time,
    ) -> Vec<u32> {
        match self {
            Policy::Lru(l) | Policy::TinyLfu(l, _) => l.order(),
            Policy::PriorityFifo(p) => p.order(now, fresh_until),
        }
    }
}
