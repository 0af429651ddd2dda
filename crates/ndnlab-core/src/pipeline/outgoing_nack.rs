//! Outgoing Nack pipeline (NFD `onOutgoingNack`).

use ndnlab_wire::{Nack, NackReason};

use crate::face::{FaceId, LinkType};
use crate::packet::{LpMeta, OutNack, OutPacket, Transmit};
use crate::tables::Tables;

impl Tables {
    /// Nack the downstream `to` of PIT entry `p` (its in-record is erased). No Nack
    /// goes to multi-access faces.
    pub(crate) fn outgoing_nack(&mut self, p: u32, to: FaceId, reason: NackReason) {
        let Some(face) = self.face(to) else { return };
        if face.link == LinkType::MultiAccess {
            return;
        }
        let Some(e) = self.pcct.pit_mut(p) else {
            return;
        };
        let Some(i) = e.in_records.iter().position(|r| r.face == to) else {
            return;
        };
        let before = e.expiry();
        let mut rec = e.in_records.swap_remove(i);
        // The entry now lives as long as its other downstreams: the armed timer is
        // at the old expiry, so an earlier one needs a timer of its own.
        if !e.in_records.is_empty() && !e.flags.satisfied && e.expiry() < before {
            let (after, generation) = (e.expiry(), self.pcct.generation_of(p));
            self.timers.push(after, p, generation);
        }
        let Some(mut interest) = self.stored_interest(p) else {
            return;
        };
        if interest.nonce() != Some(rec.nonce) {
            interest.set_nonce(rec.nonce);
        }
        let meta = LpMeta {
            pit_token: rec.take_token(),
            ..Default::default()
        };
        self.emit_nack(to, Nack::new(interest, reason), meta);
    }

    /// Queue a Nack and count it.
    pub(crate) fn emit_nack(&mut self, to: FaceId, nack: Nack, meta: LpMeta) {
        let Some(face) = self.faces.get_mut(&to.0) else {
            return;
        };
        face.counters.n_out_nacks += 1;
        self.counters.n_out_nacks += 1;
        self.out.push_back(Transmit {
            face: to,
            packet: OutPacket::Nack(Box::new(OutNack {
                wire: nack.interest.into_wire(),
                reason: nack.reason,
            })),
            meta,
        });
    }
}
