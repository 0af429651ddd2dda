//! best-route v5 (NFD `BestRouteStrategy`): a new Interest goes to the lowest-cost
//! eligible next hop; a retransmission outside the suppression interval goes to the
//! lowest-cost unused next hop, else to the one used longest ago. No eligible next
//! hop for a new Interest: Nack NoRoute. Nacks: `process_nack`.

use ndnlab_wire::Interest;

use super::Retx;
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::Time;

impl Forwarder {
    pub(crate) fn best_route_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
    ) {
        let decision = self.retx_per_entry(p, now);
        if decision == Retx::Suppress {
            self.drop_packet(DropReason::RetxSuppressed);
            return;
        }
        let (hops, _) = self.lookup_fib(&interest, hashes);
        let name = interest.name();
        if decision == Retx::New {
            match hops
                .iter()
                .find(|h| self.is_eligible(from, h.face, p, name, false, now))
            {
                Some(h) => {
                    let to = h.face;
                    self.outgoing_interest(now, from, p, to, interest);
                }
                None => self.no_route(now, from, p),
            }
            return;
        }
        // Retransmission: an unused next hop, else the one used earliest.
        if let Some(h) = hops
            .iter()
            .find(|h| self.is_eligible(from, h.face, p, name, true, now))
        {
            let to = h.face;
            self.outgoing_interest(now, from, p, to, interest);
            return;
        }
        let earliest = hops
            .iter()
            .filter(|h| self.is_eligible(from, h.face, p, name, false, now))
            .min_by_key(|h| {
                self.pcct
                    .pit(p)
                    .and_then(|e| e.out_record(h.face))
                    .map_or(0, |o| o.last_renewed)
            })
            .map(|h| h.face);
        match earliest {
            Some(to) => self.outgoing_interest(now, from, p, to, interest),
            None => self.drop_packet(DropReason::NoEligibleNextHop),
        }
    }
}
