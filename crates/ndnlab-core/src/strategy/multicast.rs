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
//! * Nacks: `ProcessNackTraits` ([`Forwarder::process_nack`]): absorbed while some
//!   upstream has not Nacked; once all did, every downstream gets a Nack with the least
//!   severe reason (Congestion < Duplicate < NoRoute).
//!
//! Not implemented: NFD's `afterNewNextHop` (forwarding pending Interests to a next
//! hop added to the FIB later).

use ndnlab_wire::Interest;

use super::{Params, Retx};
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
        prm: &Params,
    ) {
        let (hops, _) = self.lookup_fib(&interest, hashes);
        let mut sent = 0usize;
        let mut suppressed = false;
        for h in &hops {
            let decision = self.retx_per_upstream(p, h.face, now, &prm.retx);
            if decision == Retx::Suppress {
                suppressed = true;
                continue;
            }
            if !self.is_eligible(from, h.face, p, interest.name(), false, now) {
                continue;
            }
            self.outgoing_interest(now, from, p, h.face, interest.clone());
            if decision == Retx::Forward {
                self.retx_increment_upstream(p, h.face, &prm.retx);
            }
            sent += 1;
        }
        if sent == 0 {
            if suppressed {
                self.drop_packet(DropReason::RetxSuppressed);
            } else {
                self.no_route(now, from, p);
            }
        }
    }
}
