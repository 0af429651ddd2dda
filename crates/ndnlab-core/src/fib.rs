//! The Forwarding Information Base: name prefix -> next hops sorted by cost.
//!
//! Longest-prefix match runs on [`NameTable`] (hash per prefix length, probing only
//! populated lengths). An entry disappears with its last next hop, as in NFD.

use ndnlab_wire::Name;
use smallvec::SmallVec;

use crate::face::FaceId;
use crate::name_table::{EntryId, NameTable};

/// A next hop: face and routing cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextHop {
    /// The upstream face.
    pub face: FaceId,
    /// Routing cost (lower is preferred).
    pub cost: u64,
}

/// Next hops of one FIB entry, sorted by cost then face id.
pub type NextHops = SmallVec<[NextHop; 2]>;

/// The FIB.
#[derive(Default)]
pub struct Fib {
    table: NameTable<NextHops>,
}

impl Fib {
    /// An empty FIB.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries (prefixes).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the FIB is empty.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Reserve room for `n` more prefixes.
    pub fn reserve(&mut self, n: usize) {
        self.table.reserve(n);
    }

    /// Add a next hop, or update its cost if it exists (NFD `fib/add-nexthop`).
    /// Returns whether the next hop is new. (Management should go through
    /// [`crate::Forwarder::add_nexthop`], which also runs the strategies'
    /// `afterNewNextHop` trigger.)
    pub fn add_nexthop(&mut self, prefix: &Name, face: FaceId, cost: u64) -> bool {
        let (id, _) = self.table.get_or_insert_with(prefix, NextHops::new);
        let hops = self.table.get_mut(id);
        let before = hops.len();
        hops.retain(|h| h.face != face);
        let new = hops.len() == before;
        let pos = hops
            .iter()
            .position(|h| (h.cost, h.face) > (cost, face))
            .unwrap_or(hops.len());
        hops.insert(pos, NextHop { face, cost });
        new
    }

    /// Remove a next hop (NFD `fib/remove-nexthop`). Returns whether it existed.
    pub fn remove_nexthop(&mut self, prefix: &Name, face: FaceId) -> bool {
        let Some(id) = self.table.find_exact(prefix) else {
            return false;
        };
        let hops = self.table.get_mut(id);
        let before = hops.len();
        hops.retain(|h| h.face != face);
        let removed = hops.len() != before;
        if hops.is_empty() {
            self.table.remove(id);
        }
        removed
    }

    /// Remove every next hop through `face` (face destroyed).
    pub fn remove_face(&mut self, face: FaceId) {
        for id in self.table.ids() {
            let hops = self.table.get_mut(id);
            hops.retain(|h| h.face != face);
            if hops.is_empty() {
                self.table.remove(id);
            }
        }
    }

    /// Next hops of the exact entry for `prefix`.
    pub fn get(&self, prefix: &Name) -> Option<&[NextHop]> {
        self.table
            .find_exact(prefix)
            .map(|id| &self.table.get(id)[..])
    }

    /// Longest-prefix match: the matched prefix's entry id.
    #[inline]
    pub fn lpm_with(&self, name: &Name, hashes: &[u64]) -> Option<EntryId> {
        self.table.lpm_with(name, hashes)
    }

    /// Longest-prefix match given the name's prefix hashes: the next hops (empty if
    /// nothing matches). Always inlined (see `NameTable::lpm_value_with`).
    #[inline(always)]
    pub(crate) fn lpm_nexthops_with(&self, name: &Name, hashes: &[u64]) -> &[NextHop] {
        match self.table.lpm_value_with(name, hashes) {
            Some(hops) => hops,
            None => &[],
        }
    }

    /// [`Fib::lpm_with`], also giving [`Fib::entry_key`] of the match (without
    /// reading it from the entry).
    #[inline]
    pub(crate) fn lpm_key_with(&self, name: &Name, hashes: &[u64]) -> Option<(EntryId, u64)> {
        self.table.lpm_key_with(name, hashes)
    }

    /// Prefetch the index buckets of a coming LPM (see `NameTable::prefetch_lpm`).
    #[inline]
    pub(crate) fn prefetch_lpm(&self, max: usize, hashes: &[u64]) {
        self.table.prefetch_lpm(max, hashes);
    }

    /// Prefetch the entry the longest-prefix match will verify first (after
    /// [`Fib::prefetch_lpm`]'s index lines have arrived).
    #[inline]
    pub(crate) fn prefetch_lpm_entry(&self, max: usize, hashes: &[u64]) {
        self.table.prefetch_lpm_entry(max, hashes);
    }

    /// Longest-prefix match: the next hops (empty if nothing matches).
    pub fn lookup(&self, name: &Name) -> &[NextHop] {
        match self.table.lpm(name) {
            Some(id) => self.table.get(id),
            None => &[],
        }
    }

    /// Next hops of an entry id returned by [`Fib::lpm_with`].
    #[inline]
    pub fn nexthops(&self, id: EntryId) -> &[NextHop] {
        self.table.get(id)
    }

    /// Map key of an entry id: `hash::key` of its prefix's hash and length (the
    /// measurements key of the prefix).
    #[inline]
    pub fn entry_key(&self, id: EntryId) -> u64 {
        self.table.key_of(id)
    }

    /// Prefix of an entry id.
    pub fn prefix(&self, id: EntryId) -> &Name {
        self.table.name(id)
    }

    /// Every entry: `(prefix, next hops)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &[NextHop])> {
        self.table.iter().map(|(_, n, h)| (n, &h[..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    #[test]
    fn nexthops_sorted_by_cost_and_removed() {
        let mut fib = Fib::new();
        fib.add_nexthop(&n("/a"), FaceId(300), 10);
        fib.add_nexthop(&n("/a"), FaceId(301), 5);
        fib.add_nexthop(&n("/a"), FaceId(300), 1);
        let faces: Vec<_> = fib.lookup(&n("/a/b")).iter().map(|h| h.face.0).collect();
        assert_eq!(faces, vec![300, 301]);
        assert!(fib.remove_nexthop(&n("/a"), FaceId(300)));
        assert!(!fib.remove_nexthop(&n("/a"), FaceId(300)));
        fib.remove_face(FaceId(301));
        assert!(fib.is_empty());
        assert!(fib.lookup(&n("/a")).is_empty());
    }
}
