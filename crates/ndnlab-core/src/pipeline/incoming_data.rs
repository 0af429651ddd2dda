//! Incoming Data pipeline (NFD `onIncomingData`) and Data unsolicited
//! (`onDataUnsolicited`).
//!
//! PIT match: the entry named by our PIT token when the upstream echoed it (no
//! hashing at all when it is an exact-name entry and no CanBePrefix entry exists),
//! else the slot of the Data name; plus CanBePrefix entries at the shorter lengths
//! where any exist; entries that require an implicit digest compare it (the Data
//! digest is computed only then). Then CS insert, then every pending downstream of
//! every matched entry gets the Data once, with its own PIT token.

use bytes::Bytes;
use ndnlab_wire::Data;
use smallvec::SmallVec;

use super::scope::is_localhost;
use crate::config::UnsolicitedDataPolicy;
use crate::counters::DropReason;
use crate::face::{FaceId, LinkType};
use crate::hash::PrefixHashes;
use crate::packet::LpMeta;
use crate::strategy::Strategies;
use crate::tables::Tables;
use crate::Time;

impl Tables {
    /// Incoming Data from `from`; the strategies of the entries it satisfies are
    /// among `strategies`. `staged`: the burst pipeline already prefetched
    /// this burst's eviction victims, so the per-Data eviction prefetch is skipped.
    /// `meta` is only read: by reference, the burst path passes it where it lies
    /// instead of copying its 80 bytes into an argument slot (~16 instructions per
    /// Data, measured in callgrind).
    #[inline]
    pub(crate) fn incoming_data(
        &mut self,
        strategies: &mut Strategies,
        now: Time,
        from: FaceId,
        data: Data,
        meta: &LpMeta,
        staged: bool,
    ) {
        if meta.buffer_share == 0 {
            return self.incoming_data_pipeline(strategies, now, from, data, meta, staged);
        }
        // The CS charges a slice it keeps the share of its read buffer the face's
        // reader reported, and carries the share of a Data it does not keep.
        self.pcct.cs_arrive(from.0, meta.buffer_share);
        self.incoming_data_pipeline(strategies, now, from, data, meta, staged);
        self.pcct.cs_done();
    }

    /// [`Tables::incoming_data`]'s pipeline.
    #[inline(always)]
    fn incoming_data_pipeline(
        &mut self,
        strategies: &mut Strategies,
        now: Time,
        from: FaceId,
        data: Data,
        meta: &LpMeta,
        staged: bool,
    ) {
        let Some(face) = self.faces.get_mut(&from.0) else {
            self.drop_packet(DropReason::UnknownFace);
            return;
        };
        face.counters.n_in_data += 1;
        self.counters.n_in_data += 1;
        // Both read now: a second lookup of the ingress face cost ~16 instructions.
        let (is_local, ingress_adhoc) = (face.is_local(), face.link == LinkType::AdHoc);
        // Computed once: the scope check here and the egress check below both need it.
        let localhost = is_localhost(data.name());
        if !is_local && localhost {
            self.drop_packet(DropReason::LocalhostViolation);
            return;
        }
        // Off: one branch on `None`.
        if let Some(v) = &self.config.verify_data {
            let verdict = v.verify(&data);
            self.counters.n_verified_data += 1;
            if let Err(r) = verdict {
                self.drop_packet(r);
                return;
            }
        }
        // Start loading what this Data's eviction (and the next two) will read.
        if !staged {
            self.pcct.prefetch_next_victims();
        }
        let name = data.name();
        let len = name.len();

        // Exact slot: from the token if it names an exact-name entry, else by hash.
        let mut exact = None;
        if let Some(p) = meta
            .pit_token
            .as_deref()
            .and_then(|t| self.pcct.pit_by_token(t))
        {
            let s = self.pcct.pit(p).expect("live").slot;
            if crate::slot_name::name_eq(self.pcct.slot_name(s), name.value_bytes()) {
                exact = Some(s);
            }
        }
        let need_all_hashes = self.pcct.has_cbp_entries();
        let hashes: PrefixHashes = if need_all_hashes {
            crate::hash::prefix_hashes(name)
        } else {
            PrefixHashes::new()
        };
        let full_hash = |h: &PrefixHashes| {
            if h.is_empty() {
                name.prefix_hash(len)
            } else {
                h[len]
            }
        };
        let mut full = None;
        if exact.is_none() {
            let h = full_hash(&hashes);
            full = Some(h);
            exact = self.pcct.find_slot(name, len, h);
        }

        let mut cands: SmallVec<[u32; 4]> = SmallVec::new();
        let found = self.pcct.pit_candidates(name, &hashes, exact, &mut cands);
        // Entries that require a digest (rare: skip the retain pass when none does).
        if found.need_digest {
            cands.retain(
                |p| match self.pcct.pit(*p).and_then(|e| e.digest.as_deref()) {
                    None => true,
                    Some(d) => &data.implicit_digest() == d,
                },
            );
        }

        if cands.is_empty() {
            let h = full.unwrap_or_else(|| full_hash(&hashes));
            self.data_unsolicited(now, from, is_local, data, meta, exact, h);
            return;
        }

        // CS insert (unless the producer asked for NoCache).
        if !meta.cache_policy_no_cache && self.pcct.cs_admits() {
            let s = match exact {
                Some(s) => s,
                None => {
                    let h = full.unwrap_or_else(|| full_hash(&hashes));
                    self.pcct.slot_get_or_insert(name, len, h).slot
                }
            };
            match self.pcct.cs_insert(s, &data, now, false) {
                // Entries of shorter names (CanBePrefix) reach the Data indirectly;
                // all others are in slot `s`.
                Some(c) if found.shorter => {
                    for &p in &cands {
                        let ps = self.pcct.pit(p).expect("live").slot;
                        if ps != s {
                            self.pcct.cs_set_indirect(ps, c);
                        }
                    }
                }
                Some(_) => {}
                None => self.pcct.maybe_free_slot(s),
            }
        }

        // Satisfy every matched entry; each pending downstream gets the Data once. The
        // first downstream (almost always the only one) is a plain local and the others
        // go to `more`, untouched unless there are any: each use of a `SmallVec` checks
        // whether it spilled, and one list for all cost ~60 instructions per Data.
        let mut first: Option<(FaceId, Option<Bytes>)> = None;
        let mut more: SmallVec<[(FaceId, Option<Bytes>); 3]> = SmallVec::new();
        let mut has_more = false;
        for &p in &cands {
            let e = self.pcct.pit_mut(p).expect("live");
            let strategy = e.strategy;
            // How long the satisfied entry stays for late Data (0: finalized now).
            let mut keep = 0;
            // The strategy's trigger, when it has one, acts on the entry: looked up again.
            let e = if strategies.acts_on_data(strategy) {
                // NFD: the only matched entry's strategy may run the Data step itself
                // (`afterReceiveData`).
                if cands.len() == 1
                    && strategies
                        .after_receive_data(strategy, self, now, from, p, &data, meta, localhost)
                {
                    return;
                }
                keep = strategies.before_satisfy(strategy, self, now, from, p, data.name());
                self.pcct.pit_mut(p).expect("live")
            } else {
                e
            };
            let in_grace = e.flags.satisfied;
            e.flags.satisfied = true;
            for r in e.in_records.iter_mut() {
                if r.expiry <= now || (r.face == from && !ingress_adhoc) {
                    continue;
                }
                match &first {
                    None => first = Some((r.face, r.take_token())),
                    Some((f, _)) if *f == r.face => {}
                    Some(_) => {
                        if !more.iter().any(|(f, _)| *f == r.face) {
                            more.push((r.face, r.take_token()));
                            has_more = true;
                        }
                    }
                }
            }
            // An entry finalized now is dropped whole: its in-records need no clearing,
            // and its out-records matter only for the Dead Nonce List. NFD
            // (`insertDeadNonceList`): a satisfied entry's Nonces, the answering
            // upstream's included, go to the list only with MustBeFresh and Data whose
            // FreshnessPeriod is shorter than the list's lifetime (else a looping copy
            // hits the CS).
            let dnl = e.flags.must_be_fresh && data.freshness_ns() < self.dnl.lifetime();
            if keep == 0 {
                if e.flags.must_be_fresh && !dnl {
                    e.out_records.clear();
                }
                self.finalize_satisfied(now, p);
                continue;
            }
            e.in_records.clear();
            // Kept for late Data: the answering upstream's Nonce goes to the list now
            // and its out-record goes; the others go when the entry ends.
            let answered = e.out_record(from).map(|o| o.nonce).filter(|_| dnl);
            let slot = e.slot;
            e.out_records.retain(|o| o.face != from);
            if let Some(nonce) = answered {
                let name_key = self.pcct.slot_key(slot);
                self.dnl.add(now, name_key, nonce);
            }
            if !in_grace {
                self.keep_satisfied(now, p, keep);
            }
        }
        let congestion_mark = meta.congestion_mark;
        // A PrefixAnnouncement travels with its Data, whatever the strategy (NFD keeps
        // it as a tag on the Data).
        let out_meta = |token| LpMeta {
            pit_token: token,
            congestion_mark,
            incoming_face_id: from.incoming_face_id(),
            prefix_announcement: meta.prefix_announcement.clone(),
            ..Default::default()
        };
        // The last downstream gets the incoming bytes themselves (a clone costs a
        // refcount on a cold line).
        let wire = data.into_wire();
        let Some((to, token)) = first else {
            return;
        };
        if !has_more {
            self.outgoing_data(to, wire, localhost, out_meta(token));
            // Never used: nothing to free (skips the out-of-line `SmallVec` drop).
            std::mem::forget(more);
            return;
        }
        self.outgoing_data(to, wire.clone(), localhost, out_meta(token));
        // Draining in place: moving the `SmallVec` into an owning iterator cost a
        // `memcpy` call per Data.
        let mut drain = more.drain(..);
        while let Some((to, token)) = drain.next() {
            if drain.len() == 0 {
                self.outgoing_data(to, wire, localhost, out_meta(token));
                break;
            }
            self.outgoing_data(to, wire.clone(), localhost, out_meta(token));
        }
    }

    /// Keep satisfied entry `p` `keep` more for late Data, as its strategy asked in
    /// `before_satisfy` (finalized by the timer: with no in-record left it has
    /// expired). Out of line: inlined, its timer arithmetic was hoisted ahead of the
    /// loop over matched entries, costing every Data.
    #[inline(never)]
    fn keep_satisfied(&mut self, now: Time, p: u32, keep: Time) {
        let generation = self.pcct.generation_of(p);
        self.timers.push(now + keep, p, generation);
    }

    /// NFD `onDataUnsolicited`: cache or drop by policy.
    #[allow(clippy::too_many_arguments)]
    fn data_unsolicited(
        &mut self,
        now: Time,
        _from: FaceId,
        from_local: bool,
        data: Data,
        meta: &LpMeta,
        exact: Option<u32>,
        full_hash: u64,
    ) {
        let admit = match self.config.unsolicited {
            UnsolicitedDataPolicy::DropAll => false,
            UnsolicitedDataPolicy::AdmitLocal => from_local,
            UnsolicitedDataPolicy::AdmitNetwork => !from_local,
            UnsolicitedDataPolicy::AdmitAll => true,
        };
        if !admit || meta.cache_policy_no_cache {
            self.drop_packet(DropReason::UnsolicitedData);
            return;
        }
        let s = match exact {
            Some(s) => s,
            None => {
                self.pcct
                    .slot_get_or_insert(data.name(), data.name().len(), full_hash)
                    .slot
            }
        };
        if self.pcct.cs_insert(s, &data, now, true).is_none() {
            self.pcct.maybe_free_slot(s);
        }
    }
}
