//! access v1 (NFD `AccessStrategy`), for the last hop toward lossy consumers where the
//! FIB is mostly right:
//!
//! * **Retransmissions** are told from new Interests by NFD's `RetxSuppressionFixed`
//!   (per PIT entry, 100 ms): with a pending out-record, an Interest within 100 ms of
//!   the last one sent is dropped ([`DropReason::RetxSuppressed`]), a later one is a
//!   retransmission and goes to every next hop.
//! * **Measurements** per prefix: the parent of each Data name (the Data name itself
//!   when the parent is not under access) remembers the last next hop that brought
//!   Data and an RTT estimate of it; they live 8 s after the last Data. Each face also
//!   has an RTT estimate of its own, copied to a prefix when that prefix switches to
//!   the face.
//! * **New Interest**: if the longest-prefix measurements of its name name a last next
//!   hop that is not the downstream, is still a FIB next hop, and does not violate
//!   scope, the Interest goes there alone and an RTO timer (the prefix's RTO: 1 s before
//!   any sample) is armed for the entry; else it goes to every next hop but the
//!   downstream (scope permitting), and when it goes nowhere the entry is rejected
//!   without a Nack, as in NFD.
//! * **RTO timeout** (the entry still pending): the downstream's Interest goes to every
//!   next hop except the downstream and the last next hop it was tried on.
//! * **Data** (`beforeSatisfyInterest`): cancels the timer; if the entry still has a
//!   downstream and an out-record for the upstream, the RTT of that out-record updates
//!   the upstream's and the prefix's estimates and makes it the prefix's last next hop.
//! * **Nack**: ignored (NFD's access strategy keeps the default trigger); the entry
//!   waits for Data, a retransmission or its expiry.
//!
//! NFD keeps the per-face estimates in each strategy instance; here every namespace
//! under access shares them (one forwarder, one set of faces).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use ndnlab_wire::{Interest, Name};

use super::context::{Context, Hops};
use super::kind::StrategyKind;
use super::rtt::RttEstimator;
use super::triggers::{Strategy, Triggers};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::pipeline::scope::would_violate_scope;
use crate::{Time, MS};

/// NFD `RetxSuppressionFixed::DEFAULT_MIN_RETX_INTERVAL`.
pub const MIN_RETX_INTERVAL: Time = 100 * MS;
/// How long prefix measurements live after the last Data (NFD: `extendLifetime(8_s)`).
pub const MEASUREMENTS_LIFETIME: Time = 8_000 * MS;
/// Interval of the sweep of expired prefix measurements.
const SWEEP_INTERVAL: Time = 60_000 * MS;

/// Measurements of one prefix (NFD `AccessStrategy::MtInfo`).
#[derive(Debug, Clone, Copy)]
struct MtInfo {
    last_nexthop: FaceId,
    rtt: RttEstimator,
    expires: Time,
}

/// The RTO timer of one PIT entry.
#[derive(Debug, Clone, Copy)]
struct ArmedRto {
    seq: u64,
    generation: u32,
    downstream: FaceId,
    tried: FaceId,
}

/// What the access strategy knows about a prefix (a snapshot, for tests and status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixStats {
    /// The last next hop that brought Data under the prefix.
    pub last_nexthop: FaceId,
    /// The prefix's smoothed RTT (`None` before a sample).
    pub srtt: Option<Time>,
    /// The prefix's RTO.
    pub rto: Time,
}

/// NFD's access strategy, with its measurements and RTO timers (shared by every
/// namespace using it).
#[derive(Default)]
pub(crate) struct AccessStrategy {
    /// Prefix measurements by [`crate::hash::key`] of the prefix.
    prefixes: HashMap<u64, MtInfo>,
    /// Per-face RTT estimates (NFD's `m_fit`).
    faces: HashMap<u64, RttEstimator>,
    /// Armed RTO timers by PIT entry.
    armed: HashMap<u32, ArmedRto>,
    /// `(deadline, PIT entry, timer sequence)`; cancelled ones are skipped when due.
    timers: BinaryHeap<Reverse<(Time, u32, u64)>>,
    seq: u64,
    next_sweep: Time,
}

impl AccessStrategy {
    /// Measurements of `prefix` (for tests and status).
    pub(crate) fn stats(&self, prefix: &Name, now: Time) -> Option<PrefixStats> {
        let key = crate::hash::key(prefix.prefix_hash(prefix.len()), prefix.len());
        self.live(key, now).map(|m| PrefixStats {
            last_nexthop: m.last_nexthop,
            srtt: m.rtt.srtt(),
            rto: m.rtt.rto(),
        })
    }

    /// Number of RTO timers armed and not cancelled.
    pub(crate) fn armed_timers(&self) -> usize {
        self.armed.len()
    }

    fn live(&self, key: u64, now: Time) -> Option<&MtInfo> {
        self.prefixes.get(&key).filter(|m| m.expires > now)
    }

    fn cancel(&mut self, p: u32) {
        self.armed.remove(&p);
    }

    /// NFD `findPrefixMeasurements`: the last next hop and the RTO of the longest prefix
    /// of `name` with live measurements, if that prefix is under access.
    fn last_nexthop(
        &self,
        ctx: &Context<'_>,
        now: Time,
        name: &Name,
        hashes: &[u64],
    ) -> Option<(FaceId, Time)> {
        if self.prefixes.is_empty() {
            return None;
        }
        let (len, m) = (0..hashes.len().min(name.len() + 1)).rev().find_map(|l| {
            self.live(crate::hash::key(hashes[l], l), now)
                .map(|m| (l, m))
        })?;
        // Measurements of a prefix that another strategy now governs are not ours.
        if ctx.effective_strategy(&name.prefix(len)) != StrategyKind::Access {
            return None;
        }
        (m.last_nexthop != FaceId::INVALID).then_some((m.last_nexthop, m.rtt.rto()))
    }

    /// NFD `sendToLastNexthop`: whether the Interest went to `last` (then an RTO timer
    /// of `rto` is armed for the entry).
    #[allow(clippy::too_many_arguments)]
    fn send_to_last_nexthop(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        interest: &Interest,
        hops: &Hops,
        last: FaceId,
        rto: Time,
    ) -> bool {
        if last == from || !hops.iter().any(|h| h.face == last) {
            return false;
        }
        let (Some(inf), Some(outf)) = (ctx.face(from), ctx.face(last)) else {
            return false;
        };
        if would_violate_scope(inf, interest.name(), outf) {
            return false;
        }
        if !ctx.send_interest(now, from, p, last, interest.clone()) {
            return false;
        }
        self.seq += 1;
        let seq = self.seq;
        self.armed.insert(
            p,
            ArmedRto {
                seq,
                generation: ctx.generation(p),
                downstream: from,
                tried: last,
            },
        );
        self.timers.push(Reverse((now.saturating_add(rto), p, seq)));
        true
    }

    /// NFD `afterRtoTimeout`: the downstream's Interest goes to every next hop but the
    /// downstream and the one tried.
    fn after_rto_timeout(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        p: u32,
        downstream: FaceId,
        tried: FaceId,
    ) {
        if !ctx.has_face(downstream) {
            return;
        }
        let Some(nonce) = ctx
            .pit(p)
            .and_then(|e| e.in_record(downstream))
            .map(|r| r.nonce)
        else {
            return;
        };
        // The downstream's Interest: the entry's latest, with that downstream's Nonce.
        let Some(mut interest) = ctx.stored_interest(p) else {
            return;
        };
        if interest.nonce() != Some(nonce) {
            interest.set_nonce(nonce);
        }
        let hashes = crate::hash::prefix_hashes(interest.name());
        let (hops, _) = ctx.lookup_fib(&interest, &hashes);
        multicast(ctx, now, downstream, p, &interest, &hops, tried);
    }

    /// NFD `addPrefixMeasurements`: the key of the Data name's parent when the parent
    /// is under access, else of the Data name itself.
    fn measurements_key(ctx: &Context<'_>, data_name: &Name) -> u64 {
        let hashes = crate::hash::prefix_hashes(data_name);
        let len = data_name.len();
        if len > 0 && ctx.effective_strategy(&data_name.prefix(len - 1)) == StrategyKind::Access {
            crate::hash::key(hashes[len - 1], len - 1)
        } else {
            crate::hash::key(hashes[len], len)
        }
    }
}

/// NFD `AccessStrategy::multicast`: every next hop but the downstream and `except`
/// (scope permitting); returns how many were sent.
fn multicast(
    ctx: &mut Context<'_>,
    now: Time,
    from: FaceId,
    p: u32,
    interest: &Interest,
    hops: &Hops,
    except: FaceId,
) -> usize {
    let Some(inf) = ctx.face(from) else {
        return 0;
    };
    let targets: smallvec::SmallVec<[FaceId; 4]> = hops
        .iter()
        .filter(|h| h.face != from && h.face != except)
        .filter(|h| {
            ctx.face(h.face)
                .is_some_and(|outf| !would_violate_scope(inf, interest.name(), outf))
        })
        .map(|h| h.face)
        .collect();
    let mut sent = 0;
    for to in targets {
        if ctx.send_interest(now, from, p, to, interest.clone()) {
            sent += 1;
        }
    }
    sent
}

impl Strategy for AccessStrategy {
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
        // NFD `RetxSuppressionFixed::decidePerPitEntry`.
        let Some(e) = ctx.pit(p) else { return };
        let is_new = !e.has_pending_out_records(now);
        if !is_new {
            let last = e.last_outgoing().unwrap_or(0);
            if now.saturating_sub(last) < MIN_RETX_INTERVAL {
                ctx.drop_packet(DropReason::RetxSuppressed);
                return;
            }
        }
        let (hops, _) = ctx.lookup_fib(&interest, hashes);
        if !is_new {
            multicast(ctx, now, from, p, &interest, &hops, FaceId::INVALID);
            return;
        }
        if let Some((last, rto)) = self.last_nexthop(ctx, now, interest.name(), hashes) {
            if self.send_to_last_nexthop(ctx, now, from, p, &interest, &hops, last, rto) {
                return;
            }
        }
        if multicast(ctx, now, from, p, &interest, &hops, FaceId::INVALID) == 0 {
            ctx.reject_pending(now, p);
        }
    }

    /// NFD `AccessStrategy::beforeSatisfyInterest`.
    fn before_satisfy(
        &mut self,
        ctx: &mut Context<'_>,
        now: Time,
        from: FaceId,
        p: u32,
        data_name: &Name,
    ) -> Time {
        self.cancel(p);
        let Some(e) = ctx.pit(p) else { return 0 };
        if e.in_records.is_empty() {
            return 0; // already satisfied by another upstream
        }
        let Some(o) = e.out_record(from) else {
            return 0;
        };
        let rtt = now.saturating_sub(o.last_renewed);
        // NFD `updateMeasurements`.
        let face_rtt = {
            let f = self.faces.entry(from.0).or_default();
            f.add_measurement(rtt);
            *f
        };
        let key = Self::measurements_key(ctx, data_name);
        let m = self.prefixes.entry(key).or_insert(MtInfo {
            last_nexthop: FaceId::INVALID,
            rtt: RttEstimator::default(),
            expires: 0,
        });
        if m.expires <= now {
            // An expired entry is a new one.
            m.last_nexthop = FaceId::INVALID;
            m.rtt = RttEstimator::default();
        }
        m.expires = now + MEASUREMENTS_LIFETIME;
        if m.last_nexthop != from {
            m.last_nexthop = from;
            m.rtt = face_rtt;
        } else {
            m.rtt.add_measurement(rtt);
        }
        0
    }

    /// Fire due RTO timers (NFD `afterRtoTimeout`), and sweep expired measurements.
    fn handle_timeout(&mut self, ctx: &mut Context<'_>, now: Time) {
        while let Some(&Reverse((at, p, seq))) = self.timers.peek() {
            if at > now {
                break;
            }
            self.timers.pop();
            let Some(t) = self.armed.get(&p).copied() else {
                continue;
            };
            if t.seq != seq {
                continue; // re-armed
            }
            self.armed.remove(&p);
            if !ctx.is_live(p, t.generation) {
                continue;
            }
            self.after_rto_timeout(ctx, now, p, t.downstream, t.tried);
        }
        if now >= self.next_sweep {
            self.prefixes.retain(|_, m| m.expires > now);
            self.next_sweep = now + SWEEP_INTERVAL;
        }
    }

    /// Earliest armed RTO timer (possibly a cancelled one: waking early is harmless).
    fn next_timeout(&self) -> Option<Time> {
        self.timers.peek().map(|Reverse((t, ..))| *t)
    }

    fn remove_face(&mut self, face: FaceId) {
        self.faces.remove(&face.0);
    }
}
