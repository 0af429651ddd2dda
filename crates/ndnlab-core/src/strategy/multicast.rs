//! multicast (NFD `MulticastStrategy`):
//!
//! * every FIB next hop that is eligible and not suppressed gets the Interest;
//!   suppression is per upstream only (NFD's multicast: `decidePerUpstream`, then
//!   `incrementIntervalForOutRecord` after a forwarded retransmission), so a
//!   retransmission reaches a newly usable upstream at once while an upstream that just
//!   got the Interest is skipped for 10 ms, 20 ms, ... up to 250 ms;
//! * nothing sent and nothing suppressed (no eligible next hop): Nack NoRoute and
//!   reject the entry; nothing sent because of suppression: dropped and counted
//!   ([`DropReason::RetxSuppressed`]);
//! * Nacks: `ProcessNackTraits` (`process_nack.rs`): absorbed while some upstream has
//!   not Nacked; once all did, every downstream gets a Nack with the least severe
//!   reason (Congestion < Duplicate < NoRoute).
//! * `afterNewNextHop` ([`Forwarder::add_nexthop`](crate::Forwarder::add_nexthop)): a
//!   next hop added to the FIB later gets the pending Interests whose longest FIB
//!   match is that prefix, sent once on behalf of the first downstream for which it is
//!   eligible (NFD).
//!
//! No state of its own: the suppression intervals live in the out-records.

use ndnlab_wire::{Interest, NackReason, Name};
use smallvec::SmallVec;

use super::context::Context;
use super::retx::{self, Retx};
use super::triggers::{Strategy, Triggers};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::Time;

/// NFD's multicast strategy.
#[derive(Debug, Default)]
pub(crate) struct MulticastStrategy;

impl Strategy for MulticastStrategy {
    const TRIGGERS: Triggers = Triggers {
        after_new_nexthop: true,
        ..Triggers::NONE
    };

    fn after_receive_interest(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        _sent: (u32, Time),
        _non_discovery: bool,
    ) {
        let prm = ctx.params(interest.name(), hashes);
        let (hops, _) = ctx.lookup_fib(&interest, hashes);
        let mut sent = 0usize;
        let mut suppressed = false;
        for h in &hops {
            let decision = retx::per_upstream(ctx.pit(p), h.face, now, &prm.retx);
            if decision == Retx::Suppress {
                suppressed = true;
                continue;
            }
            if !ctx.is_eligible(from, h.face, p, interest.name(), false, now) {
                continue;
            }
            ctx.send_interest(now, from, p, h.face, interest.clone());
            if decision == Retx::Forward {
                retx::increment_upstream(ctx.pit_mut(p), h.face, &prm.retx);
            }
            sent += 1;
        }
        if sent == 0 {
            if suppressed {
                ctx.drop_packet(DropReason::RetxSuppressed);
            } else {
                ctx.no_route(now, from, p);
            }
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

    /// NFD `MulticastStrategy::afterNewNextHop`: send the pending Interest to the new
    /// next hop for the first downstream it is eligible for (no suppression check: the
    /// upstream is new).
    fn after_new_nexthop(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        p: u32,
        to: FaceId,
        name: &Name,
    ) {
        let Some(e) = ctx.pit(p) else { return };
        let downstreams: SmallVec<[FaceId; 4]> = e.in_records.iter().map(|r| r.face).collect();
        for from in downstreams {
            if ctx.is_eligible(from, to, p, name, false, now) {
                if let Some(interest) = ctx.stored_interest(p) {
                    ctx.send_interest(now, from, p, to, interest);
                }
                return;
            }
        }
    }
}
