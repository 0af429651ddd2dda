//! best-route v5 (NFD `BestRouteStrategy`):
//!
//! * per-PIT-entry retransmission suppression (`RetxSuppressionExponential`, 10 ms
//!   doubling up to 250 ms by default): a retransmission within the interval is dropped
//!   (counted as [`DropReason::RetxSuppressed`]);
//! * a new Interest goes to the lowest-cost eligible next hop; none: Nack NoRoute and
//!   reject the entry;
//! * a forwarded retransmission goes to the lowest-cost eligible next hop without a
//!   pending out-record (so successive retransmissions walk down the next hops in cost
//!   order), else to the eligible next hop whose out-record is the oldest; none: dropped
//!   ([`DropReason::NoEligibleNextHop`]);
//! * Nacks: `ProcessNackTraits` ([`Forwarder::process_nack`]).

use ndnlab_wire::Interest;

use super::{Params, Retx};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::Time;

/// What best-route does with an Interest.
pub(crate) enum BestRoute {
    /// Forward it to this face.
    Forward(FaceId),
    /// No usable next hop for a new Interest: Nack NoRoute and reject the entry.
    NoRoute,
    /// Drop it.
    Drop(DropReason),
}

impl Forwarder {
    /// The decision only: the Interest is borrowed, and the caller (which owns it)
    /// acts on the decision, so the 128-byte view is not moved through this call.
    pub(crate) fn best_route_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: &Interest,
        hashes: &[u64],
        prm: &Params,
    ) -> BestRoute {
        let decision = self.retx_per_entry(p, now, &prm.retx);
        if decision == Retx::Suppress {
            return BestRoute::Drop(DropReason::RetxSuppressed);
        }
        // The next hops stay borrowed from the FIB: the face is chosen before anything
        // is mutated (copying them out cost ~110 instructions per Interest).
        let name = interest.name();
        let hops = self.fib_nexthops(interest, hashes);
        if decision == Retx::New {
            return match hops
                .iter()
                .find(|h| self.is_eligible(from, h.face, p, name, false, now))
            {
                Some(h) => BestRoute::Forward(h.face),
                None => BestRoute::NoRoute,
            };
        }
        // Retransmission: the cheapest unused next hop, else the one used earliest.
        let to = match hops
            .iter()
            .find(|h| self.is_eligible(from, h.face, p, name, true, now))
        {
            Some(h) => Some(h.face),
            None => self.earliest_out_record(from, p, hops, name, now),
        };
        match to {
            Some(to) => BestRoute::Forward(to),
            None => BestRoute::Drop(DropReason::NoEligibleNextHop),
        }
    }
}
