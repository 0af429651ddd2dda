//! What a cached slice is charged for the read buffer it arrived in, when the face's
//! reader says how much of that buffer the Data stands for
//! ([`crate::forwarder::LpMeta::buffer_share`]).
//!
//! A slice keeps its whole read buffer alive, and the slices of one buffer leave the
//! CS in arrival order ([`crate::cs`]'s ghosts keep that order), so a buffer is free
//! once the last slice cached from it is gone. The CS must charge, between them,
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
//! Only slices of shared read buffers leave ghosts when they leave their place in
//! eviction order; a slice of a buffer no reader described (an in-process app's
//! Data) is charged as one of a full read buffer and copied in place when hit.
//!
//! [`charge`]: crate::cs::charge
//! [`ENTRY_OVERHEAD`]: crate::cs::ENTRY_OVERHEAD

use std::collections::HashMap;

#[cfg(doc)]
use crate::cs::charge;
use crate::cs::ENTRY_OVERHEAD;

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
