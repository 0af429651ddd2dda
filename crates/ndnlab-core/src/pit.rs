//! PIT entries, with NFD's in-records (downstreams) and out-records (upstreams).
//!
//! An entry is identified by name (its PCCT slot), CanBePrefix, MustBeFresh and,
//! for Interests ending with an implicit digest, that digest (the slot is the name
//! without it). The entry keeps the wire bytes of the latest Interest (used to
//! retry on another upstream or to Nack a downstream, both rare) rather than a
//! decoded view, to stay small: see `size_of::<PitEntry>()` in the memory bench.

use bytes::Bytes;
use ndnlab_wire::NackReason;
use smallvec::SmallVec;

use crate::face::FaceId;
use crate::strategy::kind::StrategyKind;
use crate::Time;

/// A downstream that expressed the Interest.
#[derive(Debug, Clone)]
pub struct InRecord {
    /// Downstream face.
    pub face: FaceId,
    /// Nonce of the downstream's latest Interest.
    pub nonce: u32,
    /// When that Interest's lifetime ends.
    pub expiry: Time,
    /// The downstream's PIT token, echoed on Data/Nack. Boxed: most downstreams
    /// (applications) send none, and an inline `Option<Bytes>` (32 B) would cost every
    /// PIT entry 24 B more (the memory target is <= 256 B per entry); a downstream that
    /// does send one pays one 32 B allocation per in-record.
    pub token: Option<Box<Bytes>>,
    /// Self-learning: the downstream's Interest was marked NonDiscovery (NFD
    /// `InRecordInfo::isNonDiscoveryInterest`; in the record's padding).
    pub non_discovery: bool,
}

impl InRecord {
    /// The downstream's PIT token, if any.
    #[inline]
    pub fn token(&self) -> Option<&Bytes> {
        self.token.as_deref()
    }

    /// Take the token out (for the Data/Nack sent to this downstream).
    #[inline]
    pub fn take_token(&mut self) -> Option<Bytes> {
        self.token.take().map(|b| *b)
    }
}

/// An upstream the Interest was forwarded to.
#[derive(Debug, Clone)]
pub struct OutRecord {
    /// Upstream face.
    pub face: FaceId,
    /// Nonce sent.
    pub nonce: u32,
    /// When it was last sent.
    pub last_renewed: Time,
    /// When it stops being pending.
    pub expiry: Time,
    /// Nack received from the upstream, if any (compact code, see [`OutRecord::nack`]).
    nack: u8,
    /// Per-upstream retransmission suppression interval in ns (multicast, ASF), clamped to `u32`.
    pub suppression_interval: u32,
    /// The Interest went out marked NonDiscovery (self-learning; NFD
    /// `OutRecordInfo::isNonDiscoveryInterest`).
    pub non_discovery: bool,
}

impl OutRecord {
    /// The Nack received from this upstream (an unknown reason code reads as `None`).
    #[inline]
    pub fn nack(&self) -> Option<NackReason> {
        match self.nack {
            0 => None,
            1 => Some(NackReason::Congestion),
            2 => Some(NackReason::Duplicate),
            3 => Some(NackReason::NoRoute),
            _ => Some(NackReason::None),
        }
    }

    /// Record a Nack (or clear it).
    #[inline]
    pub fn set_nack(&mut self, reason: Option<NackReason>) {
        self.nack = match reason {
            None => 0,
            Some(NackReason::Congestion) => 1,
            Some(NackReason::Duplicate) => 2,
            Some(NackReason::NoRoute) => 3,
            Some(_) => 4,
        };
    }

    /// Whether the upstream Nacked.
    #[inline]
    pub fn is_nacked(&self) -> bool {
        self.nack != 0
    }
}

/// Flags of a PIT entry.
#[derive(Debug, Clone, Copy, Default)]
pub struct PitFlags {
    /// Interest had CanBePrefix.
    pub can_be_prefix: bool,
    /// Interest had MustBeFresh.
    pub must_be_fresh: bool,
    /// Satisfied by Data (or a CS hit).
    pub satisfied: bool,
    /// ASF sent a probe for this entry.
    pub probed: bool,
}

/// A PIT entry.
#[derive(Debug, Clone)]
pub struct PitEntry {
    /// PCCT slot (the name).
    pub slot: u32,
    /// Next entry in the same slot.
    pub next_in_slot: u32,
    /// Flags.
    pub flags: PitFlags,
    /// Strategy chosen at creation.
    pub strategy: StrategyKind,
    /// Length of the slot name (CanBePrefix bookkeeping).
    pub slot_len: u16,
    /// The face whose Interest created the entry, for the per-face PIT bound (0 when
    /// that bound is off).
    pub origin: u32,
    /// ASF measurements key (hash of the FIB prefix used), 0 if none.
    pub measure_key: u32,
    /// Implicit digest the Data must have (Interest name ended with it).
    pub digest: Option<Box<[u8; 32]>>,
    /// Entry-level retransmission suppression interval in ns (best-route), clamped to `u32`.
    pub suppression_interval: u32,
    /// The latest Interest as forwarded (wire bytes).
    pub interest: Bytes,
    /// Downstreams.
    pub in_records: SmallVec<[InRecord; 1]>,
    /// Upstreams.
    pub out_records: SmallVec<[OutRecord; 1]>,
}

impl PitEntry {
    /// When the entry expires: the latest in-record expiry.
    pub fn expiry(&self) -> Time {
        self.in_records.iter().map(|r| r.expiry).max().unwrap_or(0)
    }

    /// The in-record of `face`.
    pub fn in_record(&self, face: FaceId) -> Option<&InRecord> {
        self.in_records.iter().find(|r| r.face == face)
    }

    /// The out-record of `face`.
    pub fn out_record(&self, face: FaceId) -> Option<&OutRecord> {
        self.out_records.iter().find(|r| r.face == face)
    }

    /// The out-record of `face`, mutably.
    pub fn out_record_mut(&mut self, face: FaceId) -> Option<&mut OutRecord> {
        self.out_records.iter_mut().find(|r| r.face == face)
    }

    /// Insert or refresh the in-record of `face`.
    #[inline]
    pub fn insert_in_record(
        &mut self,
        face: FaceId,
        nonce: u32,
        expiry: Time,
        token: Option<Bytes>,
    ) {
        match self.in_records.iter_mut().find(|r| r.face == face) {
            Some(r) => {
                r.nonce = nonce;
                r.expiry = expiry;
                r.token = token.map(Box::new);
            }
            None => self.in_records.push(InRecord {
                face,
                nonce,
                expiry,
                token: token.map(Box::new),
                non_discovery: false,
            }),
        }
    }

    /// Insert or refresh the out-record of `face`.
    #[inline]
    pub fn insert_out_record(
        &mut self,
        face: FaceId,
        nonce: u32,
        now: Time,
        expiry: Time,
    ) -> &mut OutRecord {
        if let Some(i) = self.out_records.iter().position(|r| r.face == face) {
            let r = &mut self.out_records[i];
            r.nonce = nonce;
            r.last_renewed = now;
            r.expiry = expiry;
            r.nack = 0;
            return r;
        }
        self.out_records.push(OutRecord {
            face,
            nonce,
            last_renewed: now,
            expiry,
            nack: 0,
            suppression_interval: 0,
            non_discovery: false,
        });
        self.out_records.last_mut().expect("just pushed")
    }

    /// NFD `hasPendingOutRecords`: an out-record not expired and not Nacked.
    pub fn has_pending_out_records(&self, now: Time) -> bool {
        self.out_records
            .iter()
            .any(|r| r.expiry >= now && r.nack == 0)
    }

    /// Latest out-record send time.
    pub fn last_outgoing(&self) -> Option<Time> {
        self.out_records.iter().map(|r| r.last_renewed).max()
    }

    /// Whether an in-record or out-record carries `nonce`. Returns NFD's
    /// DuplicateNonceWhere bits: 1 in-same, 2 in-other, 4 out-same, 8 out-other.
    pub fn find_duplicate_nonce(&self, nonce: u32, face: FaceId) -> u8 {
        let mut w = 0;
        for r in &self.in_records {
            if r.nonce == nonce {
                w |= if r.face == face { 1 } else { 2 };
            }
        }
        for r in &self.out_records {
            if r.nonce == nonce {
                w |= if r.face == face { 4 } else { 8 };
            }
        }
        w
    }
}

/// NFD DuplicateNonceWhere bit: same nonce from the same downstream.
pub const DUP_IN_SAME: u8 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_record_pending_until_and_at_its_expiry_unless_nacked() {
        let mut e = PitEntry {
            slot: 0,
            next_in_slot: u32::MAX,
            flags: PitFlags::default(),
            strategy: StrategyKind::BestRoute,
            slot_len: 1,
            origin: 0,
            measure_key: 0,
            digest: None,
            suppression_interval: 0,
            interest: Bytes::new(),
            in_records: Default::default(),
            out_records: Default::default(),
        };
        assert!(!e.has_pending_out_records(0));
        e.insert_out_record(FaceId(300), 1, 10, 100);
        assert!(e.has_pending_out_records(99));
        // NFD: `getExpiry() >= now`: still pending at the expiry instant.
        assert!(e.has_pending_out_records(100));
        assert!(!e.has_pending_out_records(101));
        e.out_record_mut(FaceId(300))
            .expect("record")
            .set_nack(Some(NackReason::NoRoute));
        assert!(!e.has_pending_out_records(50));
    }
}
