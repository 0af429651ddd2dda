//! `U64Index`: an open-addressing map from a pre-computed 64-bit hash key to a `u32`
//! (the head of a slot/entry chain), used by the PCCT and name tables.
//!
//! Why not `HashMap<u64, u32>`: hashbrown keeps control bytes and buckets in two
//! places, so a successful probe costs two cache misses in a table larger than the
//! cache. Here a bucket is `(fingerprint, value)` in 8 bytes (8 per cache line) and a
//! probe is a linear scan from the fingerprint's home bucket, so a lookup usually
//! touches one cache line. Deletion shifts the following cluster back (no tombstones).
//! The table grows at 80% load.
//!
//! The map is exact on 32-bit **fingerprints** ([`fingerprint`]) of the 64-bit keys,
//! not on the keys: two keys with the same fingerprint share one bucket. That is
//! sound for its users because the value is only the head of a collision chain whose
//! members are compared by full name (a fingerprint collision chains entries exactly
//! like a 64-bit hash collision did), and it halves the bucket (16 -> 8 B, measured by
//! the `memory` bench).

const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Bucket {
    fp: u32,
    /// `EMPTY` marks a free bucket; stored values are never `u32::MAX`.
    val: u32,
}

const FREE: Bucket = Bucket { fp: 0, val: EMPTY };

/// Where [`U64Index::probe_for_insert`] found (or would insert) a key.
#[derive(Clone, Copy)]
pub struct Probe {
    i: usize,
    fp: u32,
}

/// Map from (the 32-bit fingerprints of) 64-bit hash keys to `u32` values
/// (`u32::MAX` is reserved).
pub struct U64Index {
    buckets: Vec<Bucket>,
    mask: usize,
    len: usize,
}

impl Default for U64Index {
    fn default() -> Self {
        Self::new()
    }
}

/// The 32-bit fingerprint a key is stored under (a multiplicative hash of the key,
/// high half folded with the low; its low bits pick the home bucket).
#[inline]
pub fn fingerprint(k: u64) -> u32 {
    let x = k.wrapping_mul(0xA076_1D64_78BD_642F);
    ((x >> 32) as u32) ^ (x as u32 >> 7)
}

impl U64Index {
    /// An empty index (allocates on first insert).
    pub fn new() -> Self {
        U64Index {
            buckets: Vec::new(),
            mask: 0,
            len: 0,
        }
    }

    /// Number of keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes allocated for buckets.
    pub fn allocated_bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>()
    }

    fn max_len(cap: usize) -> usize {
        cap / 5 * 4
    }

    /// Make room for `n` more keys without growing.
    pub fn reserve(&mut self, n: usize) {
        let need = self.len + n;
        if need <= Self::max_len(self.buckets.len()) {
            return;
        }
        let mut cap = self.buckets.len().max(16);
        while Self::max_len(cap) < need {
            cap *= 2;
        }
        self.rehash(cap);
    }

    fn rehash(&mut self, cap: usize) {
        let old = std::mem::replace(&mut self.buckets, vec![FREE; cap]);
        self.mask = cap - 1;
        for b in old {
            if b.val != EMPTY {
                let mut i = b.fp as usize & self.mask;
                while self.buckets[i].val != EMPTY {
                    i = (i + 1) & self.mask;
                }
                self.buckets[i] = b;
            }
        }
    }

    /// Bucket index holding fingerprint `fp`, or the free bucket where it would go.
    #[inline]
    fn find(&self, fp: u32) -> (usize, bool) {
        let mut i = fp as usize & self.mask;
        loop {
            let b = self.buckets[i];
            if b.val == EMPTY {
                return (i, false);
            }
            if b.fp == fp {
                return (i, true);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        match self.find(fingerprint(k)) {
            (i, true) => Some(self.buckets[i].val),
            _ => None,
        }
    }

    /// Prefetch the bucket where a lookup of `k` starts.
    #[inline]
    pub(crate) fn prefetch(&self, k: u64) {
        if self.len != 0 {
            crate::prefetch::prefetch_at(&self.buckets, fingerprint(k) as usize & self.mask);
        }
    }

    /// Set the value of `k` (inserting it if absent); returns the previous value.
    #[inline]
    pub fn insert(&mut self, k: u64, v: u32) -> Option<u32> {
        assert!(v != EMPTY, "U64Index: u32::MAX is reserved");
        if self.len + 1 > Self::max_len(self.buckets.len()) {
            self.reserve(1);
        }
        let fp = fingerprint(k);
        let (i, found) = self.find(fp);
        let b = &mut self.buckets[i];
        if found {
            return Some(std::mem::replace(&mut b.val, v));
        }
        *b = Bucket { fp, val: v };
        self.len += 1;
        None
    }

    /// Look `k` up for an insertion that may follow (room for one more key is made
    /// first): its value, and the probe to pass to [`U64Index::set`]. The probe is
    /// valid until the index is next changed.
    #[inline]
    pub fn probe_for_insert(&mut self, k: u64) -> (Probe, Option<u32>) {
        if self.len + 1 > Self::max_len(self.buckets.len()) {
            self.reserve(1);
        }
        let fp = fingerprint(k);
        let (i, found) = self.find(fp);
        let v = found.then(|| self.buckets[i].val);
        (Probe { i, fp }, v)
    }

    /// Set the value of the key probed by [`U64Index::probe_for_insert`] (inserting
    /// it if it was absent): one probe for a lookup and an insert together.
    #[inline]
    pub fn set(&mut self, p: Probe, v: u32) {
        assert!(v != EMPTY, "U64Index: u32::MAX is reserved");
        let b = &mut self.buckets[p.i];
        if b.val == EMPTY {
            self.len += 1;
        }
        *b = Bucket { fp: p.fp, val: v };
    }

    /// Unlink `head` from the chain of `k` when it is the chain's head: the key then
    /// maps to `next`, or is removed when `next` is `u32::MAX`. Returns the chain's
    /// head when it is another value (the caller walks the chain), else `None`. One
    /// probe instead of a lookup and a removal.
    #[inline]
    pub fn unlink_head(&mut self, k: u64, head: u32, next: u32) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (i, found) = self.find(fingerprint(k));
        if !found {
            return None;
        }
        let v = self.buckets[i].val;
        if v != head {
            return Some(v);
        }
        if next == EMPTY {
            self.remove_at(i);
        } else {
            self.buckets[i].val = next;
        }
        None
    }

    /// Remove `k`; returns its value.
    pub fn remove(&mut self, k: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (hole, found) = self.find(fingerprint(k));
        if !found {
            return None;
        }
        let v = self.buckets[hole].val;
        self.remove_at(hole);
        Some(v)
    }

    /// Empty bucket `hole` and close the gap.
    #[inline]
    fn remove_at(&mut self, mut hole: usize) {
        self.buckets[hole] = FREE;
        self.len -= 1;
        // Backward-shift: move later members of the cluster into the hole when their
        // home bucket is not between the hole and their position (cyclically).
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let b = self.buckets[j];
            if b.val == EMPTY {
                break;
            }
            let home = b.fp as usize & self.mask;
            let dist_j = j.wrapping_sub(home) & self.mask;
            let dist_hole = j.wrapping_sub(hole) & self.mask;
            if dist_j >= dist_hole {
                self.buckets[hole] = b;
                self.buckets[j] = FREE;
                hole = j;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_hashmap_under_random_ops() {
        let mut idx = U64Index::new();
        // the index is exact on fingerprints (keys sharing one share a bucket)
        let mut reference: HashMap<u32, u32> = HashMap::new();
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Small key space so removes and overwrites hit; low-entropy keys cluster.
            let k = (x % 5_000) << (x % 3);
            match x % 4 {
                0 | 1 => assert_eq!(idx.insert(k, step), reference.insert(fingerprint(k), step)),
                2 => assert_eq!(idx.remove(k), reference.remove(&fingerprint(k))),
                3 if step % 2 == 0 => {
                    let (p, v) = idx.probe_for_insert(k);
                    assert_eq!(v, reference.get(&fingerprint(k)).copied());
                    idx.set(p, step);
                    reference.insert(fingerprint(k), step);
                }
                3 if step % 3 == 0 => {
                    // Unlink as the head (removing, or replacing by another value).
                    let cur = reference.get(&fingerprint(k)).copied();
                    let next = if step % 9 == 0 { u32::MAX } else { step };
                    let head = if step % 5 == 0 { step ^ 1 } else { cur.unwrap_or(0) };
                    let r = idx.unlink_head(k, head, next);
                    match cur {
                        None => assert_eq!(r, None),
                        Some(c) if c != head => assert_eq!(r, Some(c)),
                        Some(_) => {
                            assert_eq!(r, None);
                            if next == u32::MAX {
                                reference.remove(&fingerprint(k));
                            } else {
                                reference.insert(fingerprint(k), next);
                            }
                        }
                    }
                }
                _ => assert_eq!(idx.get(k), reference.get(&fingerprint(k)).copied()),
            }
            assert_eq!(idx.len(), reference.len());
        }
        for k in (0..5_000u64).flat_map(|k| [k, k << 1, k << 2]) {
            assert_eq!(idx.get(k), reference.get(&fingerprint(k)).copied());
        }
    }
}
