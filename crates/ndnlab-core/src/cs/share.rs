//! Zero-copy caching and the memory bound: what a cached slice is charged for the
//! read buffer it arrived in. This module is the one place that explains it; the
//! pieces outside it are the field that carries a share
//! ([`crate::forwarder::LpMeta::buffer_share`], `ndnlab_wire::LpFields::buffer_share`
//! on the wire side) and the daemon's readers that compute it (`ndnlab-fwd`'s
//! `face::share`, which also carries the shares of packets dropped before the core).
//!
//! The CS keeps a Data as a slice of the buffer its face read it into, without a
//! copy. A slice keeps its whole read buffer alive, and the slices of one buffer
//! leave the CS in arrival order (the ghosts below keep that order), so a buffer is
//! free once the last slice cached from it is gone. The CS must charge, between them,
//! every byte of the buffer: the Data's own bytes, and the bytes no cached Data
//! stands for. Those are the frames between them that are not Data (Interests on a
//! face that carries both, link-layer headers, idle packets) and the Data the CS did
//! not keep (unsolicited, NoCache, refused, copied). [`charge`] assumes a buffer full
//! of cached Data; a reader that reports shares makes the charge exact:
//!
//! * the reader gives each Data the bytes from the end of the previous Data it read
//!   into the same buffer (or from the buffer's start, plus what the previous buffer
//!   held after its last Data) to its own end;
//! * the CS adds to that share the *carry* of its face: the shares of the Data from
//!   that face it did not keep as slices, which the next slice it keeps holds alive
//!   (at most [`CARRY_MAX`], a read buffer);
//! * a slice is charged the larger of [`charge`] and its share plus carry plus
//!   [`ENTRY_OVERHEAD`]: the part beyond [`charge`] (none for a face that sends Data
//!   back to back) is kept beside the entry;
//! * a datagram face reports the buffer its datagram was received into, with
//!   [`BUFFER_OWN`]: that buffer holds nothing else, so the CS keeps the Data without
//!   copying it, charged that buffer, and a Data it does not keep carries nothing.
//!
//! **Ghosts.** A slice of a shared read buffer that leaves its place in eviction
//! order early (a hit under LRU or TinyLFU copies it to the back, new Data for its
//! name refreshes it) leaves a ghost there: its charge, without name or bytes, until
//! eviction reaches it (`Pcct::cs_leave_ghost`). Released early with its charge,
//! the slice would leave its buffer pinned by neighbours charged for less. A slice of
//! a buffer no reader described (an in-process app's Data) is charged as one of a
//! full read buffer and copied in place when hit.
//!
//! **Against copying.** The simple alternative, a copy of every Data the CS admits
//! from a shared read buffer, also keeps the bound, and answers hits as fast, but
//! costs the forwarder 7-9% more CPU per exchange when the CS admits Data it will
//! not serve (docs/RELIABILITY.md, "Zero copy against copy on admit").
//!
//! [`charge`]: crate::cs::charge
//! [`ENTRY_OVERHEAD`]: crate::cs::ENTRY_OVERHEAD

use std::collections::HashMap;

use bytes::Bytes;

#[cfg(doc)]
use crate::cs::charge;
use crate::cs::{fresh_of, same_place, CsEntry, ENTRY_OVERHEAD};
use crate::pcct::{Pcct, NONE};

/// Set in a reported share: the buffer holds this packet alone (a datagram).
pub const BUFFER_OWN: u32 = 1 << 31;

/// The most a face carries: one read buffer of `ndnlab fwd`'s stream faces (256 KiB).
/// What a face's declined Data stood for beyond it was in buffers no slice kept.
pub const CARRY_MAX: u32 = 256 * 1024;

/// The Data being processed, and the carries of the faces.
#[derive(Default)]
pub(crate) struct Shares {
    /// Face and share of the Data being processed (share 0: none reported).
    face: u64,
    share: u32,
    /// Whether the CS kept the Data being processed as a slice (its share is charged).
    kept: bool,
    /// Per face: the shares of Data the CS did not keep as slices since the last one
    /// it kept.
    carry: HashMap<u64, u32>,
    /// Per entry index: what the entry is charged beyond [`charge`].
    extra: HashMap<u32, u32>,
}

impl Shares {
    /// A Data from `face` standing for `share` bytes of its read buffer arrives.
    #[inline]
    pub(crate) fn arrive(&mut self, face: u64, share: u32) {
        self.face = face;
        self.share = share;
        self.kept = false;
    }

    /// The Data that arrived is done with: unless the CS kept it as a slice, its share
    /// goes to its face's carry.
    #[inline]
    pub(crate) fn done(&mut self) {
        if self.share != 0 && self.share & BUFFER_OWN == 0 && !self.kept {
            let c = self.carry.entry(self.face).or_insert(0);
            *c = c.saturating_add(self.share).min(CARRY_MAX);
        }
        self.share = 0;
    }

    /// Whether the Data that arrived is alone in its buffer ([`BUFFER_OWN`]).
    #[inline]
    pub(crate) fn alone(&self) -> bool {
        self.share & BUFFER_OWN != 0
    }

    /// Whether the Data that arrived shares its read buffer with other packets (a
    /// share without [`BUFFER_OWN`]).
    #[inline]
    pub(crate) fn shared(&self) -> bool {
        self.share != 0 && self.share & BUFFER_OWN == 0
    }

    /// What the Data that arrived would be charged beyond `base`, the [`charge`] of
    /// an entry of its length (0 when no share was reported).
    #[inline]
    pub(crate) fn extra_for(&self, base: usize) -> usize {
        if self.share == 0 {
            return 0;
        }
        let carry = if self.carry.is_empty() {
            0
        } else {
            self.carry.get(&self.face).copied().unwrap_or(0)
        };
        let share = (self.share & !BUFFER_OWN) as usize;
        (share + carry as usize + ENTRY_OVERHEAD).saturating_sub(base)
    }

    /// The Data that arrived is kept as a slice, entry `i`, charged `extra` beyond
    /// [`charge`]: its face's carry is now charged to it.
    #[inline]
    pub(crate) fn kept(&mut self, i: u32, extra: usize) {
        if self.share == 0 {
            return;
        }
        self.kept = true;
        if !self.carry.is_empty() {
            self.carry.remove(&self.face);
        }
        if extra > 0 {
            self.extra.insert(i, extra as u32);
        }
    }

    /// What entry `i` is charged beyond [`charge`].
    #[inline]
    pub(crate) fn extra(&self, i: u32) -> usize {
        self.extra.get(&i).copied().unwrap_or(0) as usize
    }

    /// Entry `i` left the CS.
    #[inline]
    pub(crate) fn remove(&mut self, i: u32) -> usize {
        self.extra.remove(&i).unwrap_or(0) as usize
    }

    /// Bytes carried by faces (for invariant checks).
    pub(crate) fn carried(&self) -> usize {
        self.carry.values().map(|&c| c as usize).sum()
    }
}

/// The read-buffer side of the CS's own operations: slices that leave a ghost at
/// their place, the ghosts' removal, and the Data being processed.
impl Pcct {
    /// [`Pcct::cs_own_on_hit`] for a slice of a shared read buffer: the copy is a new
    /// entry at the back, the slice a ghost where it was.
    #[cold]
    pub(super) fn cs_copy_out(&mut self, i: u32) -> u32 {
        let e = self.cs.entry(i);
        let copy = ndnlab_wire::packet_bytes(&e.wire);
        let (old, slot) = (e.wire.clone(), e.slot);
        let name = &mut self.slots[slot as usize].name;
        if let Some(moved) = same_place(name.as_bytes(), &old, &copy) {
            name.repoint(|| moved);
        }
        let fresh = CsEntry::new(copy, e.fresh_until(), true, true, slot);
        self.cs_leave_ghost(i, fresh, 0)
    }

    /// Entry `i`, a slice of a shared read buffer, leaves its place in eviction order
    /// (a hit copies it to the back, a refresh brings new bytes): `next` (same slot)
    /// takes over its name as a new arrival, and `i` stays where it was as a ghost: no
    /// name, no bytes, its charge, until eviction reaches it. Slices are charged a
    /// share of the read buffer they arrived in, which the slices cached before and
    /// after them keep alive: released early with its charge, a slice left the buffer
    /// pinned by neighbours charged for less than it (64 consumers asking for the same
    /// names held 17-45% more than the bound, docs/RELIABILITY.md). The ghost keeps the
    /// charge in arrival order without the bytes: the buffer is freed as soon as its
    /// last slice goes, and charged until then. `next` is charged `extra` beyond its
    /// [`CsEntry::charge`]. Returns `next`'s index.
    pub(super) fn cs_leave_ghost(&mut self, i: u32, next: CsEntry, extra: usize) -> u32 {
        let e = self.cs.entries[i as usize].as_mut().expect("live CS entry");
        let (slot, indirect_from) = (e.slot, e.indirect_from);
        e.slot = NONE;
        e.indirect_from = e.charge().min(u32::MAX as usize) as u32;
        e.wire = Bytes::new();
        let fresh_until = next.fresh_until();
        self.cs.bytes += next.charge() + extra;
        let j = self.cs.alloc(CsEntry {
            indirect_from,
            ..next
        });
        self.cs.ghosts += 1;
        self.slots[slot as usize].cs = j;
        if indirect_from != NONE {
            self.slots[indirect_from as usize].indirect = j;
        }
        if let Some(index) = self.cs.prefix_index.as_mut() {
            index.insert(self.slots[slot as usize].name.to_bytes(), j);
        }
        let entries = &self.cs.entries;
        self.cs
            .policy
            .on_insert(j, fresh_until, false, |k| fresh_of(entries, k));
        j
    }

    /// With no named entry left, no slice pins a buffer: ghosts charge for nothing.
    pub(super) fn cs_drop_ghosts_if_empty(&mut self) {
        if self.cs.count == 0 && self.cs.ghosts > 0 {
            let ghosts: Vec<u32> = self.cs_ghosts().collect();
            for i in ghosts {
                self.cs_remove(i);
            }
        }
    }

    /// The ghosts' indices.
    pub(super) fn cs_ghosts(&self) -> impl Iterator<Item = u32> + '_ {
        self.cs
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.as_ref().is_some_and(CsEntry::is_ghost))
            .map(|(i, _)| i as u32)
    }

    /// [`Pcct::cs_remove`] for a ghost.
    #[cold]
    pub(super) fn cs_remove_ghost(&mut self, i: u32) {
        let e = self.cs.entry(i);
        let mut size = e.indirect_from as usize;
        if e.has_extra() {
            size += self.cs.shares.remove(i);
        }
        self.cs.entries[i as usize] = None;
        self.cs.policy.on_remove(i);
        self.cs.free.push(i);
        self.cs.ghosts -= 1;
        self.cs.bytes -= size;
    }

    /// A Data from `face` standing for `share` bytes of its read buffer is about to be
    /// processed ([`crate::cs::share`]); [`Pcct::cs_done`] once it is.
    #[inline]
    pub(crate) fn cs_arrive(&mut self, face: u64, share: u32) {
        self.cs.shares.arrive(face, share);
    }

    /// The Data of [`Pcct::cs_arrive`] is done with.
    #[inline]
    pub(crate) fn cs_done(&mut self) {
        self.cs.shares.done();
    }

    /// Bytes of read buffers faces carry: the shares of Data the CS did not keep as
    /// slices, charged to the next slice it keeps from the same face
    /// ([`crate::cs::share`]).
    pub fn carried(&self) -> usize {
        self.cs.shares.carried()
    }
}
