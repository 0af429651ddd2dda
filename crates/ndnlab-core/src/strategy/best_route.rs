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
//! * Nacks: `ProcessNackTraits` (`process_nack.rs`).
//!
//! No state of its own: the suppression intervals live in the PIT entries.

use ndnlab_wire::{Interest, NackReason};

use super::context::Context;
use super::params::Params;
use super::retx::{self, Retx};
use super::triggers::Strategy;
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::Time;

/// NFD's best-route strategy.
#[derive(Debug, Default)]
pub(crate) struct BestRouteStrategy;

/// What best-route does with an Interest.
enum Decision {
    /// Forward it to this face.
    Forward(FaceId),
    /// No usable next hop for a new Interest: Nack NoRoute and reject the entry.
    NoRoute,
    /// Drop it.
    Drop(DropReason),
}

/// The decision only: the Interest is borrowed, and the trigger (which owns it) acts
/// on the decision, so the 128-byte view is not moved through this call.
#[inline]
fn decide(
    ctx: &mut Context<'_>,
    now: Time,
    from: FaceId,
    p: u32,
    interest: &Interest,
    hashes: &[u64],
    prm: &Params,
) -> Decision {
    let decision = retx::per_entry(ctx.pit_mut(p), now, &prm.retx);
    if decision == Retx::Suppress {
        return Decision::Drop(DropReason::RetxSuppressed);
    }
    // The next hops stay borrowed from the FIB: the face is chosen before anything
    // is mutated (copying them out cost ~110 instructions per Interest).
    let name = interest.name();
    let hops = ctx.fib_nexthops(interest, hashes);
    if decision == Retx::New {
        return match hops
            .iter()
            .find(|h| ctx.is_eligible(from, h.face, p, name, false, now))
        {
            Some(h) => Decision::Forward(h.face),
            None => Decision::NoRoute,
        };
    }
    // Retransmission: the cheapest unused next hop, else the one used earliest.
    let to = match hops
        .iter()
        .find(|h| ctx.is_eligible(from, h.face, p, name, true, now))
    {
        Some(h) => Some(h.face),
        None => ctx.earliest_out_record(from, p, hops, name, now),
    };
    match to {
        Some(to) => Decision::Forward(to),
        None => Decision::Drop(DropReason::NoEligibleNextHop),
    }
}

impl Strategy for BestRouteStrategy {
    #[inline]
    fn after_receive_interest(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        sent: (u32, Time),
        _non_discovery: bool,
    ) {
        let prm = ctx.params(interest.name(), hashes);
        match decide(ctx, now, from, p, &interest, hashes, &prm) {
            Decision::Forward(to) => {
                let (nonce, expiry) = sent;
                ctx.send_interest_with(now, from, p, to, interest, nonce, expiry)
            }
            Decision::NoRoute => ctx.no_route(now, from, p),
            Decision::Drop(reason) => ctx.drop_packet(reason),
        }
    }

    fn after_receive_nack(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        _from: FaceId,
        p: u32,
        _reason: NackReason,
    ) {
        ctx.process_nack(now, p);
    }
}
