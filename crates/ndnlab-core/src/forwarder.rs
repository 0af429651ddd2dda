//! [`Forwarder`]: the tables, the face list, the timer queue and the output queue,
//! with the sans-IO entry points. The pipelines are in [`crate::pipeline`] (one
//! file each), the strategies in [`crate::strategy`].

use std::collections::VecDeque;
use std::num::NonZeroU64;

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, LpFields, Nack, NackReason, Name};

use crate::counters::{DropReason, FaceCounters, ForwarderCounters};
use crate::cs::{ContentStore, CsState};
use crate::cs_policy::CsPolicyKind;
use crate::dead_nonce::{DeadNonceList, DEFAULT_LIFETIME};
use crate::face::{FaceId, FaceInfo, FaceScope, LinkType};
use crate::face_table::FaceTable;
use crate::fib::Fib;
use crate::pcct::{Pcct, NONE};
use crate::strategy::access::AccessState;
use crate::strategy::asf::AsfState;
use crate::strategy::self_learning::SelfLearningState;
use crate::strategy::StrategyKind;
use crate::strategy_choice::StrategyChoice;
use crate::timer::TimerQueue;
use crate::{Time, MS};

/// NDNLPv2 fields that matter to forwarding, in and out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LpMeta {
    /// PitToken: on input, the token the peer sent (downstream's on Interests, ours
    /// echoed on Data/Nack); on output, the token to send.
    pub pit_token: Option<Bytes>,
    /// NextHopFaceId (honoured on Interests from local faces).
    pub next_hop_face_id: Option<u64>,
    /// CongestionMark (copied from input to output).
    pub congestion_mark: u64,
    /// IncomingFaceId: on output to local faces, the face the packet came from (never
    /// 0, NFD's invalid face id: the niche keeps a [`Transmit`] within 128 bytes).
    pub incoming_face_id: Option<NonZeroU64>,
    /// CachePolicy NoCache on a Data: do not cache it.
    pub cache_policy_no_cache: bool,
    /// NonDiscovery on an Interest (self-learning): in, the downstream marked it; out,
    /// the strategy marks it.
    pub non_discovery: bool,
    /// PrefixAnnouncement on a Data (self-learning): the prefix-announcement Data TLV.
    /// Boxed: rare, and an inline `Bytes` would make every [`Transmit`] 24 bytes larger.
    pub prefix_announcement: Option<Box<Bytes>>,
    /// On an incoming Data, the bytes of the read buffer it arrived in that it stands
    /// for, as the face's reader counts them (0: not reported): its own, and those
    /// back to the previous Data read into that buffer. The CS charges a slice it
    /// keeps that share ([`crate::cs::share`]). Not sent.
    pub buffer_share: u32,
}

impl LpMeta {
    /// The PrefixAnnouncement, if any.
    pub fn prefix_announcement(&self) -> Option<&Bytes> {
        self.prefix_announcement.as_deref()
    }
}

/// A packet to send, as wire bytes: what a face writes. No decoded view travels
/// with it (moving views, then 200 bytes, through the output queue and rebuilding
/// one for every CS hit cost ~30% of a hit, measured with callgrind).
/// [`OutPacket::to_interest`] and friends decode when a caller wants the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutPacket {
    /// An Interest TLV (the incoming bytes, hot fields rewritten in place).
    Interest(Bytes),
    /// A Data TLV (shared bytes: the incoming ones, or the Content Store's).
    Data(Bytes),
    /// A Nack. Boxed: Nacks are rare, and an inline 16-byte [`NackReason`] made
    /// every [`Transmit`] 136 bytes, past the 128 bytes the compiler moves inline:
    /// each queued output then cost a `memcpy` call (measured with callgrind).
    Nack(Box<OutNack>),
}

/// The contents of [`OutPacket::Nack`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutNack {
    /// The Interest TLV the Nack carries.
    pub wire: Bytes,
    /// The reason.
    pub reason: NackReason,
}

impl OutPacket {
    /// The packet's TLV (for a Nack, the Interest it carries).
    pub fn wire(&self) -> &Bytes {
        match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => &n.wire,
        }
    }

    /// Consumes the packet, returning its TLV (for a Nack, the Interest's).
    pub fn into_wire(self) -> Bytes {
        match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => n.wire,
        }
    }

    /// Consumes the packet and its metadata, returning the TLV to send and the
    /// NDNLPv2 fields to attach: the Nack's reason, and IncomingFaceId only with
    /// `local_fields` (a local face that enabled them). What the daemon's faces
    /// and the simulator's links both send.
    #[inline]
    pub fn into_lp(self, meta: LpMeta, local_fields: bool) -> (Bytes, LpFields) {
        let mut fields = LpFields {
            pit_token: meta.pit_token,
            congestion_mark: meta.congestion_mark,
            incoming_face_id: if local_fields {
                meta.incoming_face_id.map(|id| id.get())
            } else {
                None
            },
            non_discovery: meta.non_discovery,
            prefix_announcement: meta.prefix_announcement,
            ..Default::default()
        };
        let pkt = match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => {
                fields.nack = Some(n.reason.code());
                n.wire
            }
        };
        (pkt, fields)
    }

    /// The Interest, decoded (`None` for a Data or a Nack).
    pub fn to_interest(&self) -> Option<Interest> {
        match self {
            OutPacket::Interest(w) => Interest::decode(w.clone()).ok(),
            _ => None,
        }
    }

    /// The Data, decoded (`None` for an Interest or a Nack).
    pub fn to_data(&self) -> Option<Data> {
        match self {
            OutPacket::Data(w) => Data::decode(w.clone()).ok(),
            _ => None,
        }
    }

    /// The Nack, decoded (`None` for an Interest or a Data).
    pub fn to_nack(&self) -> Option<Nack> {
        match self {
            OutPacket::Nack(n) => Interest::decode(n.wire.clone())
                .ok()
                .map(|i| Nack::new(i, n.reason)),
            _ => None,
        }
    }
}

/// An input packet, for [`Forwarder::handle_burst`].
#[derive(Debug, Clone)]
pub enum InPacket {
    /// An Interest.
    Interest(Interest),
    /// A Data.
    Data(Data),
    /// A Nack.
    Nack(Nack),
}

/// One output: send `packet` with `meta` on `face`.
#[derive(Debug, Clone)]
pub struct Transmit {
    /// Outgoing face.
    pub face: FaceId,
    /// The packet.
    pub packet: OutPacket,
    /// LpPacket fields to attach.
    pub meta: LpMeta,
}

/// What to do with Data that matches no PIT entry (NFD `tables.cs_unsolicited_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnsolicitedDataPolicy {
    /// Drop every unsolicited Data (NFD default).
    #[default]
    DropAll,
    /// Cache unsolicited Data from local faces.
    AdmitLocal,
    /// Cache unsolicited Data from non-local faces.
    AdmitNetwork,
    /// Cache every unsolicited Data.
    AdmitAll,
}

impl UnsolicitedDataPolicy {
    /// NFD's name (`drop-all`, `admit-local`, `admit-network`, `admit-all`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "drop-all" => Self::DropAll,
            "admit-local" => Self::AdmitLocal,
            "admit-network" => Self::AdmitNetwork,
            "admit-all" => Self::AdmitAll,
            _ => return None,
        })
    }
}

/// Retransmission suppression parameters (NFD RetxSuppressionExponential defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetxSuppressionConfig {
    /// Initial suppression interval (10 ms).
    pub initial: Time,
    /// Maximum interval (250 ms).
    pub max: Time,
    /// Multiplier applied after each forwarded retransmission (2).
    pub multiplier: u64,
}

impl Default for RetxSuppressionConfig {
    fn default() -> Self {
        RetxSuppressionConfig {
            initial: 10 * MS,
            max: 250 * MS,
            multiplier: 2,
        }
    }
}

/// Forwarder configuration.
#[derive(Debug, Clone)]
pub struct ForwarderConfig {
    /// CS capacity in packets (NFD default 65536).
    pub cs_capacity: usize,
    /// CS capacity in bytes of packet wire encoding.
    pub cs_capacity_bytes: usize,
    /// CS replacement policy.
    pub cs_policy: CsPolicyKind,
    /// Unsolicited Data policy.
    pub unsolicited: UnsolicitedDataPolicy,
    /// Strategy of the root prefix.
    pub default_strategy: StrategyKind,
    /// Dead Nonce List entry lifetime.
    pub dead_nonce_lifetime: Time,
    /// Dead Nonce List capacity.
    pub dead_nonce_capacity: usize,
    /// `(index, count)` of this shard.
    pub shard: (usize, usize),
    /// Whether outgoing Interests carry our PIT token.
    pub pit_tokens: bool,
    /// Retransmission suppression.
    pub retx: RetxSuppressionConfig,
    /// ASF probing interval (NFD default 60 s).
    pub asf_probing_interval: Time,
    /// Seed of the RNG (ASF probing choices, missing Nonces).
    pub seed: u64,
    /// Producer regions (NFD `tables.network_region`): ForwardingHint stripped there.
    pub network_region: crate::network_region::NetworkRegionTable,
    /// Resource bounds: PIT size, per-face PIT share, per-face Interest rate (all off
    /// by default).
    pub limits: crate::limits::Limits,
    /// Checks every incoming Data before the PIT match ([`crate::verify`]); `None`
    /// (the default) checks nothing.
    pub verify_data: Option<std::sync::Arc<dyn crate::verify::DataVerifier>>,
}

impl Default for ForwarderConfig {
    fn default() -> Self {
        ForwarderConfig {
            cs_capacity: 65536,
            cs_capacity_bytes: 1 << 30,
            cs_policy: CsPolicyKind::PriorityFifo,
            unsolicited: UnsolicitedDataPolicy::DropAll,
            default_strategy: StrategyKind::BestRoute,
            dead_nonce_lifetime: DEFAULT_LIFETIME,
            dead_nonce_capacity: 1 << 20,
            shard: (0, 1),
            pit_tokens: true,
            retx: RetxSuppressionConfig::default(),
            asf_probing_interval: 60_000 * MS,
            seed: 0x6e64_6e6c_6162,
            network_region: Default::default(),
            limits: Default::default(),
            verify_data: None,
        }
    }
}

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
    pub(crate) config: ForwarderConfig,
    pub(crate) faces: FaceTable,
    pub(crate) fib: Fib,
    pub(crate) sc: StrategyChoice,
    pub(crate) pcct: Pcct,
    pub(crate) dnl: DeadNonceList,
    pub(crate) timers: TimerQueue,
    pub(crate) out: VecDeque<Transmit>,
    pub(crate) counters: ForwarderCounters,
    pub(crate) asf: AsfState,
    pub(crate) access: AccessState,
    pub(crate) self_learning: SelfLearningState,
    pub(crate) tokens: crate::token::TokenArena,
    /// Per-packet scratch of [`Forwarder::handle_burst`] (kept to reuse its allocation).
    burst_state: Vec<BurstEntry>,
    /// Prefix hashes of the burst's Interest names, back to back (20 bytes of scratch
    /// per entry instead of a 200-byte inline array copied twice); stale past the
    /// current burst's fill mark.
    burst_hashes: Vec<u64>,
    /// Eviction prefetch scratch of [`Forwarder::handle_burst`]: victims and their slots.
    burst_victims: (Vec<u32>, Vec<u32>),
    /// Strategy parameters from `config` (computed once; the config fields they come
    /// from do not change).
    pub(crate) default_params: crate::strategy::Params,
    rng: u64,
}

impl Forwarder {
    /// A forwarder with no faces, an empty FIB and `config.default_strategy` at `/`.
    pub fn new(config: ForwarderConfig) -> Self {
        let shard = config.shard.0.min(255) as u8;
        Forwarder {
            faces: FaceTable::default(),
            fib: Fib::new(),
            sc: StrategyChoice::new(config.default_strategy),
            pcct: Pcct::new(
                CsState::new(
                    config.cs_capacity,
                    config.cs_capacity_bytes,
                    config.cs_policy,
                ),
                shard,
            ),
            dnl: DeadNonceList::new(config.dead_nonce_lifetime, config.dead_nonce_capacity),
            timers: TimerQueue::default(),
            out: VecDeque::new(),
            counters: ForwarderCounters::default(),
            asf: AsfState::default(),
            access: AccessState::default(),
            self_learning: SelfLearningState::default(),
            tokens: Default::default(),
            burst_state: Vec::new(),
            burst_hashes: Vec::new(),
            burst_victims: Default::default(),
            default_params: crate::strategy::Params::from_config(&config),
            rng: config.seed | 1,
            config,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ForwarderConfig {
        &self.config
    }

    /// Set the unsolicited Data policy.
    pub fn set_unsolicited_policy(&mut self, p: UnsolicitedDataPolicy) {
        self.config.unsolicited = p;
    }

    /// Add a face (or update its scope and link type).
    pub fn add_face(&mut self, id: FaceId, scope: FaceScope, link: LinkType) {
        let f = self.faces.get_or_insert_default(id.0);
        f.scope = scope;
        f.link = link;
    }

    /// Remove a face: its FIB next hops, its PIT in/out records (entries left with no
    /// downstream are finalized unsatisfied), and queued transmits to it.
    pub fn remove_face(&mut self, id: FaceId, now: Time) {
        if self.faces.remove(&id.0).is_none() {
            return;
        }
        self.fib.remove_face(id);
        for p in self.pcct.pit_ids() {
            let Some(e) = self.pcct.pit_mut(p) else {
                continue;
            };
            let before = e.expiry();
            e.in_records.retain(|r| r.face != id);
            e.out_records.retain(|r| r.face != id);
            if e.in_records.is_empty() {
                self.finalize(now, p);
            } else if !e.flags.satisfied && e.expiry() < before {
                // (as in `outgoing_nack`: the armed timer is at the old expiry)
                let (after, generation) = (e.expiry(), self.pcct.generation_of(p));
                self.timers.push(after, p, generation);
            }
        }
        self.out.retain(|t| t.face != id);
        self.asf.remove_face(id);
        self.access.remove_face(id);
    }

    /// Whether a face exists.
    pub fn has_face(&self, id: FaceId) -> bool {
        self.faces.contains_key(&id.0)
    }

    /// The FIB (management).
    pub fn fib(&mut self) -> &mut Fib {
        &mut self.fib
    }

    /// Add a FIB next hop (or update its cost), as management does: when the next hop
    /// is new, NFD's `afterNewNextHop` trigger runs, so pending Interests of
    /// strategies that want it (multicast) go to the new upstream at once.
    pub fn add_nexthop(&mut self, now: Time, prefix: &Name, face: FaceId, cost: u64) {
        if self.fib.add_nexthop(prefix, face, cost) {
            self.after_new_nexthop(now, prefix, face);
        }
    }

    /// The FIB, read-only.
    pub fn fib_ref(&self) -> &Fib {
        &self.fib
    }

    /// StrategyChoice (management).
    pub fn strategy_choice(&mut self) -> &mut StrategyChoice {
        &mut self.sc
    }

    /// The Content Store (management).
    pub fn cs(&mut self) -> &mut ContentStore {
        &mut self.pcct
    }

    /// The Content Store, read-only.
    pub fn cs_ref(&self) -> &ContentStore {
        &self.pcct
    }

    /// Number of PIT entries.
    pub fn pit_len(&self) -> usize {
        self.pcct.pit_len()
    }

    /// Number of Dead Nonce List entries.
    pub fn dead_nonce_len(&self) -> usize {
        self.dnl.len()
    }

    /// Dead Nonce List entries dropped before their lifetime because the list held
    /// `dead_nonce_capacity` entries.
    pub fn dead_nonce_overflows(&self) -> u64 {
        self.dnl.overflows()
    }

    /// Global counters.
    pub fn counters(&self) -> &ForwarderCounters {
        &self.counters
    }

    /// Counters of a face.
    pub fn face_counters(&self, id: FaceId) -> Option<&FaceCounters> {
        self.faces.get(&id.0).map(|f| &f.counters)
    }

    /// Faces: `(id, scope, link type)`.
    pub fn faces(&self) -> impl Iterator<Item = (FaceId, FaceScope, LinkType)> + '_ {
        self.faces
            .iter()
            .map(|(id, f)| (FaceId(*id), f.scope, f.link))
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
            self.pcct
                .prefetch_evictions(0, n_data, &mut victims, &mut vslots);
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
                    b.probe = self.pcct.prefetch_index(k, hashes[k]);
                }
                InPacket::Data(_) => {
                    if let Some(t) = meta
                        .pit_token
                        .as_deref()
                        .and_then(crate::token::PitToken::decode)
                    {
                        self.pcct.prefetch_pit(t.index);
                        b.probe = t.index;
                    }
                }
                InPacket::Nack(_) => {}
            }
        }
        // Stage 2.
        if !victims.is_empty() {
            self.pcct
                .prefetch_evictions(1, n_data, &mut victims, &mut vslots);
        }
        for b in st.iter_mut() {
            if b.n_hashes != 0 {
                b.slot = self.pcct.prefetch_slot_of(b.probe);
                // Only a name not in the PCCT certainly goes to the FIB (prefetching
                // FIB lines for every Interest would crowd out the hits' misses).
                if b.slot == NONE {
                    let hashes = b.hashes(&arena);
                    self.fib.prefetch_lpm(hashes.len() - 1, hashes);
                }
            } else if b.probe != NONE {
                b.slot = self.pcct.prefetch_slot_of_pit(b.probe);
            }
        }
        // Stage 3.
        if !vslots.is_empty() {
            self.pcct
                .prefetch_evictions(2, n_data, &mut victims, &mut vslots);
        }
        // An Interest bound for the FIB: the hot line of the entry its longest-prefix
        // match verifies first (found through the index line stage 2 brought in).
        // Without this prefetch that read is a dependent miss even with a 1,024-entry
        // CS (100,000 prefixes do not fit in L2); with it a burst miss takes 0.73-0.79
        // of the time (criterion). The probe stops at the first key found: probing every
        // populated length costs ~130 instructions per Interest and is no faster.
        for b in st.iter() {
            if b.slot != NONE {
                self.pcct.prefetch_slot_contents(b.slot);
            } else if b.n_hashes != 0 {
                let hashes = b.hashes(&arena);
                self.fib.prefetch_lpm_entry(hashes.len() - 1, hashes);
            }
        }
        // Stage 4: the packets of the CS entries the Interests may hit.
        for b in st.iter() {
            if b.n_hashes != 0 && b.slot != NONE {
                self.pcct.prefetch_cs_packet(b.slot);
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
                    self.handle_interest_hashed(now, face, i, meta, Some(pre))
                }
                InPacket::Data(d) => self.handle_data_staged(now, face, d, &meta, true),
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
        while let Some((_, p, generation)) = self.timers.pop_due(now) {
            if !self.pcct.pit_live(p, generation) {
                continue;
            }
            let expiry = self.pcct.pit(p).map_or(now, |e| e.expiry());
            if expiry <= now {
                self.finalize(now, p);
            } else {
                self.timers.push(expiry, p, generation);
            }
        }
        self.dnl.expire(now);
        self.asf_handle_timeout(now);
        self.access_handle_timeout(now);
        self.self_learning_handle_timeout();
    }

    /// When [`Forwarder::handle_timeout`] should next be called (`None`: no timer armed).
    pub fn poll_timeout(&self) -> Option<Time> {
        [
            self.timers.next(),
            self.asf.next_timeout(),
            self.access.next_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next packet to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.pop_front()
    }

    /// Move every pending output into `out` (burst equivalent of `poll_transmit`).
    pub fn drain_transmits(&mut self, out: &mut Vec<Transmit>) {
        if out.is_empty() {
            // Hand over the queue's buffer instead of moving each 128-byte `Transmit`:
            // both conversions are O(1) when the ring starts at its buffer's start (as
            // it does after a full drain), one bulk move otherwise.
            let mut full = Vec::from(std::mem::take(&mut self.out));
            std::mem::swap(out, &mut full);
            self.out = VecDeque::from(full);
        } else {
            out.extend(self.out.drain(..));
        }
    }

    /// Number of armed timers (stale ones of finished PIT entries included).
    pub fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    /// Number of queued outputs.
    pub fn pending_transmits(&self) -> usize {
        self.out.len()
    }

    /// Count a drop.
    #[inline]
    pub(crate) fn drop_packet(&mut self, r: DropReason) {
        self.counters.drops.inc(r);
    }

    /// xorshift64* (deterministic, seeded).
    pub(crate) fn random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Face info.
    #[inline]
    pub(crate) fn face(&self, id: FaceId) -> Option<&FaceInfo> {
        self.faces.get(&id.0)
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

#[cfg(test)]
mod tests {
    /// Every queued output moves through `VecDeque` pushes and pops: at <= 128 bytes
    /// the compiler moves it inline instead of calling `memcpy` (see `OutPacket::Nack`).
    #[test]
    fn transmit_moves_inline() {
        assert!(std::mem::size_of::<super::Transmit>() <= 128);
    }
}
