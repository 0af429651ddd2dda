//! Resource bounds of the forwarder core: the PIT size (in total and per downstream
//! face) and the Interest rate of each face. Every limit counts when it bites: a
//! [`DropReason`] (`pit-full`, `pit-face-full`, `interest-rate-limit`) and the
//! face's `n_in_limited`.
//!
//! * **Interest rate** (a token bucket per face, checked first, before any table
//!   work): an Interest over the rate is dropped silently, like a policer.
//! * **PIT bounds** (checked only when an Interest would create a new entry: an
//!   Interest that joins a pending entry or hits the CS costs no new state). A
//!   refused Interest gets a Nack Congestion on a point-to-point face, so that a
//!   consumer backs off at once instead of waiting for its Interest to time out.
//!
//! The per-face bound is what keeps a flood on one face from taking the PIT away
//! from the others (docs/RELIABILITY.md, "Floods and resource bounds"): the face
//! that created an entry owns it until the entry is finalized, whichever faces
//! join it later.
//!
//! The bounds are per forwarder (one shard); the daemon splits its configured
//! totals between the shards.

use ndnlab_wire::{Interest, Nack, NackReason};

use crate::counters::DropReason;
use crate::face::{FaceId, LinkType};
use crate::forwarder::{Forwarder, LpMeta};
use crate::Time;

/// The resource bounds of one forwarder. `0` turns a bound off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Most PIT entries at once.
    pub pit_max_entries: usize,
    /// Most pending PIT entries created by Interests from one face.
    pub pit_max_per_face: usize,
    /// Interests accepted per second from one face (long-run rate).
    pub interest_rate: u64,
    /// Interests a face may send back to back above the rate (the bucket depth;
    /// at least 1 when the rate is set).
    pub interest_burst: u64,
}

impl Limits {
    /// Time credit (ns) that one Interest costs under the rate limit.
    fn interest_cost(&self) -> u64 {
        (1_000_000_000 / self.interest_rate.max(1)).max(1)
    }
}

impl Forwarder {
    /// The rate limit of face `from` at `now`: whether its Interest may go on (a
    /// refused one is counted). The internal face (management) is never limited.
    #[inline]
    pub(crate) fn admit_interest_rate(&mut self, now: Time, from: FaceId) -> bool {
        let l = self.config.limits;
        if l.interest_rate == 0 || from == FaceId::INTERNAL {
            return true;
        }
        let cost = l.interest_cost();
        let depth = cost.saturating_mul(l.interest_burst.max(1));
        let Some(f) = self.faces.get_mut(&from.0) else {
            return true;
        };
        // A face starts with a full bucket (rate_last 0 means never refilled).
        let credit = if f.rate_last == 0 {
            depth
        } else {
            f.rate_credit
                .saturating_add(now.saturating_sub(f.rate_last))
                .min(depth)
        };
        f.rate_last = now.max(1);
        if credit < cost {
            f.rate_credit = credit;
            f.counters.n_in_limited += 1;
            self.drop_packet(DropReason::InterestRateLimit);
            return false;
        }
        f.rate_credit = credit - cost;
        true
    }

    /// Whether face `from` may create one more PIT entry. A refused Interest is
    /// counted and, on a point-to-point face, Nacked (Congestion).
    #[inline]
    pub(crate) fn admit_pit_entry(
        &mut self,
        from: FaceId,
        link: LinkType,
        interest: &Interest,
        meta: &LpMeta,
    ) -> bool {
        let l = self.config.limits;
        let reason = if l.pit_max_entries != 0 && self.pcct.pit_len() >= l.pit_max_entries {
            DropReason::PitFull
        } else if l.pit_max_per_face != 0
            && from != FaceId::INTERNAL
            && self
                .faces
                .get(&from.0)
                .is_some_and(|f| f.pit_entries as usize >= l.pit_max_per_face)
        {
            DropReason::PitFaceFull
        } else {
            return true;
        };
        if let Some(f) = self.faces.get_mut(&from.0) {
            f.counters.n_in_limited += 1;
        }
        self.drop_packet(reason);
        if link == LinkType::PointToPoint {
            let meta = LpMeta {
                pit_token: meta.pit_token.clone(),
                ..Default::default()
            };
            self.emit_nack(
                from,
                Nack::new(interest.clone(), NackReason::Congestion),
                meta,
            );
        }
        false
    }

    /// The PIT entry origin to record for a new entry created by `from` (and its
    /// count taken), or 0 when per-face accounting is off.
    #[inline]
    pub(crate) fn pit_origin_taken(&mut self, from: FaceId) -> u32 {
        if self.config.limits.pit_max_per_face == 0 || from.0 > u32::MAX as u64 {
            return 0;
        }
        match self.faces.get_mut(&from.0) {
            Some(f) => {
                f.pit_entries += 1;
                from.0 as u32
            }
            None => 0,
        }
    }

    /// A PIT entry created by face `origin` left the PIT.
    #[inline]
    pub(crate) fn pit_origin_released(&mut self, origin: u32) {
        if origin == 0 {
            return;
        }
        if let Some(f) = self.faces.get_mut(&(origin as u64)) {
            f.pit_entries = f.pit_entries.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    #[test]
    fn interest_cost_is_the_rate_period() {
        let l = Limits {
            interest_rate: 1000,
            ..Default::default()
        };
        assert_eq!(l.interest_cost(), 1_000_000);
        let fast = Limits {
            interest_rate: u64::MAX,
            ..Default::default()
        };
        assert_eq!(fast.interest_cost(), 1);
    }
}
