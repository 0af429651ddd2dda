//! Helpers the strategies share (NFD `fw/algorithm.hpp`), on [`Context`]: next-hop
//! eligibility (`isNextHopEligible`), the eligible next hop with the oldest
//! out-record (`findEligibleNextHopWithEarliestOutRecord`), Nack NoRoute and reject,
//! Nack every downstream and reject.

use ndnlab_wire::{NackReason, Name};
use smallvec::SmallVec;

use super::context::Context;
use crate::face::{FaceId, LinkType};
use crate::fib::NextHop;
use crate::pipeline::scope::would_violate_scope;
use crate::Time;

impl Context<'_> {
    /// NFD `isNextHopEligible`: `to` is not the downstream `from` (unless ad hoc),
    /// the Interest may leave on it (scope), and with `want_unused` it has no pending
    /// out-record of entry `p`.
    pub(crate) fn is_eligible(
        &self,
        from: FaceId,
        to: FaceId,
        p: u32,
        name: &Name,
        want_unused: bool,
        now: Time,
    ) -> bool {
        let (Some(inf), Some(outf)) = (self.face(from), self.face(to)) else {
            return false;
        };
        if to == from && outf.link != LinkType::AdHoc {
            return false;
        }
        if would_violate_scope(inf, name, outf) {
            return false;
        }
        if want_unused {
            if let Some(o) = self.pit(p).and_then(|e| e.out_record(to)) {
                if o.expiry > now {
                    return false;
                }
            }
        }
        true
    }

    /// NFD `findEligibleNextHopWithEarliestOutRecord`: among eligible next hops with an
    /// out-record, the one renewed longest ago (first in cost order on ties).
    pub(crate) fn earliest_out_record(
        &self,
        from: FaceId,
        p: u32,
        hops: &[NextHop],
        name: &Name,
        now: Time,
    ) -> Option<FaceId> {
        let e = self.pit(p)?;
        let mut best: Option<(Time, FaceId)> = None;
        for h in hops {
            if !self.is_eligible(from, h.face, p, name, false, now) {
                continue;
            }
            let Some(o) = e.out_record(h.face) else {
                continue;
            };
            if best.is_none_or(|(t, _)| o.last_renewed < t) {
                best = Some((o.last_renewed, h.face));
            }
        }
        best.map(|(_, f)| f)
    }

    /// No usable next hop: Nack NoRoute to the downstream and reject the entry.
    pub(crate) fn no_route(&mut self, now: Time, from: FaceId, p: u32) {
        self.send_nack(p, from, NackReason::NoRoute);
        self.reject_pending(now, p);
    }

    /// Nack every downstream of `p` and reject it.
    pub(crate) fn send_nacks(&mut self, now: Time, p: u32, reason: NackReason) {
        let faces: SmallVec<[FaceId; 4]> = self
            .pit(p)
            .map(|e| e.in_records.iter().map(|r| r.face).collect())
            .unwrap_or_default();
        for f in faces {
            self.send_nack(p, f, reason);
        }
        self.reject_pending(now, p);
    }
}
