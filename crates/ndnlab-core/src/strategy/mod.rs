//! Forwarding strategies (NFD triggers), selected per namespace by StrategyChoice.
//!
//! | kind | NFD name | file |
//! |---|---|---|
//! | [`StrategyKind::BestRoute`] | `/localhost/nfd/strategy/best-route/v=5` | `best_route.rs` |
//! | [`StrategyKind::Multicast`] | `/localhost/nfd/strategy/multicast/v=5` | `multicast.rs` |
//! | [`StrategyKind::Asf`] | `/localhost/nfd/strategy/asf/v=4` | `asf.rs` |
//!
//! Triggers: `after_receive_interest`, `after_receive_nack`, `before_satisfy`
//! (Data arrived for an entry), `on_unsatisfied` (entry expired or rejected).
//! Shared actions (FIB lookup with ForwardingHint, next-hop eligibility, NFD's
//! RetxSuppressionExponential, Nack processing) are in this file and `retx.rs`.

pub mod asf;
mod best_route;
mod multicast;
mod retx;

use ndnlab_wire::{Interest, NackReason, Name};
use smallvec::SmallVec;

use crate::face::{FaceId, LinkType};
use crate::fib::NextHop;
use crate::forwarder::Forwarder;
use crate::pipeline::scope::would_violate_scope;
use crate::pit::PitEntry;
use crate::Time;

pub(crate) use retx::Retx;

/// The strategies this forwarder implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StrategyKind {
    /// Best route (lowest cost), with exponential retransmission suppression.
    #[default]
    BestRoute,
    /// Every next hop.
    Multicast,
    /// Adaptive SRTT-based forwarding with probing.
    Asf,
}

const PREFIX: &str = "/localhost/nfd/strategy/";

impl StrategyKind {
    /// Every kind.
    pub const ALL: [StrategyKind; 3] = [
        StrategyKind::BestRoute,
        StrategyKind::Multicast,
        StrategyKind::Asf,
    ];

    fn short(self) -> &'static str {
        match self {
            StrategyKind::BestRoute => "best-route",
            StrategyKind::Multicast => "multicast",
            StrategyKind::Asf => "asf",
        }
    }

    /// Implemented version.
    pub fn version(self) -> u64 {
        match self {
            StrategyKind::BestRoute | StrategyKind::Multicast => 5,
            StrategyKind::Asf => 4,
        }
    }

    /// NFD's versioned strategy name as a URI.
    pub fn uri(self) -> String {
        format!("{PREFIX}{}/v={}", self.short(), self.version())
    }

    /// NFD's versioned strategy name.
    pub fn name(self) -> Name {
        Name::from_uri(&self.uri()).expect("valid strategy name")
    }

    /// The strategy named `name`: `/localhost/nfd/strategy/<name>` with the implemented
    /// version or without a version (meaning the latest).
    pub fn from_name(name: &Name) -> Option<StrategyKind> {
        let uri = name.to_string();
        let rest = uri.strip_prefix(PREFIX)?;
        let (short, version) = match rest.split_once('/') {
            Some((s, v)) => (s, Some(v)),
            None => (rest, None),
        };
        let kind = StrategyKind::ALL.into_iter().find(|k| k.short() == short)?;
        match version {
            None => Some(kind),
            Some(v) if v == format!("v={}", kind.version()) => Some(kind),
            Some(_) => None,
        }
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.uri())
    }
}

/// Next hops copied out of the FIB (strategies mutate the forwarder while iterating).
pub(crate) type Hops = SmallVec<[NextHop; 4]>;

impl Forwarder {
    /// Trigger: a new or retransmitted Interest needs forwarding.
    pub(crate) fn after_receive_interest(
        &mut self,
        kind: StrategyKind,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
    ) {
        match kind {
            StrategyKind::BestRoute => {
                self.best_route_after_receive_interest(now, from, p, interest, hashes)
            }
            StrategyKind::Multicast => {
                self.multicast_after_receive_interest(now, from, p, interest, hashes)
            }
            StrategyKind::Asf => self.asf_after_receive_interest(now, from, p, interest, hashes),
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
            StrategyKind::BestRoute | StrategyKind::Multicast => self.process_nack(now, p),
            StrategyKind::Asf => self.asf_after_receive_nack(now, from, p, reason),
        }
    }

    /// Trigger: Data from `from` is about to satisfy entry `p`.
    pub(crate) fn before_satisfy(&mut self, kind: StrategyKind, now: Time, from: FaceId, p: u32) {
        if kind == StrategyKind::Asf {
            self.asf_before_satisfy(now, from, p);
        }
    }

    /// Trigger: entry `e` is finalized unsatisfied.
    pub(crate) fn strategy_on_unsatisfied(&mut self, _now: Time, e: &PitEntry) {
        if e.strategy == StrategyKind::Asf {
            self.asf.on_unsatisfied(e);
        }
    }

    /// FIB lookup for an Interest (NFD `Strategy::lookupFib`, without a network region
    /// table): with a ForwardingHint, the first delegation whose longest-prefix match
    /// has next hops (the default route included), else nothing; without one, by name.
    /// Returns the next hops and the measurements key of the matched prefix.
    pub(crate) fn lookup_fib(&self, interest: &Interest, hashes: &[u64]) -> (Hops, u32) {
        let hints = interest.forwarding_hint();
        if !hints.is_empty() {
            for hint in hints {
                let h = crate::hash::prefix_hashes(hint);
                if let Some(id) = self.fib.lpm_with(hint, &h) {
                    let hops = self.fib.nexthops(id);
                    if !hops.is_empty() {
                        let l = self.fib.prefix(id).len();
                        return (
                            hops.iter().copied().collect(),
                            crate::hash::key(h[l], l) as u32,
                        );
                    }
                }
            }
            return (Hops::new(), 0);
        }
        match self.fib.lpm_with(interest.name(), hashes) {
            Some(id) => {
                let l = self.fib.prefix(id).len();
                (
                    self.fib.nexthops(id).iter().copied().collect(),
                    crate::hash::key(hashes[l], l) as u32,
                )
            }
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

    /// No usable next hop: Nack NoRoute to the downstream and reject the entry.
    pub(crate) fn no_route(&mut self, now: Time, from: FaceId, p: u32) {
        self.outgoing_nack(p, from, NackReason::NoRoute);
        self.reject_pending(now, p);
    }

    /// NFD `ProcessNackTraits::processNack`: once every upstream Nacked, Nack every
    /// downstream with the least severe reason and reject the entry.
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
        assert_eq!(StrategyKind::Asf.uri(), "/localhost/nfd/strategy/asf/v=4");
        let bad = Name::from_uri("/localhost/nfd/strategy/best-route/v=3").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
        let bad = Name::from_uri("/localhost/nfd/strategy/ncc").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
    }
}
