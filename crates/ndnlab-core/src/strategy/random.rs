//! random v1 (NFD `RandomStrategy`):
//!
//! * every Interest, new or retransmitted, goes to one next hop drawn uniformly from
//!   the FIB next hops that are eligible (not the downstream unless ad hoc, no scope
//!   violation); there is no retransmission suppression, as in NFD;
//! * no eligible next hop: Nack NoRoute to the downstream and reject the entry;
//! * Nacks: `ProcessNackTraits` (`process_nack.rs`).
//!
//! The draw uses the forwarder's seeded generator
//! ([`ForwarderConfig::seed`](crate::ForwarderConfig::seed)) through the context, so a
//! run is reproducible; the strategy keeps no state of its own.

use ndnlab_wire::{Interest, NackReason};
use smallvec::SmallVec;

use super::context::Context;
use super::triggers::Strategy;
use crate::face::FaceId;
use crate::Time;

/// NFD's random strategy.
#[derive(Debug, Default)]
pub(crate) struct RandomStrategy;

impl Strategy for RandomStrategy {
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
        let name = interest.name();
        let eligible: SmallVec<[FaceId; 4]> = ctx
            .fib_nexthops(&interest, hashes)
            .iter()
            .filter(|h| ctx.is_eligible(from, h.face, p, name, false, now))
            .map(|h| h.face)
            .collect();
        if eligible.is_empty() {
            ctx.no_route(now, from, p);
            return;
        }
        let to = eligible[(ctx.random() % eligible.len() as u64) as usize];
        ctx.send_interest(now, from, p, to, interest);
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
