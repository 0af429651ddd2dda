//! The core's timer queue: a hashed timing wheel of `(deadline, pit entry, generation)`
//! with lazy deletion. An entry whose expiry moved later is re-queued when its old
//! deadline pops; an entry that was freed (generation changed) is skipped. The
//! forwarder drops stale timers in bulk when they outnumber live PIT entries 4 to 1,
//! so the queue stays proportional to the PIT.
//!
//! Why a wheel: the previous `BinaryHeap` cost O(log n) cache-missing sift steps per
//! pop (11.6% of the daemon's profile at ~1M pending timers). Here a push appends to
//! the bucket of its tick (2^20 ns, ~1.05 ms); when the clock enters a tick, that
//! bucket moves into a small heap (`current`) from which due timers pop exactly, and
//! buckets of ticks already past are drained whole. Deadlines stay exact and due
//! timers pop in deadline order, as from the heap. Buckets are linked lists of
//! 15-timer chunks recycled through a free list: no allocation per push in steady
//! state and no per-bucket `Vec` growth (a fresh 16 KiB bucket `Vec` doubling
//! through glibc's large-request path cost ~300 instructions per Interest in
//! callgrind). Timers beyond the horizon (8192 ticks, ~8.6 s, longer than the
//! default 4 s Interest lifetime) wait in a heap and move into the wheel as it turns.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Time;

/// log2 of the tick in nanoseconds.
const TICK_SHIFT: u32 = 20;
/// Number of buckets (a power of two).
const SLOTS: usize = 8192;
const MASK: u64 = SLOTS as u64 - 1;
const WORDS: usize = SLOTS / 64;
/// Timers per chunk (a chunk is 15 * 16 + 8 = 248 bytes).
const CHUNK: usize = 15;
const NIL: u32 = u32::MAX;

/// `(deadline, PIT index, generation)`.
type Timer = (Time, u32, u32);

struct Chunk {
    items: [Timer; CHUNK],
    len: u32,
    next: u32,
}

/// A timer queue of PIT entry deadlines.
pub struct TimerQueue {
    /// First chunk of the bucket of tick `t` (`t & MASK`), for `cursor < t < cursor + SLOTS`.
    heads: Box<[u32; SLOTS]>,
    /// Earliest deadline in each bucket (`Time::MAX` when empty).
    bucket_min: Box<[Time; SLOTS]>,
    /// Non-empty buckets.
    occupied: [u64; WORDS],
    chunks: Vec<Chunk>,
    free_chunk: u32,
    /// Timers of ticks up to `cursor` (the tick the clock is in), not yet due.
    current: BinaryHeap<Reverse<Timer>>,
    cursor: u64,
    /// Timers beyond the horizon.
    far: BinaryHeap<Reverse<Timer>>,
    /// Due timers not yet handed out, latest first (popped from the end).
    ready: Vec<Timer>,
    len: usize,
}

impl Default for TimerQueue {
    fn default() -> Self {
        TimerQueue {
            // Fixed-size arrays (a masked bucket index needs no bounds check), built on
            // the heap directly.
            heads: vec![NIL; SLOTS]
                .into_boxed_slice()
                .try_into()
                .expect("SLOTS"),
            bucket_min: vec![Time::MAX; SLOTS]
                .into_boxed_slice()
                .try_into()
                .expect("SLOTS"),
            occupied: [0; WORDS],
            chunks: Vec::new(),
            free_chunk: NIL,
            current: BinaryHeap::new(),
            cursor: 0,
            far: BinaryHeap::new(),
            ready: Vec::new(),
            len: 0,
        }
    }
}

#[inline]
fn tick(at: Time) -> u64 {
    at >> TICK_SHIFT
}

impl TimerQueue {
    /// Arm a deadline for `(index, generation)`.
    #[inline]
    pub fn push(&mut self, at: Time, index: u32, generation: u32) {
        self.len += 1;
        self.insert((at, index, generation));
    }

    #[inline(always)]
    fn insert(&mut self, t: Timer) {
        let k = tick(t.0);
        if k <= self.cursor {
            self.current.push(Reverse(t));
        } else if k - self.cursor >= SLOTS as u64 {
            self.far.push(Reverse(t));
        } else {
            self.bucket_push((k & MASK) as usize, t);
        }
    }

    #[inline(always)]
    fn bucket_push(&mut self, b: usize, t: Timer) {
        let h = self.heads[b];
        // `h` is `NIL` (no chunk) or a chunk index.
        let chunk = match self.chunks.get_mut(h as usize) {
            Some(chunk) if (chunk.len as usize) < CHUNK => chunk,
            _ => {
                let c = self.new_chunk(h);
                self.heads[b] = c;
                &mut self.chunks[c as usize]
            }
        };
        chunk.items[chunk.len as usize] = t;
        chunk.len += 1;
        if t.0 < self.bucket_min[b] {
            self.bucket_min[b] = t.0;
        }
        self.occupied[b / 64] |= 1 << (b % 64);
    }

    #[inline]
    fn new_chunk(&mut self, next: u32) -> u32 {
        if self.free_chunk != NIL {
            let c = self.free_chunk;
            let chunk = &mut self.chunks[c as usize];
            self.free_chunk = chunk.next;
            chunk.len = 0;
            chunk.next = next;
            c
        } else {
            self.chunks.push(Chunk {
                items: [(0, 0, 0); CHUNK],
                len: 0,
                next,
            });
            (self.chunks.len() - 1) as u32
        }
    }

    /// Empty bucket `b`, handing each timer to `f`.
    fn bucket_take(&mut self, b: usize, mut f: impl FnMut(Timer)) {
        let mut c = self.heads[b];
        while c != NIL {
            let chunk = &mut self.chunks[c as usize];
            for t in &chunk.items[..chunk.len as usize] {
                f(*t);
            }
            let next = chunk.next;
            chunk.next = self.free_chunk;
            self.free_chunk = c;
            c = next;
        }
        self.heads[b] = NIL;
        self.bucket_min[b] = Time::MAX;
        self.occupied[b / 64] &= !(1 << (b % 64));
    }

    /// The tick of the first non-empty bucket after the cursor.
    fn first_occupied(&self) -> Option<u64> {
        let start = ((self.cursor + 1) & MASK) as usize;
        // Scan words from the start word, wrapping once; bits before the start in the
        // first word are checked again (as later ticks) at the end.
        let w0 = start / 64;
        for step in 0..=WORDS {
            let w = (w0 + step) % WORDS;
            let mut bits = self.occupied[w];
            if step == 0 {
                bits &= !0u64 << (start % 64);
            } else if step == WORDS {
                bits &= !(!0u64 << (start % 64));
            }
            if bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                let dist = (b as u64).wrapping_sub(start as u64) & MASK;
                return Some(self.cursor + 1 + dist);
            }
        }
        None
    }

    /// Move far timers that are now within the horizon into the wheel.
    fn migrate_far(&mut self) {
        while let Some(Reverse(t)) = self.far.peek() {
            if tick(t.0).saturating_sub(self.cursor) >= SLOTS as u64 {
                break;
            }
            let Some(Reverse(t)) = self.far.pop() else {
                break;
            };
            self.insert(t);
        }
    }

    /// Move every timer due at `now` into `ready`, in deadline order.
    fn advance(&mut self, now: Time) {
        let now_tick = tick(now);
        if now_tick > self.cursor {
            // Everything of the ticks up to the old cursor is due.
            self.ready.extend(self.current.drain().map(|Reverse(t)| t));
            loop {
                self.migrate_far();
                match self.first_occupied() {
                    Some(k) if k < now_tick => {
                        let mut ready = std::mem::take(&mut self.ready);
                        self.bucket_take((k & MASK) as usize, |t| ready.push(t));
                        self.ready = ready;
                        self.cursor = k;
                    }
                    Some(k) if k == now_tick => {
                        let mut current = std::mem::take(&mut self.current);
                        self.bucket_take((k & MASK) as usize, |t| current.push(Reverse(t)));
                        self.current = current;
                        self.cursor = k;
                        break;
                    }
                    _ => match self.far.peek() {
                        // Idle for longer than the horizon: far timers may be due.
                        Some(Reverse(t)) if tick(t.0) <= now_tick => {
                            self.cursor = self.cursor.max(tick(t.0));
                        }
                        _ => {
                            self.cursor = now_tick;
                            break;
                        }
                    },
                }
            }
        }
        while let Some(Reverse(t)) = self.current.peek() {
            if t.0 > now {
                break;
            }
            self.ready.push(t.to_owned());
            self.current.pop();
        }
        if self.ready.len() > 1 {
            // Latest first, so `pop` hands out the earliest.
            self.ready.sort_unstable_by(|a, b| b.cmp(a));
        }
    }

    /// The earliest deadline (possibly of a stale timer: waking early is harmless).
    pub fn next(&self) -> Option<Time> {
        let mut best = self.ready.last().map(|t| t.0);
        let mut consider = |m: Time| best = Some(best.map_or(m, |b: Time| b.min(m)));
        if let Some(Reverse(t)) = self.current.peek() {
            consider(t.0);
        }
        if let Some(k) = self.first_occupied() {
            consider(self.bucket_min[(k & MASK) as usize]);
        }
        if let Some(Reverse(t)) = self.far.peek() {
            consider(t.0);
        }
        best
    }

    /// Pop one timer due at `now` (earliest deadline first).
    #[inline]
    pub fn pop_due(&mut self, now: Time) -> Option<(Time, u32, u32)> {
        if self.ready.is_empty() {
            self.advance(now);
        }
        match self.ready.last() {
            Some(t) if t.0 <= now => {
                self.len -= 1;
                self.ready.pop()
            }
            _ => None,
        }
    }

    /// Keep only the timers for which `live(index, generation)` holds.
    pub fn retain(&mut self, mut live: impl FnMut(u32, u32) -> bool) {
        let mut keep = Vec::new();
        // Timers left in the wheel, counted as they are put back.
        let mut in_buckets = 0;
        for w in 0..WORDS {
            let mut bits = self.occupied[w];
            while bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.bucket_take(b, |t| {
                    if live(t.1, t.2) {
                        keep.push(t);
                    }
                });
                in_buckets += keep.len();
                for t in keep.drain(..) {
                    self.bucket_push(b, t);
                }
            }
        }
        self.current.retain(|Reverse(t)| live(t.1, t.2));
        self.far.retain(|Reverse(t)| live(t.1, t.2));
        self.ready.retain(|t| live(t.1, t.2));
        self.len = self.ready.len() + self.current.len() + self.far.len() + in_buckets;
    }

    /// Number of armed timers (stale ones included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no timer is armed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const TICK: Time = 1 << TICK_SHIFT;

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
        assert_eq!(q.next(), Some(30));
        q.push(40, 4, 1);
        q.retain(|i, _| i == 4);
        assert_eq!(q.pop_due(100), Some((40, 4, 1)));
        assert!(q.is_empty());
        assert_eq!(q.next(), None);
    }

    #[test]
    fn exact_deadlines_within_a_tick() {
        let mut q = TimerQueue::default();
        let base = 5 * TICK;
        q.push(base + 300, 1, 0);
        q.push(base + 100, 2, 0);
        assert_eq!(q.next(), Some(base + 100));
        assert_eq!(q.pop_due(base + 99), None);
        assert_eq!(q.pop_due(base + 100), Some((base + 100, 2, 0)));
        assert_eq!(q.pop_due(base + 100), None);
        assert_eq!(q.next(), Some(base + 300));
        // A timer pushed into a drained tick (deadline already passed) is due at once.
        q.push(base + 50, 3, 0);
        assert_eq!(q.next(), Some(base + 50));
        assert_eq!(q.pop_due(base + 200), Some((base + 50, 3, 0)));
        assert_eq!(q.pop_due(base + 300), Some((base + 300, 1, 0)));
        assert!(q.is_empty());
    }

    #[test]
    fn far_timers_and_long_idle() {
        let mut q = TimerQueue::default();
        let horizon = SLOTS as Time * TICK;
        q.push(3 * horizon + 7, 1, 0); // far
        q.push(horizon / 2, 2, 0); // wheel
        q.push(10 * horizon, 3, 0); // far
        assert_eq!(q.next(), Some(horizon / 2));
        assert_eq!(q.pop_due(horizon / 2), Some((horizon / 2, 2, 0)));
        assert_eq!(q.next(), Some(3 * horizon + 7));
        assert_eq!(q.pop_due(3 * horizon + 6), None);
        assert_eq!(q.pop_due(3 * horizon + 7), Some((3 * horizon + 7, 1, 0)));
        // Idle far past every deadline: everything pops, in order.
        q.push(4 * horizon, 4, 0);
        assert_eq!(q.pop_due(100 * horizon), Some((4 * horizon, 4, 0)));
        assert_eq!(q.pop_due(100 * horizon), Some((10 * horizon, 3, 0)));
        assert_eq!(q.pop_due(100 * horizon), None);
        assert!(q.is_empty());
    }

    /// Against a reference ordered set, with random pushes, pops and clock jumps.
    #[test]
    fn matches_reference_queue() {
        let mut q = TimerQueue::default();
        let mut reference: BTreeSet<Timer> = BTreeSet::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut now: Time = 0;
        for step in 0..100_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 8 {
                0..=4 => {
                    // Deadlines from "already due" to well beyond the horizon.
                    let d = match (x >> 8) % 4 {
                        0 => (x >> 16) % (2 * TICK),
                        1 => (x >> 16) % (4_000 * TICK),
                        2 => (x >> 16) % (3 * SLOTS as Time * TICK),
                        _ => 0,
                    };
                    let at = (now + d).saturating_sub((x >> 40) % 3 * TICK);
                    q.push(at, step, step & 0xFF);
                    reference.insert((at, step, step & 0xFF));
                }
                5 | 6 => {
                    now += (x >> 16) % (if x % 16 == 5 { 20_000 * TICK } else { 3 * TICK });
                    loop {
                        let want = reference.first().copied().filter(|t| t.0 <= now);
                        if let Some(t) = want {
                            reference.remove(&t);
                        }
                        assert_eq!(q.pop_due(now), want, "step {step} now {now}");
                        if want.is_none() {
                            break;
                        }
                    }
                }
                _ => {
                    if x % 64 == 7 {
                        q.retain(|i, _| i % 3 != 0);
                        reference.retain(|t| t.1 % 3 != 0);
                    }
                }
            }
            assert_eq!(q.len(), reference.len());
            // Exact: never later (a timer would fire late), never earlier (a runtime
            // would spin).
            assert_eq!(q.next(), reference.first().map(|t| t.0), "step {step}");
        }
    }
}
