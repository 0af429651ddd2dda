//! `U64Index`: an open-addressing map from a pre-computed 64-bit hash key to a `u32`
//! (the head of a slot/entry chain), used by the PCCT and name tables.
//!
//! Why not `HashMap<u64, u32>`: hashbrown keeps control bytes and buckets in two
//! places, so a successful probe costs two cache misses in a table larger than the
//! cache. Here a bucket is `(fingerprint, value)` in 8 bytes (8 per cache line) and a
//! probe is a linear scan from the fingerprint's home bucket, so a lookup usually
//! touches one cache line. Buckets are kept in Robin Hood order (along a cluster, no
//! key sits further from its home bucket than the next key does plus one), so a
//! lookup of an absent key stops at the first key closer to its home than the probe
//! is: at 76% load that is ~2 buckets instead of the ~9 a plain linear-probing miss
//! scans (the FIB's longest-prefix match misses at every populated length longer
//! than the match; a new Interest's PCCT probe misses). Insertion shifts the rest of
//! the cluster forward by one, deletion shifts it back (no tombstones). The table
//! grows at 80% load.
//!
//! A cluster often runs past the end of its home bucket's line, so the burst pipeline
//! prefetches two lines per probe ([`U64Index::prefetch_span`]): with a 2^21-entry CS
//! the second line's miss, in the victim's removal and the new name's insertion, costs
//! 12-16% of a burst CS miss when it is not prefetched (docs/BENCHMARKS.md, "Forwarder
//! core").
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
    found: bool,
}

/// Map from (the 32-bit fingerprints of) 64-bit hash keys to `u32` values
/// (`u32::MAX` is reserved).
pub struct U64Index {
    buckets: Vec<Bucket>,
    mask: usize,
    len: usize,
    /// `max_len(buckets.len())`, kept (an insertion checks it).
    max: usize,
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
            max: 0,
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
        if need <= self.max {
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
        self.max = Self::max_len(cap);
        self.len = 0;
        for b in old {
            if b.val != EMPTY {
                let (i, _) = self.find(b.fp);
                self.insert_at(i, b);
            }
        }
    }

    /// Distance of the key in bucket `i` (fingerprint `fp`) from its home bucket.
    #[inline]
    fn dist(mask: usize, i: usize, fp: u32) -> usize {
        i.wrapping_sub(fp as usize) & mask
    }

    /// Bucket index holding fingerprint `fp` and its value, or the bucket where it
    /// would be inserted (free, or the first whose key is closer to its home: Robin
    /// Hood order puts `fp` there, so it is not further on) and `EMPTY`.
    #[inline]
    fn find(&self, fp: u32) -> (usize, u32) {
        let mask = self.mask;
        // Every index below is masked: one bounds check here, none in the loop.
        let buckets = &self.buckets[..=mask];
        let mut i = fp as usize & mask;
        let mut d = 0;
        loop {
            let b = buckets[i];
            if b.val == EMPTY {
                return (i, EMPTY);
            }
            if b.fp == fp {
                return (i, b.val);
            }
            if i.wrapping_sub(b.fp as usize) & mask < d {
                return (i, EMPTY);
            }
            i = (i + 1) & mask;
            d += 1;
        }
    }

    /// Put `b` (absent) into bucket `i` found by [`U64Index::find`], shifting the
    /// rest of the cluster forward by one bucket.
    #[inline]
    fn insert_at(&mut self, mut i: usize, mut b: Bucket) {
        loop {
            b = std::mem::replace(&mut self.buckets[i], b);
            if b.val == EMPTY {
                break;
            }
            i = (i + 1) & self.mask;
        }
        self.len += 1;
    }

    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        match self.find(fingerprint(k)) {
            (_, EMPTY) => None,
            (_, v) => Some(v),
        }
    }

    /// The value of the key whose [`fingerprint`] is `fp` (for a caller that kept
    /// the fingerprint from an earlier [`U64Index::prefetch_span_fp`]).
    #[inline]
    pub(crate) fn get_fp(&self, fp: u32) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        match self.find(fp) {
            (_, EMPTY) => None,
            (_, v) => Some(v),
        }
    }

    /// Prefetch the span of `k`'s probes: its home bucket and the bucket 7 on, which
    /// is on the next line unless home is its line's first bucket. A lookup that
    /// scans past the end of home's line, an insertion's forward shift and a
    /// removal's backward shift read there: a cluster often straddles two lines.
    #[inline]
    pub(crate) fn prefetch_span(&self, k: u64) {
        self.prefetch_span_fp(fingerprint(k));
    }

    /// [`U64Index::prefetch_span`] of the key whose [`fingerprint`] is `fp`.
    #[inline]
    pub(crate) fn prefetch_span_fp(&self, fp: u32) {
        if self.len != 0 {
            let i = fp as usize & self.mask;
            crate::prefetch::prefetch_at(&self.buckets, i);
            crate::prefetch::prefetch_at(&self.buckets, (i + 7) & self.mask);
        }
    }

    /// Set the value of `k` (inserting it if absent); returns the previous value.
    #[inline]
    pub fn insert(&mut self, k: u64, v: u32) -> Option<u32> {
        assert!(v != EMPTY, "U64Index: u32::MAX is reserved");
        if self.len + 1 > self.max {
            self.reserve(1);
        }
        let fp = fingerprint(k);
        let (i, old) = self.find(fp);
        if old != EMPTY {
            self.buckets[i].val = v;
            return Some(old);
        }
        self.insert_at(i, Bucket { fp, val: v });
        None
    }

    /// Look `k` up for an insertion that may follow (room for one more key is made
    /// first): its value, and the probe to pass to [`U64Index::set`]. The probe is
    /// valid until the index is next changed.
    #[inline]
    pub fn probe_for_insert(&mut self, k: u64) -> (Probe, Option<u32>) {
        self.probe_for_insert_fp(fingerprint(k))
    }

    /// [`U64Index::probe_for_insert`] of the key whose [`fingerprint`] is `fp`.
    #[inline]
    pub(crate) fn probe_for_insert_fp(&mut self, fp: u32) -> (Probe, Option<u32>) {
        if self.len + 1 > self.max {
            self.reserve(1);
        }
        let (i, v) = self.find(fp);
        let found = v != EMPTY;
        (Probe { i, fp, found }, found.then_some(v))
    }

    /// Set the value of the key probed by [`U64Index::probe_for_insert`] (inserting
    /// it if it was absent): one probe for a lookup and an insert together.
    #[inline]
    pub fn set(&mut self, p: Probe, v: u32) {
        assert!(v != EMPTY, "U64Index: u32::MAX is reserved");
        if p.found {
            self.buckets[p.i].val = v;
        } else {
            self.insert_at(p.i, Bucket { fp: p.fp, val: v });
        }
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
        let (i, v) = self.find(fingerprint(k));
        if v == EMPTY {
            return None;
        }
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
        let (hole, v) = self.find(fingerprint(k));
        if v == EMPTY {
            return None;
        }
        self.remove_at(hole);
        Some(v)
    }

    /// Empty bucket `hole` and close the gap: the following keys not in their home
    /// bucket move back by one (which keeps the Robin Hood order).
    #[inline]
    fn remove_at(&mut self, mut hole: usize) {
        self.len -= 1;
        let mask = self.mask;
        // Every index below is masked: one bounds check here, none in the loop.
        let buckets = &mut self.buckets[..=mask];
        hole &= mask;
        loop {
            let j = (hole + 1) & mask;
            let b = buckets[j];
            if b.val == EMPTY || Self::dist(mask, j, b.fp) == 0 {
                break;
            }
            buckets[hole] = b;
            hole = j;
        }
        buckets[hole] = FREE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    impl U64Index {
        /// Assert the Robin Hood order and the count.
        fn check_order(&self) {
            let n = self.buckets.len();
            let mut len = 0;
            for i in 0..n {
                let b = self.buckets[i];
                if b.val == EMPTY {
                    continue;
                }
                len += 1;
                let next = self.buckets[(i + 1) & self.mask];
                if next.val != EMPTY {
                    assert!(
                        Self::dist(self.mask, (i + 1) & self.mask, next.fp)
                            <= Self::dist(self.mask, i, b.fp) + 1
                    );
                }
                // Every bucket from home to here is occupied.
                let home = b.fp as usize & self.mask;
                let mut j = home;
                while j != i {
                    assert!(self.buckets[j].val != EMPTY);
                    j = (j + 1) & self.mask;
                }
            }
            assert_eq!(len, self.len);
        }
    }

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
                    let head = if step % 5 == 0 {
                        step ^ 1
                    } else {
                        cur.unwrap_or(0)
                    };
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
            if step % 1024 == 0 {
                idx.check_order();
            }
        }
        idx.check_order();
        for k in (0..5_000u64).flat_map(|k| [k, k << 1, k << 2]) {
            assert_eq!(idx.get(k), reference.get(&fingerprint(k)).copied());
        }
    }
}
