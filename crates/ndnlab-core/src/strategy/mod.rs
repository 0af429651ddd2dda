//! Forwarding strategies (NFD triggers), selected per namespace by StrategyChoice.
//!
//! The six strategies NFD 24.07 registers, under the same names and versions:
//!
//! | kind | NFD name | file |
//! |---|---|---|
//! | [`StrategyKind::BestRoute`] | `/localhost/nfd/strategy/best-route/v=5` | `best_route.rs` |
//! | [`StrategyKind::Multicast`] | `/localhost/nfd/strategy/multicast/v=5` | `multicast.rs` |
//! | [`StrategyKind::Asf`] | `/localhost/nfd/strategy/asf/v=5` | `asf.rs` (+ `rtt.rs`) |
//! | [`StrategyKind::Random`] | `/localhost/nfd/strategy/random/v=1` | `random.rs` |
//! | [`StrategyKind::Access`] | `/localhost/nfd/strategy/access/v=1` | `access.rs` (+ `rtt.rs`) |
//! | [`StrategyKind::SelfLearning`] | `/localhost/nfd/strategy/self-learning/v=1` | `self_learning.rs` |
//!
//! Triggers: `after_receive_interest`, `after_receive_nack`, `before_satisfy`
//! (Data arrived for an entry; self-learning takes over the whole Data step, as its
//! NFD `afterReceiveData` does), `on_unsatisfied` (entry expired or rejected).
//! Shared actions are in this file: FIB lookup with ForwardingHint and the network
//! region table (NFD `lookupFib`, forwarding-hint stripping in the producer region),
//! next-hop eligibility, NFD's `ProcessNackTraits`; NFD's RetxSuppressionExponential
//! is in `retx.rs`; instance names with parameters in `params.rs`.

pub mod access;
pub mod asf;
mod best_route;
mod multicast;
pub mod params;
mod random;
mod retx;
pub mod rtt;
pub mod self_learning;

use bytes::{BufMut, BytesMut};
use ndnlab_wire::tlv::{self, types};
use ndnlab_wire::{Interest, NackReason, Name};
use smallvec::SmallVec;

use crate::face::{FaceId, LinkType};
use crate::fib::NextHop;
use crate::forwarder::Forwarder;
use crate::name_table::EntryId;
use crate::pipeline::scope::would_violate_scope;
use crate::pit::PitEntry;
use crate::Time;

use best_route::BestRoute;
pub use params::{RetxParams, StrategyInstance};
pub(crate) use retx::Retx;

/// The strategies this forwarder implements: the six NFD 24.07 registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StrategyKind {
    /// Best route (lowest cost), with exponential retransmission suppression.
    #[default]
    BestRoute,
    /// Every next hop.
    Multicast,
    /// Adaptive SRTT-based forwarding with probing.
    Asf,
    /// One eligible next hop drawn at random.
    Random,
    /// Last working next hop per prefix, multicast on a miss or an RTO timeout.
    Access,
    /// Broadcast discovery, routes learned from prefix announcements.
    SelfLearning,
}

pub(crate) const PREFIX: &str = "/localhost/nfd/strategy/";

impl StrategyKind {
    /// Every kind.
    pub const ALL: [StrategyKind; 6] = [
        StrategyKind::BestRoute,
        StrategyKind::Multicast,
        StrategyKind::Asf,
        StrategyKind::Random,
        StrategyKind::Access,
        StrategyKind::SelfLearning,
    ];

    /// Whether [`Forwarder::before_satisfy`] does anything for this kind (ASF: an RTT
    /// sample; access: its RTO timer and measurements; self-learning: its whole Data
    /// step), so that callers can skip the call for the others.
    #[inline]
    pub(crate) fn acts_before_satisfy(self) -> bool {
        matches!(
            self,
            StrategyKind::Asf | StrategyKind::Access | StrategyKind::SelfLearning
        )
    }

    /// Short name (`best-route`, `multicast`, `asf`, `random`, `access`, `self-learning`).
    pub fn short(self) -> &'static str {
        match self {
            StrategyKind::BestRoute => "best-route",
            StrategyKind::Multicast => "multicast",
            StrategyKind::Asf => "asf",
            StrategyKind::Random => "random",
            StrategyKind::Access => "access",
            StrategyKind::SelfLearning => "self-learning",
        }
    }

    /// NFD's class name (`BestRouteStrategy`, ...), as its error messages spell it.
    pub fn class_name(self) -> &'static str {
        match self {
            StrategyKind::BestRoute => "BestRouteStrategy",
            StrategyKind::Multicast => "MulticastStrategy",
            StrategyKind::Asf => "AsfStrategy",
            StrategyKind::Random => "RandomStrategy",
            StrategyKind::Access => "AccessStrategy",
            StrategyKind::SelfLearning => "SelfLearningStrategy",
        }
    }

    /// The version NFD 24.07 registers (the one implemented).
    pub fn version(self) -> u64 {
        match self {
            StrategyKind::BestRoute | StrategyKind::Multicast | StrategyKind::Asf => 5,
            StrategyKind::Random | StrategyKind::Access | StrategyKind::SelfLearning => 1,
        }
    }

    /// Whether the instance name may carry parameters after the version (NFD: the
    /// strategies that parse `StrategyParameters`; the others refuse any).
    pub fn accepts_parameters(self) -> bool {
        matches!(
            self,
            StrategyKind::BestRoute | StrategyKind::Multicast | StrategyKind::Asf
        )
    }

    /// NFD's versioned strategy name as a URI.
    pub fn uri(self) -> String {
        format!("{PREFIX}{}/v={}", self.short(), self.version())
    }

    /// NFD's versioned strategy name.
    pub fn name(self) -> Name {
        Name::from_uri(&self.uri()).expect("valid strategy name")
    }

    /// The strategy named `name` without parameters, as NFD resolves it (see
    /// [`StrategyInstance::parse`] for names with parameters and error reasons).
    pub fn from_name(name: &Name) -> Option<StrategyKind> {
        StrategyInstance::parse(name)
            .ok()
            .filter(|i| !i.has_params())
            .map(|i| i.kind)
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.uri())
    }
}

/// Effective parameters of the instance handling a PIT entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    pub retx: RetxParams,
    pub probing_interval: Time,
    pub max_timeouts: u32,
}

impl Params {
    /// The forwarder's defaults.
    pub(crate) fn from_config(config: &crate::forwarder::ForwarderConfig) -> Self {
        let c = config.retx;
        Params {
            retx: RetxParams {
                initial: c.initial,
                max: c.max,
                multiplier: c.multiplier as f64,
            },
            probing_interval: config.asf_probing_interval,
            max_timeouts: params::DEFAULT_MAX_TIMEOUTS,
        }
    }
}

/// Next hops copied out of the FIB (strategies mutate the forwarder while iterating).
pub(crate) type Hops = SmallVec<[NextHop; 4]>;

impl Forwarder {
    /// Trigger: a new or retransmitted Interest needs forwarding. `sent`: its Nonce
    /// and the end of its lifetime from `now`, as the incoming pipeline read them
    /// (best-route hands them to [`Forwarder::outgoing_interest_with`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn after_receive_interest(
        &mut self,
        kind: StrategyKind,
        now: Time,
        from: FaceId,
        p: u32,
        mut interest: Interest,
        hashes: &[u64],
        sent: (u32, Time),
        non_discovery: bool,
    ) {
        // Replaced in place only when there is a hint (a conditional rebinding copied
        // the 128-byte view on every Interest).
        if !interest.forwarding_hint().is_empty() {
            interest = self.strip_hint_in_producer_region(interest);
        }
        let prm = self.strategy_params(interest.name(), hashes);
        match kind {
            StrategyKind::BestRoute => {
                match self.best_route_after_receive_interest(now, from, p, &interest, hashes, &prm)
                {
                    BestRoute::Forward(to) => {
                        let (nonce, expiry) = sent;
                        self.outgoing_interest_with(now, from, p, to, interest, nonce, expiry)
                    }
                    BestRoute::NoRoute => self.no_route(now, from, p),
                    BestRoute::Drop(reason) => self.drop_packet(reason),
                }
            }
            StrategyKind::Multicast => {
                self.multicast_after_receive_interest(now, from, p, interest, hashes, &prm)
            }
            StrategyKind::Asf => {
                self.asf_after_receive_interest(now, from, p, interest, hashes, &prm)
            }
            StrategyKind::Random => {
                self.random_after_receive_interest(now, from, p, interest, hashes)
            }
            StrategyKind::Access => {
                self.access_after_receive_interest(now, from, p, interest, hashes)
            }
            StrategyKind::SelfLearning => self.self_learning_after_receive_interest(
                now,
                from,
                p,
                interest,
                hashes,
                non_discovery,
            ),
        }
    }

    /// Trigger: an upstream Nacked the Interest (out-record already marked).
    pub(crate) fn after_receive_nack(
        &mut self,
        kind: StrategyKind,
        now: Time,
        from: FaceId,
        p: u32,
        reason: NackReason,
    ) {
        match kind {
            StrategyKind::BestRoute | StrategyKind::Multicast | StrategyKind::Random => {
                self.process_nack(now, p)
            }
            StrategyKind::Asf => self.asf_after_receive_nack(now, from, p),
            // NFD's access strategy keeps the default trigger: a Nack changes nothing.
            StrategyKind::Access => {}
            StrategyKind::SelfLearning => {
                self.self_learning_after_receive_nack(now, from, p, reason)
            }
        }
    }

    /// Trigger: Data from `from` is about to satisfy entry `p` (ASF and access; the
    /// Data pipeline hands self-learning's single matches to its own Data step).
    pub(crate) fn before_satisfy(
        &mut self,
        kind: StrategyKind,
        now: Time,
        from: FaceId,
        p: u32,
        data_name: &Name,
    ) {
        match kind {
            StrategyKind::Asf => self.asf_before_satisfy(now, from, p),
            StrategyKind::Access => self.access_before_satisfy(now, from, p, data_name),
            _ => {}
        }
    }

    /// Trigger: entry `e` is finalized unsatisfied. No strategy needs it: ASF counts
    /// timeouts with its own per-face RTO timers, as NFD's ASF does.
    pub(crate) fn strategy_on_unsatisfied(&mut self, _now: Time, _e: &PitEntry) {}

    /// The parameters of the strategy instance for `name`: the StrategyChoice entry's
    /// when it has parameters, else the forwarder's defaults (no lookup at all when no
    /// choice has parameters).
    #[inline]
    pub(crate) fn strategy_params(&self, name: &Name, hashes: &[u64]) -> Params {
        let d = self.default_params;
        match self.sc.params_for(name, hashes) {
            None => d,
            Some(i) => Params {
                retx: i.retx.unwrap_or(d.retx),
                probing_interval: i.probing_interval.unwrap_or(d.probing_interval),
                max_timeouts: i.max_timeouts.unwrap_or(d.max_timeouts),
            },
        }
    }

    /// NFD incoming-Interest step "strip forwarding hint if Interest has reached
    /// producer region": in the producer region the ForwardingHint is removed from the
    /// Interest (the forwarded bytes no longer carry it) and the FIB is looked up by
    /// name. Elsewhere the Interest is returned unchanged (no copy).
    pub(crate) fn strip_hint_in_producer_region(&mut self, interest: Interest) -> Interest {
        if !self
            .config
            .network_region
            .is_in_producer_region(interest.forwarding_hint())
        {
            return interest;
        }
        strip_forwarding_hint(&interest).unwrap_or(interest)
    }

    /// FIB lookup for an Interest (NFD `Strategy::lookupFib`): without a ForwardingHint
    /// (or in the producer region, see [`NetworkRegionTable`](crate::network_region::NetworkRegionTable)),
    /// by name; else the first delegation whose longest-prefix match has next hops (the
    /// default route included), else nothing. Returns the matched FIB entry and its
    /// measurements key ([`Fib::entry_key`](crate::fib::Fib::entry_key)) as the lookup
    /// computed it: reading it from the entry would cost a cache miss on its cold part.
    #[inline]
    pub(crate) fn fib_match(&self, interest: &Interest, hashes: &[u64]) -> Option<(EntryId, u64)> {
        let hints = interest.forwarding_hint();
        if !hints.is_empty() && !self.config.network_region.is_in_producer_region(hints) {
            return hints.iter().find_map(|hint| {
                let h = crate::hash::prefix_hashes(hint);
                self.fib
                    .lpm_key_with(hint, &h)
                    .filter(|&(id, _)| !self.fib.nexthops(id).is_empty())
            });
        }
        self.fib.lpm_key_with(interest.name(), hashes)
    }

    /// The next hops of [`Forwarder::fib_match`], borrowed from the FIB (empty if
    /// nothing matches): for strategies that pick a face before mutating anything.
    #[inline]
    pub(crate) fn fib_nexthops(&self, interest: &Interest, hashes: &[u64]) -> &[NextHop] {
        let hints = interest.forwarding_hint();
        if hints.is_empty() || self.config.network_region.is_in_producer_region(hints) {
            // By name (the common case): the next hops straight from the match.
            return self.fib.lpm_nexthops_with(interest.name(), hashes);
        }
        match self.fib_match(interest, hashes) {
            Some((id, _)) => self.fib.nexthops(id),
            None => &[],
        }
    }

    /// [`Forwarder::fib_match`] as a copy of the next hops (strategies mutate the
    /// forwarder while iterating) and the measurements key of the matched prefix
    /// (0 when nothing matches).
    pub(crate) fn lookup_fib(&self, interest: &Interest, hashes: &[u64]) -> (Hops, u32) {
        match self.fib_match(interest, hashes) {
            Some((id, key)) => (Hops::from_slice(self.fib.nexthops(id)), key as u32),
            None => (Hops::new(), 0),
        }
    }

    /// NFD `isNextHopEligible`.
    pub(crate) fn is_eligible(
        &self,
        from: FaceId,
        to: FaceId,
        p: u32,
        name: &Name,
        want_unused: bool,
        now: Time,
    ) -> bool {
        let (Some(inf), Some(outf)) = (self.face(from), self.face(to)) else {
            return false;
        };
        if to == from && outf.link != LinkType::AdHoc {
            return false;
        }
        if would_violate_scope(inf, name, outf) {
            return false;
        }
        if want_unused {
            if let Some(o) = self.pcct.pit(p).and_then(|e| e.out_record(to)) {
                if o.expiry > now {
                    return false;
                }
            }
        }
        true
    }

    /// NFD `findEligibleNextHopWithEarliestOutRecord`: among eligible next hops with an
    /// out-record, the one renewed longest ago (first in cost order on ties).
    pub(crate) fn earliest_out_record(
        &self,
        from: FaceId,
        p: u32,
        hops: &[NextHop],
        name: &Name,
        now: Time,
    ) -> Option<FaceId> {
        let e = self.pcct.pit(p)?;
        let mut best: Option<(Time, FaceId)> = None;
        for h in hops {
            if !self.is_eligible(from, h.face, p, name, false, now) {
                continue;
            }
            let Some(o) = e.out_record(h.face) else {
                continue;
            };
            if best.is_none_or(|(t, _)| o.last_renewed < t) {
                best = Some((o.last_renewed, h.face));
            }
        }
        best.map(|(_, f)| f)
    }

    /// No usable next hop: Nack NoRoute to the downstream and reject the entry.
    pub(crate) fn no_route(&mut self, now: Time, from: FaceId, p: u32) {
        self.outgoing_nack(p, from, NackReason::NoRoute);
        self.reject_pending(now, p);
    }

    /// NFD `ProcessNackTraits::processNack`: while some upstream has not Nacked, the
    /// Nack is absorbed (except that when the only upstream left is also a downstream,
    /// that face is Nacked so it can stop waiting); once every upstream Nacked, every
    /// downstream gets a Nack with the least severe reason and the entry is rejected.
    pub(crate) fn process_nack(&mut self, now: Time, p: u32) {
        let Some(e) = self.pcct.pit(p) else { return };
        let mut not_nacked = 0;
        let mut last_not_nacked = None;
        let mut least: Option<NackReason> = None;
        for o in &e.out_records {
            match o.nack() {
                None => {
                    not_nacked += 1;
                    last_not_nacked = Some(o.face);
                }
                Some(r) => {
                    least = match least {
                        Some(l) if l.severity() <= r.severity() => Some(l),
                        _ => Some(r),
                    };
                }
            }
        }
        let least = least.unwrap_or(NackReason::None);
        if not_nacked == 1 {
            // The only upstream left is also a downstream: Nack it so it can stop waiting.
            if let Some(f) = last_not_nacked {
                if e.in_record(f).is_some() {
                    self.outgoing_nack(p, f, least);
                    return;
                }
            }
        }
        if not_nacked > 0 {
            return;
        }
        self.send_nacks(now, p, least);
    }

    /// Nack every downstream of `p` and reject it.
    pub(crate) fn send_nacks(&mut self, now: Time, p: u32, reason: NackReason) {
        let faces: SmallVec<[FaceId; 4]> = self
            .pcct
            .pit(p)
            .map(|e| e.in_records.iter().map(|r| r.face).collect())
            .unwrap_or_default();
        for f in faces {
            self.outgoing_nack(p, f, reason);
        }
        self.reject_pending(now, p);
    }
}

/// The Interest without its ForwardingHint element (the other elements byte for
/// byte; the signed portion of a signed Interest does not cover the hint).
fn strip_forwarding_hint(interest: &Interest) -> Option<Interest> {
    let wire = interest.wire();
    let outer = tlv::read_element(wire, 0, wire.len()).ok()?;
    let mut body_len = 0;
    for e in tlv::Elements::new(wire, outer.value.clone()) {
        let e = e.ok()?;
        if e.typ != types::FORWARDING_HINT {
            body_len += e.range().len();
        }
    }
    let mut out = BytesMut::with_capacity(tlv::tlv_len(types::INTEREST, body_len));
    tlv::put_header(&mut out, types::INTEREST, body_len);
    for e in tlv::Elements::new(wire, outer.value.clone()) {
        let e = e.ok()?;
        if e.typ != types::FORWARDING_HINT {
            out.put_slice(&wire[e.range()]);
        }
    }
    Interest::decode(out.freeze()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_roundtrip() {
        for k in StrategyKind::ALL {
            assert_eq!(StrategyKind::from_name(&k.name()), Some(k));
        }
        let n = Name::from_uri("/localhost/nfd/strategy/best-route").unwrap();
        assert_eq!(StrategyKind::from_name(&n), Some(StrategyKind::BestRoute));
        assert_eq!(StrategyKind::Asf.uri(), "/localhost/nfd/strategy/asf/v=5");
        let with_params = Name::from_uri("/localhost/nfd/strategy/asf/v=5/max-timeouts~2").unwrap();
        assert_eq!(StrategyKind::from_name(&with_params), None);
        let bad = Name::from_uri("/localhost/nfd/strategy/best-route/v=3").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
        let bad = Name::from_uri("/localhost/nfd/strategy/ncc").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
    }

    #[test]
    fn strip_forwarding_hint_keeps_every_other_field() {
        let name = Name::from_uri("/a/b").unwrap();
        let i = Interest::builder(name.clone())
            .can_be_prefix(true)
            .forwarding_hint([Name::from_uri("/isp/x").unwrap()])
            .nonce(7)
            .lifetime_ms(1500)
            .hop_limit(9)
            .app_params(bytes::Bytes::from_static(b"p"))
            .build_view()
            .unwrap();
        let s = strip_forwarding_hint(&i).unwrap();
        assert!(s.forwarding_hint().is_empty());
        assert_eq!(s.name(), i.name());
        assert!(s.can_be_prefix());
        assert_eq!(
            (s.nonce(), s.lifetime_field(), s.hop_limit()),
            (Some(7), Some(1500), Some(9))
        );
        assert_eq!(s.app_params(), i.app_params());
        let expected = Interest::builder(name)
            .can_be_prefix(true)
            .nonce(7)
            .lifetime_ms(1500)
            .hop_limit(9)
            .app_params(bytes::Bytes::from_static(b"p"))
            .build();
        assert_eq!(s.wire(), &expected);
    }

    #[test]
    fn stripping_the_hint_keeps_a_signed_interest_valid() {
        use ndnlab_wire::DigestSha256;
        let signed = Interest::builder(Name::from_uri("/a/b").unwrap())
            .forwarding_hint([Name::from_uri("/isp").unwrap()])
            .nonce(1)
            .app_params(bytes::Bytes::from_static(b"x"))
            .sign_view(&DigestSha256)
            .unwrap();
        let s = strip_forwarding_hint(&signed).unwrap();
        assert!(s.forwarding_hint().is_empty() && s.is_signed());
        assert_eq!(s.params_digest(), signed.params_digest());
        assert!(DigestSha256::verify(
            &s.signed_portion().unwrap(),
            s.signature_value().unwrap()
        ));
    }
}
