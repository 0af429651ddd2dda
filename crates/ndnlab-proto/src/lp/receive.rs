//! The receiving half of the link service: frame checks and fragment reassembly.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::{DecodeError, LpPacket};

use super::{
    LpFields, Nanos, MAX_FRAGMENTS, MAX_PARTIALS, MAX_REASSEMBLY_BYTES, REASSEMBLY_TIMEOUT,
};

/// Why a received frame was dropped (a counter label each, [`LpDrop::reason`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LpDrop {
    /// The frame is not an Interest, Data or LpPacket.
    #[error("unknown packet type")]
    UnknownPacketType,
    /// The LpPacket does not decode (the codec says why).
    #[error("malformed LpPacket: {0}")]
    Decode(#[from] DecodeError),
    /// FragIndex/FragCount out of range, no Sequence on a fragment, or a FragCount
    /// that differs from the other fragments of its packet.
    #[error("fragment index out of range")]
    BadFragment,
    /// A new packet's fragments arrived while the most partial packets were held.
    #[error("too many partial packets")]
    ReassemblyFull,
}

impl LpDrop {
    /// Every counter label, indexed by [`LpDrop::index`].
    pub const REASONS: [&'static str; 14] = [
        "unknown-packet-type",
        "lp-bad-fragment",
        "lp-reassembly-full",
        "lp-truncated",
        "lp-bad-length",
        "lp-non-minimal-varnum",
        "lp-invalid-type",
        "lp-unknown-critical",
        "lp-missing-field",
        "lp-unexpected-type",
        "lp-bad-nni",
        "lp-out-of-order",
        "lp-trailing-bytes",
        "lp-malformed",
    ];

    /// Position of this drop's label in [`LpDrop::REASONS`] (for counter arrays).
    pub fn index(&self) -> usize {
        match self {
            LpDrop::UnknownPacketType => 0,
            LpDrop::BadFragment => 1,
            LpDrop::ReassemblyFull => 2,
            LpDrop::Decode(e) => match e {
                DecodeError::Truncated { .. } => 3,
                DecodeError::BadLength { .. } => 4,
                DecodeError::NonMinimalVarNumber { .. } => 5,
                DecodeError::InvalidType { .. } => 6,
                DecodeError::UnknownCritical { .. } => 7,
                DecodeError::Missing { .. } => 8,
                DecodeError::Unexpected { .. } => 9,
                DecodeError::BadNonNegativeInteger { .. } => 10,
                DecodeError::OutOfOrder { .. } => 11,
                DecodeError::TrailingBytes { .. } => 12,
                _ => 13,
            },
        }
    }

    /// Stable counter label.
    pub fn reason(&self) -> &'static str {
        Self::REASONS[self.index()]
    }
}

struct Partial {
    count: u64,
    received: u64,
    pieces: Vec<Option<Bytes>>,
    fields: LpFields,
    expires: Nanos,
}

impl Partial {
    /// Fragment bytes held.
    fn bytes(&self) -> usize {
        self.pieces.iter().flatten().map(Bytes::len).sum()
    }
}

/// Bounds of one link's reassembly buffer: a fragment that would start a partial
/// packet beyond `max_partials`, or hold fragment bytes beyond `max_bytes`, is
/// dropped as [`LpDrop::ReassemblyFull`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReassemblyLimits {
    /// Most partial packets held.
    pub max_partials: usize,
    /// Most fragment bytes held for partial packets.
    pub max_bytes: usize,
}

impl Default for ReassemblyLimits {
    fn default() -> Self {
        ReassemblyLimits {
            max_partials: MAX_PARTIALS,
            max_bytes: MAX_REASSEMBLY_BYTES,
        }
    }
}

/// The receiving half of a link service: one per face (or client connection).
#[derive(Default)]
pub struct LinkReceiver {
    partials: HashMap<u64, Partial>,
    limits: ReassemblyLimits,
    /// Fragment bytes held in `partials`.
    buffered: usize,
    /// The earliest deadline among `partials` (meaningless when there are none).
    earliest: Nanos,
    /// Partial packets dropped because their fragments did not all arrive in time.
    pub reassembly_timeouts: u64,
}

impl LinkReceiver {
    pub fn new() -> Self {
        Self::default()
    }

    /// A receiver whose reassembly buffer has these bounds.
    pub fn with_limits(limits: ReassemblyLimits) -> Self {
        LinkReceiver {
            limits,
            ..Self::default()
        }
    }

    /// Fragment bytes held for partial packets.
    pub fn buffered_bytes(&self) -> usize {
        self.buffered
    }

    /// Handles one top-level TLV. `Ok(None)`: an idle packet (no Fragment) or a
    /// fragment of a packet not complete yet.
    pub fn receive(
        &mut self,
        now: Nanos,
        frame: Bytes,
    ) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        self.receive_with(now, frame, |_| true)
    }

    /// [`receive`](Self::receive), showing each decoded LpPacket to `accept` first
    /// (LP reliability reads its Acks and TxSequence there): `false` drops the frame
    /// silently, as a retransmitted duplicate.
    pub fn receive_with(
        &mut self,
        now: Nanos,
        frame: Bytes,
        accept: impl FnOnce(&LpPacket) -> bool,
    ) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        // Any frame on the link times out overdue partial packets, so reassemblies
        // that never complete do not wait for the next fragment to be dropped.
        if !self.partials.is_empty() && now >= self.earliest {
            self.expire(now);
        }
        let mut pos = 0;
        match tlv::read_varnum(&frame, &mut pos)? {
            t::INTEREST | t::DATA => return Ok(Some((LpFields::default(), frame))),
            t::LP_PACKET => {}
            _ => return Err(LpDrop::UnknownPacketType),
        }
        let lp = LpPacket::decode(frame)?;
        if !accept(&lp) {
            return Ok(None);
        }
        self.accept(now, &lp)
    }

    fn accept(&mut self, now: Nanos, lp: &LpPacket) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        let Some(fragment) = lp.fragment() else {
            return Ok(None); // idle / ack-only
        };
        let count = lp.frag_count().unwrap_or(1);
        let index = lp.frag_index().unwrap_or(0);
        if count == 0 || index >= count || count > MAX_FRAGMENTS {
            return Err(LpDrop::BadFragment);
        }
        if count == 1 {
            return Ok(Some((LpFields::of(lp), fragment)));
        }
        let Some(seq) = lp.sequence() else {
            return Err(LpDrop::BadFragment);
        };
        let base = seq.wrapping_sub(index);
        if !self.partials.contains_key(&base) && self.partials.len() >= self.limits.max_partials {
            return Err(LpDrop::ReassemblyFull);
        }
        if self.buffered + fragment.len() > self.limits.max_bytes {
            return Err(LpDrop::ReassemblyFull);
        }
        let expires = now.saturating_add(REASSEMBLY_TIMEOUT);
        if self.partials.is_empty() || expires < self.earliest {
            self.earliest = expires;
        }
        let p = self.partials.entry(base).or_insert_with(|| Partial {
            count,
            received: 0,
            pieces: vec![None; count as usize],
            fields: LpFields::default(),
            expires,
        });
        if p.count != count {
            if let Some(p) = self.partials.remove(&base) {
                self.buffered -= p.bytes();
            }
            return Err(LpDrop::BadFragment);
        }
        let slot = &mut p.pieces[index as usize];
        if slot.is_none() {
            self.buffered += fragment.len();
            *slot = Some(fragment);
            p.received += 1;
            if index == 0 {
                p.fields = LpFields::of(lp);
            }
        }
        if p.received < p.count {
            return Ok(None);
        }
        let Some(p) = self.partials.remove(&base) else {
            return Ok(None);
        };
        let total = p.bytes();
        self.buffered -= total;
        let mut whole = BytesMut::with_capacity(total);
        for piece in p.pieces.iter().flatten() {
            whole.extend_from_slice(piece);
        }
        Ok(Some((p.fields, whole.freeze())))
    }

    /// Drops partial packets whose time is up.
    pub fn expire(&mut self, now: Nanos) {
        let before = self.partials.len();
        let (mut freed, mut earliest) = (0, Nanos::MAX);
        self.partials.retain(|_, p| {
            let keep = p.expires > now;
            if keep {
                earliest = earliest.min(p.expires);
            } else {
                freed += p.bytes();
            }
            keep
        });
        self.buffered -= freed;
        self.earliest = earliest;
        self.reassembly_timeouts += (before - self.partials.len()) as u64;
    }

    /// Partial packets held.
    pub fn partials(&self) -> usize {
        self.partials.len()
    }
}
