//! Incoming Interest pipeline (NFD `onIncomingInterest`) and Interest loop
//! (`onInterestLoop`).
//!
//! Order: counters -> HopLimit (drop at 0, decrement in place) -> `/localhost` scope
//! -> Dead Nonce List -> PCCT probe (one map probe for CS lookup + PIT insert) ->
//! duplicate Nonce in PIT -> CS lookup (only when no pending PIT entry) -> CS hit or
//! CS miss. The face's Interest rate is checked right after the counters, the PIT
//! bounds just before a new entry is created (`limits.rs`).
//!
//! On a new PIT entry the CS lookup happens before the entry is created; a CS hit
//! then counts a satisfied Interest without allocating a PIT entry, which is what NFD
//! observably does (it inserts, hits, and erases at once).

use ndnlab_wire::{Interest, Nack, NackReason};

use super::scope::is_localhost;
use crate::counters::DropReason;
use crate::dispatch::len_without_digest;
use crate::face::{FaceId, LinkType};
use crate::hash::{key, PrefixHashBuf};
use crate::packet::LpMeta;
use crate::pit::{PitFlags, DUP_IN_SAME};
use crate::strategy::Strategies;
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// Incoming Interest from `from`, `meta` its LpPacket fields; the strategy of its
    /// entry is one of `strategies`. `pre`: the name's prefix hashes, its length
    /// without an implicit digest and that prefix's PCCT index fingerprint already
    /// computed (by the burst pipeline's first stage), or `None` to compute them here.
    pub(crate) fn incoming_interest(
        &mut self,
        strategies: &mut Strategies,
        now: Time,
        from: FaceId,
        mut interest: Interest,
        meta: LpMeta,
        pre: Option<(&[u64], usize, u32)>,
    ) {
        let Some(face) = self.faces.get_mut(&from.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return;
        };
        face.counters.n_in_interests += 1;
        self.counters.n_in_interests += 1;
        let (is_local, link) = (face.is_local(), face.link);
        if self.config.limits.interest_rate != 0 && !self.admit_interest_rate(now, from) {
            return;
        }

        // HopLimit: drop at zero, else decrement in place (before any clone of the bytes).
        if let Some(h) = interest.hop_limit() {
            if h == 0 {
                if let Some(face) = self.faces.get_mut(&from.0) {
                    face.counters.n_in_hop_limit_zero += 1;
                }
                self.drop_packet(DropReason::HopLimitZero);
                return;
            }
            interest.set_hop_limit(h - 1);
        }
        if !is_local && is_localhost(interest.name()) {
            self.drop_packet(DropReason::LocalhostViolation);
            return;
        }
        let nonce = match interest.nonce() {
            Some(n) => n,
            None => {
                let n = self.random() as u32;
                interest.set_nonce(n);
                n
            }
        };

        let name = interest.name();
        let len = name.len();
        let mut computed;
        // The slot is the name without a trailing implicit digest; its key is also the
        // Dead Nonce List name key. `fp`: the slot key's index fingerprint, computed
        // once for the prefetch and the slot lookup.
        let (hashes, klen, fp): (&[u64], usize, u32) = match pre {
            Some(p) => p,
            None => {
                computed = PrefixHashBuf::new();
                let hashes = computed.compute(name);
                let klen = len_without_digest(name);
                // One packet at a time: the PCCT index load overlaps the Dead Nonce
                // List's.
                let fp = self.pcct.prefetch_index(klen, hashes[klen]);
                (hashes, klen, fp)
            }
        };
        if self.dnl.has(now, key(hashes[klen], klen), nonce) {
            self.interest_loop(from, link, interest, meta);
            return;
        }
        let digest = if klen < len {
            name.get(klen).and_then(|c| c.as_digest())
        } else {
            None
        };
        let (cbp, mbf) = (interest.can_be_prefix(), interest.must_be_fresh());
        let sref = self
            .pcct
            .slot_get_or_insert_fp(name, klen, hashes[klen], fp);
        let s = sref.slot;
        if sref.created && pre.is_none() {
            // A new name goes to the FIB: its index loads overlap the PIT insert.
            self.fib.prefetch_lpm(len, hashes);
        }

        let existing = if sref.created {
            None
        } else {
            self.pcct.pit_find_in_slot(s, cbp, mbf, digest.as_ref())
        };
        // The Interest's deadline, when already computed (for a new entry's timer).
        let mut expiry = None;
        let p = match existing {
            Some(p) => {
                let e = self.pcct.pit(p).expect("found PIT entry");
                let dnw = e.find_duplicate_nonce(nonce, from);
                // NFD: on a point-to-point face the same Nonce from the same downstream is a
                // retransmission, not a loop.
                let dup = dnw != 0 && !(link == LinkType::PointToPoint && dnw & DUP_IN_SAME != 0);
                if dup {
                    self.interest_loop(from, link, interest, meta);
                    return;
                }
                self.counters.n_aggregated_interests += 1;
                if e.in_records.is_empty() {
                    if let Some(c) = self.pcct.cs_lookup(s, cbp, mbf, digest.as_ref(), now) {
                        self.counters.n_cs_hits += 1;
                        self.pcct.pit_mut(p).expect("live").flags.satisfied = true;
                        self.content_store_hit(now, from, c, meta, interest.name());
                        self.finalize(now, p);
                        self.pcct.cs_settle(now);
                        return;
                    }
                    self.counters.n_cs_misses += 1;
                    // An entry left with no downstream (Nacked to its last one, which
                    // was also its last upstream) is pending again: its armed timer is
                    // for the lifetimes it had, so this Interest's needs its own.
                    let generation = self.pcct.generation_of(p);
                    let deadline = now.saturating_add(interest.lifetime_ns());
                    self.timers.push(deadline, p, generation);
                }
                // The entry keeps the latest Interest (a new entry gets it at insertion).
                self.pcct.pit_mut(p).expect("live").interest = interest.wire().clone();
                p
            }
            None => {
                // A new slot has no CS entry of its own; it can still hit through the
                // opt-in CanBePrefix prefix index (then the slot is released).
                let hit = if sref.created && !self.pcct.cs_can_hit_empty_slot() {
                    self.pcct.cs_count_miss(s);
                    None
                } else {
                    self.pcct.cs_lookup(s, cbp, mbf, digest.as_ref(), now)
                };
                if let Some(c) = hit {
                    self.counters.n_cs_hits += 1;
                    self.counters.n_satisfied_interests += 1;
                    self.content_store_hit(now, from, c, meta, interest.name());
                    if sref.created {
                        self.pcct.maybe_free_slot(s);
                    }
                    self.pcct.cs_settle(now);
                    return;
                }
                self.counters.n_cs_misses += 1;
                if !self.admit_pit_entry(from, link, &interest, &meta) {
                    if sref.created {
                        self.pcct.maybe_free_slot(s);
                    }
                    return;
                }
                let origin = self.pit_origin_taken(from);
                let strategy = self.sc.find_effective_with(name, hashes);
                let flags = PitFlags {
                    can_be_prefix: cbp,
                    must_be_fresh: mbf,
                    ..Default::default()
                };
                let p =
                    self.pcct
                        .pit_insert(s, klen, flags, digest, strategy, interest.wire().clone());
                if origin != 0 {
                    if let Some(e) = self.pcct.pit_mut(p) {
                        e.origin = origin;
                    }
                }
                let generation = self.pcct.generation_of(p);
                let deadline = now.saturating_add(interest.lifetime_ns());
                expiry = Some(deadline);
                self.timers.push(deadline, p, generation);
                if self.timers.len() > 4 * self.pcct.pit_len() + 4096 {
                    let pcct = &self.pcct;
                    self.timers.retain(|i, g| pcct.pit_live(i, g));
                }
                p
            }
        };
        let expiry = match expiry {
            Some(t) => t,
            None => now.saturating_add(interest.lifetime_ns()),
        };
        let non_discovery = meta.non_discovery;
        if let Some(kind) = self.content_store_miss(now, from, p, &interest, nonce, meta, expiry) {
            // Replaced in place only when there is a hint (a conditional rebinding copied
            // the 128-byte view on every Interest).
            if !interest.forwarding_hint().is_empty() {
                interest = self.strip_hint_in_producer_region(interest);
            }
            let sent = (nonce, expiry);
            strategies.after_receive_interest(
                kind,
                self,
                now,
                from,
                p,
                interest,
                hashes,
                sent,
                non_discovery,
            );
        }
    }

    /// NFD `onInterestLoop`: Nack Duplicate on point-to-point faces, silent drop otherwise.
    pub(crate) fn interest_loop(
        &mut self,
        from: FaceId,
        link: LinkType,
        interest: Interest,
        meta: LpMeta,
    ) {
        self.drop_packet(DropReason::DuplicateNonce);
        if link != LinkType::PointToPoint {
            return;
        }
        let meta = LpMeta {
            pit_token: meta.pit_token,
            ..Default::default()
        };
        self.emit_nack(from, Nack::new(interest, NackReason::Duplicate), meta);
    }
}
