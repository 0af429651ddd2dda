//! ASF-like adaptive strategy (NFD `AsfStrategy` v4, simplified):
//!
//! * Measurements per (FIB prefix, face): smoothed RTT and RTT variation (RFC 6298
//!   gains) from Data, and a count of timeouts/Nacks since the last Data.
//! * Ranking: faces with an SRTT and no timeout by SRTT; then unmeasured faces by
//!   cost; then faces that timed out, by cost.
//! * New Interest: the best eligible face. Probing: once per probing interval per
//!   prefix (first one at a seeded random time within the first interval), the
//!   Interest is also sent to another eligible face, chosen at random with weight
//!   favouring better ranks, so a better path is discovered.
//! * Retransmission: the best eligible face without a pending out-record, subject
//!   to per-upstream suppression; else the best face, subject to suppression.
//! * Nack: counts as a failure of that face; the Interest is retried on the best
//!   unused eligible face, else handled like best-route (Nack downstream once every
//!   upstream Nacked).
//! * Entry finalized unsatisfied: every upstream that neither answered nor Nacked
//!   gets a timeout.
//!
//! Not implemented from NFD's ASF: per-face RTO timers (timeouts are taken at PIT
//! entry expiry), the `n-silent-timeouts` parameter, strategy parameters in the name.

use std::collections::HashMap;

use ndnlab_wire::{Interest, NackReason};

use super::{Hops, Retx};
use crate::counters::DropReason;
use crate::face::FaceId;
use crate::forwarder::Forwarder;
use crate::pit::PitEntry;
use crate::Time;

/// Measurements of one face for one prefix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaceStats {
    /// Smoothed RTT (ns), if measured.
    pub srtt: Option<Time>,
    /// RTT variation (ns).
    pub rttvar: Time,
    /// Timeouts and Nacks since the last Data.
    pub failures: u32,
}

/// ASF state shared by every prefix using ASF.
#[derive(Default)]
pub struct AsfState {
    stats: HashMap<(u32, u64), FaceStats>,
    next_probe: HashMap<u32, Time>,
}

impl AsfState {
    /// Measurements of `face` under the prefix with measurements key `key`.
    pub fn stats(&self, key: u32, face: FaceId) -> Option<&FaceStats> {
        self.stats.get(&(key, face.0))
    }

    fn rank(&self, key: u32, hops: &Hops, i: usize) -> (u8, u64, u64) {
        let h = hops[i];
        match self.stats.get(&(key, h.face.0)) {
            Some(s) if s.failures == 0 && s.srtt.is_some() => (0, s.srtt.unwrap_or(0), h.cost),
            Some(s) if s.failures > 0 => (2, h.cost, u64::from(s.failures)),
            _ => (1, h.cost, 0),
        }
    }

    pub(crate) fn on_unsatisfied(&mut self, e: &PitEntry) {
        for o in &e.out_records {
            if !o.is_nacked() {
                self.stats
                    .entry((e.measure_key, o.face.0))
                    .or_default()
                    .failures += 1;
            }
        }
    }

    pub(crate) fn remove_face(&mut self, face: FaceId) {
        self.stats.retain(|(_, f), _| *f != face.0);
    }
}

impl Forwarder {
    /// ASF measurements (for tests and status).
    pub fn asf_stats(&self, prefix: &ndnlab_wire::Name, face: FaceId) -> Option<FaceStats> {
        let l = prefix.len();
        let key = crate::hash::key(prefix.prefix_hash(l), l) as u32;
        self.asf.stats(key, face).copied()
    }

    /// Eligible next hops of `hops` in ASF rank order.
    #[allow(clippy::too_many_arguments)]
    fn asf_ranked(
        &self,
        key: u32,
        hops: &Hops,
        from: FaceId,
        p: u32,
        interest: &Interest,
        want_unused: bool,
        now: Time,
    ) -> Hops {
        let mut idx: Vec<usize> = (0..hops.len())
            .filter(|&i| self.is_eligible(from, hops[i].face, p, interest.name(), want_unused, now))
            .collect();
        idx.sort_by_key(|&i| self.asf.rank(key, hops, i));
        idx.into_iter().map(|i| hops[i]).collect()
    }

    pub(crate) fn asf_after_receive_interest(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        interest: Interest,
        hashes: &[u64],
    ) {
        let (hops, key) = self.lookup_fib(&interest, hashes);
        if let Some(e) = self.pcct.pit_mut(p) {
            e.measure_key = key;
        }
        let is_new = !self
            .pcct
            .pit(p)
            .is_some_and(|e| e.has_pending_out_records(now));
        if is_new {
            let ranked = self.asf_ranked(key, &hops, from, p, &interest, false, now);
            let Some(best) = ranked.first().map(|h| h.face) else {
                self.no_route(now, from, p);
                return;
            };
            let probe = if ranked.len() > 1 && self.asf_probe_due(key, now) {
                // weights n-1, n-2, ..., 1 for ranks 1.. (the best face is not probed)
                let n = ranked.len() as u64;
                let total: u64 = (1..n).sum();
                let mut r = self.random() % total;
                let mut chosen = ranked[1].face;
                for (i, h) in ranked.iter().enumerate().skip(1) {
                    let w = n - i as u64;
                    if r < w {
                        chosen = h.face;
                        break;
                    }
                    r -= w;
                }
                Some(chosen)
            } else {
                None
            };
            match probe {
                Some(pf) => {
                    self.outgoing_interest(now, from, p, best, interest.clone());
                    self.outgoing_interest(now, from, p, pf, interest);
                    if let Some(e) = self.pcct.pit_mut(p) {
                        e.flags.probed = true;
                    }
                }
                None => self.outgoing_interest(now, from, p, best, interest),
            }
            return;
        }
        // Retransmission.
        let unused = self.asf_ranked(key, &hops, from, p, &interest, true, now);
        let to = match unused.first() {
            Some(h) => h.face,
            None => match self
                .asf_ranked(key, &hops, from, p, &interest, false, now)
                .first()
            {
                Some(h) => h.face,
                None => {
                    self.drop_packet(DropReason::NoEligibleNextHop);
                    return;
                }
            },
        };
        let decision = self.retx_per_upstream(p, to, now);
        if decision == Retx::Suppress {
            self.drop_packet(DropReason::RetxSuppressed);
            return;
        }
        self.outgoing_interest(now, from, p, to, interest);
        if decision == Retx::Forward {
            self.retx_increment_upstream(p, to);
        }
    }

    /// Whether a probe is due for the prefix `key` (and schedule the next one).
    fn asf_probe_due(&mut self, key: u32, now: Time) -> bool {
        let interval = self.config.asf_probing_interval.max(1);
        match self.asf.next_probe.get(&key).copied() {
            None => {
                let first = now + self.random() % interval;
                self.asf.next_probe.insert(key, first);
                false
            }
            Some(t) if now >= t => {
                self.asf.next_probe.insert(key, now + interval);
                true
            }
            Some(_) => false,
        }
    }

    pub(crate) fn asf_before_satisfy(&mut self, now: Time, from: FaceId, p: u32) {
        let Some(e) = self.pcct.pit(p) else { return };
        let Some(o) = e.out_record(from) else { return };
        let rtt = now.saturating_sub(o.last_renewed);
        let s = self.asf.stats.entry((e.measure_key, from.0)).or_default();
        match s.srtt {
            None => {
                s.srtt = Some(rtt);
                s.rttvar = rtt / 2;
            }
            Some(srtt) => {
                s.rttvar = (3 * s.rttvar + srtt.abs_diff(rtt)) / 4;
                s.srtt = Some((7 * srtt + rtt) / 8);
            }
        }
        s.failures = 0;
    }

    pub(crate) fn asf_after_receive_nack(
        &mut self,
        now: Time,
        from: FaceId,
        p: u32,
        _reason: NackReason,
    ) {
        let Some(e) = self.pcct.pit(p) else { return };
        let key = e.measure_key;
        self.asf.stats.entry((key, from.0)).or_default().failures += 1;
        // Retry on the best unused eligible face; the downstream that matters is any in-record.
        let Some(downstream) = e.in_records.first().map(|r| r.face) else {
            return;
        };
        if let Some(interest) = self.stored_interest(p) {
            let len = interest.name().len();
            let mut hashes = crate::hash::PrefixHashes::from_elem(0, len + 1);
            interest.name().prefix_hashes(&mut hashes);
            let (hops, _) = self.lookup_fib(&interest, &hashes);
            let ranked = self.asf_ranked(key, &hops, downstream, p, &interest, true, now);
            let untried = ranked
                .iter()
                .find(|h| {
                    self.pcct
                        .pit(p)
                        .is_some_and(|e| e.out_record(h.face).is_none())
                })
                .map(|h| h.face);
            if let Some(to) = untried {
                self.outgoing_interest(now, downstream, p, to, interest);
                return;
            }
        }
        self.process_nack(now, p);
    }
}
