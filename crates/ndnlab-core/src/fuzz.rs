//! Fuzz harness of the forwarder core: an `arbitrary`-derived sequence of events
//! (packets on random faces, bursts, replies to what the core sent, timer advances,
//! faces up and down, FIB, strategy and CS changes) run through one [`Forwarder`]
//! with a fake clock, checking after every event:
//!
//! * no panic;
//! * the Interest ledger of [`ForwarderCounters::pending_interests`] equals the
//!   PIT's size, and `/localhost` drops are exactly the predicted incoming ones
//!   (at least those once a face turned from local to non-local: Data for the
//!   `/localhost` Interests it sent while local is then dropped on the way out);
//! * global counters equal the sums of the per-face counters (removed faces
//!   included), and the packets the core emitted equal its out counters;
//! * every PIT entry is either pending (a downstream's lifetime not over) or
//!   satisfied and kept for late Data (ASF); the CS, Dead Nonce List and timer queue
//!   stay within their bounds (the CS in packets and in charged bytes, its entries,
//!   ghosts and bytes equal to a recount, no ghost without an entry, and faces'
//!   carried read-buffer shares bounded);
//!
//! and at the end, once every lifetime has passed, that the PIT is empty and no
//! PIT timer is left. The cargo-fuzz target `fuzz/fuzz_targets/core.rs` and the
//! property test `tests/fuzz_core.rs` call [`core_events`]: one harness, two drivers.

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use ndnlab_wire::{Data, Interest, Nack, NackReason, Name};

use crate::counters::{DropReason, FaceCounters, ForwarderCounters};
use crate::face::{FaceId, FaceScope, LinkType};
use crate::forwarder::{
    Forwarder, ForwarderConfig, InPacket, LpMeta, OutPacket, UnsolicitedDataPolicy,
};
use crate::strategy::StrategyKind;
use crate::{CsPolicyKind, Time, MS};

/// Face ids the events use (index 8 is a face that never exists).
const FACES: u64 = 8;
const FIRST_FACE: u64 = 256;
/// Components the names are made of: few, so names collide.
const WORDS: [&str; 6] = ["a", "b", "c", "localhost", "localhop", "d"];

/// A name of 1 to 4 components from [`WORDS`].
#[derive(Debug, Clone, Arbitrary)]
pub struct NameSpec(u8, [u8; 4]);

impl NameSpec {
    fn name(&self) -> Name {
        let n = 1 + self.0 as usize % 4;
        let uri: String = self.1[..n]
            .iter()
            .map(|w| format!("/{}", WORDS[*w as usize % WORDS.len()]))
            .collect();
        Name::from_uri(&uri).expect("fixed words")
    }
}

/// One packet from a face.
#[derive(Debug, Clone, Arbitrary)]
pub enum PacketEvent {
    /// A new Interest.
    Interest {
        face: u8,
        name: NameSpec,
        nonce: u8,
        lifetime_ms: u16,
        hop_limit: Option<u8>,
        can_be_prefix: bool,
        must_be_fresh: bool,
        next_hop: Option<u8>,
        token: Option<u8>,
    },
    /// A Data that nobody necessarily asked for.
    Data {
        face: u8,
        name: NameSpec,
        freshness_ms: Option<u16>,
        no_cache: bool,
        token: Option<u8>,
        share: Share,
    },
    /// Data answering the `pick`-th Interest the core sent, from its upstream,
    /// with its PIT token (or a damaged one).
    Reply {
        pick: u8,
        damage_token: bool,
        longer: bool,
        share: Share,
    },
    /// A Nack of the `pick`-th Interest the core sent, from its upstream.
    NackReply {
        pick: u8,
        reason: u8,
        other_nonce: bool,
    },
    /// A Nack of an Interest the core never sent.
    Nack {
        face: u8,
        name: NameSpec,
        nonce: u8,
        reason: u8,
    },
}

/// The share of its read buffer a face's reader reports for a Data
/// ([`LpMeta::buffer_share`]): none, a stream buffer's, or a datagram's own buffer.
#[derive(Debug, Clone, Arbitrary)]
pub enum Share {
    None,
    Stream(u16),
    Own(u16),
}

impl Share {
    fn bytes(&self) -> u32 {
        match self {
            Share::None => 0,
            Share::Stream(n) => u32::from(*n),
            Share::Own(n) => crate::cs::share::BUFFER_OWN | u32::from(*n),
        }
    }
}

/// One step of a scenario.
#[derive(Debug, Clone, Arbitrary)]
pub enum Event {
    /// One packet through `handle_*`.
    Packet(PacketEvent),
    /// Up to 8 packets through `handle_burst`.
    Burst(Vec<PacketEvent>),
    /// The clock moves on (milliseconds), then timers run.
    Advance(u16),
    /// A face comes up (or changes scope and link type).
    FaceUp { face: u8, local: bool, ad_hoc: bool },
    /// A face goes down.
    FaceDown { face: u8 },
    /// A FIB next hop is added (with the afterNewNextHop trigger) or removed.
    Route {
        prefix: NameSpec,
        face: u8,
        cost: u8,
        add: bool,
    },
    /// A strategy is chosen for a prefix (or unset).
    Strategy {
        prefix: NameSpec,
        kind: u8,
        unset: bool,
    },
    /// The unsolicited-Data policy changes.
    Unsolicited(u8),
    /// The CS capacity changes (0 to 31 packets).
    CsCapacity(u8),
}

/// The configuration a scenario starts with.
#[derive(Debug, Clone, Arbitrary)]
pub struct Setup {
    cs_capacity: u8,
    cs_policy: u8,
    strategy: u8,
    pit_tokens: bool,
    dead_nonce_capacity: u8,
    /// The CS charges what entries occupy, copies entries that leave arrival order and
    /// leaves ghosts ([`crate::ContentStore::set_own_buffers`]), under a byte bound of
    /// 256 + 64 x `cs_bytes` (one to about 80 small Data).
    own_buffers: bool,
    cs_bytes: u8,
}

/// A whole scenario: a setup and its events.
#[derive(Debug, Clone, Arbitrary)]
pub struct Scenario {
    pub setup: Setup,
    pub events: Vec<Event>,
}

fn face_id(i: u8) -> FaceId {
    FaceId(FIRST_FACE + u64::from(i) % (FACES + 1))
}

fn strategy(k: u8) -> StrategyKind {
    let all = [
        StrategyKind::BestRoute,
        StrategyKind::Multicast,
        StrategyKind::Asf,
        StrategyKind::Random,
        StrategyKind::Access,
        StrategyKind::SelfLearning,
    ];
    all[k as usize % all.len()]
}

fn nack_reason(r: u8) -> NackReason {
    NackReason::from_code(u64::from(r % 4) * 50)
}

fn is_localhost(n: &Name) -> bool {
    crate::pipeline::scope::is_localhost(n)
}

/// What the harness knows besides the forwarder.
struct World {
    fw: Forwarder,
    now: Time,
    /// Faces up: `(id, local)`.
    up: Vec<(FaceId, bool)>,
    /// Counters of faces removed, summed.
    gone: FaceCounters,
    /// Interests the core sent: `(upstream, wire, token)`, the latest 32.
    sent: Vec<(FaceId, Bytes, Option<Bytes>)>,
    /// Packets the core emitted, by kind: Interests, Data, Nacks.
    emitted: [u64; 3],
    /// `/localhost` drops expected: on incoming Interests, on incoming Data.
    localhost: [u64; 2],
    /// Whether a face that was up turned from local to non-local: Data for
    /// `/localhost` Interests it sent as a local face are then dropped on the
    /// way out, beyond the predicted incoming drops.
    rescoped: bool,
    cs_capacity: usize,
    cs_capacity_bytes: usize,
    dnl_capacity: usize,
    max_lifetime: Time,
}

impl World {
    fn local(&self, f: FaceId) -> Option<bool> {
        self.up.iter().find(|(id, _)| *id == f).map(|(_, l)| *l)
    }

    /// The packet and its metadata, noting the `/localhost` drop it will cause.
    fn packet(&mut self, ev: &PacketEvent) -> Option<(FaceId, InPacket, LpMeta)> {
        match ev {
            PacketEvent::Interest {
                face,
                name,
                nonce,
                lifetime_ms,
                hop_limit,
                can_be_prefix,
                must_be_fresh,
                next_hop,
                token,
            } => {
                let (face, name) = (face_id(*face), name.name());
                let mut b = Interest::builder(name.clone())
                    .nonce(u32::from(*nonce))
                    .lifetime_ms(u64::from(*lifetime_ms))
                    .can_be_prefix(*can_be_prefix)
                    .must_be_fresh(*must_be_fresh);
                if let Some(h) = hop_limit {
                    b = b.hop_limit(*h);
                }
                let i = b.build_view().expect("built Interest decodes");
                self.max_lifetime = self.max_lifetime.max(i.lifetime_ns());
                if self.local(face) == Some(false) && hop_limit != &Some(0) && is_localhost(&name) {
                    self.localhost[0] += 1;
                }
                let meta = LpMeta {
                    pit_token: token.map(|t| Bytes::from(vec![t; 8])),
                    next_hop_face_id: next_hop.map(|n| face_id(n).0),
                    ..Default::default()
                };
                Some((face, InPacket::Interest(i), meta))
            }
            PacketEvent::Data {
                face,
                name,
                freshness_ms,
                no_cache,
                token,
                share,
            } => {
                let (face, name) = (face_id(*face), name.name());
                let meta = LpMeta {
                    pit_token: token.map(|t| Bytes::from(vec![t; 8])),
                    cache_policy_no_cache: *no_cache,
                    buffer_share: share.bytes(),
                    ..Default::default()
                };
                Some((face, InPacket::Data(self.data(name, *freshness_ms)), meta))
            }
            PacketEvent::Reply {
                pick,
                damage_token,
                longer,
                share,
            } => {
                if self.sent.is_empty() {
                    return None;
                }
                let (face, wire, token) = self.sent[*pick as usize % self.sent.len()].clone();
                let i = Interest::decode(wire).expect("the core sends valid Interests");
                let mut name = i.name().clone();
                if *longer {
                    name = name.append_generic(b"x");
                }
                let token = if *damage_token {
                    Some(Bytes::from_static(&[0xff; 8]))
                } else {
                    token
                };
                let meta = LpMeta {
                    pit_token: token,
                    buffer_share: share.bytes(),
                    ..Default::default()
                };
                Some((face, InPacket::Data(self.data(name, Some(1000))), meta))
            }
            PacketEvent::NackReply {
                pick,
                reason,
                other_nonce,
            } => {
                if self.sent.is_empty() {
                    return None;
                }
                let (face, wire, token) = self.sent[*pick as usize % self.sent.len()].clone();
                let mut i = Interest::decode(wire).expect("the core sends valid Interests");
                if *other_nonce {
                    i.set_nonce(i.nonce().unwrap_or(0).wrapping_add(1));
                }
                let meta = LpMeta {
                    pit_token: token,
                    ..Default::default()
                };
                Some((
                    face,
                    InPacket::Nack(Nack::new(i, nack_reason(*reason))),
                    meta,
                ))
            }
            PacketEvent::Nack {
                face,
                name,
                nonce,
                reason,
            } => {
                let i = Interest::builder(name.name())
                    .nonce(u32::from(*nonce))
                    .build_view()
                    .expect("built Interest decodes");
                let nack = Nack::new(i, nack_reason(*reason));
                Some((face_id(*face), InPacket::Nack(nack), LpMeta::default()))
            }
        }
    }

    fn data(&mut self, name: Name, freshness_ms: Option<u16>) -> Data {
        let mut b = Data::builder(name).content(Bytes::from_static(b"fuzz"));
        if let Some(f) = freshness_ms {
            b = b.freshness_ms(u64::from(f));
        }
        // the face is not known here: the caller notes the /localhost drop
        Data::decode(b.sign_digest()).expect("built Data decodes")
    }

    /// Notes the `/localhost` drop an incoming Data will cause.
    fn note_data(&mut self, face: FaceId, pkt: &InPacket) {
        if let InPacket::Data(d) = pkt {
            if self.local(face) == Some(false) && is_localhost(d.name()) {
                self.localhost[1] += 1;
            }
        }
    }

    fn drain(&mut self) {
        while let Some(t) = self.fw.poll_transmit() {
            assert!(
                self.local(t.face).is_some(),
                "transmit to face {} that is not up",
                t.face.0
            );
            match t.packet {
                OutPacket::Interest(wire) => {
                    self.emitted[0] += 1;
                    if self.sent.len() == 32 {
                        self.sent.remove(0);
                    }
                    self.sent.push((t.face, wire, t.meta.pit_token));
                }
                OutPacket::Data(_) => self.emitted[1] += 1,
                OutPacket::Nack(_) => self.emitted[2] += 1,
            }
        }
    }

    fn step(&mut self, ev: &Event) {
        match ev {
            Event::Packet(p) => {
                if let Some((face, pkt, meta)) = self.packet(p) {
                    self.note_data(face, &pkt);
                    match pkt {
                        InPacket::Interest(i) => self.fw.handle_interest(self.now, face, i, meta),
                        InPacket::Data(d) => self.fw.handle_data(self.now, face, d, meta),
                        InPacket::Nack(n) => self.fw.handle_nack(self.now, face, n, meta),
                    }
                }
            }
            Event::Burst(ps) => {
                let mut burst = Vec::new();
                for p in ps.iter().take(8) {
                    if let Some((face, pkt, meta)) = self.packet(p) {
                        self.note_data(face, &pkt);
                        burst.push((face, pkt, meta));
                    }
                }
                self.fw.handle_burst(self.now, &mut burst);
                assert!(burst.is_empty(), "handle_burst drains its input");
            }
            Event::Advance(ms) => {
                self.now += Time::from(*ms) * MS;
                self.fw.handle_timeout(self.now);
            }
            Event::FaceUp {
                face,
                local,
                ad_hoc,
            } => {
                let id = face_id(*face);
                if id.0 == FIRST_FACE + FACES {
                    return; // the face that never exists
                }
                let scope = if *local {
                    FaceScope::Local
                } else {
                    FaceScope::NonLocal
                };
                let link = if *ad_hoc {
                    LinkType::AdHoc
                } else {
                    LinkType::PointToPoint
                };
                self.fw.add_face(id, scope, link);
                self.rescoped |= !*local && self.local(id) == Some(true);
                self.up.retain(|(f, _)| *f != id);
                self.up.push((id, *local));
            }
            Event::FaceDown { face } => {
                let id = face_id(*face);
                if let Some(c) = self.fw.face_counters(id) {
                    add(&mut self.gone, c);
                }
                self.fw.remove_face(id, self.now);
                self.up.retain(|(f, _)| *f != id);
            }
            Event::Route {
                prefix,
                face,
                cost,
                add,
            } => {
                let (prefix, face) = (prefix.name(), face_id(*face));
                if *add {
                    if self.local(face).is_some() {
                        self.fw
                            .add_nexthop(self.now, &prefix, face, u64::from(*cost));
                    }
                } else {
                    self.fw.fib().remove_nexthop(&prefix, face);
                }
            }
            Event::Strategy {
                prefix,
                kind,
                unset,
            } => {
                let prefix = prefix.name();
                let sc = self.fw.strategy_choice();
                if *unset {
                    let _ = sc.unset(&prefix);
                } else {
                    let _ = sc.set_kind(&prefix, strategy(*kind));
                }
            }
            Event::Unsolicited(p) => {
                let all = [
                    UnsolicitedDataPolicy::DropAll,
                    UnsolicitedDataPolicy::AdmitLocal,
                    UnsolicitedDataPolicy::AdmitNetwork,
                    UnsolicitedDataPolicy::AdmitAll,
                ];
                self.fw.set_unsolicited_policy(all[*p as usize % all.len()]);
            }
            Event::CsCapacity(c) => {
                self.cs_capacity = usize::from(*c % 32);
                let now = self.now;
                self.fw.cs().set_capacity(self.cs_capacity, now);
            }
        }
        // Timers run after every event ("calling earlier or more often is harmless").
        self.fw.handle_timeout(self.now);
        // Self-learning asks the RIB; nobody answers here.
        while self.fw.poll_rib_request().is_some() {}
        self.drain();
        self.check();
    }

    fn check(&self) {
        let c = self.fw.counters();
        let lh = c.drops.get(DropReason::LocalhostViolation);
        let predicted = self.localhost[0] + self.localhost[1];
        if self.rescoped {
            assert!(
                lh >= predicted,
                "/localhost drops {lh} < predicted {predicted}"
            );
        } else {
            assert_eq!(
                lh, predicted,
                "/localhost drops are exactly the incoming Interests and Data predicted"
            );
        }
        let pending = c.pending_interests(self.localhost[0]);
        assert_eq!(
            pending,
            Some(self.fw.pit_len() as u64),
            "Interest ledger: in - dropped - aggregated - satisfied - unsatisfied = PIT size; {c:?}"
        );
        let mut sum = self.gone.clone();
        for (id, _) in &self.up {
            add(&mut sum, self.fw.face_counters(*id).expect("face up"));
        }
        let global = (
            c.n_in_interests,
            c.n_in_data,
            c.n_in_nacks,
            c.n_out_interests,
            c.n_out_data,
            c.n_out_nacks,
        );
        let faces = (
            sum.n_in_interests,
            sum.n_in_data,
            sum.n_in_nacks,
            sum.n_out_interests,
            sum.n_out_data,
            sum.n_out_nacks,
        );
        assert_eq!(global, faces, "global counters = sum over faces");
        assert_eq!(
            [c.n_out_interests, c.n_out_data, c.n_out_nacks],
            self.emitted,
            "out counters = packets emitted"
        );
        assert_eq!(
            c.drops.get(DropReason::HopLimitZero),
            sum.n_in_hop_limit_zero,
            "HopLimit 0 drops = per-face nInHopLimitZero"
        );
        // PIT entries: pending, or satisfied and kept for late Data.
        for p in self.fw.tables.pcct.pit_ids() {
            let e = self.fw.tables.pcct.pit(p).expect("listed entry is live");
            assert!(
                e.expiry() > self.now || e.flags.satisfied || e.in_records.is_empty(),
                "PIT entry past its lifetime after the timers ran: now {} expiry {} in {:?} \
                 satisfied {} strategy {:?} timers {} next {:?}",
                self.now,
                e.expiry(),
                e.in_records
                    .iter()
                    .map(|r| (r.face, r.expiry))
                    .collect::<Vec<_>>(),
                e.flags.satisfied,
                e.strategy,
                self.fw.pending_timers(),
                self.fw.poll_timeout()
            );
        }
        let cs = self.fw.cs_ref();
        assert!(
            cs.len() <= self.cs_capacity.max(1),
            "CS over its capacity in Data"
        );
        assert!(
            cs.ghosts() <= self.cs_capacity.max(1),
            "CS ghosts over the capacity"
        );
        assert!(
            cs.bytes() <= self.cs_capacity_bytes,
            "CS over its byte bound: {} > {}",
            cs.bytes(),
            self.cs_capacity_bytes
        );
        assert_eq!(
            cs.recount(),
            (cs.len(), cs.ghosts(), cs.bytes()),
            "CS entries, ghosts and bytes as counted"
        );
        assert!(!cs.is_empty() || cs.ghosts() == 0, "ghosts without entries");
        assert!(cs.carried() <= FACES as usize * crate::cs::share::CARRY_MAX as usize);
        assert!(
            self.fw.dead_nonce_len() <= self.dnl_capacity,
            "DNL over capacity"
        );
        assert!(self.fw.pit_len() as u64 <= c.n_in_interests);
        assert_eq!(self.fw.pending_transmits(), 0);
    }
}

fn add(sum: &mut FaceCounters, c: &FaceCounters) {
    sum.n_in_interests += c.n_in_interests;
    sum.n_in_data += c.n_in_data;
    sum.n_in_nacks += c.n_in_nacks;
    sum.n_out_interests += c.n_out_interests;
    sum.n_out_data += c.n_out_data;
    sum.n_out_nacks += c.n_out_nacks;
    sum.n_in_hop_limit_zero += c.n_in_hop_limit_zero;
    sum.n_out_hop_limit_zero += c.n_out_hop_limit_zero;
}

/// Runs a scenario and checks the invariants of the module docs; returns the final
/// counters (for the property test's coverage figures).
pub fn run(s: &Scenario) -> ForwarderCounters {
    let cs_capacity = usize::from(s.setup.cs_capacity % 32);
    let dnl_capacity = 1 + usize::from(s.setup.dead_nonce_capacity % 64);
    let policies = [
        CsPolicyKind::PriorityFifo,
        CsPolicyKind::Lru,
        CsPolicyKind::TinyLfu,
    ];
    let cs_capacity_bytes = if s.setup.own_buffers {
        256 + 64 * usize::from(s.setup.cs_bytes)
    } else {
        ForwarderConfig::default().cs_capacity_bytes
    };
    let config = ForwarderConfig {
        cs_capacity,
        cs_capacity_bytes,
        cs_policy: policies[s.setup.cs_policy as usize % policies.len()],
        default_strategy: strategy(s.setup.strategy),
        pit_tokens: s.setup.pit_tokens,
        dead_nonce_capacity: dnl_capacity,
        ..Default::default()
    };
    let mut fw = Forwarder::new(config);
    fw.cs().set_own_buffers(s.setup.own_buffers);
    let mut w = World {
        fw,
        now: 1_000 * MS,
        up: Vec::new(),
        gone: FaceCounters::default(),
        sent: Vec::new(),
        emitted: [0; 3],
        localhost: [0; 2],
        cs_capacity,
        cs_capacity_bytes,
        dnl_capacity,
        max_lifetime: 0,
        rescoped: false,
    };
    for i in 0..4u8 {
        w.step(&Event::FaceUp {
            face: i,
            local: i == 3,
            ad_hoc: false,
        });
    }
    for ev in s.events.iter().take(256) {
        w.step(ev);
    }
    // Every lifetime, grace period and retransmission timer runs out.
    let end = w.now + w.max_lifetime + 600_000 * MS;
    while w.now < end {
        w.now = match w.fw.poll_timeout() {
            Some(t) if t > w.now && t <= end => t,
            _ => end,
        };
        w.fw.handle_timeout(w.now);
        w.drain();
        w.check();
    }
    assert_eq!(w.fw.pit_len(), 0, "every PIT entry expired");
    assert_eq!(w.fw.pending_timers(), 0, "no PIT timer left");
    w.fw.counters().clone()
}

/// The fuzz entry point: any bytes as a [`Scenario`].
pub fn core_events(data: &[u8]) {
    if let Ok(s) = Scenario::arbitrary_take_rest(Unstructured::new(data)) {
        run(&s);
    }
}
