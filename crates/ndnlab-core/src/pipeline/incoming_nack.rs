//! Incoming Nack pipeline (NFD `onIncomingNack`).

use ndnlab_wire::Nack;

use crate::counters::DropReason;
use crate::dispatch::len_without_digest;
use crate::face::{FaceId, LinkType};
use crate::packet::LpMeta;
use crate::strategy::Strategies;
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// Incoming Nack from `from`; the strategy of its entry is one of `strategies`.
    pub(crate) fn incoming_nack(
        &mut self,
        strategies: &mut Strategies,
        now: Time,
        from: FaceId,
        nack: Nack,
        meta: LpMeta,
    ) {
        let Some(face) = self.faces.get_mut(&from.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return;
        };
        face.counters.n_in_nacks += 1;
        self.counters.n_in_nacks += 1;
        if face.link == LinkType::MultiAccess {
            self.drop_packet(DropReason::NackMultiAccess);
            return;
        }
        let interest = &nack.interest;
        // Our token finds the entry directly; else look it up by name and selectors.
        let p = meta
            .pit_token
            .as_deref()
            .and_then(|t| self.pcct.pit_by_token(t))
            .or_else(|| {
                let name = interest.name();
                let klen = len_without_digest(name);
                let digest = if klen < name.len() {
                    name.get(klen).and_then(|c| c.as_digest())
                } else {
                    None
                };
                let s = self.pcct.find_slot(name, klen, name.prefix_hash(klen))?;
                self.pcct.pit_find_in_slot(
                    s,
                    interest.can_be_prefix(),
                    interest.must_be_fresh(),
                    digest.as_ref(),
                )
            });
        let Some(p) = p else {
            self.drop_packet(DropReason::NackNoPitEntry);
            return;
        };
        let e = self.pcct.pit_mut(p).expect("live");
        let Some(out) = e.out_record_mut(from) else {
            self.drop_packet(DropReason::NackNoOutRecord);
            return;
        };
        if Some(out.nonce) != interest.nonce() {
            self.drop_packet(DropReason::NackNonceMismatch);
            return;
        }
        out.set_nack(Some(nack.reason));
        let strategy = e.strategy;
        strategies.after_receive_nack(strategy, self, now, from, p, nack.reason);
    }
}
