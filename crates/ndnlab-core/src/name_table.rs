//! A name-keyed table with longest-prefix match: one hash map keyed by
//! `(prefix hash, prefix length)`, plus a count of entries per length so a lookup
//! probes only the lengths that exist (longest first). With the name's prefix
//! hashes computed once per packet, an LPM costs one map probe per populated length
//! not longer than the name, and one byte comparison on the hit.
//!
//! Used by the FIB and StrategyChoice.

use ndnlab_wire::Name;

use crate::hash::{key, prefix_hashes};
use crate::index::U64Index;

const NONE: u32 = u32::MAX;

/// Name values up to this many bytes are kept in the entry's first cache line, next
/// to its value, so a lookup verifies its match and the caller reads the value without
/// a second cache miss (FIB prefixes are short: `/ndn/edu/ucla/cs` is 20 bytes). 23
/// fills the line for the FIB, whose value (next hops) is 40 bytes. A longer name is
/// verified in [`Cold`] (key first, then the name's bytes behind its pointer).
const SHORT: usize = 23;
/// `short_len` of an entry whose name is longer than [`SHORT`].
const LONG: u8 = u8::MAX;
/// `short_len` of a removed entry (on the free list).
const VACANT: u8 = u8::MAX - 1;

/// What a lookup and its caller read: the short name and the value, at the start
/// of a cache line (a FIB entry's is exactly one line). The rest ([`Cold`]) sits in
/// another array: the table used to be one `Vec<Option<Entry>>` of 176-byte entries
/// whose `Option` niche was in the name at the end, so a lookup touched two lines.
#[repr(C, align(64))]
struct Hot<T> {
    /// Bytes of `short` in use, [`LONG`], or [`VACANT`].
    short_len: u8,
    short: [u8; SHORT],
    value: T,
}

/// What only long names, collision chains, [`NameTable::key_of`] (ASF's measurements
/// key) and management read.
struct Cold {
    /// The map key (`hash::key` of the name's hash and length).
    key: u64,
    /// Next entry with the same map key (hash collision chain).
    next: u32,
    name: Name,
}

impl<T> Hot<T> {
    fn new(name: &Name, value: T) -> Self {
        let v = name.value_bytes();
        let mut short = [0u8; SHORT];
        let short_len = if v.len() <= SHORT {
            short[..v.len()].copy_from_slice(v);
            v.len() as u8
        } else {
            LONG
        };
        Hot {
            short_len,
            short,
            value,
        }
    }
}

/// A table of `T` keyed by name, with exact and longest-prefix lookups.
pub struct NameTable<T> {
    map: U64Index,
    /// Entry `id` is `hot[id]` and `cold[id]`.
    hot: Vec<Hot<T>>,
    cold: Vec<Cold>,
    free: Vec<u32>,
    /// Number of entries per name length.
    len_counts: Vec<u32>,
    /// Populated lengths, longest first (rebuilt when a length appears or disappears).
    lengths: Vec<u16>,
    count: usize,
}

impl<T> Default for NameTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Index of an entry in a [`NameTable`]; stable until the entry is removed.
pub type EntryId = u32;

impl<T> NameTable<T> {
    /// An empty table.
    pub fn new() -> Self {
        NameTable {
            map: U64Index::new(),
            hot: Vec::new(),
            cold: Vec::new(),
            free: Vec::new(),
            len_counts: Vec::new(),
            lengths: Vec::new(),
            count: 0,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Reserve room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.map.reserve(n);
        self.hot.reserve(n);
        self.cold.reserve(n);
    }

    /// Whether entry `id` (on a collision chain, so not vacant) is the name with
    /// value bytes `bytes`, whose map key is `k`. A short name is decided by the hot
    /// line alone (equal bytes are the same name, hence the same key).
    #[inline]
    fn is(&self, id: u32, k: u64, bytes: &[u8]) -> bool {
        let h = &self.hot[id as usize];
        match h.short.get(..h.short_len as usize) {
            Some(short) => crate::slot_name::name_eq(short, bytes),
            None => {
                let c = &self.cold[id as usize];
                h.short_len == LONG && c.key == k && c.name.value_bytes() == bytes
            }
        }
    }

    /// Always inlined: with four callers LLVM kept it out of line, a call per probed
    /// length of an LPM (inlining saved ~18 instructions per CS-miss exchange in
    /// callgrind).
    #[inline(always)]
    fn find_key(&self, k: u64, name: &Name, n: usize) -> Option<EntryId> {
        let mut id = self.map.get(k)?;
        let bytes = name.prefix_bytes(n);
        while id != NONE {
            if self.is(id, k, bytes) {
                return Some(id);
            }
            id = self.cold[id as usize].next;
        }
        None
    }

    /// The entry whose name equals `name`.
    pub fn find_exact(&self, name: &Name) -> Option<EntryId> {
        let n = name.len();
        self.find_key(key(name.prefix_hash(n), n), name, n)
    }

    /// Longest-prefix match given the name's prefix hashes (`hashes[i]` = hash of the
    /// first `i` components, as from [`crate::hash::prefix_hashes`]).
    #[inline]
    pub fn lpm_with(&self, name: &Name, hashes: &[u64]) -> Option<EntryId> {
        self.lpm_key_with(name, hashes).map(|(id, _)| id)
    }

    /// The value of [`NameTable::lpm_with`]'s match, always inlined: for the FIB
    /// lookup of every forwarded Interest. Out of line, the call set up the table's
    /// fields again (a 120-byte frame, spills reloaded in the probe loop): ~18
    /// instructions per CS-miss exchange in callgrind. Only the FIB's caller takes it:
    /// inlining every caller (StrategyChoice's too) grew the Interest pipeline enough
    /// to cost CS hits. The value is read from the hot line the match was verified
    /// on, without looking the id up again (a bounds check and the vacancy assert).
    /// Its loop repeats [`NameTable::lpm_key_with`]'s on purpose: both written over one
    /// shared always-inlined loop (returning the id, or mapping it at the match through
    /// a closure) measured +28 instructions per CS-miss exchange, from the Interest
    /// pipeline's register allocation.
    #[inline(always)]
    pub(crate) fn lpm_value_with(&self, name: &Name, hashes: &[u64]) -> Option<&T> {
        let max = name.len();
        for &l in &self.lengths {
            let l = l as usize;
            if l > max {
                continue;
            }
            if let Some(id) = self.find_key(key(hashes[l], l), name, l) {
                return self.hot.get(id as usize).map(|h| &h.value);
            }
        }
        None
    }

    /// Longest-prefix match (as [`NameTable::lpm_with`]), also giving the match's map
    /// key (what [`NameTable::key_of`] reads from the entry's cold part).
    #[inline]
    pub fn lpm_key_with(&self, name: &Name, hashes: &[u64]) -> Option<(EntryId, u64)> {
        let max = name.len();
        for &l in &self.lengths {
            let l = l as usize;
            if l > max {
                continue;
            }
            let k = key(hashes[l], l);
            if let Some(id) = self.find_key(k, name, l) {
                return Some((id, k));
            }
        }
        None
    }

    /// The populated lengths the burst pipeline's FIB prefetches cover for a name of
    /// `max` components: the (at most 4) longest up to `max`, longest first.
    #[inline]
    fn prefetch_lengths(&self, max: usize) -> impl Iterator<Item = usize> + '_ {
        self.lengths
            .iter()
            .map(|&l| l as usize)
            .filter(move |&l| l <= max)
            .take(4)
    }

    /// Prefetch the index buckets a coming [`NameTable::lpm_with`] of a name of `max`
    /// components reads, at the (at most 4) longest populated lengths.
    #[inline]
    pub(crate) fn prefetch_lpm(&self, max: usize, hashes: &[u64]) {
        for l in self.prefetch_lengths(max) {
            self.map.prefetch_span(key(hashes[l], l));
        }
    }

    /// Prefetch the hot line of the first entry [`NameTable::lpm_value_with`] would
    /// verify: the longest populated length (of those [`NameTable::prefetch_lpm`]
    /// covers) whose key is in the index, whose bucket that prefetch brought in a
    /// stage earlier.
    #[inline]
    pub(crate) fn prefetch_lpm_entry(&self, max: usize, hashes: &[u64]) {
        for l in self.prefetch_lengths(max) {
            if let Some(id) = self.map.get(key(hashes[l], l)) {
                crate::prefetch::prefetch_at(&self.hot, id as usize);
                return;
            }
        }
    }

    /// Longest-prefix match.
    pub fn lpm(&self, name: &Name) -> Option<EntryId> {
        if self.lengths.len() == 1 && self.lengths[0] == 0 {
            // Only the root entry: no hashing needed.
            let k = key(name.prefix_hash(0), 0);
            return self.find_key(k, name, 0);
        }
        let h = prefix_hashes(name);
        self.lpm_with(name, &h)
    }

    /// The entry for `name`, inserted with `make()` if absent. Returns its id and whether
    /// it was inserted.
    pub fn get_or_insert_with(&mut self, name: &Name, make: impl FnOnce() -> T) -> (EntryId, bool) {
        let n = name.len();
        let k = key(name.prefix_hash(n), n);
        if let Some(id) = self.find_key(k, name, n) {
            return (id, false);
        }
        let next = self.map.get(k).unwrap_or(NONE);
        let hot = Hot::new(name, make());
        let cold = Cold {
            key: k,
            next,
            name: name.clone(),
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.hot[id as usize] = hot;
                self.cold[id as usize] = cold;
                id
            }
            None => {
                self.hot.push(hot);
                self.cold.push(cold);
                (self.hot.len() - 1) as u32
            }
        };
        self.map.insert(k, id);
        if self.len_counts.len() <= n {
            self.len_counts.resize(n + 1, 0);
        }
        self.len_counts[n] += 1;
        if self.len_counts[n] == 1 {
            self.rebuild_lengths();
        }
        self.count += 1;
        (id, true)
    }

    fn rebuild_lengths(&mut self) {
        self.lengths = (0..self.len_counts.len())
            .rev()
            .filter(|&l| self.len_counts[l] > 0)
            .map(|l| l as u16)
            .collect();
    }

    /// Entry `id`'s hot part; panics if there is no such entry.
    #[inline]
    fn hot(&self, id: EntryId) -> &Hot<T> {
        let h = &self.hot[id as usize];
        assert!(h.short_len != VACANT, "valid entry id");
        h
    }

    /// The name of an entry.
    pub fn name(&self, id: EntryId) -> &Name {
        self.hot(id);
        &self.cold[id as usize].name
    }

    /// The map key of an entry (`hash::key` of its name's hash and length).
    #[inline]
    pub fn key_of(&self, id: EntryId) -> u64 {
        self.hot(id);
        self.cold[id as usize].key
    }

    /// The value of an entry.
    #[inline]
    pub fn get(&self, id: EntryId) -> &T {
        &self.hot(id).value
    }

    /// The value of an entry, mutably.
    pub fn get_mut(&mut self, id: EntryId) -> &mut T {
        self.hot(id);
        &mut self.hot[id as usize].value
    }

    /// Every entry: `(id, name, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (EntryId, &Name, &T)> {
        self.hot
            .iter()
            .zip(&self.cold)
            .enumerate()
            .filter(|(_, (h, _))| h.short_len != VACANT)
            .map(|(i, (h, c))| (i as u32, &c.name, &h.value))
    }

    /// Ids of every entry (to mutate while iterating).
    pub fn ids(&self) -> Vec<EntryId> {
        self.iter().map(|(id, _, _)| id).collect()
    }
}

impl<T: Default> NameTable<T> {
    /// Remove an entry, returning its value (a vacant entry keeps a default value).
    pub fn remove(&mut self, id: EntryId) -> Option<T> {
        let h = self.hot.get_mut(id as usize)?;
        if h.short_len == VACANT {
            return None;
        }
        h.short_len = VACANT;
        let value = std::mem::take(&mut h.value);
        let c = &mut self.cold[id as usize];
        let (k, next, name) = (c.key, c.next, std::mem::take(&mut c.name));
        // Unlink from the collision chain.
        let head = self.map.get(k).unwrap_or(NONE);
        if head == id {
            if next == NONE {
                self.map.remove(k);
            } else {
                self.map.insert(k, next);
            }
        } else {
            let mut cur = head;
            while cur != NONE {
                let c = &mut self.cold[cur as usize];
                if c.next == id {
                    c.next = next;
                    break;
                }
                cur = c.next;
            }
        }
        let n = name.len();
        self.len_counts[n] -= 1;
        if self.len_counts[n] == 0 {
            self.rebuild_lengths();
        }
        self.free.push(id);
        self.count -= 1;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    #[test]
    fn longest_prefix_wins() {
        let mut t = NameTable::new();
        t.get_or_insert_with(&n("/"), || 0);
        t.get_or_insert_with(&n("/a"), || 1);
        t.get_or_insert_with(&n("/a/b/c"), || 3);
        let get = |t: &NameTable<i32>, s: &str| t.lpm(&n(s)).map(|id| *t.get(id));
        assert_eq!(get(&t, "/a/b/c/d"), Some(3));
        assert_eq!(get(&t, "/a/b"), Some(1));
        assert_eq!(get(&t, "/x"), Some(0));
        let root = t.find_exact(&n("/")).unwrap();
        t.remove(root);
        assert_eq!(get(&t, "/x"), None);
        assert_eq!(t.len(), 2);
        let a = t.find_exact(&n("/a")).unwrap();
        assert_eq!(t.remove(a), Some(1));
        assert_eq!(get(&t, "/a/b"), None);
        assert_eq!(get(&t, "/a/b/c"), Some(3));
    }

    #[test]
    fn long_names_compare_beyond_the_inline_bytes() {
        let long = "x".repeat(40);
        let mut t = NameTable::new();
        t.get_or_insert_with(&n("/a"), || 1);
        t.get_or_insert_with(&n(&format!("/a/{long}")), || 2);
        // Same bytes but the last: must not match the long entry.
        let other = format!("/a/{}y", "x".repeat(39));
        let get = |t: &NameTable<i32>, s: &str| t.lpm(&n(s)).map(|id| *t.get(id));
        assert_eq!(get(&t, &format!("/a/{long}/seg")), Some(2));
        assert_eq!(get(&t, &format!("{other}/seg")), Some(1));
        assert!(t.find_exact(&n(&other)).is_none());
        // A short name of exactly the inline size.
        let exact = format!("/{}", "z".repeat(super::SHORT - 2));
        assert_eq!(n(&exact).value_bytes().len(), super::SHORT);
        t.get_or_insert_with(&n(&exact), || 3);
        assert_eq!(get(&t, &format!("{exact}/q")), Some(3));
    }

    #[test]
    fn a_fib_entry_lookup_reads_one_cache_line() {
        assert_eq!(std::mem::size_of::<Hot<crate::fib::NextHops>>(), 64);
        assert_eq!(std::mem::align_of::<Hot<crate::fib::NextHops>>(), 64);
    }

    #[test]
    fn reinsert_reuses_ids() {
        let mut t = NameTable::new();
        let (a, new) = t.get_or_insert_with(&n("/a"), || 1);
        assert!(new);
        let (a2, new2) = t.get_or_insert_with(&n("/a"), || 9);
        assert_eq!((a, new2), (a2, false));
        t.remove(a);
        let (b, _) = t.get_or_insert_with(&n("/b"), || 2);
        assert_eq!(a, b);
        assert_eq!(t.iter().count(), 1);
    }

    /// Two distinct names whose index keys share a 32-bit fingerprint (a birthday
    /// search over `/fp/<i>`, deterministic).
    pub(crate) fn fingerprint_collision() -> (Name, Name) {
        let mut seen = std::collections::HashMap::new();
        for i in 0u64.. {
            let name = n(&format!("/fp/{i}"));
            let fp = crate::index::fingerprint(key(name.prefix_hash(2), 2));
            if let Some(other) = seen.insert(fp, name.clone()) {
                return (other, name);
            }
        }
        unreachable!()
    }

    #[test]
    fn fingerprint_collisions_chain() {
        let (a, b) = fingerprint_collision();
        let mut t = NameTable::new();
        t.get_or_insert_with(&n("/fp"), || 0);
        let (ia, _) = t.get_or_insert_with(&a, || 1);
        let (ib, new) = t.get_or_insert_with(&b, || 2);
        assert!(new && ia != ib);
        assert_eq!(t.map.len(), 2, "a and b share one bucket");
        assert_eq!(t.find_exact(&a), Some(ia));
        assert_eq!(t.find_exact(&b), Some(ib));
        assert_eq!(t.lpm(&a.append_generic(b"x")).map(|id| *t.get(id)), Some(1));
        assert_eq!(t.remove(ib), Some(2));
        assert_eq!(t.find_exact(&b), None);
        assert_eq!(t.lpm(&b).map(|id| *t.get(id)), Some(0));
        assert_eq!(t.find_exact(&a), Some(ia));
        let (ib, _) = t.get_or_insert_with(&b, || 3);
        assert_eq!(t.remove(ia), Some(1));
        assert_eq!(t.find_exact(&b), Some(ib));
        assert_eq!(t.find_exact(&a), None);
    }
}
