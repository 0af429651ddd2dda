//! multicast v5 (NFD `MulticastStrategy`): every eligible next hop, with per-upstream
//! exponential retransmission suppression. Nothing sent: Nack NoRoute. Nacks:
//! `process_nack` (NFD's multicast ignores Nacks and lets the entry expire; here the
//! downstream learns sooner, with the least severe reason once all upstreams Nacked).

use ndnlab_wire::Interest;

use super::Retx;
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::Time;

impl Forwarder {
    pub(crate) fn multicast_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
    ) {
        if self.retx_per_entry(p, now) == Retx::Suppress {
            self.drop_packet(DropReason::RetxSuppressed);
            return;
        }
        let (hops, _) = self.lookup_fib(&interest, hashes);
        for h in &hops {
            let decision = self.retx_per_upstream(p, h.face, now);
            if decision == Retx::Suppress
                || !self.is_eligible(from, h.face, p, interest.name(), false, now)
            {
                continue;
            }
            self.outgoing_interest(now, from, p, h.face, interest.clone());
            if decision == Retx::Forward {
                self.retx_increment_upstream(p, h.face);
            }
        }
        if !self
            .pcct
            .pit(p)
            .is_some_and(|e| e.has_pending_out_records(now))
        {
            self.no_route(now, from, p);
        }
    }
}
