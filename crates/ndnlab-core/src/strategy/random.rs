//! random v1 (NFD `RandomStrategy`):
//!
//! * every Interest, new or retransmitted, goes to one next hop drawn uniformly from
//!   the FIB next hops that are eligible (not the downstream unless ad hoc, no scope
//!   violation); there is no retransmission suppression, as in NFD;
//! * no eligible next hop: Nack NoRoute to the downstream and reject the entry;
//! * Nacks: `ProcessNackTraits` ([`Forwarder::process_nack`]).
//!
//! The draw uses the forwarder's seeded generator
//! ([`ForwarderConfig::seed`](crate::forwarder::ForwarderConfig::seed)), so a run is
//! reproducible.

use ndnlab_wire::Interest;
use smallvec::SmallVec;

use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::Time;

impl Forwarder {
    pub(crate) fn random_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
    ) {
        let name = interest.name();
        let eligible: SmallVec<[FaceId; 4]> = self
            .fib_nexthops(&interest, hashes)
            .iter()
            .filter(|h| self.is_eligible(from, h.face, p, name, false, now))
            .map(|h| h.face)
            .collect();
        if eligible.is_empty() {
            self.no_route(now, from, p);
            return;
        }
        let to = eligible[(self.random() % eligible.len() as u64) as usize];
        self.outgoing_interest(now, from, p, to, interest);
    }
}
