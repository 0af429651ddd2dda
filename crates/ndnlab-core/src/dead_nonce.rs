//! The Dead Nonce List: `(name, nonce)` pairs of Interests that recently left the PIT,
//! to detect loops after the PIT entry is gone (NFD `DeadNonceList`).
//!
//! Entries are 64-bit hashes of name and nonce kept for `lifetime` (NFD: 6 s), in a
//! FIFO for expiry plus a counting hash map for lookup. A hash collision can only
//! cause a false loop detection with probability ~2^-64 per lookup, as in NFD.

use std::collections::VecDeque;

use crate::hash::HashMapU64;
use crate::Time;

/// NFD's default Dead Nonce List lifetime.
pub const DEFAULT_LIFETIME: Time = 6_000_000_000;

/// The Dead Nonce List.
pub struct DeadNonceList {
    lifetime: Time,
    capacity: usize,
    queue: VecDeque<(Time, u64)>,
    set: HashMapU64<u32>,
    /// Entries dropped before their lifetime because the list was full.
    overflows: u64,
}

/// Heap bytes one entry of a full list takes at most: 16 in the FIFO (a `VecDeque`,
/// up to twice the capacity in use after it grew) and a 16-byte bucket (key and count,
/// aligned) plus a control byte in the hash map, at up to 8/7 buckets per entry, twice
/// that after it grew: `2 * 16 + 2 * 8 / 7 * 17` < 72.
pub const BYTES_PER_ENTRY_MAX: usize = 72;

impl DeadNonceList {
    /// A list keeping entries for `lifetime`, at most `capacity` of them (oldest dropped first).
    pub fn new(lifetime: Time, capacity: usize) -> Self {
        DeadNonceList {
            lifetime,
            capacity: capacity.max(1),
            queue: VecDeque::new(),
            set: HashMapU64::default(),
            overflows: 0,
        }
    }

    #[inline]
    fn entry_key(name_hash: u64, nonce: u32) -> u64 {
        (name_hash ^ u64::from(nonce).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).rotate_left(17)
    }

    fn pop_front(&mut self) {
        if let Some((_, k)) = self.queue.pop_front() {
            if let Some(c) = self.set.get_mut(&k) {
                *c -= 1;
                if *c == 0 {
                    self.set.remove(&k);
                }
            }
        }
    }

    /// Drop expired entries.
    pub fn expire(&mut self, now: Time) {
        while let Some(&(t, _)) = self.queue.front() {
            if t + self.lifetime > now {
                break;
            }
            self.pop_front();
        }
    }

    /// Record `(name, nonce)` (name given by its full-name hash).
    pub fn add(&mut self, now: Time, name_hash: u64, nonce: u32) {
        self.expire(now);
        if self.queue.len() >= self.capacity {
            self.pop_front();
            self.overflows += 1;
        }
        let k = Self::entry_key(name_hash, nonce);
        self.queue.push_back((now, k));
        *self.set.entry(k).or_insert(0) += 1;
    }

    /// Whether `(name, nonce)` is in the list (and not expired).
    #[inline]
    pub fn has(&mut self, now: Time, name_hash: u64, nonce: u32) -> bool {
        if self.set.is_empty() {
            return false;
        }
        self.expire(now);
        self.set.contains_key(&Self::entry_key(name_hash, nonce))
    }

    /// How long an entry is kept.
    #[inline]
    pub fn lifetime(&self) -> Time {
        self.lifetime
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Entries dropped before their lifetime because the list held `capacity`.
    pub fn overflows(&self) -> u64 {
        self.overflows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_after_lifetime() {
        let mut d = DeadNonceList::new(100, 10);
        d.add(0, 7, 1);
        assert!(d.has(50, 7, 1));
        assert!(!d.has(50, 7, 2));
        assert!(!d.has(50, 8, 1));
        assert!(!d.has(100, 7, 1));
        assert!(d.is_empty());
    }

    #[test]
    fn capacity_drops_oldest() {
        let mut d = DeadNonceList::new(1000, 2);
        d.add(0, 1, 1);
        d.add(1, 2, 2);
        d.add(2, 3, 3);
        assert!(!d.has(3, 1, 1));
        assert!(d.has(3, 2, 2) && d.has(3, 3, 3));
        assert_eq!((d.len(), d.overflows()), (2, 1));
    }
}
