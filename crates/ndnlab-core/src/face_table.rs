//! The face table: [`FaceInfo`] by face id, found with an array index instead of a
//! hash probe. Every packet looks up two to seven faces (ingress, eligibility of
//! the next hop, egress); with a hash map that was ~50 instructions a lookup, ~7% of
//! a CS-miss exchange (callgrind). Face ids are small and dense in practice (NFD
//! numbers faces from 256 upward and never reuses an id), so ids below [`DENSE`]
//! map through a `Vec<u32>` of positions; larger ids, which only a long-lived
//! forwarder with millions of on-demand faces reaches, fall back to a hash map.
//! The entries themselves stay packed in one `Vec` (removal swaps the last one in).

use crate::face::FaceInfo;
use crate::hash::HashMapU64;

/// Ids below this are indexed directly (4 bytes of index per id up to the largest
/// id seen).
const DENSE: u64 = 1 << 20;

/// Face id -> [`FaceInfo`].
#[derive(Debug, Default)]
pub(crate) struct FaceTable {
    /// `dense[id]` = position in `entries` + 1, or 0.
    dense: Vec<u32>,
    /// Position + 1 for ids at or above [`DENSE`].
    sparse: HashMapU64<u32>,
    entries: Vec<(u64, FaceInfo)>,
}

impl FaceTable {
    #[inline]
    fn position(&self, id: u64) -> Option<usize> {
        let p = if id < DENSE {
            *self.dense.get(id as usize)?
        } else {
            *self.sparse.get(&id)?
        };
        (p as usize).checked_sub(1)
    }

    fn set_position(&mut self, id: u64, pos: Option<usize>) {
        let v = pos.map_or(0, |p| p as u32 + 1);
        if id < DENSE {
            let i = id as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] = v;
        } else if v == 0 {
            self.sparse.remove(&id);
        } else {
            self.sparse.insert(id, v);
        }
    }

    /// The face `id`.
    #[inline]
    pub(crate) fn get(&self, id: &u64) -> Option<&FaceInfo> {
        let p = self.position(*id)?;
        Some(&self.entries[p].1)
    }

    /// The face `id`, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: &u64) -> Option<&mut FaceInfo> {
        let p = self.position(*id)?;
        Some(&mut self.entries[p].1)
    }

    /// Whether face `id` exists.
    #[inline]
    pub(crate) fn contains_key(&self, id: &u64) -> bool {
        self.position(*id).is_some()
    }

    /// The face `id`, added with default info if absent.
    pub(crate) fn get_or_insert_default(&mut self, id: u64) -> &mut FaceInfo {
        let p = match self.position(id) {
            Some(p) => p,
            None => {
                self.entries.push((id, FaceInfo::default()));
                let p = self.entries.len() - 1;
                self.set_position(id, Some(p));
                p
            }
        };
        &mut self.entries[p].1
    }

    /// Removes face `id`, returning its info.
    pub(crate) fn remove(&mut self, id: &u64) -> Option<FaceInfo> {
        let p = self.position(*id)?;
        let (_, info) = self.entries.swap_remove(p);
        self.set_position(*id, None);
        if let Some(&(moved, _)) = self.entries.get(p) {
            self.set_position(moved, Some(p));
        }
        Some(info)
    }

    /// Every face, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&u64, &FaceInfo)> {
        self.entries.iter().map(|(id, f)| (id, f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::FaceScope;

    #[test]
    fn dense_and_sparse_ids_behave_like_a_map() {
        let mut t = FaceTable::default();
        let mut model = std::collections::HashMap::new();
        let ids = [
            256u64,
            257,
            300,
            DENSE - 1,
            DENSE,
            DENSE + 7,
            u64::MAX,
            1,
            255,
        ];
        for (k, &id) in ids.iter().enumerate() {
            let f = t.get_or_insert_default(id);
            f.counters.n_in_interests = k as u64;
            f.scope = if k % 2 == 0 {
                FaceScope::Local
            } else {
                FaceScope::NonLocal
            };
            model.insert(id, (k as u64, f.scope));
        }
        // Re-adding keeps the entry.
        assert_eq!(t.get_or_insert_default(300).counters.n_in_interests, 2);
        let check = |t: &FaceTable, model: &std::collections::HashMap<u64, (u64, FaceScope)>| {
            for (id, (n, scope)) in model {
                let f = t.get(id).expect("present");
                assert_eq!((f.counters.n_in_interests, f.scope), (*n, *scope));
            }
            assert_eq!(t.iter().count(), model.len());
            for id in [0u64, 2, 258, DENSE + 1, u64::MAX - 1] {
                assert!(!t.contains_key(&id) || model.contains_key(&id));
            }
        };
        check(&t, &model);
        // Remove from the middle, the end and the sparse part; the moved entries stay
        // reachable.
        for id in [257u64, 255, DENSE, 256, u64::MAX] {
            assert_eq!(
                t.remove(&id).map(|f| f.counters.n_in_interests),
                model.remove(&id).map(|m| m.0)
            );
            assert!(t.remove(&id).is_none());
            assert!(t.get(&id).is_none());
            check(&t, &model);
        }
        t.get_mut(&300).expect("present").counters.n_in_interests = 99;
        assert_eq!(t.get(&300).map(|f| f.counters.n_in_interests), Some(99));
    }
}
