//! The PIT-CS Composite Table (NDN-DPDK's PCCT): one hash map from name to a slot
//! that holds the PIT entries for that name and its CS entry, so an Interest does
//! its CS lookup and PIT insert with one probe, and a Data its PIT match and CS
//! insert with one probe.
//!
//! * Key: `(prefix hash, length)` of the name from `ndnlab_wire::Name::prefix_hashes`
//!   (computed once per packet), verified by comparing the name's bytes.
//! * An Interest whose name ends with an implicit digest lives in the slot of the
//!   name without it; its PIT entry and the CS lookup then compare the digest.
//! * CanBePrefix: a PIT entry for `/a` with CanBePrefix is found by Data `/a/b/c`
//!   by probing only the name lengths at which such entries exist (counted per
//!   length). In the CS, a Data that satisfied a CanBePrefix Interest `/a` is also
//!   reachable from slot `/a` through an *indirect* reference (as in NDN-DPDK), so a
//!   later CanBePrefix Interest `/a` hits it with one probe. NFD's broader behaviour
//!   (any cached Data under `/a`) is available through an opt-in ordered index of
//!   cached names ([`Pcct::set_prefix_match`]), off by default because it costs every
//!   CS insert and eviction an ordered-map update.
//!
//! The CS half (entries, policies, capacity) is in [`crate::cs`].

use bytes::Bytes;
use ndnlab_wire::Name;

use crate::cs::CsState;
use crate::hash::key;
use crate::index::{Probe, U64Index};
use crate::pit::{PitEntry, PitFlags};
use crate::slot_name::SlotName;
use crate::strategy::kind::StrategyKind;
use crate::token::PitToken;

/// "No index".
pub(crate) const NONE: u32 = u32::MAX;

/// A name slot.
pub(crate) struct Slot {
    /// Map key of this slot.
    pub(crate) key: u64,
    /// Name TLV-VALUE (component TLVs) of the slot name.
    pub(crate) name: SlotName,
    /// Next slot with the same map key.
    pub(crate) next: u32,
    /// First PIT entry.
    pub(crate) pit_head: u32,
    /// CS entry stored here.
    pub(crate) cs: u32,
    /// CS entry (in another slot, with a longer name) reachable by CanBePrefix Interests.
    pub(crate) indirect: u32,
}

/// The PIT-CS composite table. `ContentStore` (see [`crate::cs`]) is its public
/// management face; PIT operations are used by the pipelines.
pub struct Pcct {
    map: U64Index,
    pub(crate) slots: Vec<Slot>,
    free_slots: Vec<u32>,
    pit: Vec<Option<PitEntry>>,
    /// Generation of each PIT cell (survives removal, so stale tokens are detected).
    generations: Vec<u32>,
    free_pit: Vec<u32>,
    n_pit: usize,
    /// Number of CanBePrefix PIT entries per slot name length.
    cbp_lengths: Vec<u32>,
    n_cbp: usize,
    pub(crate) shard: u8,
    pub(crate) cs: CsState,
}

/// The result of matching an Interest against a slot.
pub(crate) struct SlotRef {
    pub(crate) slot: u32,
    pub(crate) created: bool,
}

impl Pcct {
    pub(crate) fn new(cs: CsState, shard: u8) -> Self {
        Pcct {
            map: U64Index::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            pit: Vec::new(),
            generations: Vec::new(),
            free_pit: Vec::new(),
            n_pit: 0,
            cbp_lengths: Vec::new(),
            n_cbp: 0,
            shard,
            cs,
        }
    }

    /// Number of PIT entries.
    pub fn pit_len(&self) -> usize {
        self.n_pit
    }

    /// Whether any CanBePrefix PIT entry exists (Data then probes shorter names).
    #[inline]
    pub(crate) fn has_cbp_entries(&self) -> bool {
        self.n_cbp > 0
    }

    /// Whether the CS would consider caching (admit flag, non-zero capacity).
    #[inline]
    pub(crate) fn cs_admits(&self) -> bool {
        self.cs.admit && self.cs.capacity() > 0
    }

    /// Number of distinct keys in the name index (equals `slot_count()` unless key
    /// fingerprint collisions chain slots).
    pub fn index_len(&self) -> usize {
        self.map.len()
    }

    /// Number of name slots in use.
    pub fn slot_count(&self) -> usize {
        self.slots.len() - self.free_slots.len()
    }

    /// Reserve room for `n` more names, PIT entries and CS entries.
    pub fn reserve(&mut self, n: usize) {
        self.reserve_pit(n);
        self.cs.reserve(n);
    }

    /// Reserve room for `n` more PIT entries, each with its own name.
    pub fn reserve_pit(&mut self, n: usize) {
        self.map.reserve(n);
        self.slots.reserve(n);
        self.pit.reserve(n);
        self.generations.reserve(n);
    }

    /// Reserve room for `n` more CS entries, each with its own name.
    pub fn reserve_cs(&mut self, n: usize) {
        self.map.reserve(n);
        self.slots.reserve(n);
        self.cs.reserve(n);
    }

    // ---------------------------------------------------------------- slots

    /// The slot of chain `s` named `bytes`. Compares with `name_eq` (fixed-size loads;
    /// a slice `==` was a `memcmp` call, ~19 instructions a CS hit), and always inlined
    /// (out of line, the call cost more than that saved).
    #[inline(always)]
    fn chain_find(&self, mut s: u32, bytes: &[u8]) -> Option<u32> {
        while s != NONE {
            let slot = &self.slots[s as usize];
            if crate::slot_name::name_eq(slot.name.as_bytes(), bytes) {
                return Some(s);
            }
            s = slot.next;
        }
        None
    }

    /// The slot of the first `n` components of `name` whose hash is `h`.
    #[inline]
    pub(crate) fn find_slot(&self, name: &Name, n: usize, h: u64) -> Option<u32> {
        let head = self.map.get(key(h, n))?;
        self.chain_find(head, name.prefix_bytes(n))
    }

    // Staged prefetching for bursts (see `Forwarder::handle_burst`): each stage reads
    // only what the previous stage prefetched and prefetches the next dependent line.

    /// Stage 1 (and the one-packet pipeline): prefetch the index bucket of prefix
    /// `(n, h)`; returns the key's index fingerprint, for stage 2 and
    /// [`Pcct::slot_get_or_insert_fp`] (which then neither mix the key nor hash it
    /// again).
    #[inline]
    pub(crate) fn prefetch_index(&self, n: usize, h: u64) -> u32 {
        let fp = crate::index::fingerprint(key(h, n));
        self.map.prefetch_span_fp(fp);
        fp
    }

    /// Stage 2: the first slot of the chain of the prefix whose index fingerprint
    /// (from [`Pcct::prefetch_index`]) is `fp` (prefetched), or `NONE`.
    #[inline]
    pub(crate) fn prefetch_slot_of(&self, fp: u32) -> u32 {
        let s = self.map.get_fp(fp).unwrap_or(NONE);
        crate::prefetch::prefetch_whole_at(&self.slots, s as usize);
        s
    }

    /// Stage 2 for Data: the slot of the PIT entry named by `p` (prefetched), or `NONE`.
    #[inline]
    pub(crate) fn prefetch_slot_of_pit(&self, p: u32) -> u32 {
        let s = self.pit(p).map_or(NONE, |e| e.slot);
        crate::prefetch::prefetch_whole_at(&self.slots, s as usize);
        s
    }

    /// Stage 1 for Data: prefetch the PIT entry a token names.
    #[inline]
    pub(crate) fn prefetch_pit(&self, p: u32) {
        crate::prefetch::prefetch_at(&self.pit, p as usize);
        crate::prefetch::prefetch_at(&self.generations, p as usize);
    }

    /// Eviction prefetch for a burst with `n_data` Data, stage `stage` (0..=2): victim
    /// CS entries, then their packets and slots, then the slots' index buckets.
    pub(crate) fn prefetch_evictions(
        &self,
        stage: u8,
        n_data: usize,
        victims: &mut Vec<u32>,
        slots: &mut Vec<u32>,
    ) {
        match stage {
            0 => self.cs.prefetch_victims(n_data, victims),
            1 => {
                self.cs.prefetch_victim_buffers(victims, slots);
                for &s in slots.iter() {
                    crate::prefetch::prefetch_whole_at(&self.slots, s as usize);
                }
            }
            _ => {
                for &s in slots.iter() {
                    if let Some(slot) = self.slots.get(s as usize) {
                        self.map.prefetch_span(slot.key);
                    }
                }
            }
        }
    }

    /// One step of the single-packet eviction prefetch, run once per incoming Data
    /// while the CS is full. An eviction reads the victim's CS entry, then its name
    /// slot and packet buffer, then the slot's index bucket: a chain of dependent
    /// cold lines when the CS is large. Each step runs that chain one link further
    /// for the next three victims (in eviction order): the third's CS entry, the
    /// second's slot and buffer (its entry came in one step ago), and the next one's
    /// index bucket (its slot came in one step ago). In steady state the victim this
    /// Data evicts is in cache by the time `cs_insert` reaches it.
    #[inline]
    pub(crate) fn prefetch_next_victims(&self) {
        let Some([v1, v2, v3]) = self.cs.next_victims() else {
            return;
        };
        self.cs.prefetch(v3);
        if let Some(e) = self.cs.get(v2) {
            crate::prefetch::prefetch_whole_at(&self.slots, e.slot as usize);
            crate::prefetch::prefetch(crate::cs::packet_count(&e.wire));
        }
        if let Some(slot) = self
            .cs
            .get(v1)
            .and_then(|e| self.slots.get(e.slot as usize))
        {
            self.map.prefetch_span(slot.key);
        }
    }

    /// Stage 3: prefetch what the pipelines read behind slot `s`: its name bytes, CS
    /// entry and first PIT entry.
    #[inline]
    pub(crate) fn prefetch_slot_contents(&self, s: u32) {
        let Some(slot) = self.slots.get(s as usize) else {
            return;
        };
        if let Some(p) = slot.name.external_ptr() {
            crate::prefetch::prefetch(p);
        }
        if slot.cs != NONE {
            self.cs.prefetch(slot.cs);
        }
        if slot.pit_head != NONE {
            crate::prefetch::prefetch_at(&self.pit, slot.pit_head as usize);
        }
    }

    /// Stage 4, for an Interest: when slot `s` holds a CS entry (read in stage 3),
    /// prefetch the reference count a hit's clone updates (the only line of the packet
    /// a hit touches, unless the Interest names an implicit digest).
    #[inline]
    pub(crate) fn prefetch_cs_packet(&self, s: u32) {
        if let Some(e) = self
            .slots
            .get(s as usize)
            .and_then(|slot| self.cs.get(slot.cs))
        {
            crate::prefetch::prefetch(crate::cs::packet_count(&e.wire));
        }
    }

    /// The slot of the first `n` components of `name`, created if absent (one probe).
    #[inline]
    pub(crate) fn slot_get_or_insert(&mut self, name: &Name, n: usize, h: u64) -> SlotRef {
        let fp = crate::index::fingerprint(key(h, n));
        self.slot_get_or_insert_fp(name, n, h, fp)
    }

    /// [`Pcct::slot_get_or_insert`] given the key's index fingerprint `fp` (from
    /// [`Pcct::prefetch_index`]: the Interest pipeline computed it for the prefetch,
    /// and mixing the key again cost a multiply and three shifts per Interest).
    #[inline]
    pub(crate) fn slot_get_or_insert_fp(
        &mut self,
        name: &Name,
        n: usize,
        h: u64,
        fp: u32,
    ) -> SlotRef {
        let k = key(h, n);
        debug_assert_eq!(fp, crate::index::fingerprint(k));
        let bytes = name.prefix_bytes(n);
        let (probe, head) = self.map.probe_for_insert_fp(fp);
        let head = match head {
            None => NONE,
            Some(head) => {
                // The name compare below waits on the name bytes (another line, often
                // another allocation); start loading the CS entry a hit will read at
                // the same time.
                if let Some(slot) = self.slots.get(head as usize) {
                    if slot.cs != NONE {
                        self.cs.prefetch(slot.cs);
                    }
                }
                if let Some(s) = self.chain_find(head, bytes) {
                    return SlotRef {
                        slot: s,
                        created: false,
                    };
                }
                head
            }
        };
        let s = self.new_slot(probe, k, name, bytes, head);
        SlotRef {
            slot: s,
            created: true,
        }
    }

    /// A new slot for the prefix of `name` whose name bytes are `value` (key `k`,
    /// absent), at the head of its key's chain. Out of line, so the lookup that finds
    /// its slot (a CS hit) stays lean. `value` is what the lookup compared: finding
    /// the prefix's end again read the name's offsets (~12 instructions per new slot).
    #[inline(never)]
    fn new_slot(&mut self, probe: Probe, k: u64, name: &Name, value: &[u8], head: u32) -> u32 {
        let s = alloc_slot(&mut self.slots, &mut self.free_slots, k, name, value, head);
        self.map.set(probe, s);
        s
    }

    /// Free slot `s` if nothing uses it any more.
    #[inline]
    pub(crate) fn maybe_free_slot(&mut self, s: u32) {
        let slot = &self.slots[s as usize];
        if slot.pit_head != NONE
            || slot.cs != NONE
            || slot.indirect != NONE
            || slot.key == 0 && slot.name.is_empty()
        {
            return;
        }
        self.free_slot(s);
    }

    /// Free slot `s`, which nothing uses any more. Out of line: the callers that find
    /// the slot still in use (most) then pay no call.
    #[inline(never)]
    fn free_slot(&mut self, s: u32) {
        let slot = &self.slots[s as usize];
        let k = slot.key;
        let next = slot.next;
        // Unlink from the head of the chain (one index probe), or walk it.
        let mut cur = self.map.unlink_head(k, s, next).unwrap_or(NONE);
        while cur != NONE {
            if self.slots[cur as usize].next == s {
                self.slots[cur as usize].next = next;
                break;
            }
            cur = self.slots[cur as usize].next;
        }
        let slot = &mut self.slots[s as usize];
        slot.name = SlotName::default();
        slot.key = 0;
        slot.next = NONE;
        self.free_slots.push(s);
    }

    /// Map key of slot `s` (also the Dead Nonce List name key).
    #[inline]
    pub(crate) fn slot_key(&self, s: u32) -> u64 {
        self.slots[s as usize].key
    }

    /// Name bytes of slot `s`.
    #[inline]
    pub(crate) fn slot_name(&self, s: u32) -> &[u8] {
        self.slots[s as usize].name.as_bytes()
    }

    // ---------------------------------------------------------------- PIT

    /// The PIT entry in slot `s` with these selectors, if any.
    #[inline]
    pub(crate) fn pit_find_in_slot(
        &self,
        s: u32,
        cbp: bool,
        mbf: bool,
        digest: Option<&[u8; 32]>,
    ) -> Option<u32> {
        let mut p = self.slots[s as usize].pit_head;
        while p != NONE {
            let e = self.pit[p as usize].as_ref().expect("linked PIT entry");
            if e.flags.can_be_prefix == cbp
                && e.flags.must_be_fresh == mbf
                && e.digest.as_deref() == digest
            {
                return Some(p);
            }
            p = e.next_in_slot;
        }
        None
    }

    /// Insert a new PIT entry in slot `s` (whose name has `slot_len` components).
    #[inline]
    pub(crate) fn pit_insert(
        &mut self,
        s: u32,
        slot_len: usize,
        flags: PitFlags,
        digest: Option<[u8; 32]>,
        strategy: StrategyKind,
        interest: Bytes,
    ) -> u32 {
        let head = self.slots[s as usize].pit_head;
        let idx = match self.free_pit.pop() {
            Some(i) => i,
            None => {
                self.pit.push(None);
                self.generations.push(0);
                (self.pit.len() - 1) as u32
            }
        };
        let g = &mut self.generations[idx as usize];
        *g = (*g + 1) & 0x00FF_FFFF;
        let slot_len = slot_len.min(u16::MAX as usize) as u16;
        let cell = &mut self.pit[idx as usize];
        // The cell is free (from the free list, or just pushed). Emptying it first
        // (a no-op) means the assignment drops no old entry, so the 176-byte entry is
        // built in place (a plain assignment built it in a temporary, then copied it
        // with a `memcpy` call, measured with callgrind).
        if cell.is_some() {
            *cell = None;
        }
        *cell = Some(PitEntry {
            slot: s,
            next_in_slot: head,
            flags,
            strategy,
            slot_len,
            origin: 0,
            measure_key: 0,
            digest: digest.map(Box::new),
            suppression_interval: 0,
            interest,
            in_records: Default::default(),
            out_records: Default::default(),
        });
        self.slots[s as usize].pit_head = idx;
        if flags.can_be_prefix {
            let l = slot_len as usize;
            if self.cbp_lengths.len() <= l {
                self.cbp_lengths.resize(l + 1, 0);
            }
            self.cbp_lengths[l] += 1;
            self.n_cbp += 1;
        }
        self.n_pit += 1;
        idx
    }

    /// Remove PIT entry `p`, returning it.
    pub(crate) fn pit_remove(&mut self, p: u32) -> Option<PitEntry> {
        let e = self.pit.get_mut(p as usize)?.take()?;
        self.pit_unlink(p, e.slot, e.next_in_slot, e.flags.can_be_prefix, e.slot_len);
        Some(e)
    }

    /// Remove PIT entry `p`, dropping it in place (the common, satisfied case: moving
    /// the 176-byte entry out cost two `memcpy` calls).
    pub(crate) fn pit_discard(&mut self, p: u32) {
        let Some(cell) = self.pit.get_mut(p as usize) else {
            return;
        };
        let Some(e) = cell.as_ref() else {
            return;
        };
        let (s, next, cbp, len) = (e.slot, e.next_in_slot, e.flags.can_be_prefix, e.slot_len);
        *cell = None;
        self.pit_unlink(p, s, next, cbp, len);
    }

    /// Bookkeeping after PIT cell `p` was emptied: slot list, CanBePrefix counts, free list.
    fn pit_unlink(&mut self, p: u32, s: u32, next_in_slot: u32, cbp: bool, slot_len: u16) {
        let head = self.slots[s as usize].pit_head;
        if head == p {
            self.slots[s as usize].pit_head = next_in_slot;
        } else {
            let mut cur = head;
            while cur != NONE {
                let c = self.pit[cur as usize].as_mut().expect("linked PIT entry");
                if c.next_in_slot == p {
                    c.next_in_slot = next_in_slot;
                    break;
                }
                cur = c.next_in_slot;
            }
        }
        if cbp {
            let l = slot_len as usize;
            self.cbp_lengths[l] -= 1;
            self.n_cbp -= 1;
        }
        self.free_pit.push(p);
        self.n_pit -= 1;
        self.maybe_free_slot(s);
    }

    /// PIT entry `p`.
    #[inline]
    pub(crate) fn pit(&self, p: u32) -> Option<&PitEntry> {
        self.pit.get(p as usize)?.as_ref()
    }

    /// PIT entry `p`, mutably.
    #[inline]
    pub(crate) fn pit_mut(&mut self, p: u32) -> Option<&mut PitEntry> {
        self.pit.get_mut(p as usize)?.as_mut()
    }

    /// Whether `(p, generation)` still names a live entry.
    #[inline]
    pub(crate) fn pit_live(&self, p: u32, generation: u32) -> bool {
        self.generations.get(p as usize) == Some(&generation) && self.pit[p as usize].is_some()
    }

    /// Generation of PIT cell `p`.
    #[inline]
    pub(crate) fn generation_of(&self, p: u32) -> u32 {
        self.generations[p as usize]
    }

    /// The token for entry `p`.
    #[inline]
    pub(crate) fn token_of(&self, p: u32) -> PitToken {
        PitToken {
            shard: self.shard,
            generation: self.generations[p as usize],
            index: p,
        }
    }

    /// Resolve a token we issued to a live PIT entry.
    #[inline]
    pub(crate) fn pit_by_token(&self, token: &[u8]) -> Option<u32> {
        let t = PitToken::decode(token)?;
        (t.shard == self.shard && self.pit_live(t.index, t.generation)).then_some(t.index)
    }

    /// PIT entries in slot `s`.
    pub(crate) fn pit_in_slot(&self, s: u32) -> impl Iterator<Item = u32> + '_ {
        let mut p = self.slots[s as usize].pit_head;
        std::iter::from_fn(move || {
            if p == NONE {
                return None;
            }
            let cur = p;
            p = self.pit[p as usize]
                .as_ref()
                .expect("linked PIT entry")
                .next_in_slot;
            Some(cur)
        })
    }

    /// Every live PIT entry index.
    pub(crate) fn pit_ids(&self) -> Vec<u32> {
        (0..self.pit.len() as u32)
            .filter(|&i| self.pit[i as usize].is_some())
            .collect()
    }

    /// Indices of PIT entries Data named `name` can satisfy, not checking digests
    /// (done by the caller, which computes the Data digest only when needed).
    /// `exact` is the slot of the full Data name if it exists.
    #[inline]
    pub(crate) fn pit_candidates(
        &self,
        name: &Name,
        hashes: &[u64],
        exact: Option<u32>,
        out: &mut smallvec::SmallVec<[u32; 4]>,
    ) -> Candidates {
        let mut found = Candidates::default();
        if let Some(s) = exact {
            // A plain loop: `extend` from the iterator (no size hint) cost ~50 more
            // instructions per Data.
            let mut p = self.slots[s as usize].pit_head;
            while p != NONE {
                out.push(p);
                let e = self.pit[p as usize].as_ref().expect("linked PIT entry");
                found.need_digest |= e.digest.is_some();
                p = e.next_in_slot;
            }
        }
        if self.n_cbp == 0 {
            return found;
        }
        let n = name.len();
        for (l, &count) in self.cbp_lengths.iter().enumerate().take(n) {
            if count == 0 {
                continue;
            }
            if let Some(s) = self.find_slot(name, l, hashes[l]) {
                for p in self.pit_in_slot(s) {
                    if let Some(e) = self.pit[p as usize].as_ref() {
                        if e.flags.can_be_prefix {
                            out.push(p);
                            found.need_digest |= e.digest.is_some();
                            found.shorter = true;
                        }
                    }
                }
            }
        }
        found
    }
}

/// What [`Pcct::pit_candidates`] found besides the entries.
#[derive(Default, Clone, Copy)]
pub(crate) struct Candidates {
    /// Some entry requires an implicit digest.
    pub(crate) need_digest: bool,
    /// Some entry is in a slot of a shorter name (CanBePrefix); else all are in `exact`.
    pub(crate) shorter: bool,
}

#[inline]
fn alloc_slot(
    slots: &mut Vec<Slot>,
    free: &mut Vec<u32>,
    k: u64,
    name: &Name,
    value: &[u8],
    next: u32,
) -> u32 {
    let slot = Slot {
        key: k,
        name: SlotName::new(value, || name.value().slice(..value.len())),
        next,
        pit_head: NONE,
        cs: NONE,
        indirect: NONE,
    };
    match free.pop() {
        Some(s) => {
            slots[s as usize] = slot;
            s
        }
        None => {
            slots.push(slot);
            (slots.len() - 1) as u32
        }
    }
}
