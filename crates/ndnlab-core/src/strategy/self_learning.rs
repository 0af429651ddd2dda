//! self-learning v1 (NFD `SelfLearningStrategy`): learn a single path toward the Data
//! by broadcasting, then follow the learned route.
//!
//! * **Interest** marked NonDiscovery (NDNLPv2 field 844, in [`LpMeta::non_discovery`]):
//!   sent to every eligible FIB next hop, still marked; no next hop: Nack NoRoute and
//!   reject the entry.
//! * **Discovery Interest** (unmarked): with FIB next hops, sent to every eligible one
//!   *marked* NonDiscovery; without, **broadcast** unmarked to every non-local face but
//!   the downstream (unless ad hoc), scope permitting, highest face id first.
//! * **Data** (when it is the only PIT entry matched, NFD's `afterReceiveData`):
//!   * answer to a discovery Interest (unmarked out-record): a PrefixAnnouncement on the
//!     Data becomes a route toward the upstream ([`RibRequest::Announce`], at most
//!     [`ROUTE_RENEW_LIFETIME`]); the Data goes to every pending downstream, its
//!     announcement with it;
//!   * answer to a NonDiscovery Interest: sent to the downstreams as is, unless some
//!     pending downstream asked by discovery and some is not a local application: then
//!     the Data needs an announcement, which the RIB provides
//!     ([`RibRequest::FindAnnouncement`], answered through
//!     [`Forwarder::handle_announcement`]); the entry waits up to 1 s for it, and the
//!     Data goes out with it (nothing goes out if the RIB has none);
//!   * no out-record for the upstream: nothing is sent.
//! * **Nack** NoRoute: every downstream is Nacked and the route toward the upstream
//!   learned from an announcement is dropped ([`RibRequest::Renew`] with a zero
//!   lifetime); other Nacks are ignored.
//!
//! The core owns no RIB: the requests queue up for the runtime
//! ([`Forwarder::poll_rib_request`]), which applies them to its RIB as NFD's
//! `RibManager::slAnnounce`, `slRenew` and `slFindAnn` do, and whose FIB changes come
//! back as usual.

use std::collections::{HashMap, VecDeque};

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, NackReason, Name};
use smallvec::SmallVec;

use crate::face::{FaceId, FaceScope, LinkType};
use crate::forwarder::{Forwarder, LpMeta};
use crate::pipeline::scope::would_violate_scope;
use crate::{Time, MS};

/// Longest lifetime of a route learned from a Data's announcement (NFD: 10 minutes).
pub const ROUTE_RENEW_LIFETIME: Time = 600_000 * MS;
/// How long an entry waits for the RIB's announcement (NFD `setExpiryTimer(1_s)`).
pub const ANNOUNCEMENT_WAIT: Time = 1_000 * MS;

/// A request of self-learning to the RIB, for the runtime to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RibRequest {
    /// NFD `slAnnounce`: add the route of `announcement` (a prefix-announcement Data
    /// TLV) toward `face`: origin prefix-announcement (129), cost 2048,
    /// CHILD_INHERIT, expiring at the earlier of the announcement's end and
    /// `max_lifetime` from now.
    Announce {
        /// The prefix-announcement Data TLV.
        announcement: Bytes,
        /// The upstream the Data came from.
        face: FaceId,
        /// Longest lifetime of the route.
        max_lifetime: Time,
    },
    /// NFD `slRenew`: the announcement route of `face` at `name` (or, failing that, at
    /// the longest RIB prefix of `name`) now expires at the earlier of its
    /// announcement's end and `max_lifetime` from now; 0 removes it.
    Renew {
        /// The Interest name.
        name: Name,
        /// The upstream.
        face: FaceId,
        /// Longest remaining lifetime.
        max_lifetime: Time,
    },
    /// NFD `slFindAnn`: an announcement for `name` from the RIB (that of the RIB entry
    /// of `name` or of its longest prefix), to answer with
    /// [`Forwarder::handle_announcement`] and `id`.
    FindAnnouncement {
        /// The Data name.
        name: Name,
        /// Request id to answer with.
        id: u64,
    },
}

/// A Data waiting for the RIB's announcement.
#[derive(Debug, Clone)]
struct PendingData {
    p: u32,
    generation: u32,
    from: FaceId,
    wire: Bytes,
    congestion_mark: u64,
    localhost: bool,
}

/// Self-learning state: the RIB requests not yet taken and the Data waiting for an
/// announcement.
#[derive(Default)]
pub struct SelfLearningState {
    requests: VecDeque<RibRequest>,
    pending: HashMap<u64, PendingData>,
    next_id: u64,
}

impl Forwarder {
    /// The next request of self-learning to the RIB (drain after every input batch,
    /// as the transmits).
    pub fn poll_rib_request(&mut self) -> Option<RibRequest> {
        self.self_learning.requests.pop_front()
    }

    /// Number of Data waiting for an announcement from the RIB.
    pub fn pending_announcements(&self) -> usize {
        self.self_learning.pending.len()
    }

    /// The RIB's answer to [`RibRequest::FindAnnouncement`] `id`: with an
    /// announcement, the waiting Data goes to every pending downstream with it and the
    /// entry is satisfied; without, the Data is not sent (the entry expires).
    pub fn handle_announcement(&mut self, now: Time, id: u64, announcement: Option<Bytes>) {
        let Some(d) = self.self_learning.pending.remove(&id) else {
            return;
        };
        let Some(ann) = announcement else { return };
        if !self.pcct.pit_live(d.p, d.generation) || !self.has_face(d.from) {
            return;
        }
        let meta = LpMeta {
            congestion_mark: d.congestion_mark,
            incoming_face_id: d.from.incoming_face_id(),
            prefix_announcement: Some(Box::new(ann)),
            ..Default::default()
        };
        self.self_learning_send_to_all(now, d.p, d.from, d.wire, d.localhost, &meta);
        if let Some(e) = self.pcct.pit_mut(d.p) {
            e.flags.satisfied = true;
        }
        self.finalize(now, d.p);
    }

    /// Drops waiting Data whose entry is gone (called by `handle_timeout`).
    pub(crate) fn self_learning_handle_timeout(&mut self) {
        if self.self_learning.pending.is_empty() {
            return;
        }
        let pcct = &self.pcct;
        self.self_learning
            .pending
            .retain(|_, d| pcct.pit_live(d.p, d.generation));
    }

    pub(crate) fn self_learning_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        non_discovery: bool,
    ) {
        let (hops, _) = self.lookup_fib(&interest, hashes);
        if let Some(r) = self
            .pcct
            .pit_mut(p)
            .and_then(|e| e.in_records.iter_mut().find(|r| r.face == from))
        {
            r.non_discovery = non_discovery;
        }
        if hops.is_empty() {
            if non_discovery {
                self.no_route(now, from, p);
            } else {
                self.self_learning_broadcast(now, from, p, interest);
            }
            return;
        }
        // With a route, the Interest goes on marked NonDiscovery.
        let name = interest.name();
        let targets: SmallVec<[FaceId; 4]> = hops
            .iter()
            .filter(|h| self.is_eligible(from, h.face, p, name, false, now))
            .map(|h| h.face)
            .collect();
        for to in targets {
            self.self_learning_send(now, from, p, to, interest.clone(), true);
        }
    }

    fn self_learning_send(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        non_discovery: bool,
    ) {
        let nonce = interest.nonce().unwrap_or(0);
        let expiry = now.saturating_add(interest.lifetime_ns());
        self.outgoing_interest_meta(now, from, p, to, interest, nonce, expiry, non_discovery);
    }

    /// NFD `broadcastInterest`: every non-local face but the downstream (unless ad
    /// hoc), scope permitting, in decreasing face id order (NFD walks its face table
    /// backwards).
    fn self_learning_broadcast(&mut self, now: Time, from: FaceId, p: u32, interest: Interest) {
        let Some(inf) = self.face(from) else { return };
        let name = interest.name();
        let mut targets: SmallVec<[FaceId; 8]> = self
            .faces
            .iter()
            .filter(|(id, f)| {
                let same = **id == from.0 && f.link != LinkType::AdHoc;
                !same && f.scope != FaceScope::Local && !would_violate_scope(inf, name, f)
            })
            .map(|(id, _)| FaceId(*id))
            .collect();
        targets.sort_unstable_by(|a, b| b.cmp(a));
        for to in targets {
            self.self_learning_send(now, from, p, to, interest.clone(), false);
        }
    }

    /// NFD `SelfLearningStrategy::afterReceiveData`, for the only PIT entry `p` the Data
    /// matched: sends (or holds) the Data, then finishes the entry as the Data
    /// pipeline does. The Data is already in the CS.
    pub(crate) fn self_learning_after_receive_data(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        data: Data,
        meta: &LpMeta,
        localhost: bool,
    ) {
        let Some(e) = self.pcct.pit(p) else { return };
        let out_meta = LpMeta {
            congestion_mark: meta.congestion_mark,
            incoming_face_id: from.incoming_face_id(),
            prefix_announcement: meta.prefix_announcement.clone(),
            ..Default::default()
        };
        let mut wait = false;
        match e.out_record(from).map(|o| o.non_discovery) {
            None => {} // no out-record: nothing to send
            Some(true) => {
                if self.self_learning_needs_announcement(now, p) {
                    wait = true;
                    let id = self.self_learning.next_id;
                    self.self_learning.next_id += 1;
                    let name = data.name().clone();
                    self.self_learning.pending.insert(
                        id,
                        PendingData {
                            p,
                            generation: self.pcct.generation_of(p),
                            from,
                            wire: data.into_wire(),
                            congestion_mark: meta.congestion_mark,
                            localhost,
                        },
                    );
                    self.self_learning
                        .requests
                        .push_back(RibRequest::FindAnnouncement { name, id });
                } else {
                    let wire = data.into_wire();
                    self.self_learning_send_to_all(now, p, from, wire, localhost, &out_meta);
                }
            }
            Some(false) => {
                if let Some(ann) = meta.prefix_announcement() {
                    self.self_learning.requests.push_back(RibRequest::Announce {
                        announcement: ann.clone(),
                        face: from,
                        max_lifetime: ROUTE_RENEW_LIFETIME,
                    });
                }
                let wire = data.into_wire();
                self.self_learning_send_to_all(now, p, from, wire, localhost, &out_meta);
            }
        }
        // The Data pipeline's end for the entry: satisfied, the upstream's out-record
        // gone, finalized; or kept until the announcement comes (at most 1 s).
        let Some(e) = self.pcct.pit_mut(p) else {
            return;
        };
        e.flags.satisfied = true;
        if wait || e.flags.must_be_fresh {
            e.out_records.retain(|o| o.face != from);
        }
        if !wait {
            self.finalize_satisfied(now, p);
            return;
        }
        let deadline = now + ANNOUNCEMENT_WAIT;
        for r in e.in_records.iter_mut() {
            r.expiry = r.expiry.min(deadline);
        }
        let generation = self.pcct.generation_of(p);
        self.timers.push(deadline, p, generation);
    }

    /// NFD `needPrefixAnn`: some pending downstream asked by discovery, and not every
    /// pending downstream is a local application.
    fn self_learning_needs_announcement(&self, now: Time, p: u32) -> bool {
        let Some(e) = self.pcct.pit(p) else {
            return false;
        };
        let mut discovery = false;
        let mut direct_to_consumer = true;
        for r in e.in_records.iter().filter(|r| r.expiry > now) {
            discovery |= !r.non_discovery;
            if self.face(r.face).is_none_or(|f| !f.is_local()) {
                direct_to_consumer = false;
            }
        }
        discovery && !direct_to_consumer
    }

    /// NFD `sendDataToAll`: the Data to every pending downstream but the upstream
    /// (unless ad hoc), each with its PIT token.
    fn self_learning_send_to_all(
        &mut self,
        now: Time,
        p: u32,
        from: FaceId,
        wire: Bytes,
        localhost: bool,
        meta: &LpMeta,
    ) {
        let ingress_adhoc = self.face(from).is_some_and(|f| f.link == LinkType::AdHoc);
        let Some(e) = self.pcct.pit_mut(p) else {
            return;
        };
        let mut downstreams: SmallVec<[(FaceId, Option<Bytes>); 4]> = SmallVec::new();
        for r in e.in_records.iter_mut() {
            if r.expiry <= now || (r.face == from && !ingress_adhoc) {
                continue;
            }
            downstreams.push((r.face, r.take_token()));
        }
        for (to, token) in downstreams {
            let m = LpMeta {
                pit_token: token,
                ..meta.clone()
            };
            self.outgoing_data(to, wire.clone(), localhost, m);
        }
    }

    /// NFD `SelfLearningStrategy::afterReceiveNack`.
    pub(crate) fn self_learning_after_receive_nack(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        reason: NackReason,
    ) {
        if reason != NackReason::NoRoute {
            return;
        }
        let name = self
            .stored_interest(p)
            .map(|i| i.name().clone())
            .unwrap_or_default();
        self.send_nacks(now, p, reason);
        self.self_learning.requests.push_back(RibRequest::Renew {
            name,
            face: from,
            max_lifetime: 0,
        });
    }
}
