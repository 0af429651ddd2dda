//! Outgoing Interest pipeline (NFD `onOutgoingInterest`).

use ndnlab_wire::Interest;

use crate::counters::DropReason;
use crate::face::FaceId;
use crate::packet::{LpMeta, OutPacket, Transmit};
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// Send the Interest of PIT entry `p` (as received from `from`) to `to`:
    /// out-record, PIT token, counters. The bytes are the incoming ones. Returns
    /// whether it was sent (NFD `onOutgoingInterest` returning an out-record).
    #[inline]
    pub(crate) fn outgoing_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
    ) -> bool {
        let nonce = interest.nonce().unwrap_or(0);
        let expiry = now.saturating_add(interest.lifetime_ns());
        self.outgoing_interest_meta(now, from, p, to, interest, nonce, expiry, false)
    }

    /// [`Tables::outgoing_interest`] given the Interest's Nonce and the end of its
    /// lifetime from `now` (the out-record's expiry), which the incoming pipeline has
    /// already read: parsing both again (a TLV read, a jump on the lifetime's width, a
    /// multiply) cost ~25 instructions per forwarded Interest in callgrind.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn outgoing_interest_with(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        nonce: u32,
        expiry: Time,
    ) {
        self.outgoing_interest_meta(now, from, p, to, interest, nonce, expiry, false);
    }

    /// [`Tables::outgoing_interest_with`], marking the Interest NonDiscovery
    /// (self-learning) when `non_discovery`; returns whether it was sent.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn outgoing_interest_meta(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        nonce: u32,
        expiry: Time,
        non_discovery: bool,
    ) -> bool {
        let Some(out_face) = self.faces.get_mut(&to.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return false;
        };
        if !out_face.is_local() && interest.hop_limit() == Some(0) {
            out_face.counters.n_out_hop_limit_zero += 1;
            self.drop_packet(DropReason::OutHopLimitZero);
            return false;
        }
        out_face.counters.n_out_interests += 1;
        let to_local = out_face.is_local();
        self.counters.n_out_interests += 1;
        let token = self
            .config
            .pit_tokens
            .then(|| self.tokens.make(self.pcct.token_of(p)));
        if let Some(e) = self.pcct.pit_mut(p) {
            e.insert_out_record(to, nonce, now, expiry).non_discovery = non_discovery;
        }
        let meta = LpMeta {
            pit_token: token,
            incoming_face_id: from.incoming_face_id().filter(|_| to_local),
            non_discovery,
            ..Default::default()
        };
        self.out.push_back(Transmit {
            face: to,
            packet: OutPacket::Interest(interest.into_wire()),
            meta,
        });
        true
    }

    /// The stored Interest of entry `p` (for retries and Nacks; rare paths).
    pub(crate) fn stored_interest(&self, p: u32) -> Option<Interest> {
        let e = self.pcct.pit(p)?;
        Interest::decode(e.interest.clone()).ok()
    }
}
