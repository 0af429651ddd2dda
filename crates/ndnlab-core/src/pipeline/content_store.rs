//! ContentStore hit and ContentStore miss pipelines.

use ndnlab_wire::{Interest, Name};

use super::scope::is_localhost;
use crate::counters::DropReason;
use crate::face::{FaceId, FaceScope};
use crate::packet::LpMeta;
use crate::strategy::kind::StrategyKind;
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// NFD `onContentStoreHit`: the cached Data goes back to the downstream, with the
    /// downstream's PIT token and IncomingFaceId = content store.
    /// `name` is the Interest's (its offsets are reused when it is the Data's name).
    pub(crate) fn content_store_hit(
        &mut self,
        _now: Time,
        from: FaceId,
        c: u32,
        meta: LpMeta,
        name: &Name,
    ) {
        // The CS keeps wire bytes only, and they go out as they are. The Data's name
        // starts with the Interest's, which is never empty (the decoder refuses an
        // empty Interest name), so the `/localhost` check can use the Interest name.
        let wire = self.pcct.cs_wire(c).clone();
        let localhost = is_localhost(name);
        let meta = LpMeta {
            pit_token: meta.pit_token,
            incoming_face_id: FaceId::CONTENT_STORE.incoming_face_id(),
            ..Default::default()
        };
        self.outgoing_data(from, wire, localhost, meta);
    }

    /// NFD `onContentStoreMiss`: in-record, expiry, then NextHopFaceId or the strategy.
    /// `expiry`: when the Interest's lifetime ends (`now` + InterestLifetime). The
    /// caller has stored the Interest's bytes in the entry (a new entry gets them at
    /// insertion: setting them here dropped the placeholder, an indirect call).
    /// Returns the strategy to trigger, which the caller does with the Interest it owns
    /// (so the 128-byte view is not moved through this call), or `None` when done.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn content_store_miss(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: &Interest,
        nonce: u32,
        meta: LpMeta,
        expiry: Time,
    ) -> Option<StrategyKind> {
        let e = self.pcct.pit_mut(p).expect("live PIT entry");
        let (before, kept) = (e.expiry(), e.flags.satisfied);
        // Pending again if it was a satisfied entry kept for late Data (ASF's grace).
        e.flags.satisfied = false;
        e.insert_in_record(from, nonce, expiry, meta.pit_token);
        let strategy = e.strategy;
        // The armed timer is at the entry's old expiry: one that became earlier (a
        // shorter lifetime refreshing the in-record) or an entry pending again needs
        // its own, else the entry outlives its lifetime until that timer.
        let after = e.expiry();
        if after < before || kept {
            let generation = self.pcct.generation_of(p);
            self.timers.push(after, p, generation);
        }

        // NextHopFaceId from a local face bypasses the strategy (rare: the Interest is
        // cloned, a reference count).
        if let Some(nh) = meta.next_hop_face_id {
            let from_local = self.face(from).is_some_and(|f| f.scope == FaceScope::Local);
            if from_local {
                if self.has_face(FaceId(nh)) {
                    let (to, i) = (FaceId(nh), interest.clone());
                    self.outgoing_interest_with(now, from, p, to, i, nonce, expiry);
                } else {
                    self.drop_packet(DropReason::BadNextHopFaceId);
                }
                return None;
            }
        }
        Some(strategy)
    }
}
