//! A shard's input: one bounded lock-free MPMC queue (crossbeam's `ArrayQueue`)
//! carrying packet bursts and control messages in the order they were pushed, and a
//! wakeup that costs producers one atomic load while the consumer is busy.
//!
//! Packets and control messages share the queue so that a shard sees them in order
//! (a face's last Data before its `RemoveFace`, a route before the Interests sent
//! after the reply to `rib/register`). Packet items are bounded by the caller (a
//! full shard queue drops them); [`ShardQueue::push`] refuses them when the array is
//! full. Control items are never dropped: the array has [`CONTROL_HEADROOM`] slots
//! more than the packet bound, and [`ShardQueue::push_wait`] waits for room in the
//! rare case that headroom is used up (unless the consumer has exited).
//!
//! The consumer (the shard thread) spins and yields briefly when the queue is empty,
//! then announces that it parks (`parked = true`), checks the queue once more and
//! parks.
//! A producer pushes, then looks at `parked` and unparks the consumer only if it is
//! set. Both sides put a `SeqCst` fence between their store and their load (store
//! buffering), so at least one of them sees the other: either the consumer finds
//! the item on its re-check, or the producer finds the flag and unparks it. A
//! `Thread::unpark` that lands before the `park` makes the `park` return at once,
//! so no wakeup is lost in between either.

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

use crossbeam_queue::ArrayQueue;

/// Before it parks, the consumer checks the queue with 2^0 .. 2^SPIN_LIMIT spin
/// hints between checks, then yields its core up to `YIELDS` times (on a busy
/// machine the producers may be waiting for it), as crossbeam's `Backoff` does.
const SPIN_LIMIT: u32 = 6;
const YIELDS: u32 = 4;
/// Slots beyond the packet bound, kept for control messages.
pub const CONTROL_HEADROOM: usize = 1024;

/// A multi-producer queue with one parking consumer.
pub struct ShardQueue<T> {
    items: ArrayQueue<T>,
    /// Set by the consumer just before it parks.
    parked: AtomicBool,
    /// Set when the consumer has exited (nothing drains the queue any more).
    gone: AtomicBool,
    /// The consumer thread (set by [`ShardQueue::register_consumer`]).
    consumer: OnceLock<Thread>,
}

impl<T> ShardQueue<T> {
    /// A queue for `bound` packet items (the caller's bound) plus control headroom.
    pub fn new(bound: usize) -> Self {
        ShardQueue {
            items: ArrayQueue::new(bound.max(1) + CONTROL_HEADROOM),
            parked: AtomicBool::new(false),
            gone: AtomicBool::new(false),
            consumer: OnceLock::new(),
        }
    }

    /// Makes the calling thread the consumer that [`ShardQueue::wake`] unparks.
    pub fn register_consumer(&self) {
        let _ = self.consumer.set(std::thread::current());
    }

    /// The consumer says it exited: drops what is queued, and
    /// [`ShardQueue::push_wait`] drops what comes later (so that no reply channel in
    /// a control message waits forever).
    pub fn consumer_exited(&self) {
        self.gone.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        while self.items.pop().is_some() {}
    }

    /// Enqueues an item without waking the consumer (call [`ShardQueue::wake`]
    /// after a burst of pushes); gives the item back when the queue is full.
    pub fn push(&self, item: T) -> Result<(), T> {
        self.items.push(item)
    }

    /// Enqueues an item that must not be dropped and wakes the consumer; while the
    /// queue is full, waits for the consumer to make room. Once the consumer has
    /// exited, the item is dropped (given back if the queue was full).
    pub fn push_wait(&self, mut item: T) -> Result<(), T> {
        loop {
            match self.items.push(item) {
                Ok(()) => {
                    // Same store-then-load pattern as the wakeup: either the exiting
                    // consumer's drain sees this item or this sees `gone`.
                    fence(Ordering::SeqCst);
                    if self.gone.load(Ordering::Relaxed) {
                        while self.items.pop().is_some() {}
                        return Ok(());
                    }
                    self.wake();
                    return Ok(());
                }
                Err(back) => {
                    if self.gone.load(Ordering::Relaxed) {
                        return Err(back);
                    }
                    item = back;
                    self.wake();
                    std::thread::yield_now();
                }
            }
        }
    }

    /// Unparks the consumer if it announced that it parks. Call after pushing.
    pub fn wake(&self) {
        fence(Ordering::SeqCst);
        if self.parked.load(Ordering::Relaxed) {
            if let Some(t) = self.consumer.get() {
                t.unpark();
            }
        }
    }

    /// Takes the oldest item.
    pub fn pop(&self) -> Option<T> {
        self.items.pop()
    }

    /// Items waiting.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether no item is waiting.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Consumer side: returns when an item may be waiting, after `timeout` (if
    /// any) or spuriously. Spins for a moment first, then parks.
    pub fn wait(&self, timeout: Option<Duration>) {
        if timeout.is_some_and(|t| t.is_zero()) {
            return;
        }
        for step in 0..=SPIN_LIMIT + YIELDS {
            if !self.is_empty() {
                return;
            }
            if step <= SPIN_LIMIT {
                for _ in 0..1u32 << step {
                    std::hint::spin_loop();
                }
            } else {
                std::thread::yield_now();
            }
        }
        if !self.is_empty() {
            return;
        }
        self.parked.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if self.is_empty() {
            match timeout {
                Some(t) => std::thread::park_timeout(t),
                None => std::thread::park(),
            }
        }
        self.parked.store(false, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    use std::time::Instant;

    #[derive(Debug, PartialEq)]
    enum Item {
        Packet(u64),
        Stop,
    }

    /// Many producers, one consumer that parks between items: every item arrives
    /// exactly once or is counted as dropped, in each producer's order, and nothing
    /// is left behind.
    #[test]
    fn every_item_arrives_once_or_is_counted_dropped() {
        const PRODUCERS: u64 = 8;
        const PER_PRODUCER: u64 = 20_000;
        let q: Arc<ShardQueue<Item>> = Arc::new(ShardQueue::new(64));
        let dropped = Arc::new(AtomicU64::new(0));
        let (reg_tx, reg_rx) = std::sync::mpsc::channel();
        let consumer = {
            let q = q.clone();
            std::thread::spawn(move || {
                q.register_consumer();
                reg_tx.send(()).unwrap();
                let mut seen = HashSet::new();
                let mut last = vec![None::<u64>; PRODUCERS as usize];
                loop {
                    let mut got = 0;
                    while let Some(item) = q.pop() {
                        got += 1;
                        match item {
                            Item::Packet(v) => {
                                assert!(seen.insert(v), "item {v} delivered twice");
                                let p = (v / PER_PRODUCER) as usize;
                                assert!(last[p] < Some(v), "producer {p} reordered");
                                last[p] = Some(v);
                            }
                            // Stop is pushed after every producer finished: it is
                            // the last item.
                            Item::Stop => {
                                assert!(q.pop().is_none());
                                q.consumer_exited();
                                return seen;
                            }
                        }
                    }
                    if got == 0 {
                        // No timeout: only a wake (or a spurious return) ends the wait,
                        // so a lost wakeup hangs the test.
                        q.wait(None);
                    }
                }
            })
        };
        reg_rx.recv().unwrap();
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let (q, dropped) = (q.clone(), dropped.clone());
                std::thread::spawn(move || {
                    for i in 0..PER_PRODUCER {
                        if q.push(Item::Packet(p * PER_PRODUCER + i)).is_err() {
                            dropped.fetch_add(1, Ordering::Relaxed);
                        }
                        // Wake after small bursts, as the face readers do.
                        if i % 7 == 6 || i + 1 == PER_PRODUCER {
                            q.wake();
                        }
                        if i % 1000 == 0 {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        q.push_wait(Item::Stop).unwrap();
        let seen = consumer.join().unwrap();
        let dropped = dropped.load(Ordering::Relaxed);
        assert_eq!(seen.len() as u64 + dropped, PRODUCERS * PER_PRODUCER);
        assert!(!seen.is_empty());
        // The consumer is gone: what was queued was dropped, a control push is
        // dropped too, and gives up on a full queue.
        assert!(q.is_empty());
        q.push_wait(Item::Stop).unwrap();
        assert!(q.is_empty());
        while q.push(Item::Packet(0)).is_ok() {}
        assert_eq!(q.push_wait(Item::Stop), Err(Item::Stop));
    }

    /// A parked consumer is woken by a single push + wake.
    #[test]
    fn parked_consumer_is_woken() {
        let q: Arc<ShardQueue<u32>> = Arc::new(ShardQueue::new(2));
        let (reg_tx, reg_rx) = std::sync::mpsc::channel();
        let consumer = {
            let q = q.clone();
            std::thread::spawn(move || {
                q.register_consumer();
                reg_tx.send(()).unwrap();
                loop {
                    match q.pop() {
                        Some(v) => return v,
                        None => q.wait(None),
                    }
                }
            })
        };
        reg_rx.recv().unwrap();
        // Let the consumer park (it would wait forever without the wake below).
        let t0 = Instant::now();
        while !q.parked.load(Ordering::Relaxed) && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        q.push(7).unwrap();
        q.wake();
        assert_eq!(consumer.join().unwrap(), 7);
    }

    /// A full queue gives a packet item back; a control push waits until the
    /// consumer makes room, and keeps the order.
    #[test]
    fn full_queue_refuses_packets_and_control_waits_for_room() {
        let q: Arc<ShardQueue<u32>> = Arc::new(ShardQueue::new(2));
        let cap = 2 + CONTROL_HEADROOM;
        for v in 0..cap as u32 {
            q.push(v).unwrap();
        }
        assert_eq!(q.len(), cap);
        assert_eq!(q.push(1), Err(1));
        let consumer = {
            let q = q.clone();
            std::thread::spawn(move || {
                q.register_consumer();
                std::thread::sleep(Duration::from_millis(20));
                let mut got = Vec::new();
                loop {
                    match q.pop() {
                        Some(u32::MAX) => return got,
                        Some(v) => got.push(v),
                        None => q.wait(None),
                    }
                }
            })
        };
        q.push_wait(u32::MAX).unwrap();
        let got = consumer.join().unwrap();
        assert!(got.iter().copied().eq(0..cap as u32));
    }

    /// The timeout bounds a wait with nothing queued (timers).
    #[test]
    fn wait_times_out() {
        let q: ShardQueue<u32> = ShardQueue::new(4);
        q.register_consumer();
        let t0 = Instant::now();
        q.wait(Some(Duration::from_millis(20)));
        // park_timeout may return early (spuriously), never much later.
        assert!(t0.elapsed() < Duration::from_secs(5));
        q.wait(Some(Duration::ZERO));
        q.push_wait(1).unwrap();
        let t0 = Instant::now();
        q.wait(None); // returns at once: an item is waiting
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(q.pop(), Some(1));
    }
}
