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
//! * `afterNewNextHop` ([`Forwarder::add_nexthop`]): a next hop added to the FIB
//!   later gets the pending Interests whose longest FIB match is that prefix, sent
//!   once on behalf of the first downstream for which it is eligible (NFD).

use bytes::Bytes;
use ndnlab_wire::{Interest, Name};

use super::{Params, Retx};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::strategy::StrategyKind;
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

impl Forwarder {
    /// NFD `Forwarder::onNewNextHop`: the PIT entries under `prefix` whose name's
    /// longest FIB match is `prefix` itself (a longer FIB entry shadows the new next
    /// hop) go to their strategy's `afterNewNextHop`. Only multicast uses the trigger
    /// (as in NFD), so while no StrategyChoice entry selects multicast nothing is
    /// scanned (a route load into a large PIT stays cheap). Otherwise, as the PCCT has
    /// no name tree to enumerate, this walks the PIT: route changes are rare.
    pub(crate) fn after_new_nexthop(&mut self, now: Time, prefix: &Name, face: FaceId) {
        if !self.sc.iter().any(|(_, k)| k == StrategyKind::Multicast) {
            return;
        }
        let pbytes = prefix.value_bytes();
        let mut affected = Vec::new();
        for p in self.pcct.pit_ids() {
            let Some(e) = self.pcct.pit(p) else { continue };
            if e.strategy != StrategyKind::Multicast {
                continue;
            }
            // Component TLVs are self-delimiting: a byte prefix is a name prefix.
            let bytes = self.pcct.slot_name(e.slot);
            if !bytes.starts_with(pbytes) {
                continue;
            }
            let Ok(name) = Name::from_value(Bytes::copy_from_slice(bytes)) else {
                continue;
            };
            let hashes = crate::hash::prefix_hashes(&name);
            let lpm = self.fib.lpm_with(&name, &hashes);
            if lpm.is_some_and(|id| self.fib.prefix(id).len() == prefix.len()) {
                affected.push((p, name));
            }
        }
        for (p, name) in affected {
            self.multicast_after_new_nexthop(now, p, face, &name);
        }
    }

    /// NFD `MulticastStrategy::afterNewNextHop`: send the pending Interest to the new
    /// next hop for the first downstream it is eligible for (no suppression check: the
    /// upstream is new).
    fn multicast_after_new_nexthop(&mut self, now: Time, p: u32, to: FaceId, name: &Name) {
        let Some(e) = self.pcct.pit(p) else { return };
        let downstreams: smallvec::SmallVec<[FaceId; 4]> =
            e.in_records.iter().map(|r| r.face).collect();
        for from in downstreams {
            if self.is_eligible(from, to, p, name, false, now) {
                if let Some(interest) = self.stored_interest(p) {
                    self.outgoing_interest(now, from, p, to, interest);
                }
                return;
            }
        }
    }
}
