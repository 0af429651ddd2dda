//! Admission steps of the incoming Interest pipeline, by the resource bounds of
//! [`Limits`](crate::limits::Limits): the face's Interest rate (a token bucket,
//! checked first), and the PIT bounds (checked only before a new entry is created),
//! with the per-face count of the entries each face created.

use ndnlab_wire::{Interest, Nack, NackReason};

use crate::counters::DropReason;
use crate::face::{FaceId, LinkType};
use crate::packet::LpMeta;
use crate::tables::Tables;
use crate::Time;

impl Tables {
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
