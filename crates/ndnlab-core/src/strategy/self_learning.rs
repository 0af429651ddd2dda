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
//!     [`Forwarder::handle_announcement`](crate::Forwarder::handle_announcement)); the entry waits up to 1 s for it, and the
//!     Data goes out with it (nothing goes out if the RIB has none);
//!   * no out-record for the upstream: nothing is sent.
//! * **Nack** NoRoute: every downstream is Nacked and the route toward the upstream
//!   learned from an announcement is dropped ([`RibRequest::Renew`] with a zero
//!   lifetime); other Nacks are ignored.
//!
//! The core owns no RIB: the requests queue up for the runtime
//! ([`Forwarder::poll_rib_request`](crate::Forwarder::poll_rib_request)), which applies them to its RIB as NFD's
//! `RibManager::slAnnounce`, `slRenew` and `slFindAnn` do, and whose FIB changes come
//! back as usual.

use std::collections::{HashMap, VecDeque};

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, NackReason, Name};
use smallvec::SmallVec;

use super::context::Context;
use super::triggers::{Strategy, Triggers};
use crate::face::{FaceId, FaceScope, LinkType};
use crate::packet::LpMeta;
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
    /// [`Forwarder::handle_announcement`](crate::Forwarder::handle_announcement) and `id`.
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

/// NFD's self-learning strategy, with the RIB requests not yet taken and the Data
/// waiting for an announcement.
#[derive(Default)]
pub(crate) struct SelfLearningStrategy {
    requests: VecDeque<RibRequest>,
    pending: HashMap<u64, PendingData>,
    next_id: u64,
}

impl SelfLearningStrategy {
    /// The next request to the RIB.
    pub(crate) fn poll_rib_request(&mut self) -> Option<RibRequest> {
        self.requests.pop_front()
    }

    /// Number of Data waiting for an announcement from the RIB.
    pub(crate) fn pending_announcements(&self) -> usize {
        self.pending.len()
    }

    /// The RIB's answer to [`RibRequest::FindAnnouncement`] `id`: with an
    /// announcement, the waiting Data goes to every pending downstream with it and the
    /// entry is satisfied; without, the Data is not sent (the entry expires).
    pub(crate) fn handle_announcement(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        id: u64,
        announcement: Option<Bytes>,
    ) {
        let Some(d) = self.pending.remove(&id) else {
            return;
        };
        let Some(ann) = announcement else { return };
        if !ctx.is_live(d.p, d.generation) || !ctx.has_face(d.from) {
            return;
        }
        let meta = LpMeta {
            congestion_mark: d.congestion_mark,
            incoming_face_id: d.from.incoming_face_id(),
            prefix_announcement: Some(Box::new(ann)),
            ..Default::default()
        };
        send_to_all(ctx, now, d.p, d.from, d.wire, d.localhost, &meta);
        if let Some(e) = ctx.pit_mut(d.p) {
            e.flags.satisfied = true;
        }
        ctx.finalize(now, d.p);
    }
}

/// NFD `broadcastInterest`: every non-local face but the downstream (unless ad
/// hoc), scope permitting, in decreasing face id order (NFD walks its face table
/// backwards).
fn broadcast(ctx: &mut Context<'_>, now: Time, from: FaceId, p: u32, interest: Interest) {
    let Some(inf) = ctx.face(from) else { return };
    let name = interest.name();
    let mut targets: SmallVec<[FaceId; 8]> = ctx
        .faces()
        .filter(|(id, f)| {
            let same = *id == from && f.link != LinkType::AdHoc;
            !same && f.scope != FaceScope::Local && !would_violate_scope(inf, name, f)
        })
        .map(|(id, _)| id)
        .collect();
    targets.sort_unstable_by(|a, b| b.cmp(a));
    for to in targets {
        ctx.send_interest_marked(now, from, p, to, interest.clone(), false);
    }
}

/// NFD `needPrefixAnn`: some pending downstream asked by discovery, and not every
/// pending downstream is a local application.
fn needs_announcement(ctx: &Context<'_>, now: Time, p: u32) -> bool {
    let Some(e) = ctx.pit(p) else {
        return false;
    };
    let mut discovery = false;
    let mut direct_to_consumer = true;
    for r in e.in_records.iter().filter(|r| r.expiry > now) {
        discovery |= !r.non_discovery;
        if ctx.face(r.face).is_none_or(|f| !f.is_local()) {
            direct_to_consumer = false;
        }
    }
    discovery && !direct_to_consumer
}

/// NFD `sendDataToAll`: the Data to every pending downstream but the upstream
/// (unless ad hoc), each with its PIT token.
fn send_to_all(
    ctx: &mut Context<'_>,
    now: Time,
    p: u32,
    from: FaceId,
    wire: Bytes,
    localhost: bool,
    meta: &LpMeta,
) {
    let ingress_adhoc = ctx.face(from).is_some_and(|f| f.link == LinkType::AdHoc);
    let Some(e) = ctx.pit_mut(p) else {
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
        ctx.send_data(to, wire.clone(), localhost, m);
    }
}

impl Strategy for SelfLearningStrategy {
    const TRIGGERS: Triggers = Triggers {
        after_receive_data: true,
        ..Triggers::NONE
    };

    fn after_receive_interest(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
        _sent: (u32, Time),
        non_discovery: bool,
    ) {
        let (hops, _) = ctx.lookup_fib(&interest, hashes);
        if let Some(r) = ctx
            .pit_mut(p)
            .and_then(|e| e.in_records.iter_mut().find(|r| r.face == from))
        {
            r.non_discovery = non_discovery;
        }
        if hops.is_empty() {
            if non_discovery {
                ctx.no_route(now, from, p);
            } else {
                broadcast(ctx, now, from, p, interest);
            }
            return;
        }
        // With a route, the Interest goes on marked NonDiscovery.
        let name = interest.name();
        let targets: SmallVec<[FaceId; 4]> = hops
            .iter()
            .filter(|h| ctx.is_eligible(from, h.face, p, name, false, now))
            .map(|h| h.face)
            .collect();
        for to in targets {
            ctx.send_interest_marked(now, from, p, to, interest.clone(), true);
        }
    }

    /// NFD `SelfLearningStrategy::afterReceiveData`, for the only PIT entry `p` the Data
    /// matched: sends (or holds) the Data, then finishes the entry as the Data
    /// pipeline does. The Data is already in the CS.
    fn after_receive_data(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        data: &Data,
        meta: &LpMeta,
        localhost: bool,
    ) -> bool {
        let Some(e) = ctx.pit(p) else { return true };
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
                if needs_announcement(ctx, now, p) {
                    wait = true;
                    let id = self.next_id;
                    self.next_id += 1;
                    let name = data.name().clone();
                    self.pending.insert(
                        id,
                        PendingData {
                            p,
                            generation: ctx.generation(p),
                            from,
                            wire: data.wire().clone(),
                            congestion_mark: meta.congestion_mark,
                            localhost,
                        },
                    );
                    self.requests
                        .push_back(RibRequest::FindAnnouncement { name, id });
                } else {
                    let wire = data.wire().clone();
                    send_to_all(ctx, now, p, from, wire, localhost, &out_meta);
                }
            }
            Some(false) => {
                if let Some(ann) = meta.prefix_announcement() {
                    self.requests.push_back(RibRequest::Announce {
                        announcement: ann.clone(),
                        face: from,
                        max_lifetime: ROUTE_RENEW_LIFETIME,
                    });
                }
                let wire = data.wire().clone();
                send_to_all(ctx, now, p, from, wire, localhost, &out_meta);
            }
        }
        // The Data pipeline's end for the entry: satisfied, the upstream's out-record
        // gone, finalized; or kept until the announcement comes (at most 1 s).
        let Some(e) = ctx.pit_mut(p) else {
            return true;
        };
        e.flags.satisfied = true;
        if wait || e.flags.must_be_fresh {
            e.out_records.retain(|o| o.face != from);
        }
        if !wait {
            ctx.finalize_satisfied(now, p);
            return true;
        }
        let deadline = now + ANNOUNCEMENT_WAIT;
        for r in e.in_records.iter_mut() {
            r.expiry = r.expiry.min(deadline);
        }
        ctx.set_expiry_timer(p, deadline);
        true
    }

    /// NFD `SelfLearningStrategy::afterReceiveNack`.
    fn after_receive_nack(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        reason: NackReason,
    ) {
        if reason != NackReason::NoRoute {
            return;
        }
        let name = ctx
            .stored_interest(p)
            .map(|i| i.name().clone())
            .unwrap_or_default();
        ctx.send_nacks(now, p, reason);
        self.requests.push_back(RibRequest::Renew {
            name,
            face: from,
            max_lifetime: 0,
        });
    }

    /// Drops waiting Data whose entry is gone.
    fn handle_timeout(&mut self, ctx: &mut Context<'_>, _now: Time) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.retain(|_, d| ctx.is_live(d.p, d.generation));
    }
}
