//! [`Forwarder`]: the forwarder's tables (`tables.rs`) next to its strategies
//! (`strategy/mod.rs`), with the sans-IO entry points and the staged burst pipeline.
//! The pipelines are in [`crate::pipeline`] (one file each), the strategies in
//! [`crate::strategy`].

use std::collections::VecDeque;

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, Nack, Name};

use crate::counters::{FaceCounters, ForwarderCounters};
use crate::cs::ContentStore;
use crate::face::{FaceId, FaceScope, LinkType};
use crate::fib::Fib;
use crate::network_region::NetworkRegionTable;
use crate::pcct::NONE;
use crate::strategy::access::PrefixStats;
use crate::strategy::asf::FaceStats;
use crate::strategy::context::Context;
use crate::strategy::self_learning::RibRequest;
use crate::strategy::Strategies;
use crate::strategy_choice::StrategyChoice;
use crate::tables::Tables;
use crate::Time;

pub use crate::config::{ForwarderConfig, RetxSuppressionConfig, UnsolicitedDataPolicy};
pub use crate::packet::{InPacket, LpMeta, OutNack, OutPacket, Transmit};

/// What the burst pipeline's stages learn about one packet (20 bytes).
#[derive(Clone, Copy)]
struct BurstEntry {
    /// Start of an Interest name's prefix hashes in the burst's hash arena.
    hashes_at: u32,
    /// Number of prefix hashes (name length + 1; 0 for Data and Nack).
    n_hashes: u32,
    /// Interest: the PCCT index fingerprint of its name (without an implicit digest),
    /// computed by stage 1 for stage 2 and the pipeline's slot lookup. Data: the PIT
    /// entry its token names, or `NONE`.
    probe: u32,
    /// First slot of the name's chain, or `NONE` (set by stage 2).
    slot: u32,
    /// Interest: its name's length without an implicit digest (stage 1 computes it for
    /// the index probe; the pipeline reuses it instead of scanning the name again).
    klen: u32,
}

/// A [`BurstEntry`] before stage 1 (and after, for a Nack or a Data without a token).
const NO_ENTRY: BurstEntry = BurstEntry {
    hashes_at: 0,
    n_hashes: 0,
    probe: NONE,
    slot: NONE,
    klen: 0,
};

impl BurstEntry {
    /// This entry's prefix hashes in `arena` (empty for Data and Nack). Never panics
    /// (the range is always in bounds): see the dispatch loop of `handle_burst`.
    #[inline]
    fn hashes<'a>(&self, arena: &'a [u64]) -> &'a [u64] {
        let at = self.hashes_at as usize;
        arena
            .get(at..at + self.n_hashes as usize)
            .unwrap_or_default()
    }
}

/// The sans-IO forwarder. See the crate docs for the call order.
pub struct Forwarder {
    pub(crate) tables: Tables,
    pub(crate) strategies: Strategies,
    /// Per-packet scratch of [`Forwarder::handle_burst`] (kept to reuse its allocation).
    burst_state: Vec<BurstEntry>,
    /// Prefix hashes of the burst's Interest names, back to back (20 bytes of scratch
    /// per entry instead of a 200-byte inline array copied twice); stale past the
    /// current burst's fill mark.
    burst_hashes: Vec<u64>,
    /// Eviction prefetch scratch of [`Forwarder::handle_burst`]: victims and their slots.
    burst_victims: (Vec<u32>, Vec<u32>),
}

impl Forwarder {
    /// A forwarder with no faces, an empty FIB and `config.default_strategy` at `/`.
    pub fn new(config: ForwarderConfig) -> Self {
        Forwarder {
            tables: Tables::new(config),
            strategies: Strategies::default(),
            burst_state: Vec::new(),
            burst_hashes: Vec::new(),
            burst_victims: Default::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ForwarderConfig {
        &self.tables.config
    }

    /// Set the unsolicited Data policy.
    pub fn set_unsolicited_policy(&mut self, p: UnsolicitedDataPolicy) {
        self.tables.config.unsolicited = p;
    }

    /// Add a face (or update its scope and link type).
    pub fn add_face(&mut self, id: FaceId, scope: FaceScope, link: LinkType) {
        let f = self.tables.faces.get_or_insert_default(id.0);
        f.scope = scope;
        f.link = link;
    }

    /// Remove a face: its FIB next hops, its PIT in/out records (entries left with no
    /// downstream are finalized unsatisfied), queued transmits to it, and what the
    /// strategies know of it.
    pub fn remove_face(&mut self, id: FaceId, now: Time) {
        let t = &mut self.tables;
        if t.faces.remove(&id.0).is_none() {
            return;
        }
        t.fib.remove_face(id);
        for p in t.pcct.pit_ids() {
            let Some(e) = t.pcct.pit_mut(p) else {
                continue;
            };
            let before = e.expiry();
            e.in_records.retain(|r| r.face != id);
            e.out_records.retain(|r| r.face != id);
            if e.in_records.is_empty() {
                t.finalize(now, p);
            } else if !e.flags.satisfied && e.expiry() < before {
                // (as in `outgoing_nack`: the armed timer is at the old expiry)
                let (after, generation) = (e.expiry(), t.pcct.generation_of(p));
                t.timers.push(after, p, generation);
            }
        }
        t.out.retain(|t| t.face != id);
        self.strategies.remove_face(id);
    }

    /// Whether a face exists.
    pub fn has_face(&self, id: FaceId) -> bool {
        self.tables.has_face(id)
    }

    /// The FIB (management).
    pub fn fib(&mut self) -> &mut Fib {
        &mut self.tables.fib
    }

    /// Add a FIB next hop (or update its cost), as management does: when the next hop
    /// is new, NFD's `afterNewNextHop` trigger runs, so pending Interests of
    /// strategies that want it (multicast) go to the new upstream at once.
    pub fn add_nexthop(&mut self, now: Time, prefix: &Name, face: FaceId, cost: u64) {
        if self.tables.fib.add_nexthop(prefix, face, cost) {
            (self.tables).new_nexthop(&mut self.strategies, now, prefix, face);
        }
    }

    /// The FIB, read-only.
    pub fn fib_ref(&self) -> &Fib {
        &self.tables.fib
    }

    /// The network region table (management; NFD `tables.network_region`).
    pub fn network_region(&mut self) -> &mut NetworkRegionTable {
        &mut self.tables.config.network_region
    }

    /// The network region table, read-only.
    pub fn network_region_ref(&self) -> &NetworkRegionTable {
        &self.tables.config.network_region
    }

    /// StrategyChoice (management).
    pub fn strategy_choice(&mut self) -> &mut StrategyChoice {
        &mut self.tables.sc
    }

    /// The Content Store (management).
    pub fn cs(&mut self) -> &mut ContentStore {
        &mut self.tables.pcct
    }

    /// The Content Store, read-only.
    pub fn cs_ref(&self) -> &ContentStore {
        &self.tables.pcct
    }

    /// Number of PIT entries.
    pub fn pit_len(&self) -> usize {
        self.tables.pcct.pit_len()
    }

    /// Number of Dead Nonce List entries.
    pub fn dead_nonce_len(&self) -> usize {
        self.tables.dnl.len()
    }

    /// Dead Nonce List entries dropped before their lifetime because the list held
    /// `dead_nonce_capacity` entries.
    pub fn dead_nonce_overflows(&self) -> u64 {
        self.tables.dnl.overflows()
    }

    /// Global counters.
    pub fn counters(&self) -> &ForwarderCounters {
        &self.tables.counters
    }

    /// Counters of a face.
    pub fn face_counters(&self, id: FaceId) -> Option<&FaceCounters> {
        self.tables.face(id).map(|f| &f.counters)
    }

    /// Faces: `(id, scope, link type)`.
    pub fn faces(&self) -> impl Iterator<Item = (FaceId, FaceScope, LinkType)> + '_ {
        self.tables
            .faces
            .iter()
            .map(|(id, f)| (FaceId(*id), f.scope, f.link))
    }

    /// Incoming Interest from `from`. `meta` carries its LpPacket fields.
    pub fn handle_interest(&mut self, now: Time, from: FaceId, interest: Interest, meta: LpMeta) {
        (self.tables).incoming_interest(&mut self.strategies, now, from, interest, meta, None);
    }

    /// Incoming Data from `from`.
    pub fn handle_data(&mut self, now: Time, from: FaceId, data: Data, meta: LpMeta) {
        (self.tables).incoming_data(&mut self.strategies, now, from, data, &meta, false);
    }

    /// Incoming Nack from `from`.
    pub fn handle_nack(&mut self, now: Time, from: FaceId, nack: Nack, meta: LpMeta) {
        (self.tables).incoming_nack(&mut self.strategies, now, from, nack, meta);
    }

    /// Process a burst of inputs (drains `burst`).
    ///
    /// The burst goes through a staged prefetch pipeline before the packets go
    /// through the pipelines in order, so that the cache misses of the table lookups
    /// of different packets overlap instead of being paid one after another (a CS hit
    /// in a 2^21-entry table is a chain of 4-5 dependent DRAM misses): stage 1 hashes
    /// every Interest name and prefetches its PCCT index bucket (or, for a Data with
    /// our PIT token, its PIT entry); stage 2 reads the buckets and prefetches the name
    /// slots; stage 3 prefetches the slots' long-name bytes, CS entries and PIT
    /// entries; stage 4 reads the CS entries an Interest may hit and prefetches the
    /// reference count a hit's clone updates (next to the bytes of a
    /// [`ndnlab_wire::packet_bytes`] buffer, as the UDP face and the CS's own copies make
    /// them). A name not in the PCCT goes to the FIB: its FIB index buckets are
    /// prefetched in stage 2, and in stage 3 the entry its longest-prefix match will
    /// verify first. When the burst's Data will make the CS
    /// evict, the next victims' CS entries, packets, name slots and index buckets go
    /// through the same three stages. Results are identical to calling `handle_*` one by one (the stages only
    /// read and prefetch; the prefix hashes of stage 1 are reused). Index prefetches
    /// cover the two lines a probe may reach, and slot and victim-entry prefetches both
    /// lines of an object that straddles two (docs/BENCHMARKS.md, "Forwarder core").
    pub fn handle_burst(&mut self, now: Time, burst: &mut Vec<(FaceId, InPacket, LpMeta)>) {
        self.handle_burst_probed(now, burst, &mut NoProbe)
    }

    /// [`Forwarder::handle_burst`] with `probe` called just before and just after
    /// each packet's own pipeline, with its index in the burst (what a latency
    /// instrumentation reads the clock around). The burst is processed exactly as
    /// without a probe: same stages, same order, nothing split off.
    pub fn handle_burst_probed<P: BurstProbe>(
        &mut self,
        now: Time,
        burst: &mut Vec<(FaceId, InPacket, LpMeta)>,
        probe: &mut P,
    ) {
        if burst.len() <= 1 {
            for (face, pkt, meta) in burst.drain(..) {
                probe.before(0, self);
                match pkt {
                    InPacket::Interest(i) => self.handle_interest(now, face, i, meta),
                    InPacket::Data(d) => self.handle_data(now, face, d, meta),
                    InPacket::Nack(n) => self.handle_nack(now, face, n, meta),
                }
                probe.after(0, self);
            }
            return;
        }
        let mut st = std::mem::take(&mut self.burst_state);
        st.clear();
        // The arena keeps its length between bursts (`used` is the fill mark), so a
        // name's hashes are written in place without zero-filling them first.
        let mut arena = std::mem::take(&mut self.burst_hashes);
        let mut used = 0;
        let (mut victims, mut vslots) = std::mem::take(&mut self.burst_victims);
        // Cleared here, not only by stage 1's `prefetch_victims`: a burst without Data
        // skips that stage, and would otherwise prefetch the previous burst's (already
        // evicted) victims again in stages 2 and 3 (~45 instructions per exchange of
        // the hotpath bench's burst-miss, measured in callgrind).
        victims.clear();
        vslots.clear();
        let n_data = burst
            .iter()
            .filter(|(_, p, _)| matches!(p, InPacket::Data(_)))
            .count();
        // Stage 1 (and the same three stages for the CS entries the Data will evict).
        if n_data > 0 {
            (self.tables.pcct).prefetch_evictions(0, n_data, &mut victims, &mut vslots);
        }
        // Every entry starts as `NO_ENTRY` (one vectorized fill), then the loop writes
        // what it learns in place (building each entry and pushing it cost ~8 more
        // instructions per packet: a capacity check, the entry copied from the stack).
        // An Interest's entry keeps its index fingerprint, so stage 2 neither mixes
        // the key nor hashes it again.
        st.resize(burst.len(), NO_ENTRY);
        for ((_, pkt, meta), b) in burst.iter().zip(st.iter_mut()) {
            match pkt {
                InPacket::Interest(i) => {
                    let name = i.name();
                    let (at, n) = (used, name.len() + 1);
                    used += n;
                    if arena.len() < used {
                        arena.resize(used, 0);
                    }
                    let hashes = &mut arena[at..used];
                    name.prefix_hashes(hashes);
                    let k = crate::dispatch::len_without_digest(name);
                    b.hashes_at = at as u32;
                    b.n_hashes = n as u32;
                    b.klen = k as u32;
                    b.probe = self.tables.pcct.prefetch_index(k, hashes[k]);
                }
                InPacket::Data(_) => {
                    if let Some(t) = meta
                        .pit_token
                        .as_deref()
                        .and_then(crate::token::PitToken::decode)
                    {
                        self.tables.pcct.prefetch_pit(t.index);
                        b.probe = t.index;
                    }
                }
                InPacket::Nack(_) => {}
            }
        }
        // Stage 2.
        if !victims.is_empty() {
            (self.tables.pcct).prefetch_evictions(1, n_data, &mut victims, &mut vslots);
        }
        for b in st.iter_mut() {
            if b.n_hashes != 0 {
                b.slot = self.tables.pcct.prefetch_slot_of(b.probe);
                // Only a name not in the PCCT certainly goes to the FIB (prefetching
                // FIB lines for every Interest would crowd out the hits' misses).
                if b.slot == NONE {
                    let hashes = b.hashes(&arena);
                    self.tables.fib.prefetch_lpm(hashes.len() - 1, hashes);
                }
            } else if b.probe != NONE {
                b.slot = self.tables.pcct.prefetch_slot_of_pit(b.probe);
            }
        }
        // Stage 3.
        if !vslots.is_empty() {
            (self.tables.pcct).prefetch_evictions(2, n_data, &mut victims, &mut vslots);
        }
        // An Interest bound for the FIB: the hot line of the entry its longest-prefix
        // match verifies first (found through the index line stage 2 brought in).
        // Without this prefetch that read is a dependent miss even with a 1,024-entry
        // CS (100,000 prefixes do not fit in L2); with it a burst miss takes 0.73-0.79
        // of the time (criterion). The probe stops at the first key found: probing every
        // populated length costs ~130 instructions per Interest and is no faster.
        for b in st.iter() {
            if b.slot != NONE {
                self.tables.pcct.prefetch_slot_contents(b.slot);
            } else if b.n_hashes != 0 {
                let hashes = b.hashes(&arena);
                self.tables.fib.prefetch_lpm_entry(hashes.len() - 1, hashes);
            }
        }
        // Stage 4: the packets of the CS entries the Interests may hit.
        for b in st.iter() {
            if b.n_hashes != 0 && b.slot != NONE {
                self.tables.pcct.prefetch_cs_packet(b.slot);
            }
        }
        // Each packet moves once, straight from the burst into its pipeline's
        // arguments: the match binds the packet in the burst's buffer and no call that
        // could panic comes between the binding and the pipeline call (the scratch
        // comes from the zip, the hashes from a non-panicking `get`). A panic there
        // (an `st[k]` bounds check, say) forces the compiler to park the Interest on
        // the stack first, copying it once more; handing the whole entry to an
        // out-of-line function instead cost a `memcpy` call plus a second copy of the
        // Interest (~40 instructions per packet, measured in callgrind).
        // The probe's calls come before the binding and after the pipeline call.
        for (k, (b, (face, pkt, meta))) in st.iter().zip(burst.drain(..)).enumerate() {
            probe.before(k, self);
            match pkt {
                InPacket::Interest(i) => {
                    let hashes = b.hashes(&arena);
                    let pre = (hashes, b.klen as usize, b.probe);
                    let t = &mut self.tables;
                    t.incoming_interest(&mut self.strategies, now, face, i, meta, Some(pre))
                }
                InPacket::Data(d) => {
                    let t = &mut self.tables;
                    t.incoming_data(&mut self.strategies, now, face, d, &meta, true)
                }
                InPacket::Nack(n) => self.handle_nack(now, face, n, meta),
            }
            probe.after(k, self);
        }
        self.burst_state = st;
        self.burst_hashes = arena;
        self.burst_victims = (victims, vslots);
    }

    /// Expire PIT entries whose lifetime ended (finalized unsatisfied), and run the
    /// strategies' timers.
    pub fn handle_timeout(&mut self, now: Time) {
        let t = &mut self.tables;
        while let Some((_, p, generation)) = t.timers.pop_due(now) {
            if !t.pcct.pit_live(p, generation) {
                continue;
            }
            let expiry = t.pcct.pit(p).map_or(now, |e| e.expiry());
            if expiry <= now {
                t.finalize(now, p);
            } else {
                t.timers.push(expiry, p, generation);
            }
        }
        t.dnl.expire(now);
        self.strategies.handle_timeout(t, now);
    }

    /// When [`Forwarder::handle_timeout`] should next be called (`None`: no timer armed).
    pub fn poll_timeout(&self) -> Option<Time> {
        [self.tables.timers.next(), self.strategies.next_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The next packet to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.tables.out.pop_front()
    }

    /// Move every pending output into `out` (burst equivalent of `poll_transmit`).
    pub fn drain_transmits(&mut self, out: &mut Vec<Transmit>) {
        let queue = &mut self.tables.out;
        if out.is_empty() {
            // Hand over the queue's buffer instead of moving each 128-byte `Transmit`:
            // both conversions are O(1) when the ring starts at its buffer's start (as
            // it does after a full drain), one bulk move otherwise.
            let mut full = Vec::from(std::mem::take(queue));
            std::mem::swap(out, &mut full);
            *queue = VecDeque::from(full);
        } else {
            out.extend(queue.drain(..));
        }
    }

    /// Number of armed timers (stale ones of finished PIT entries included).
    pub fn pending_timers(&self) -> usize {
        self.tables.timers.len()
    }

    /// Number of queued outputs.
    pub fn pending_transmits(&self) -> usize {
        self.tables.out.len()
    }
}

/// What the strategies keep, for tests and status, and self-learning's exchange
/// with the runtime's RIB.
impl Forwarder {
    /// ASF measurements of `face` under the FIB prefix `prefix`.
    pub fn asf_stats(&self, prefix: &Name, face: FaceId) -> Option<FaceStats> {
        self.strategies.asf.stats_of(prefix, face)
    }

    /// Number of armed ASF RTO timers, cancelled ones not yet dropped included.
    pub fn asf_pending_timers(&self) -> usize {
        self.strategies.asf.pending_timers()
    }

    /// Access measurements of `prefix`.
    pub fn access_stats(&self, prefix: &Name, now: Time) -> Option<PrefixStats> {
        self.strategies.access.stats(prefix, now)
    }

    /// Number of armed access RTO timers.
    pub fn access_armed_timers(&self) -> usize {
        self.strategies.access.armed_timers()
    }

    /// The next request of self-learning to the RIB (drain after every input batch,
    /// as the transmits).
    pub fn poll_rib_request(&mut self) -> Option<RibRequest> {
        self.strategies.self_learning.poll_rib_request()
    }

    /// Number of Data waiting for an announcement from the RIB.
    pub fn pending_announcements(&self) -> usize {
        self.strategies.self_learning.pending_announcements()
    }

    /// The RIB's answer to [`RibRequest::FindAnnouncement`] `id`: with an
    /// announcement, the waiting Data goes to every pending downstream with it and the
    /// entry is satisfied; without, the Data is not sent (the entry expires).
    pub fn handle_announcement(&mut self, now: Time, id: u64, announcement: Option<Bytes>) {
        let ctx = &mut Context::new(&mut self.tables);
        (self.strategies.self_learning).handle_announcement(ctx, now, id, announcement);
    }
}

/// Watches packets of a burst go through their own pipelines
/// ([`Forwarder::handle_burst_probed`]): `before` is called just before packet `i`'s
/// pipeline (after the burst's prefetch stages and the packets ahead of it),
/// `after` just after it, each with the forwarder as it is then (its counters,
/// its transmit queue). Implementations should only look at packets they want.
pub trait BurstProbe {
    fn before(&mut self, i: usize, fw: &Forwarder);
    fn after(&mut self, i: usize, fw: &Forwarder);
}

/// The probe of [`Forwarder::handle_burst`]: nothing, compiled away.
struct NoProbe;

impl BurstProbe for NoProbe {
    #[inline(always)]
    fn before(&mut self, _: usize, _: &Forwarder) {}
    #[inline(always)]
    fn after(&mut self, _: usize, _: &Forwarder) {}
}
