//! The Content Store half of the PIT-CS composite table: entries, capacity (in
//! packets and in bytes), admit/serve flags, the replacement policy, freshness, and
//! NFD's `cs/config`, `cs/erase` and `cs/info` operations.
//!
//! [`ContentStore`] is the composite table ([`Pcct`]) seen from management.
//! Stale entries (FreshnessPeriod elapsed, or absent) are served only to Interests
//! without MustBeFresh.

use std::collections::BTreeMap;

use bytes::Bytes;
use ndnlab_wire::{Data, Name};

pub mod share;

use crate::cs::share::Shares;
use crate::cs_policy::{CsPolicyKind, Policy};
use crate::pcct::{Pcct, NONE};
use crate::Time;

/// The Content Store as management sees it (the PIT-CS composite table).
pub type ContentStore = Pcct;

/// Fields of a removed CS entry that `cs_remove` still needs.
struct RemovedEntry {
    indirect_from: u32,
    slot: u32,
}

/// A cached Data: its wire bytes and the few fields a lookup needs (48 B). The
/// decoded `Data` view (128 B) is not kept: a hit re-decodes the wire (measured in
/// docs/BENCHMARKS.md), so the CS costs <= 128 B per entry beyond the packet. The
/// name is the slot's (a slice of this same buffer), the size is `wire.len()` and the
/// TinyLFU frequency key is the slot's map key.
pub(crate) struct CsEntry {
    pub(crate) wire: Bytes,
    /// Freshness deadline ([`CsEntry::fresh_until`]); the top bit marks a `wire`
    /// copied into a buffer of its own ([`ContentStore::set_own_buffers`]), the next
    /// one an entry charged what it occupies ([`charge`]) rather than its length,
    /// which keeps the entry at 48 bytes.
    fresh: Time,
    /// The entry's name slot; [`NONE`] for a ghost ([`Pcct::cs_leave_ghost`]).
    pub(crate) slot: u32,
    /// Slot holding an indirect (CanBePrefix) reference to this entry.
    pub(crate) indirect_from: u32,
}

impl CsEntry {
    const OWN: Time = 1 << 63;
    const CHARGED: Time = 1 << 62;
    /// Charged more than [`charge`] for its read buffer ([`crate::cs::share`]).
    const EXTRA: Time = 1 << 61;
    /// A slice of a read buffer other packets share, as the face's reader reported
    /// ([`crate::cs::share`]): it leaves a ghost when it leaves its place.
    const SHARED: Time = 1 << 60;
    const FLAGS: Time = Self::OWN | Self::CHARGED | Self::EXTRA | Self::SHARED;

    fn new(wire: Bytes, fresh_until: Time, own: bool, charged: bool, slot: u32) -> Self {
        CsEntry {
            wire,
            fresh: fresh_until.min(Self::SHARED - 1)
                | if own { Self::OWN } else { 0 }
                | if charged { Self::CHARGED } else { 0 },
            slot,
            indirect_from: NONE,
        }
    }

    /// Marks an entry charged more than [`charge`] ([`CsEntry::EXTRA`]) and a slice
    /// of a shared read buffer ([`CsEntry::SHARED`]).
    #[inline]
    fn with(mut self, extra: bool, shared: bool) -> Self {
        if extra {
            self.fresh |= Self::EXTRA;
        }
        if shared {
            self.fresh |= Self::SHARED;
        }
        self
    }

    /// Until when the Data is fresh.
    #[inline]
    pub(crate) fn fresh_until(&self) -> Time {
        self.fresh & !Self::FLAGS
    }

    fn owns_buffer(&self) -> bool {
        self.fresh & Self::OWN != 0
    }

    /// A slice of a read buffer other packets share: when it leaves its place in
    /// arrival order it leaves a ghost there ([`Pcct::cs_leave_ghost`]).
    #[inline]
    fn in_shared_buffer(&self) -> bool {
        self.fresh & (Self::OWN | Self::SHARED) == Self::SHARED
    }

    #[inline]
    fn has_extra(&self) -> bool {
        self.fresh & Self::EXTRA != 0
    }

    /// The charge a named entry left at its place in eviction order
    /// ([`Pcct::cs_leave_ghost`]): no name, no bytes, the charge in `indirect_from`.
    #[inline]
    fn is_ghost(&self) -> bool {
        self.slot == NONE
    }

    /// What this entry counts against `capacity_bytes`: [`charge`], or its length
    /// when cached without own buffers; plus, with [`CsEntry::has_extra`], what
    /// [`CsState::charge_of`] adds.
    #[inline]
    fn charge(&self) -> usize {
        if self.fresh & Self::CHARGED != 0 {
            charge(self.wire.len(), self.owns_buffer())
        } else {
            self.wire.len()
        }
    }
}

/// Table memory of one CS entry beyond its packet buffer: the entry cell, its name
/// slot, index cell and policy links (126.5 B measured by
/// `cargo bench -p ndnlab-core --bench memory`).
pub const ENTRY_OVERHEAD: usize = 128;

/// The NDNLPv2 header a slice's frame may carry in its read buffer beyond the Data
/// (LpPacket and Fragment headers, an 8-byte PIT token, CongestionMark): charged to
/// a slice, whose buffer keeps it alive.
pub const SLICE_FRAME_HEADER: usize = 32;

/// What an entry of `len` wire bytes counts against `capacity_bytes` (with
/// [`ContentStore::set_own_buffers`]; without, the wire bytes), so that the bound
/// holds for the memory the CS occupies:
///
/// * a copy in a buffer of its own (`own`): the allocator block of that buffer
///   ([`ndnlab_wire::packet_buf::packet_bytes_footprint`], e.g. 10,272 bytes for an
///   8,258-byte Data) plus [`ENTRY_OVERHEAD`];
/// * a slice of the buffer it arrived in: its share of that buffer, which it keeps
///   alive with the slices cached before and after it: its bytes, its frame's
///   header ([`SLICE_FRAME_HEADER`]) and 1/16 of its length for the part of the
///   buffer no packet used (a stream face leaves at most 1/16 of each 256 KiB read
///   buffer unused), plus [`ENTRY_OVERHEAD`].
#[inline]
pub const fn charge(len: usize, own: bool) -> usize {
    if own {
        ndnlab_wire::packet_buf::packet_bytes_footprint(len) + ENTRY_OVERHEAD
    } else {
        len + len / 16 + SLICE_FRAME_HEADER + ENTRY_OVERHEAD
    }
}

/// NFD `cs/info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsInfo {
    /// Capacity in packets.
    pub capacity: usize,
    /// Capacity in bytes of packet wire encoding.
    pub capacity_bytes: usize,
    /// Admit flag.
    pub admit: bool,
    /// Serve flag.
    pub serve: bool,
    /// Entries.
    pub n_entries: usize,
    /// Bytes charged for the cached packets: their wire bytes, or with own buffers
    /// the memory they and their table entries occupy ([`charge`]).
    pub n_bytes: usize,
    /// Lookups that found a match.
    pub n_hits: u64,
    /// Lookups that found none.
    pub n_misses: u64,
    /// Entries evicted to stay within the capacity in packets or bytes.
    pub n_evictions: u64,
    /// Policy.
    pub policy: CsPolicyKind,
}

pub(crate) struct CsState {
    entries: Vec<Option<CsEntry>>,
    free: Vec<u32>,
    pub(crate) policy: Policy,
    capacity: usize,
    capacity_bytes: usize,
    count: usize,
    bytes: usize,
    pub(crate) admit: bool,
    pub(crate) serve: bool,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    /// Entries evicted to stay within the capacity (packets or bytes).
    pub(crate) evictions: u64,
    /// Ghosts held ([`Pcct::cs_leave_ghost`]): in `bytes`, not in `count` nor
    /// against `capacity` (which is in Data), and at most `capacity` of them
    /// ([`CsState::over_count`]), so the table holds at most twice `capacity` cells.
    ghosts: usize,
    /// Read-buffer shares reported for arriving Data, faces' carries, and entries'
    /// charges beyond [`charge`] ([`crate::cs::share`]).
    pub(crate) shares: Shares,
    /// Opt-in ordered index of cached names, for NFD-style CanBePrefix lookups (see
    /// [`Pcct::set_prefix_match`]); `None` keeps it off the hot path.
    prefix_index: Option<BTreeMap<Bytes, u32>>,
    /// Copy entries that may outlive arrival order and charge every entry what it
    /// occupies ([`Pcct::set_own_buffers`]).
    own_buffers: bool,
}

/// `part` (bytes inside `orig`) at the same place in `copy`, which holds the same
/// bytes as `orig`; `None` if `part` is not inside `orig`.
fn same_place(part: &[u8], orig: &[u8], copy: &Bytes) -> Option<Bytes> {
    let at = (part.as_ptr() as usize).checked_sub(orig.as_ptr() as usize)?;
    (at + part.len() <= orig.len()).then(|| copy.slice(at..at + part.len()))
}

/// The Name TLV-VALUE of `data` inside `wire` (the Data's own buffer or a copy of it).
fn name_in(wire: &Bytes, data: &Data) -> Bytes {
    let name = data.name().value();
    same_place(&name, data.wire(), wire).unwrap_or(name)
}

/// The line a clone or drop of `wire` writes: the reference count of a
/// [`ndnlab_wire::packet_bytes`] buffer, just before its bytes (for other buffers, whose
/// count is elsewhere, the packet's first line or the one before it).
#[inline(always)]
pub(crate) fn packet_count(wire: &Bytes) -> *const u8 {
    wire.as_ptr()
        .wrapping_sub(ndnlab_wire::packet_buf::REFCOUNT_BEFORE)
}

/// How many cached names under a prefix a CanBePrefix lookup examines at most (for
/// MustBeFresh, stale ones are skipped) before giving up.
const PREFIX_SCAN_LIMIT: usize = 64;

impl CsState {
    pub(crate) fn new(capacity: usize, capacity_bytes: usize, policy: CsPolicyKind) -> Self {
        CsState {
            entries: Vec::new(),
            free: Vec::new(),
            policy: Policy::new(policy, capacity),
            capacity,
            capacity_bytes,
            count: 0,
            bytes: 0,
            admit: true,
            serve: true,
            hits: 0,
            misses: 0,
            evictions: 0,
            ghosts: 0,
            shares: Shares::default(),
            prefix_index: None,
            own_buffers: false,
        }
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
        self.policy.reserve(n);
    }

    /// The next victim (`fresh_until` comes from the entries, not a policy copy).
    #[inline]
    fn victim(&mut self, now: Time) -> Option<u32> {
        let entries = &self.entries;
        self.policy.victim(now, |i| fresh_of(entries, i))
    }

    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether the next insertion evicts (by count).
    #[inline]
    pub(crate) fn full(&self) -> bool {
        self.admit && self.count >= self.capacity && self.capacity > 0
    }

    /// Whether the CS holds more than `capacity` Data, or more than `capacity`
    /// ghosts: the capacity counts Data only, and the ghosts' own bound keeps the
    /// table (named entries and ghosts) within twice the capacity.
    #[inline]
    fn over_count(&self) -> bool {
        self.count > self.capacity || self.ghosts > self.capacity
    }

    /// The next three victims (`u32::MAX` where none), when the next insertion evicts.
    #[inline]
    pub(crate) fn next_victims(&self) -> Option<[u32; 3]> {
        self.full().then(|| self.policy.peek_victims3())
    }

    /// The live CS entry `i`, if any.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Option<&CsEntry> {
        self.entries.get(i as usize).and_then(Option::as_ref)
    }

    /// Stage 1 of the eviction prefetch for a burst carrying `n_data` Data: the CS
    /// entries of the next victims (into `victims`) when the CS would have to evict.
    pub(crate) fn prefetch_victims(&self, n_data: usize, victims: &mut Vec<u32>) {
        victims.clear();
        if !self.admit || self.capacity == 0 {
            return;
        }
        let k = (self.count + n_data)
            .saturating_sub(self.capacity)
            .min(n_data);
        if k == 0 {
            return;
        }
        self.policy.peek_victims(k, victims);
        for &v in victims.iter() {
            crate::prefetch::prefetch_whole_at(&self.entries, v as usize);
        }
    }

    /// Stage 2: each victim's packet (its buffer is freed) and its entry's name slot
    /// index, returned through `slots`.
    pub(crate) fn prefetch_victim_buffers(&self, victims: &[u32], slots: &mut Vec<u32>) {
        slots.clear();
        for &v in victims {
            if let Some(Some(e)) = self.entries.get(v as usize) {
                crate::prefetch::prefetch(packet_count(&e.wire));
                if !e.is_ghost() {
                    slots.push(e.slot);
                }
            }
        }
    }

    /// Prefetch CS entry `i` (the hit path reads its freshness and clones its view).
    #[inline]
    pub(crate) fn prefetch(&self, i: u32) {
        crate::prefetch::prefetch_whole_at(&self.entries, i as usize);
    }

    #[inline]
    fn entry(&self, i: u32) -> &CsEntry {
        self.entries[i as usize].as_ref().expect("live CS entry")
    }

    /// What entry `i` (`e`) counts against `capacity_bytes`.
    #[inline]
    fn charge_of(&self, i: u32, e: &CsEntry) -> usize {
        let c = if e.is_ghost() {
            e.indirect_from as usize
        } else {
            e.charge()
        };
        if e.has_extra() {
            c + self.shares.extra(i)
        } else {
            c
        }
    }

    /// Store `entry` in a free cell; its index.
    #[inline]
    fn alloc(&mut self, entry: CsEntry) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = Some(entry);
                i
            }
            None => {
                self.entries.push(Some(entry));
                (self.entries.len() - 1) as u32
            }
        }
    }
}

/// Freshness deadline of entry `i` (0 for a free cell, which no policy queue holds).
#[inline]
fn fresh_of(entries: &[Option<CsEntry>], i: u32) -> Time {
    entries
        .get(i as usize)
        .and_then(|e| e.as_ref())
        .map_or(0, |e| e.fresh_until())
}

/// Whether `data` can serve an Interest with these selectors, given the name
/// relation already checked by the caller.
#[inline]
fn usable(e: &CsEntry, mbf: bool, now: Time) -> bool {
    !mbf || now < e.fresh_until()
}

impl Pcct {
    // ------------------------------------------------------------ data path

    /// CS lookup for an Interest whose (digest-less) name is slot `s`.
    /// Returns the CS entry index on a hit. Counts hits and misses.
    #[inline]
    pub(crate) fn cs_lookup(
        &mut self,
        s: u32,
        cbp: bool,
        mbf: bool,
        digest: Option<&[u8; 32]>,
        now: Time,
    ) -> Option<u32> {
        let slot = &self.slots[s as usize];
        let (direct, indirect, key) = (slot.cs, slot.indirect, slot.key);
        self.cs.policy.on_lookup(key);
        if !self.cs.serve {
            self.cs.misses += 1;
            return None;
        }
        let mut hit = None;
        if direct != NONE {
            let ok = usable(self.cs.entry(direct), mbf, now)
                && match digest {
                    None => true,
                    Some(d) => Data::decode_prevalidated(self.cs.entry(direct).wire.clone(), None)
                        .is_ok_and(|data| &data.implicit_digest() == d),
                };
            if ok {
                hit = Some(direct);
            }
        }
        if hit.is_none()
            && cbp
            && digest.is_none()
            && indirect != NONE
            && usable(self.cs.entry(indirect), mbf, now)
        {
            hit = Some(indirect);
        }
        if hit.is_none() && cbp && digest.is_none() && self.cs.prefix_index.is_some() {
            hit = self.cs_prefix_lookup(s, mbf, now);
        }
        match hit {
            Some(i) => {
                self.cs.hits += 1;
                if self.cs.own_buffers && self.cs.policy.kind() != CsPolicyKind::PriorityFifo {
                    return Some(self.cs_own_on_hit(i));
                }
                self.cs.policy.on_hit(i);
            }
            None => self.cs.misses += 1,
        }
        hit
    }

    /// Whether a lookup for a slot without CS entries (direct or indirect) can hit:
    /// only through the opt-in prefix index.
    #[inline]
    pub(crate) fn cs_can_hit_empty_slot(&self) -> bool {
        self.cs.prefix_index.is_some()
    }

    /// Counts a lookup for slot `s` that cannot hit (see
    /// [`Pcct::cs_can_hit_empty_slot`]) as [`Pcct::cs_lookup`] would count it.
    #[inline]
    pub(crate) fn cs_count_miss(&mut self, s: u32) {
        self.cs.policy.on_lookup(self.slots[s as usize].key);
        self.cs.misses += 1;
    }

    /// Any cached Data under slot `s`'s name (opt-in prefix index): the first one in
    /// bytewise name order that is usable, among the first [`PREFIX_SCAN_LIMIT`].
    fn cs_prefix_lookup(&self, s: u32, mbf: bool, now: Time) -> Option<u32> {
        let index = self.cs.prefix_index.as_ref()?;
        let prefix = self.slots[s as usize].name.as_bytes();
        // Component TLVs are self-delimiting, so the names whose TLV-VALUE starts with
        // the prefix's bytes are exactly the names under it, and they are contiguous
        // in bytewise order, starting at the prefix itself.
        index
            .range::<[u8], _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(PREFIX_SCAN_LIMIT)
            .map(|(_, &i)| i)
            .find(|&i| usable(self.cs.entry(i), mbf, now))
    }

    /// NFD-style CanBePrefix matching in the CS: when enabled, a CanBePrefix Interest
    /// with no direct or indirect match is answered with any usable cached Data under
    /// its name (the first in bytewise name order, among the first 64 under it),
    /// through an ordered index of cached names. Off by default: maintaining the index
    /// costs every CS insert and eviction an ordered-map update (measured in
    /// docs/BENCHMARKS.md); when off, a CanBePrefix Interest hits only Data cached
    /// under its exact name or Data that earlier satisfied a CanBePrefix Interest for
    /// that same name (NDN-DPDK's behaviour).
    pub fn set_prefix_match(&mut self, enabled: bool) {
        if !enabled {
            self.cs.prefix_index = None;
            return;
        }
        if self.cs.prefix_index.is_some() {
            return;
        }
        let index = self
            .cs
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.as_ref()
                    .filter(|e| !e.is_ghost())
                    .map(|e| (self.slots[e.slot as usize].name.to_bytes(), i as u32))
            })
            .collect();
        self.cs.prefix_index = Some(index);
    }

    /// Whether NFD-style CanBePrefix matching is enabled ([`Pcct::set_prefix_match`]).
    pub fn prefix_match(&self) -> bool {
        self.cs.prefix_index.is_some()
    }

    /// The Data TLV of CS entry `i` (the CS keeps wire bytes only).
    #[inline]
    pub(crate) fn cs_wire(&self, i: u32) -> &Bytes {
        &self.cs.entry(i).wire
    }

    /// Insert (or refresh) `data` into the CS at slot `s` (the Data's full name).
    /// Returns the entry index, or `None` if not admitted.
    pub(crate) fn cs_insert(
        &mut self,
        s: u32,
        data: &Data,
        now: Time,
        unsolicited: bool,
    ) -> Option<u32> {
        if !self.cs.admit || self.cs.capacity == 0 {
            return None;
        }
        let fresh_until = now.saturating_add(data.freshness_ns());
        // With own buffers, an entry that may outlive the entries cached after it is
        // copied: under priority-FIFO fresh Data (stale and unsolicited entries leave in
        // arrival order); under LRU and TinyLFU entries leave in arrival order until
        // they are hit, and are copied then ([`Pcct::cs_own_on_hit`]). A Data alone in
        // its buffer (a datagram's) needs no copy ([`crate::cs::share`]).
        let own_buffers = self.cs.own_buffers;
        let alone = own_buffers && self.cs.shares.alone();
        let copy = own_buffers
            && !alone
            && fresh_until > now
            && self.cs.policy.kind() == CsPolicyKind::PriorityFifo;
        let (own, slice) = (copy || alone, own_buffers && !copy);
        let shared = slice && !alone && self.cs.shares.shared();
        let len = data.wire().len();
        // The share of its buffer beyond `charge` ([`crate::cs::share`]).
        let extra = if slice {
            self.cs.shares.extra_for(charge(len, own))
        } else {
            0
        };
        let size = if own_buffers {
            charge(len, own) + extra
        } else {
            len
        };
        if size > self.cs.capacity_bytes {
            return None;
        }
        let wire = if copy {
            ndnlab_wire::packet_bytes(data.wire())
        } else {
            data.wire().clone()
        };
        let existing = self.slots[s as usize].cs;
        if existing != NONE {
            self.slots[s as usize].name.repoint(|| name_in(&wire, data));
            let entry =
                CsEntry::new(wire, fresh_until, own, own_buffers, s).with(extra > 0, shared);
            if self.cs.entry(existing).in_shared_buffer() {
                // The old slice stays at its place; the new Data is a new arrival.
                let i = self.cs_leave_ghost(existing, entry, extra);
                if slice {
                    self.cs.shares.kept(i, extra);
                }
                self.cs_enforce_limits(now, i);
                return Some(i);
            }
            // Refresh in place: new copy, new freshness.
            let old = self.cs.entry(existing);
            let (before, had_extra) = (self.cs.charge_of(existing, old), old.has_extra());
            if had_extra {
                self.cs.shares.remove(existing);
            }
            if slice {
                self.cs.shares.kept(existing, extra);
            }
            let e = self.cs.entries[existing as usize]
                .as_mut()
                .expect("live CS entry");
            self.cs.bytes = self.cs.bytes - before + size;
            *e = CsEntry {
                indirect_from: e.indirect_from,
                ..entry
            };
            let entries = &self.cs.entries;
            self.cs
                .policy
                .on_refresh(existing, fresh_until, |j| fresh_of(entries, j));
            self.cs_enforce_limits(now, existing);
            return Some(existing);
        }
        // Make room; TinyLFU may refuse the newcomer instead (the keys are read only
        // for it).
        while self.cs.count + 1 > self.cs.capacity || self.cs.bytes + size > self.cs.capacity_bytes
        {
            let Some(v) = self.cs.victim(now) else {
                break;
            };
            if self.cs.entry(v).is_ghost() {
                self.cs_remove(v);
                continue;
            }
            let key = || self.slots[s as usize].key;
            let victim_key = || self.slots[self.cs.entry(v).slot as usize].key;
            if !self.cs.policy.admit(key, victim_key) {
                return None;
            }
            self.cs.evictions += 1;
            self.cs_remove(v);
        }
        // Keep the cached buffer alive rather than the Interest's.
        self.slots[s as usize].name.repoint(|| name_in(&wire, data));
        let entry = CsEntry::new(wire, fresh_until, own, own_buffers, s).with(extra > 0, shared);
        let i = self.cs.alloc(entry);
        if slice {
            self.cs.shares.kept(i, extra);
        }
        self.cs.count += 1;
        self.cs.bytes += size;
        let entries = &self.cs.entries;
        self.cs
            .policy
            .on_insert(i, fresh_until, unsolicited, |j| fresh_of(entries, j));
        if let Some(index) = self.cs.prefix_index.as_mut() {
            index.insert(data.name().value(), i);
        }
        self.slots[s as usize].cs = i;
        Some(i)
    }

    /// Under LRU and TinyLFU a hit moves entry `i` behind every entry cached after it:
    /// from now on it may outlive them, so it gets a buffer of its own (once), and is
    /// charged that buffer. A slice leaves a ghost at its place
    /// ([`Pcct::cs_leave_ghost`]). Returns the index the entry has now. The CS may then
    /// exceed `capacity_bytes` until [`Pcct::cs_settle`].
    #[inline]
    fn cs_own_on_hit(&mut self, i: u32) -> u32 {
        let e = self.cs.entry(i);
        if e.in_shared_buffer() {
            return self.cs_copy_out(i);
        }
        if !e.owns_buffer() {
            // A slice of a buffer no reader described: copied in place.
            self.cs_copy_in_place(i);
        }
        self.cs.policy.on_hit(i);
        i
    }

    /// Copy entry `i` into a buffer of its own, in place: a slice of a buffer no
    /// reader described, charged as one of a full read buffer, is charged its copy (an
    /// entry cached without own buffers, charged its length, keeps that charge).
    #[cold]
    fn cs_copy_in_place(&mut self, i: u32) {
        let e = self.cs.entries[i as usize].as_mut().expect("live CS entry");
        let before = e.charge();
        let copy = ndnlab_wire::packet_bytes(&e.wire);
        let old = std::mem::replace(&mut e.wire, copy.clone());
        e.fresh |= CsEntry::OWN;
        self.cs.bytes = self.cs.bytes - before + e.charge();
        // The slot's name, if kept out of line, points into the old buffer too.
        let name = &mut self.slots[e.slot as usize].name;
        if let Some(moved) = same_place(name.as_bytes(), &old, &copy) {
            name.repoint(|| moved);
        }
    }

    /// Evict back under the bounds after hits copied entries out of their read
    /// buffers ([`Pcct::cs_own_on_hit`]); called once the packet that hit is done
    /// with the CS, so no caller holds an index an eviction would free.
    #[inline]
    pub(crate) fn cs_settle(&mut self, now: Time) {
        if self.cs.bytes > self.cs.capacity_bytes || self.cs.over_count() {
            self.cs_enforce_limits(now, NONE);
        }
    }

    /// Make CS entry `i` (in a longer-named slot) reachable from slot `prefix` for
    /// CanBePrefix Interests.
    pub(crate) fn cs_set_indirect(&mut self, prefix: u32, i: u32) {
        let old = self.slots[prefix as usize].indirect;
        if old == i || self.slots[prefix as usize].cs == i {
            return;
        }
        if old != NONE {
            if let Some(e) = self.cs.entries[old as usize].as_mut() {
                e.indirect_from = NONE;
            }
        }
        let e = self.cs.entries[i as usize].as_mut().expect("live CS entry");
        let prev_from = e.indirect_from;
        e.indirect_from = prefix;
        self.slots[prefix as usize].indirect = i;
        if prev_from != NONE && prev_from != prefix {
            self.slots[prev_from as usize].indirect = NONE;
            self.maybe_free_slot(prev_from);
        }
    }

    /// Evict until the CS is within its capacity in packets and in bytes, and
    /// holds no more ghosts than its capacity (evicting from the front, ghosts
    /// and Data alike, as eviction would reach them), never entry `keep` (the
    /// one just cached or refreshed; [`NONE`] for none).
    fn cs_enforce_limits(&mut self, now: Time, keep: u32) {
        let mut set_aside = false;
        while self.cs.over_count() || self.cs.bytes > self.cs.capacity_bytes {
            match self.cs.victim(now) {
                Some(v) if v == keep => {
                    // First in line (under priority-FIFO a stale newcomer goes before
                    // the fresh entries): set it aside, evict the others.
                    self.cs.policy.on_remove(v);
                    set_aside = true;
                }
                Some(v) => {
                    if !self.cs.entry(v).is_ghost() {
                        self.cs.evictions += 1;
                    }
                    self.cs_remove(v);
                }
                None => break,
            }
        }
        if set_aside {
            // Back where it was: at the end of its queue.
            let fresh_until = self.cs.entry(keep).fresh_until();
            let entries = &self.cs.entries;
            self.cs
                .policy
                .on_insert(keep, fresh_until, false, |j| fresh_of(entries, j));
        }
        self.cs_drop_ghosts_if_empty();
    }

    /// Remove CS entry `i`.
    #[inline(always)]
    pub(crate) fn cs_remove(&mut self, i: u32) {
        // Read the few fields needed and drop the entry in place (moving the whole
        // entry out cost a 260-byte copy per eviction).
        let slot = &mut self.cs.entries[i as usize];
        let Some(e) = slot.as_ref() else {
            return;
        };
        if e.is_ghost() {
            return self.cs_remove_ghost(i);
        }
        let (mut size, indirect_from, e_slot) = (e.charge(), e.indirect_from, e.slot);
        if e.has_extra() {
            size += self.cs.shares.remove(i);
        }
        if let Some(index) = self.cs.prefix_index.as_mut() {
            index.remove(self.slots[e_slot as usize].name.as_bytes());
        }
        *slot = None;
        self.cs.policy.on_remove(i);
        self.cs.free.push(i);
        self.cs.count -= 1;
        self.cs.bytes -= size;
        let e = RemovedEntry {
            indirect_from,
            slot: e_slot,
        };
        if e.indirect_from != NONE {
            self.slots[e.indirect_from as usize].indirect = NONE;
            self.maybe_free_slot(e.indirect_from);
        }
        self.slots[e.slot as usize].cs = NONE;
        self.maybe_free_slot(e.slot);
    }

    /// Ghosts held: the charges of slices that named entries left at their place in
    /// eviction order ([`ContentStore::set_own_buffers`]); in [`Pcct::bytes`], not
    /// in [`Pcct::len`] nor against the capacity in packets (a CS of capacity C
    /// holds C Data), and never more than that capacity.
    pub fn ghosts(&self) -> usize {
        self.cs.ghosts
    }

    /// Entries, ghosts and bytes counted again from the table (for invariant checks:
    /// they equal [`Pcct::len`], [`Pcct::ghosts`] and [`Pcct::bytes`]).
    pub fn recount(&self) -> (usize, usize, usize) {
        let live = self.cs.entries.iter().flatten();
        let ghosts = live.clone().filter(|e| e.is_ghost()).count();
        let bytes = (self.cs.entries.iter().enumerate())
            .filter_map(|(i, e)| e.as_ref().map(|e| self.cs.charge_of(i as u32, e)))
            .sum();
        (live.count() - ghosts, ghosts, bytes)
    }

    // ------------------------------------------------------------ management

    /// Number of cached packets.
    pub fn len(&self) -> usize {
        self.cs.count
    }

    /// Whether the CS is empty.
    pub fn is_empty(&self) -> bool {
        self.cs.count == 0
    }

    /// Bytes charged for the cached packets ([`charge`]).
    pub fn bytes(&self) -> usize {
        self.cs.bytes
    }

    /// Capacity in packets.
    pub fn capacity(&self) -> usize {
        self.cs.capacity
    }

    /// Set the capacity in packets (NFD `cs/config` Capacity); evicts as needed.
    pub fn set_capacity(&mut self, packets: usize, now: Time) {
        self.cs.capacity = packets;
        self.cs_enforce_limits(now, NONE);
    }

    /// Set the capacity in bytes ([`charge`]: wire bytes, or with own buffers the
    /// memory the entries occupy); evicts as needed.
    pub fn set_capacity_bytes(&mut self, bytes: usize, now: Time) {
        self.cs.capacity_bytes = bytes;
        self.cs_enforce_limits(now, NONE);
    }

    /// Change the replacement policy (NFD allows it only while empty; here the
    /// current entries are re-queued in their present order).
    pub fn set_policy(&mut self, kind: CsPolicyKind, now: Time) {
        let entries = &self.cs.entries;
        let order = self.cs.policy.eviction_order(now, |i| fresh_of(entries, i));
        self.cs.policy = Policy::new(kind, self.cs.capacity);
        for i in order {
            let fu = self.cs.entry(i).fresh_until();
            let entries = &self.cs.entries;
            self.cs
                .policy
                .on_insert(i, fu, false, |j| fresh_of(entries, j));
        }
    }

    /// The replacement policy.
    pub fn policy(&self) -> CsPolicyKind {
        self.cs.policy.kind()
    }

    /// Admit flag: whether new Data is cached.
    pub fn admit(&self) -> bool {
        self.cs.admit
    }

    /// Whether the CS copies an entry into a buffer of its own once it may outlive the
    /// entries cached after it, and charges every entry what it occupies ([`charge`]:
    /// a copy its allocator block, a slice its share of the buffer it arrived in, each
    /// plus its table entry), so that `capacity_bytes` bounds the CS's memory (off by
    /// default: entries keep the Data's bytes and are charged their length). A runtime
    /// that reads many packets into one large buffer and hands the core slices of it
    /// turns this on: a cached slice keeps its whole read buffer alive (a 100-byte Data
    /// pinned a 256 KiB stream read buffer in `ndnlab fwd`), so the CS's real memory
    /// would not be bounded by its capacity. Entries that leave in arrival order
    /// release their buffers in order and keep their slices; the others are copied:
    /// under LRU and TinyLFU at their first hit, under priority-FIFO fresh Data when
    /// cached. One allocation and copy per such entry (copying every entry cost 29% of
    /// `ndnlab bench fwd`'s exchanges/s at 100 bytes, docs/RELIABILITY.md). Entries
    /// cached before a change keep the charge they were cached with. A runtime that
    /// reports each Data's share of its read buffer ([`crate::LpMeta::buffer_share`])
    /// gets exact charges ([`crate::cs::share`]), and a slice of a shared buffer that
    /// leaves its place early (a hit copies it, new Data refreshes it) leaves a ghost
    /// there: its charge, without name or bytes, until eviction reaches it
    /// ([`ContentStore::ghosts`]).
    pub fn set_own_buffers(&mut self, on: bool) {
        self.cs.own_buffers = on;
    }

    /// See [`ContentStore::set_own_buffers`].
    pub fn own_buffers(&self) -> bool {
        self.cs.own_buffers
    }

    /// Set the admit flag.
    pub fn set_admit(&mut self, admit: bool) {
        self.cs.admit = admit;
    }

    /// Serve flag: whether lookups may be answered from the CS.
    pub fn serve(&self) -> bool {
        self.cs.serve
    }

    /// Set the serve flag.
    pub fn set_serve(&mut self, serve: bool) {
        self.cs.serve = serve;
    }

    /// Erase up to `limit` entries whose name starts with `prefix` (NFD `cs/erase`).
    /// Returns the number erased.
    pub fn erase(&mut self, prefix: &Name, limit: usize) -> usize {
        let p = prefix.value_bytes();
        let victims: Vec<u32> = self
            .cs
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.as_ref()
                    .filter(|e| !e.is_ghost())
                    .filter(|e| self.slots[e.slot as usize].name.as_bytes().starts_with(p))
                    .map(|_| i as u32)
            })
            .take(limit)
            .collect();
        for &i in &victims {
            self.cs_remove(i);
        }
        self.cs_drop_ghosts_if_empty();
        victims.len()
    }

    /// NFD `cs/info`.
    pub fn info(&self) -> CsInfo {
        CsInfo {
            capacity: self.cs.capacity,
            capacity_bytes: self.cs.capacity_bytes,
            admit: self.cs.admit,
            serve: self.cs.serve,
            n_entries: self.cs.count,
            n_bytes: self.cs.bytes,
            n_hits: self.cs.hits,
            n_misses: self.cs.misses,
            n_evictions: self.cs.evictions,
            policy: self.cs.policy.kind(),
        }
    }

    /// Names of cached Data in eviction order (next victim first).
    pub fn eviction_order(&mut self, now: Time) -> Vec<Name> {
        let entries = &self.cs.entries;
        self.cs
            .policy
            .eviction_order(now, |i| fresh_of(entries, i))
            .into_iter()
            .filter(|&i| !self.cs.entry(i).is_ghost())
            .filter_map(|i| {
                Name::from_value(self.slots[self.cs.entry(i).slot as usize].name.to_bytes()).ok()
            })
            .collect()
    }

    /// Whether a Data named exactly `name` is cached.
    pub fn contains(&self, name: &Name) -> bool {
        let n = name.len();
        self.find_slot(name, n, name.prefix_hash(n))
            .is_some_and(|s| self.slots[s as usize].cs != NONE)
    }
}
