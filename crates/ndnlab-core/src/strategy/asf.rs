//! ASF v5 (NFD 24.07 `AsfStrategy`, Adaptive Smoothed RTT-based Forwarding):
//!
//! * **Measurements** per (FIB prefix, face), kept 5 minutes after last use
//!   (NFD `MEASUREMENTS_LIFETIME`): an [`RttEstimator`] (SRTT, RTTVAR, RTO), the last
//!   RTT event ([`LastRtt`]: a sample, no measurement, or timed out) and a timeout count.
//! * **Per-face RTO timer**: forwarding an Interest to a face that has no timer armed
//!   arms one for the face's RTO (1 s before any sample). Data from the face cancels it
//!   when the timer's Interest name is a prefix of the satisfied name; when it fires the
//!   face counts a timeout: below `max-timeouts` (default 3) it is ignored, at
//!   `max-timeouts` the face is marked timed out and the count restarts. A Nack marks
//!   the face timed out at once. A fired timer also doubles the face's RTO (ndn-cxx
//!   `backoffRto`, up to 1 min) until the next RTT sample; NFD's ASF keeps the RTO
//!   unchanged there, this is the one deliberate difference.
//! * **Forwarding rank** (NFD `getFaceRankForForwarding`): working faces (last event an
//!   RTT sample) by SRTT, then unmeasured faces, then timed-out faces; ties by cost,
//!   then face id.
//! * **New Interest**: the best-ranked eligible face; none: Nack NoRoute. Then, if a
//!   probe is due for the prefix (first one at a random time within 5 s of the first
//!   Interest, then every `probing-interval`, default 60 s, min 1 s), a copy with a new
//!   Nonce goes to another face: the best unmeasured one if any, else one drawn with
//!   probability `(n + 1 - rank) / sum(ranks)` by probing rank (unmeasured, working by
//!   SRTT, timed out). Probes are not sent back to the downstream.
//! * **Retransmission**: the best-ranked eligible face without a pending out-record,
//!   else the eligible face with the oldest out-record; per-upstream exponential
//!   suppression (no per-entry suppression, as NFD's ASF).
//! * **Nack**: the face is marked timed out, then `ProcessNackTraits` (Nack downstream
//!   with the least severe reason once every upstream Nacked). No retry on another
//!   face: the consumer's retransmission will pick the next-ranked face.
//!
//! Parameters (`/localhost/nfd/strategy/asf/v=5/probing-interval~30000/max-timeouts~2`,
//! `retx-suppression-*`) are parsed in [`super::params`].
//!
//! * As NFD, a satisfied entry stays [`SATISFIED_GRACE`] (50 ms) in the PIT, with no
//!   downstream left, so the Data of a slower probe still finds its out-record and is
//!   measured; the entry is then finalized. (NFD restarts the 50 ms at each late Data;
//!   here they count from the first: the timer queue cannot cancel a timer, and
//!   restarting would need an 8-byte deadline in every PIT entry (243.5 -> ~251.5 of
//!   its 256-byte budget) for a difference only a third, later probe answer sees.)

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use bytes::Bytes;
use ndnlab_wire::{Interest, NackReason, Name};

use super::context::{Context, Hops};
use super::params::Params;
use super::retx::{self, Retx};
use super::rtt::RttEstimator;
use super::triggers::{Strategy, Triggers};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::pipeline::scope::would_violate_scope;
use crate::{Time, MS};

/// How long measurements live after their last use (NFD: 5 minutes).
pub const MEASUREMENTS_LIFETIME: Time = 300_000 * MS;
/// How long a satisfied ASF entry stays for late probe Data (NFD `setExpiryTimer(50_ms)`
/// in `AsfStrategy::beforeSatisfyInterest`).
pub const SATISFIED_GRACE: Time = 50 * MS;
/// Window of the first probe of a prefix (NFD: uniformly within 0..=5 s).
pub const FIRST_PROBE_WINDOW_MS: u64 = 5_000;
/// Interval of the sweep of expired measurements.
const SWEEP_INTERVAL: Time = 60_000 * MS;

/// The last RTT event of a face (NFD `FaceInfo::getLastRtt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LastRtt {
    /// Never answered nor timed out.
    #[default]
    NoMeasurement,
    /// Marked timed out (RTO timeouts reached `max-timeouts`, or a Nack).
    Timeout,
    /// Answered with this RTT.
    Rtt(Time),
}

/// A pending RTO timer of one face.
#[derive(Debug, Clone)]
struct PendingTimeout {
    /// Name (TLV-VALUE) of the Interest that armed it.
    name: Bytes,
    generation: u32,
    max_timeouts: u32,
}

#[derive(Debug, Clone, Default)]
struct FaceInfo {
    rtt: RttEstimator,
    last_rtt: LastRtt,
    n_timeouts: u32,
    timeout: Option<PendingTimeout>,
    expires: Time,
}

impl FaceInfo {
    /// NFD `cancelTimeout(name)`: cancel when the armed name is a prefix of `name`.
    fn cancel_timeout(&mut self, name: &[u8]) {
        if self
            .timeout
            .as_ref()
            .is_some_and(|t| name.starts_with(&t.name))
        {
            self.timeout = None;
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct NamespaceInfo {
    /// When the next probe is due (`None`: first probe not scheduled yet).
    next_probe: Option<Time>,
    expires: Time,
}

/// A face's rank: (group, SRTT or MAX, cost, face id), lower is better.
type Rank = (u8, Time, u64, u64);

/// ASF measurements of one face under one prefix (a snapshot, for tests and status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceStats {
    /// Smoothed RTT (`None` before the first sample).
    pub srtt: Option<Time>,
    /// RTT variation.
    pub rttvar: Time,
    /// Current retransmission timeout.
    pub rto: Time,
    /// Last RTT event.
    pub last_rtt: LastRtt,
    /// RTO timeouts counted toward `max-timeouts`.
    pub n_timeouts: u32,
    /// Whether an RTO timer is armed.
    pub timeout_pending: bool,
    /// RTT samples taken.
    pub samples: u64,
}

/// NFD's ASF strategy, with its measurements and RTO timers (shared by every
/// prefix using ASF, keyed by FIB prefix).
#[derive(Default)]
pub(crate) struct AsfStrategy {
    faces: HashMap<(u32, u64), FaceInfo>,
    namespaces: HashMap<u32, NamespaceInfo>,
    timers: BinaryHeap<Reverse<(Time, u32, u64, u32)>>,
    generation: u32,
    next_sweep: Time,
}

impl AsfStrategy {
    /// Measurements of `face` under the FIB prefix `prefix` (for tests and status).
    pub(crate) fn stats_of(&self, prefix: &Name, face: FaceId) -> Option<FaceStats> {
        let l = prefix.len();
        let key = crate::hash::key(prefix.prefix_hash(l), l) as u32;
        self.stats(key, face)
    }

    /// Measurements of `face` under the prefix with measurements key `key`.
    fn stats(&self, key: u32, face: FaceId) -> Option<FaceStats> {
        self.faces.get(&(key, face.0)).map(|f| FaceStats {
            srtt: f.rtt.srtt(),
            rttvar: f.rtt.rttvar(),
            rto: f.rtt.rto(),
            last_rtt: f.last_rtt,
            n_timeouts: f.n_timeouts,
            timeout_pending: f.timeout.is_some(),
            samples: f.rtt.samples(),
        })
    }

    /// Number of armed timers, cancelled ones included.
    pub(crate) fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    fn live(&self, key: u32, face: FaceId, now: Time) -> Option<&FaceInfo> {
        self.faces.get(&(key, face.0)).filter(|f| f.expires > now)
    }

    fn live_mut(&mut self, key: u32, face: FaceId, now: Time) -> Option<&mut FaceInfo> {
        self.faces
            .get_mut(&(key, face.0))
            .filter(|f| f.expires > now)
    }

    fn get_or_create(&mut self, key: u32, face: FaceId, now: Time) -> &mut FaceInfo {
        let f = self.faces.entry((key, face.0)).or_default();
        if f.expires <= now {
            *f = FaceInfo::default();
        }
        f.expires = now + MEASUREMENTS_LIFETIME;
        f
    }

    fn namespace(&mut self, key: u32, now: Time) -> &mut NamespaceInfo {
        let ns = self.namespaces.entry(key).or_default();
        if ns.expires <= now {
            *ns = NamespaceInfo::default();
        }
        ns.expires = now + MEASUREMENTS_LIFETIME;
        ns
    }

    /// Rank for forwarding: working by SRTT, unmeasured, timed out; then cost, face id.
    fn forwarding_rank(&self, key: u32, face: FaceId, cost: u64, now: Time) -> Rank {
        match self
            .live(key, face, now)
            .map(|f| (f.last_rtt, f.rtt.srtt()))
        {
            Some((LastRtt::Rtt(_), srtt)) => (1, srtt.unwrap_or(Time::MAX), cost, face.0),
            Some((LastRtt::Timeout, _)) => (3, Time::MAX, cost, face.0),
            _ => (2, Time::MAX, cost, face.0),
        }
    }

    /// Rank for probing: unmeasured, working by SRTT, timed out; then cost, face id.
    fn probing_rank(&self, key: u32, face: FaceId, cost: u64, now: Time) -> Rank {
        match self
            .live(key, face, now)
            .map(|f| (f.last_rtt, f.rtt.srtt()))
        {
            Some((LastRtt::Rtt(_), srtt)) => (2, srtt.unwrap_or(Time::MAX), cost, face.0),
            Some((LastRtt::Timeout, _)) => (3, Time::MAX, cost, face.0),
            _ => (1, Time::MAX, cost, face.0),
        }
    }

    /// NFD `onTimeoutOrNack`.
    fn on_timeout_or_nack(
        &mut self,
        key: u32,
        face: FaceId,
        name: &[u8],
        is_nack: bool,
        max_timeouts: u32,
        now: Time,
    ) {
        let Some(f) = self.live_mut(key, face, now) else {
            return;
        };
        f.n_timeouts += 1;
        if f.n_timeouts < max_timeouts && !is_nack {
            f.expires = now + MEASUREMENTS_LIFETIME;
            f.cancel_timeout(name);
        } else {
            f.last_rtt = LastRtt::Timeout;
            f.cancel_timeout(name);
            f.n_timeouts = 0;
        }
    }

    /// Fire due RTO timers.
    fn fire(&mut self, now: Time) {
        while let Some(&Reverse((at, key, face, generation))) = self.timers.peek() {
            if at > now {
                break;
            }
            self.timers.pop();
            let Some(f) = self.faces.get_mut(&(key, face)) else {
                continue;
            };
            if f.timeout.as_ref().map(|t| t.generation) != Some(generation) {
                continue; // cancelled or re-armed
            }
            let Some(t) = f.timeout.take() else { continue };
            f.rtt.backoff_rto();
            self.on_timeout_or_nack(key, FaceId(face), &t.name, false, t.max_timeouts, at);
        }
        if now >= self.next_sweep {
            self.faces.retain(|_, f| f.expires > now);
            self.namespaces.retain(|_, n| n.expires > now);
            self.next_sweep = now + SWEEP_INTERVAL;
        }
    }

    /// Drop cancelled timers once they outnumber the faces 4 to 1 (a timer is
    /// re-armed after every answered Interest, so cancelled ones pile up for an RTO).
    fn compact_timers(&mut self) {
        if self.timers.len() <= 4 * self.faces.len() + 4096 {
            return;
        }
        let faces = &self.faces;
        self.timers.retain(|Reverse((_, key, face, g))| {
            faces
                .get(&(*key, *face))
                .and_then(|f| f.timeout.as_ref())
                .is_some_and(|t| t.generation == *g)
        });
    }

    /// The best-ranked eligible face.
    #[allow(clippy::too_many_arguments)]
    fn best(
        &self,
        ctx: &Context<'_>,
        key: u32,
        hops: &Hops,
        from: FaceId,
        p: u32,
        name: &Name,
        want_unused: bool,
        now: Time,
    ) -> Option<FaceId> {
        hops.iter()
            .filter(|h| ctx.is_eligible(from, h.face, p, name, want_unused, now))
            .min_by_key(|h| self.forwarding_rank(key, h.face, h.cost, now))
            .map(|h| h.face)
    }

    /// NFD `AsfStrategy::forwardInterest`: send, then refresh the face's measurements
    /// and arm its RTO timer if none is armed.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        to: FaceId,
        interest: Interest,
        key: u32,
        max_timeouts: u32,
    ) {
        let name = interest.name().value();
        ctx.send_interest(now, from, p, to, interest);
        self.generation = self.generation.wrapping_add(1);
        let generation = self.generation;
        let f = self.get_or_create(key, to, now);
        if f.timeout.is_none() {
            let at = now.saturating_add(f.rtt.rto());
            f.timeout = Some(PendingTimeout {
                name,
                generation,
                max_timeouts,
            });
            self.timers.push(Reverse((at, key, to.0, generation)));
            self.compact_timers();
        }
    }

    /// NFD `ProbingModule::isProbingNeeded` + `getFaceToProbe`: the face to probe, if a
    /// probe is due and a candidate exists (the probe schedule advances only when a
    /// probe is actually sent).
    #[allow(clippy::too_many_arguments)]
    fn face_to_probe(
        &mut self,
        ctx: &mut Context<'_>,
        key: u32,
        hops: &Hops,
        from: FaceId,
        used: FaceId,
        name: &Name,
        now: Time,
    ) -> Option<FaceId> {
        match self.namespace(key, now).next_probe {
            None => {
                let first_delay = (ctx.random() % (FIRST_PROBE_WINDOW_MS + 1)) * MS;
                self.namespace(key, now).next_probe = Some(now + first_delay);
                return None; // NFD's first probe event fires later, never immediately
            }
            Some(t) if now < t => return None,
            Some(_) => {}
        }
        let inf = ctx.face(from)?;
        let mut ranked: smallvec::SmallVec<[(Rank, FaceId); 4]> = hops
            .iter()
            .filter(|h| h.face != from && h.face != used)
            .filter(|h| {
                ctx.face(h.face)
                    .is_some_and(|outf| !would_violate_scope(inf, name, outf))
            })
            .map(|h| (self.probing_rank(key, h.face, h.cost, now), h.face))
            .collect();
        if ranked.is_empty() {
            return None;
        }
        ranked.sort_unstable_by_key(|(r, _)| *r);
        if ranked[0].0 .0 == 1 {
            return Some(ranked[0].1); // an unmeasured face is always probed first
        }
        // p(rank j) = (n + 1 - j) / (n (n + 1) / 2), j = 1..=n
        let n = ranked.len() as u64;
        let sum = n * (n + 1) / 2;
        let mut r = ctx.random() % sum;
        for (j, (_, f)) in ranked.iter().enumerate() {
            let w = n - j as u64;
            if r < w {
                return Some(*f);
            }
            r -= w;
        }
        ranked.last().map(|(_, f)| *f)
    }
}

impl Strategy for AsfStrategy {
    const TRIGGERS: Triggers = Triggers {
        before_satisfy: true,
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
        _non_discovery: bool,
    ) {
        let prm: Params = ctx.params(interest.name(), hashes);
        let (hops, key) = ctx.lookup_fib(&interest, hashes);
        let Some(e) = ctx.pit_mut(p) else {
            return;
        };
        e.measure_key = key;
        let is_new = !e.has_pending_out_records(now);
        let name = interest.name().clone();
        let max_timeouts = prm.max_timeouts;
        if is_new {
            let Some(best) = self.best(ctx, key, &hops, from, p, &name, false, now) else {
                ctx.no_route(now, from, p);
                return;
            };
            let probe = self.face_to_probe(ctx, key, &hops, from, best, &name, now);
            match probe {
                None => self.forward(ctx, now, from, p, best, interest, key, max_timeouts),
                Some(pf) => {
                    let mut pi = interest.clone();
                    self.forward(ctx, now, from, p, best, interest, key, max_timeouts);
                    pi.set_nonce(ctx.random() as u32);
                    self.forward(ctx, now, from, p, pf, pi, key, max_timeouts);
                    if let Some(e) = ctx.pit_mut(p) {
                        e.flags.probed = true;
                    }
                    self.namespace(key, now).next_probe =
                        Some(now.saturating_add(prm.probing_interval));
                }
            }
            return;
        }
        // Retransmission: the best unused face (with measurements), else the oldest out-record.
        let (to, measured) = match self.best(ctx, key, &hops, from, p, &name, true, now) {
            Some(f) => (f, true),
            None => match ctx.earliest_out_record(from, p, &hops, &name, now) {
                Some(f) => (f, false),
                None => {
                    ctx.drop_packet(DropReason::NoEligibleNextHop);
                    return;
                }
            },
        };
        let decision = retx::per_upstream(ctx.pit(p), to, now, &prm.retx);
        if decision == Retx::Suppress {
            ctx.drop_packet(DropReason::RetxSuppressed);
            return;
        }
        if measured {
            self.forward(ctx, now, from, p, to, interest, key, max_timeouts);
        } else {
            ctx.send_interest(now, from, p, to, interest);
        }
        if decision == Retx::Forward {
            retx::increment_upstream(ctx.pit_mut(p), to, &prm.retx);
        }
    }

    /// Data from `from` satisfies `p`: RTT sample, timer cancel, count reset; the entry
    /// stays [`SATISFIED_GRACE`] for late probe Data.
    fn before_satisfy(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        _data_name: &Name,
    ) -> Time {
        let keep = SATISFIED_GRACE;
        let Some(e) = ctx.pit(p) else { return keep };
        let key = e.measure_key;
        let rtt = e
            .out_record(from)
            .map(|o| now.saturating_sub(o.last_renewed));
        let name = ctx.entry_name(e);
        let Some(f) = self.live_mut(key, from, now) else {
            return keep;
        };
        if let Some(rtt) = rtt {
            f.last_rtt = LastRtt::Rtt(rtt);
            f.rtt.add_measurement(rtt);
        }
        f.expires = now + MEASUREMENTS_LIFETIME;
        f.cancel_timeout(name);
        f.n_timeouts = 0;
        keep
    }

    /// Nack from `from`: the face is marked timed out, then `ProcessNackTraits`.
    fn after_receive_nack(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        _reason: NackReason,
    ) {
        let Some(e) = ctx.pit(p) else { return };
        let key = e.measure_key;
        let name = Bytes::copy_from_slice(ctx.entry_name(e));
        self.on_timeout_or_nack(key, from, &name, true, 0, now);
        ctx.process_nack(now, p);
    }

    /// Fire due RTO timers, sweep expired measurements.
    fn handle_timeout(&mut self, _ctx: &mut Context<'_>, now: Time) {
        self.fire(now);
    }

    /// Earliest armed RTO timer (possibly a cancelled one: waking early is harmless).
    fn next_timeout(&self) -> Option<Time> {
        self.timers.peek().map(|Reverse((t, ..))| *t)
    }

    fn remove_face(&mut self, face: FaceId) {
        self.faces.retain(|(_, f), _| *f != face.0);
    }
}
