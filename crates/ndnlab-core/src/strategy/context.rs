//! [`Context`]: what a strategy may see and do, NFD's `Strategy` base-class actions
//! over the forwarder's [`Tables`]:
//!
//! * read and update PIT entries (in- and out-records, flags), read an entry's name
//!   and stored Interest, tell whether an entry still lives;
//! * look up the FIB (NFD `lookupFib`: by name, or by ForwardingHint outside the
//!   producer region), read faces, the parameters of the instance handling a name
//!   and the strategy that governs one;
//! * send an Interest, a Data or a Nack through the outgoing pipelines, reject an
//!   entry or finish a satisfied one, set an entry's expiry timer, count a drop, draw
//!   from the forwarder's seeded generator.
//!
//! A trigger gets `&mut Context`; the tables stay out of reach (the field is private
//! to this module), so a strategy touches the CS, the Dead Nonce List, the counters
//! or the output queue only through these actions. Each action is a thin, inlined
//! call into the tables or a pipeline. The shared algorithms built on them (next-hop
//! eligibility, `ProcessNackTraits`, retransmission suppression) are in the sibling
//! files `algorithm.rs`, `process_nack.rs` and `retx.rs`.

use bytes::Bytes;
use ndnlab_wire::{Interest, NackReason, Name};
use smallvec::SmallVec;

use super::kind::StrategyKind;
use super::params::Params;
use crate::counters::DropReason;
use crate::face::{FaceId, FaceInfo};
use crate::fib::NextHop;
use crate::name_table::EntryId;
use crate::packet::LpMeta;
use crate::pit::PitEntry;
use crate::tables::Tables;
use crate::Time;

/// Next hops copied out of the FIB (for strategies that act while iterating them).
pub(crate) type Hops = SmallVec<[NextHop; 4]>;

/// A strategy's view of the forwarder (see the module docs).
pub(crate) struct Context<'a> {
    t: &'a mut Tables,
}

impl<'a> Context<'a> {
    /// The context over `t`.
    #[inline(always)]
    pub(crate) fn new(t: &'a mut Tables) -> Self {
        Context { t }
    }

    // ---------------------------------------------------------------- PIT

    /// PIT entry `p`, if live.
    #[inline]
    pub(crate) fn pit(&self, p: u32) -> Option<&PitEntry> {
        self.t.pcct.pit(p)
    }

    /// PIT entry `p`, if live, to update.
    #[inline]
    pub(crate) fn pit_mut(&mut self, p: u32) -> Option<&mut PitEntry> {
        self.t.pcct.pit_mut(p)
    }

    /// The generation of entry `p` (with [`Context::is_live`], tells a later entry
    /// in the same place from it).
    #[inline]
    pub(crate) fn generation(&self, p: u32) -> u32 {
        self.t.pcct.generation_of(p)
    }

    /// Whether entry `p` of `generation` still lives.
    #[inline]
    pub(crate) fn is_live(&self, p: u32, generation: u32) -> bool {
        self.t.pcct.pit_live(p, generation)
    }

    /// The name (TLV-VALUE) of entry `e`.
    #[inline]
    pub(crate) fn entry_name(&self, e: &PitEntry) -> &[u8] {
        self.t.pcct.slot_name(e.slot)
    }

    /// The latest Interest of entry `p`, decoded (retries and Nacks; rare paths).
    pub(crate) fn stored_interest(&self, p: u32) -> Option<Interest> {
        self.t.stored_interest(p)
    }

    /// NFD `setExpiryTimer`: entry `p` is looked at again at `at` (finalized then if
    /// its downstreams' lifetimes have ended).
    #[inline]
    pub(crate) fn set_expiry_timer(&mut self, p: u32, at: Time) {
        let generation = self.t.pcct.generation_of(p);
        self.t.timers.push(at, p, generation);
    }

    // ---------------------------------------------------------------- faces, FIB, StrategyChoice

    /// Face `id`, if it exists.
    #[inline]
    pub(crate) fn face(&self, id: FaceId) -> Option<&FaceInfo> {
        self.t.face(id)
    }

    /// Whether face `id` exists.
    #[inline]
    pub(crate) fn has_face(&self, id: FaceId) -> bool {
        self.t.has_face(id)
    }

    /// Every face.
    pub(crate) fn faces(&self) -> impl Iterator<Item = (FaceId, &FaceInfo)> + '_ {
        self.t.faces.iter().map(|(id, f)| (FaceId(*id), f))
    }

    /// The parameters of the strategy instance for `name`: the StrategyChoice entry's
    /// when it has parameters, else the forwarder's defaults (no lookup at all when no
    /// choice has parameters).
    #[inline]
    pub(crate) fn params(&self, name: &Name, hashes: &[u64]) -> Params {
        let d = self.t.default_params;
        match self.t.sc.params_for(name, hashes) {
            None => d,
            Some(i) => d.with(i),
        }
    }

    /// The strategy StrategyChoice gives `name`.
    pub(crate) fn effective_strategy(&self, name: &Name) -> StrategyKind {
        self.t.sc.find_effective(name)
    }

    /// FIB lookup for an Interest (NFD `Strategy::lookupFib`): without a ForwardingHint
    /// (or in the producer region, see [`NetworkRegionTable`](crate::network_region::NetworkRegionTable)),
    /// by name; else the first delegation whose longest-prefix match has next hops (the
    /// default route included), else nothing. Returns the matched FIB entry and its
    /// measurements key ([`Fib::entry_key`](crate::fib::Fib::entry_key)) as the lookup
    /// computed it: reading it from the entry would cost a cache miss on its cold part.
    #[inline]
    fn fib_match(&self, interest: &Interest, hashes: &[u64]) -> Option<(EntryId, u64)> {
        let hints = interest.forwarding_hint();
        let fib = &self.t.fib;
        if !hints.is_empty() && !self.t.config.network_region.is_in_producer_region(hints) {
            return hints.iter().find_map(|hint| {
                let h = crate::hash::prefix_hashes(hint);
                fib.lpm_key_with(hint, &h)
                    .filter(|&(id, _)| !fib.nexthops(id).is_empty())
            });
        }
        fib.lpm_key_with(interest.name(), hashes)
    }

    /// The next hops of the FIB lookup, borrowed from the FIB (empty if nothing
    /// matches): for strategies that pick a face before acting.
    #[inline]
    pub(crate) fn fib_nexthops(&self, interest: &Interest, hashes: &[u64]) -> &[NextHop] {
        let hints = interest.forwarding_hint();
        if hints.is_empty() || self.t.config.network_region.is_in_producer_region(hints) {
            // By name (the common case): the next hops straight from the match.
            return self.t.fib.lpm_nexthops_with(interest.name(), hashes);
        }
        match self.fib_match(interest, hashes) {
            Some((id, _)) => self.t.fib.nexthops(id),
            None => &[],
        }
    }

    /// The FIB lookup as a copy of the next hops and the measurements key of the
    /// matched prefix (0 when nothing matches).
    pub(crate) fn lookup_fib(&self, interest: &Interest, hashes: &[u64]) -> (Hops, u32) {
        match self.fib_match(interest, hashes) {
            Some((id, key)) => (Hops::from_slice(self.t.fib.nexthops(id)), key as u32),
            None => (Hops::new(), 0),
        }
    }

    // ---------------------------------------------------------------- actions

    /// NFD `sendInterest`: the Interest of entry `p` (as received from `from`) to
    /// `to` through the outgoing Interest pipeline; whether it was sent.
    #[inline]
    pub(crate) fn send_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
    ) -> bool {
        self.t.outgoing_interest(now, from, p, to, interest)
    }

    /// [`Context::send_interest`] given the Interest's Nonce and the end of its
    /// lifetime from `now`, as the incoming pipeline read them.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn send_interest_with(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        nonce: u32,
        expiry: Time,
    ) {
        self.t
            .outgoing_interest_meta(now, from, p, to, interest, nonce, expiry, false);
    }

    /// [`Context::send_interest`], marked NonDiscovery when `non_discovery`
    /// (self-learning); whether it was sent.
    pub(crate) fn send_interest_marked(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        non_discovery: bool,
    ) -> bool {
        let nonce = interest.nonce().unwrap_or(0);
        let expiry = now.saturating_add(interest.lifetime_ns());
        self.t
            .outgoing_interest_meta(now, from, p, to, interest, nonce, expiry, non_discovery)
    }

    /// NFD `sendData`: the Data TLV `wire` to `to` through the outgoing Data
    /// pipeline. `localhost`: the Data's name is under `/localhost`.
    pub(crate) fn send_data(&mut self, to: FaceId, wire: Bytes, localhost: bool, meta: LpMeta) {
        self.t.outgoing_data(to, wire, localhost, meta);
    }

    /// NFD `sendNack`: Nack the downstream `to` of entry `p` (its in-record goes).
    pub(crate) fn send_nack(&mut self, p: u32, to: FaceId, reason: NackReason) {
        self.t.outgoing_nack(p, to, reason);
    }

    /// NFD `rejectPendingInterest`: finalize entry `p` unsatisfied now.
    pub(crate) fn reject_pending(&mut self, now: Time, p: u32) {
        self.t.finalize(now, p);
    }

    /// Finalize entry `p` as it stands (satisfied or not).
    pub(crate) fn finalize(&mut self, now: Time, p: u32) {
        self.t.finalize(now, p);
    }

    /// Finalize live entry `p`, satisfied.
    pub(crate) fn finalize_satisfied(&mut self, now: Time, p: u32) {
        self.t.finalize_satisfied(now, p);
    }

    /// Count a drop.
    #[inline]
    pub(crate) fn drop_packet(&mut self, r: DropReason) {
        self.t.drop_packet(r);
    }

    /// A draw from the forwarder's seeded generator (one stream for the forwarder,
    /// as NFD's strategies share ndn-cxx's random engine), so a run is reproducible.
    pub(crate) fn random(&mut self) -> u64 {
        self.t.random()
    }
}
