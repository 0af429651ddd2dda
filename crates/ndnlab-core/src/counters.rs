//! Counters with NFD's names, global and per face, plus drop counters by reason.
//!
//! Drops in the data plane are counted here, never returned as errors.

/// Why the core dropped a packet. `as_str()` is the `drop=` label used in logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DropReason {
    /// The packet came from a face that was never added (or was removed).
    UnknownFace,
    /// An Interest arrived with HopLimit 0.
    HopLimitZero,
    /// An Interest would leave on a non-local face with HopLimit 0.
    OutHopLimitZero,
    /// A `/localhost` Interest or Data arrived on (or would leave to) a non-local face.
    LocalhostViolation,
    /// Loop: duplicate Nonce in the PIT or the Dead Nonce List (multi-access: no Nack).
    DuplicateNonce,
    /// Retransmission suppressed by the strategy.
    RetxSuppressed,
    /// The strategy found no eligible next hop for a retransmission.
    NoEligibleNextHop,
    /// Data with no matching PIT entry, dropped by the unsolicited-Data policy.
    UnsolicitedData,
    /// Nack with no matching PIT entry.
    NackNoPitEntry,
    /// Nack from a face the Interest was not sent to.
    NackNoOutRecord,
    /// Nack whose Nonce differs from the one sent upstream.
    NackNonceMismatch,
    /// Nack received on a multi-access face.
    NackMultiAccess,
    /// NextHopFaceId named an unknown face (or came from a non-local face).
    BadNextHopFaceId,
    /// An Interest over its face's rate limit (`ForwarderConfig::interest_rate`).
    InterestRateLimit,
    /// A new PIT entry refused: the PIT holds `ForwarderConfig::pit_max_entries`.
    PitFull,
    /// A new PIT entry refused: the downstream face created
    /// `ForwarderConfig::pit_max_per_face` entries still pending.
    PitFaceFull,
    /// A Data whose signature (or DigestSha256) does not verify (`verify_data`).
    DataBadSignature,
    /// A Data signed by a key the forwarder does not trust, or without a KeyLocator.
    DataUnknownKey,
    /// A Data whose signature type is unknown or does not match its key's type.
    DataSignatureType,
}

impl DropReason {
    /// Number of reasons.
    pub const COUNT: usize = 19;
    /// All reasons, in counter order.
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::UnknownFace,
        DropReason::HopLimitZero,
        DropReason::OutHopLimitZero,
        DropReason::LocalhostViolation,
        DropReason::DuplicateNonce,
        DropReason::RetxSuppressed,
        DropReason::NoEligibleNextHop,
        DropReason::UnsolicitedData,
        DropReason::NackNoPitEntry,
        DropReason::NackNoOutRecord,
        DropReason::NackNonceMismatch,
        DropReason::NackMultiAccess,
        DropReason::BadNextHopFaceId,
        DropReason::InterestRateLimit,
        DropReason::PitFull,
        DropReason::PitFaceFull,
        DropReason::DataBadSignature,
        DropReason::DataUnknownKey,
        DropReason::DataSignatureType,
    ];

    /// The reasons a Data verifier drops for (`crate::verify`).
    pub const DATA_VERIFY: [DropReason; 3] = [
        DropReason::DataBadSignature,
        DropReason::DataUnknownKey,
        DropReason::DataSignatureType,
    ];

    /// The `drop=` label.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::UnknownFace => "unknown-face",
            DropReason::HopLimitZero => "hop-limit-zero",
            DropReason::OutHopLimitZero => "out-hop-limit-zero",
            DropReason::LocalhostViolation => "localhost-violation",
            DropReason::DuplicateNonce => "duplicate-nonce",
            DropReason::RetxSuppressed => "retx-suppressed",
            DropReason::NoEligibleNextHop => "no-eligible-nexthop",
            DropReason::UnsolicitedData => "unsolicited-data",
            DropReason::NackNoPitEntry => "nack-no-pit-entry",
            DropReason::NackNoOutRecord => "nack-no-out-record",
            DropReason::NackNonceMismatch => "nack-nonce-mismatch",
            DropReason::NackMultiAccess => "nack-multi-access",
            DropReason::BadNextHopFaceId => "bad-nexthop-faceid",
            DropReason::InterestRateLimit => "interest-rate-limit",
            DropReason::PitFull => "pit-full",
            DropReason::PitFaceFull => "pit-face-full",
            DropReason::DataBadSignature => "data-bad-signature",
            DropReason::DataUnknownKey => "data-unknown-key",
            DropReason::DataSignatureType => "data-signature-type",
        }
    }
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Drop counters indexed by [`DropReason`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropCounters([u64; DropReason::COUNT]);

impl DropCounters {
    /// Count one drop.
    #[inline]
    pub fn inc(&mut self, r: DropReason) {
        self.0[r as usize] += 1;
    }
    /// Drops for one reason.
    pub fn get(&self, r: DropReason) -> u64 {
        self.0[r as usize]
    }
    /// Sum over every reason.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// `(reason, count)` for every reason.
    pub fn iter(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        DropReason::ALL.iter().map(|r| (*r, self.0[*r as usize]))
    }
}

/// Forwarder-wide counters (NFD's ForwarderStatus names).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForwarderCounters {
    /// nInInterests
    pub n_in_interests: u64,
    /// nInData
    pub n_in_data: u64,
    /// nInNacks
    pub n_in_nacks: u64,
    /// nOutInterests
    pub n_out_interests: u64,
    /// nOutData
    pub n_out_data: u64,
    /// nOutNacks
    pub n_out_nacks: u64,
    /// nSatisfiedInterests (PIT entries finalized satisfied, CS hits included)
    pub n_satisfied_interests: u64,
    /// nUnsatisfiedInterests (PIT entries finalized unsatisfied: expired or Nacked)
    pub n_unsatisfied_interests: u64,
    /// nCsHits
    pub n_cs_hits: u64,
    /// nCsMisses
    pub n_cs_misses: u64,
    /// Interests that joined an existing PIT entry (not an NFD counter). With it the
    /// Interest ledger holds at every instant ([`ForwarderCounters::pending_interests`]).
    pub n_aggregated_interests: u64,
    /// Data checked by the forwarder's Data verifier, accepted or not (not an NFD
    /// counter; 0 with `verify_data` off).
    pub n_verified_data: u64,
    /// Drops by reason.
    pub drops: DropCounters,
}

impl ForwarderCounters {
    /// The Interest ledger: every Interest received is dropped on the way in
    /// (HopLimit 0, `/localhost` on a non-local face, duplicate Nonce), joins an
    /// existing PIT entry, or starts one (a CS hit is an entry satisfied at once), and
    /// every entry started is satisfied, unsatisfied, or still in the PIT. So
    ///
    /// `n_in_interests - dropped_in - n_aggregated_interests
    ///     = n_satisfied_interests + n_unsatisfied_interests + pit_len`.
    ///
    /// Returns the left side minus the finalized entries: the number of entries that
    /// must be in the PIT (`None` when the counters do not add up). `localhost_in` is
    /// the part of [`DropReason::LocalhostViolation`] counted on incoming Interests
    /// (the reason is shared with Data).
    pub fn pending_interests(&self, localhost_in: u64) -> Option<u64> {
        let dropped_in = self.drops.get(DropReason::HopLimitZero)
            + self.drops.get(DropReason::DuplicateNonce)
            + localhost_in;
        self.n_in_interests
            .checked_sub(dropped_in)?
            .checked_sub(self.n_aggregated_interests)?
            .checked_sub(self.n_satisfied_interests)?
            .checked_sub(self.n_unsatisfied_interests)
    }
}

/// Per-face counters (NFD's FaceStatus names; bytes are counted by the runtime).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaceCounters {
    /// nInInterests
    pub n_in_interests: u64,
    /// nInData
    pub n_in_data: u64,
    /// nInNacks
    pub n_in_nacks: u64,
    /// nOutInterests
    pub n_out_interests: u64,
    /// nOutData
    pub n_out_data: u64,
    /// nOutNacks
    pub n_out_nacks: u64,
    /// nInHopLimitZero
    pub n_in_hop_limit_zero: u64,
    /// nOutHopLimitZero
    pub n_out_hop_limit_zero: u64,
    /// Interests from this face dropped by a limit (its Interest rate, or the PIT
    /// bounds: reasons `interest-rate-limit`, `pit-full`, `pit-face-full`).
    pub n_in_limited: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_indexed_in_order() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
        let mut d = DropCounters::default();
        d.inc(DropReason::UnsolicitedData);
        d.inc(DropReason::UnsolicitedData);
        assert_eq!(d.get(DropReason::UnsolicitedData), 2);
        assert_eq!(d.total(), 2);
        assert_eq!(DropReason::DuplicateNonce.to_string(), "duplicate-nonce");
    }
}
