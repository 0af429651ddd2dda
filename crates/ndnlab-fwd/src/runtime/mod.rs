//! The daemon: face I/O on tokio, forwarding shards on their own threads, management.
//!
//! ```text
//!  socket ──reader task──▶ Router::deliver ──decode, dispatch──▶ shard queue (bounded, lock-free, counted drops)
//!                                  │                                   │ own thread: core Forwarder
//!                                  └─ /localhost/nfd ──▶ Manager        ▼ drain_transmits, grouped per face
//!  socket ◀──writer task◀── face send queue (bounded) ◀────────────────┘
//! ```
//!
//! With a single shard (the default on a machine of up to 3 cores) there is no shard
//! thread and no queue: the reader that received a burst runs it through the core
//! under a mutex and pushes the transmits to the faces' send queues itself
//! (`[forwarder] inline = false` or `NDNLAB_FWD_INLINE=0` restores the shard
//! thread).
//!
//! Interests go to the shard chosen by the Name Dispatch Table (hash of the first k
//! components), Data and Nacks by the PIT token the core put on the Interest (or by
//! name when the upstream app did not echo it). Management changes (FIB, strategy,
//! CS) are sent to every shard on the same queues as packets (never dropped), so a
//! route is in place in every shard before the reply to the command leaves.
//!
//! A shard queue ([`queue::ShardQueue`]) is a bounded lock-free array of bursts (one
//! `Vec` of packets per reader burst and shard) and control messages, in order; the
//! packet bound is counted in packets. The shard thread parks when its queue stays
//! empty, and a reader unparks it only when it announced so. Emptied burst vectors
//! go back to the readers through a small pool, so the hand-off allocates nothing in
//! the steady state.

pub mod cs_split;
pub mod listeners;
pub mod queue;
pub mod shard;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use ndnlab_core::{FaceId, InPacket, LpMeta};
use ndnlab_wire::tlv::types as t;
use ndnlab_wire::{Data, Interest, Nack, NackReason};
use tokio::sync::{mpsc, oneshot};

use crate::config::FwdConfig;
use crate::face::app::AppFace;
use crate::face::stream::Ingress;
use crate::face::udp::UdpChannel;
use crate::face::{FaceEntry, FaceLimits, FaceTable, PktKind};
use crate::latency::{Latency, PktType, Samples};
use crate::mgmt::{Manager, MgmtMsg};
use ndnlab_proto::lp::LpFields;
use shard::{Inbound, ShardCore, ShardMsg, ShardReport};

/// Emptied burst vectors kept for reuse, per shard.
const SPARE_BATCHES: usize = 64;
/// Burst vectors larger than this (in packets) are freed rather than kept.
const SPARE_MAX_CAPACITY: usize = 4096;

/// What a shard queue carries, in order.
pub enum ShardItem {
    /// A burst of packets (bounded, dropped when the queue is full).
    Packets(Vec<Inbound>),
    /// A control message (never dropped; boxed so that queue slots stay small).
    Control(Box<ShardMsg>),
    /// A burst with packets being timed (`[latency]`), and where they are in it.
    Sampled(Box<(Vec<Inbound>, Samples)>),
}

/// A shard's input queue.
pub struct ShardHandle {
    /// Packet bursts (bounded) and control messages (never dropped), in order.
    queue: queue::ShardQueue<ShardItem>,
    /// Packets waiting in the queue (the bound, in packets).
    queued: AtomicUsize,
    /// Emptied burst vectors, back from the shard to the readers.
    spare: crossbeam_queue::ArrayQueue<Vec<Inbound>>,
    /// Packets dropped because the queue was full.
    pub drops: AtomicU64,
}

impl ShardHandle {
    fn new(capacity: usize) -> Self {
        ShardHandle {
            // Every burst holds at least one packet: `capacity` bursts never bind
            // before `capacity` packets do.
            queue: queue::ShardQueue::new(capacity),
            queued: AtomicUsize::new(0),
            spare: crossbeam_queue::ArrayQueue::new(SPARE_BATCHES),
            drops: AtomicU64::new(0),
        }
    }

    /// An empty burst vector (reused when one is spare).
    fn take_spare(&self) -> Vec<Inbound> {
        self.spare.pop().unwrap_or_default()
    }

    /// Gives an emptied burst vector back for reuse.
    fn recycle(&self, mut v: Vec<Inbound>) {
        if v.capacity() == 0 || v.capacity() > SPARE_MAX_CAPACITY {
            return;
        }
        v.clear();
        let _ = self.spare.push(v);
    }

    /// Enqueues as much of a burst as the bound allows (its head); returns how many
    /// packets were dropped. Does not wake the shard.
    #[cfg(test)]
    fn enqueue(&self, batch: Vec<Inbound>, capacity: usize) -> usize {
        self.enqueue_sampled(batch, Vec::new(), capacity)
    }

    /// [`Self::enqueue`] for a burst that may carry packets being timed (their
    /// dispatch time and the queue length are set here).
    fn enqueue_sampled(
        &self,
        mut batch: Vec<Inbound>,
        mut samples: Samples,
        capacity: usize,
    ) -> usize {
        let len = batch.len();
        // Reserve first, so that concurrent readers never exceed the bound together.
        let before = self.queued.fetch_add(len, Relaxed);
        if let Some((_, s)) = samples.first() {
            let now = s.now();
            crate::latency::dispatched(&mut samples, now, before);
        }
        let room = capacity.saturating_sub(before);
        if room < len {
            self.queued.fetch_sub(len - room, Relaxed);
            batch.truncate(room);
        }
        let accepted = batch.len();
        if accepted == 0 {
            self.recycle(batch);
            return len;
        }
        let item = if samples.is_empty() {
            ShardItem::Packets(batch)
        } else {
            // Samples cut off with the burst's tail are not timed.
            samples.retain(|(i, _)| *i < accepted);
            ShardItem::Sampled(Box::new((batch, samples)))
        };
        match self.queue.push(item) {
            Ok(()) => len - accepted,
            Err(back) => {
                self.queued.fetch_sub(accepted, Relaxed);
                match back {
                    ShardItem::Packets(batch) => self.recycle(batch),
                    ShardItem::Sampled(b) => self.recycle(b.0),
                    ShardItem::Control(_) => {}
                }
                len
            }
        }
    }

    /// Queues a control message for the shard thread and wakes it (dropped only if
    /// the shard thread has exited).
    fn control(&self, msg: ShardMsg) {
        let _ = self.queue.push_wait(ShardItem::Control(Box::new(msg)));
    }
}

/// Counters of the runtime itself.
#[derive(Debug, Default)]
pub struct RuntimeCounters {
    /// Packets that failed to decode (by the wire codec).
    pub decode_drops: AtomicU64,
    /// Packets dropped because a shard queue was full.
    pub shard_drops: AtomicU64,
    /// Packets dropped for exceeding `[forwarder] max_packet_size`.
    pub oversize_drops: AtomicU64,
}

/// The latency instrumentation's samples of one burst, per shard (allocated only
/// for a burst that has one).
fn add_sample(
    per: &mut Vec<Samples>,
    n: usize,
    shard: usize,
    at: usize,
    s: Box<crate::latency::Sample>,
) {
    if per.is_empty() {
        per.resize_with(n, Vec::new);
    }
    per[shard].push((at, s));
}

/// State shared by faces, shards and management.
pub struct Shared {
    pub cfg: FwdConfig,
    pub faces: FaceTable,
    pub shards: Vec<ShardHandle>,
    pub mgmt_tx: mpsc::UnboundedSender<MgmtMsg>,
    pub limits: FaceLimits,
    pub counters: RuntimeCounters,
    /// UDP channels (to create UDP faces on).
    pub udp: Mutex<Vec<Arc<UdpChannel>>>,
    /// Ethernet channels, one per interface in use.
    pub ether: Mutex<Vec<Arc<crate::face::ether::EtherChannel>>>,
    /// Local URIs of listening channels (faces/channels).
    pub channels: Mutex<Vec<String>>,
    /// Emulated links of faces (`[[face]] emulate`, `[[faces.emulation]]`), given
    /// to each face when it is registered.
    pub emulation: crate::face::emu::EmulationTable,
    pub start_unix_ms: u64,
    /// The latency instrumentation (`[latency] sample` > 0).
    pub latency: Option<Arc<Latency>>,
    epoch: Instant,
    queue_capacity: usize,
    dispatch_k: usize,
    /// The single shard when it runs inline on the face readers (no shard thread).
    inline: Option<Mutex<ShardCore>>,
    /// Set at shutdown (stops the inline mode's timer thread).
    stopping: AtomicBool,
    /// Weak self-reference handed to faces as their `Ingress`.
    me: std::sync::Weak<Shared>,
}

impl Shared {
    /// The daemon clock (nanoseconds since start).
    pub fn clock(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// This as the `Ingress` faces deliver to.
    pub fn ingress(&self) -> Arc<dyn Ingress> {
        self.me
            .upgrade()
            .expect("shared state alive while faces run")
    }

    /// Whether the single shard runs inline on the face readers.
    pub fn is_inline(&self) -> bool {
        self.inline.is_some()
    }

    /// Applies a message to the inline shard now; gives it back when shards run on
    /// their own threads.
    fn apply_inline(&self, msg: ShardMsg) -> Option<ShardMsg> {
        let Some(core) = &self.inline else {
            return Some(msg);
        };
        let mut c = core.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.clock();
        if c.handle(now, msg) == shard::Flow::Stop {
            self.stopping.store(true, Relaxed);
        }
        c.flush(now);
        None
    }

    /// Sends a control message to every shard (never dropped).
    pub fn broadcast(&self, make: impl Fn() -> ShardMsg) {
        if self.apply_inline(make()).is_none() {
            return;
        }
        for s in &self.shards {
            s.control(make());
        }
    }

    /// Sends a control message to one shard.
    pub fn send_to_shard(&self, i: usize, msg: ShardMsg) {
        let Some(msg) = self.apply_inline(msg) else {
            return;
        };
        if let Some(s) = self.shards.get(i) {
            s.control(msg);
        }
    }

    /// Sends every shard a message carrying a reply channel (made by `make`) and
    /// waits for every reply: one per shard, in shard order, `None` for a shard that
    /// stopped without replying. Messages queue behind what each shard has already
    /// been sent, so a reply also says that everything sent before was applied.
    pub async fn ask_shards<T>(
        &self,
        make: impl Fn(oneshot::Sender<T>) -> ShardMsg,
    ) -> Vec<Option<T>> {
        let mut rxs = Vec::new();
        if self.is_inline() {
            let (tx, rx) = oneshot::channel();
            let _ = self.apply_inline(make(tx));
            rxs.push(rx);
        } else {
            for s in &self.shards {
                let (tx, rx) = oneshot::channel();
                s.control(make(tx));
                rxs.push(rx);
            }
        }
        let mut out = Vec::with_capacity(rxs.len());
        for rx in rxs {
            out.push(rx.await.ok());
        }
        out
    }

    /// Asks every shard for its report.
    pub async fn query_shards(&self) -> Vec<ShardReport> {
        self.ask_shards(ShardMsg::Query)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Closes a face now (management, shutdown).
    pub fn close_face(&self, face: &Arc<FaceEntry>) {
        face.mark_closed();
        self.face_closed(face);
    }

    fn dispatch_name(&self, name: &ndnlab_wire::Name) -> usize {
        ndnlab_core::dispatch_interest(name, self.dispatch_k, self.shards.len())
    }

    fn meta(face: &FaceEntry, fields: LpFields) -> LpMeta {
        let local = face.local_scope && face.local_fields.load(Relaxed);
        LpMeta {
            pit_token: fields.pit_token,
            next_hop_face_id: if local { fields.next_hop_face_id } else { None },
            congestion_mark: fields.congestion_mark,
            incoming_face_id: None,
            cache_policy_no_cache: local && fields.no_cache,
            non_discovery: fields.non_discovery,
            prefix_announcement: fields.prefix_announcement,
            buffer_share: fields.buffer_share,
        }
    }
}

/// NFD's GenericLinkService checks of the self-learning fields: NonDiscovery only on
/// an Interest, PrefixAnnouncement only on a Data and only a valid prefix
/// announcement; a packet that breaks them is dropped.
fn self_learning_fields_ok(typ: u64, fields: &LpFields) -> bool {
    let is_nack = fields.nack.is_some();
    if fields.non_discovery && (typ != t::INTEREST || is_nack) {
        return false;
    }
    match fields.prefix_announcement.as_deref() {
        None => true,
        Some(pa) => typ == t::DATA && ndnlab_wire::PrefixAnnouncement::decode(pa.clone()).is_ok(),
    }
}

/// Whether an Interest name is a management request (`/localhost/nfd/...`, `/localhop/nfd/...`).
pub fn is_management(name: &ndnlab_wire::Name) -> bool {
    matches!((name.get(0), name.get(1)),
        (Some(a), Some(b)) if a.typ == t::GENERIC_NAME_COMPONENT
            && (a.value == b"localhost" || a.value == b"localhop")
            && b.typ == t::GENERIC_NAME_COMPONENT && b.value == b"nfd")
}

impl Ingress for Shared {
    fn deliver(&self, face: &Arc<FaceEntry>, burst: &mut Vec<(LpFields, Bytes)>) {
        let n = self.shards.len();
        let mut per: Vec<Vec<Inbound>> = (0..n).map(|_| Vec::new()).collect();
        // Off: one branch per packet on `None`.
        let mut sampler = self.latency.as_ref().map(|l| (l, l.burst(burst.len())));
        let mut per_samples: Vec<Samples> = Vec::new();
        // The read-buffer shares of packets dropped here go to the next Data.
        let mut dropped = crate::face::share::Dropped::default();
        for (j, (mut fields, wire)) in burst.drain(..).enumerate() {
            let seq = match &mut sampler {
                None => None,
                Some((_, s)) => s.pick(j),
            };
            let first = wire.first().copied().unwrap_or(0) as u64;
            let stream = dropped.arrive(&mut fields);
            if wire.len() > self.cfg.forwarder.max_packet_size {
                dropped.drop(stream, &fields);
                tracing::trace!(
                    face = face.id,
                    len = wire.len(),
                    "packet over max_packet_size"
                );
                self.counters.oversize_drops.fetch_add(1, Relaxed);
                face.stats.oversize_drops.fetch_add(1, Relaxed);
                face.stats.in_drops.fetch_add(1, Relaxed);
                continue;
            }
            if !self_learning_fields_ok(first, &fields) {
                dropped.drop(stream, &fields);
                tracing::trace!(face = face.id, "misplaced or malformed self-learning field");
                self.counters.decode_drops.fetch_add(1, Relaxed);
                face.stats.in_drops.fetch_add(1, Relaxed);
                continue;
            }
            let decoded = match first {
                t::INTEREST => match Interest::decode(wire) {
                    Ok(i) => {
                        if let Some(code) = fields.nack {
                            face.stats.count_in(PktKind::Nack);
                            let shard = fields
                                .pit_token
                                .as_deref()
                                .and_then(|tok| ndnlab_core::dispatch_by_token(tok, n))
                                .unwrap_or_else(|| self.dispatch_name(i.name()));
                            let nack = Nack::new(i, NackReason::from_code(code));
                            Some((shard, InPacket::Nack(nack), fields))
                        } else {
                            face.stats.count_in(PktKind::Interest);
                            if self.cfg.management.enabled && is_management(i.name()) {
                                let _ = self.mgmt_tx.send(MgmtMsg::Request {
                                    face: face.clone(),
                                    interest: i,
                                });
                                None
                            } else {
                                let shard = self.dispatch_name(i.name());
                                Some((shard, InPacket::Interest(i), fields))
                            }
                        }
                    }
                    Err(e) => {
                        tracing::trace!(face = face.id, drop = e.reason(), "bad Interest");
                        self.counters.decode_drops.fetch_add(1, Relaxed);
                        face.stats.in_drops.fetch_add(1, Relaxed);
                        None
                    }
                },
                t::DATA => match Data::decode(wire) {
                    Ok(d) => {
                        face.stats.count_in(PktKind::Data);
                        let shard = fields
                            .pit_token
                            .as_deref()
                            .and_then(|tok| ndnlab_core::dispatch_by_token(tok, n))
                            .unwrap_or_else(|| self.dispatch_name(d.name()));
                        Some((shard, InPacket::Data(d), fields))
                    }
                    Err(e) => {
                        dropped.drop(stream, &fields);
                        tracing::trace!(face = face.id, drop = e.reason(), "bad Data");
                        self.counters.decode_drops.fetch_add(1, Relaxed);
                        face.stats.in_drops.fetch_add(1, Relaxed);
                        None
                    }
                },
                _ => {
                    face.stats.in_drops.fetch_add(1, Relaxed);
                    None
                }
            };
            if let Some((shard, pkt, fields)) = decoded {
                let batch = &mut per[shard];
                if batch.capacity() == 0 {
                    *batch = self.shards[shard].take_spare();
                }
                if let (Some(seq), Some((lat, s))) = (seq, &sampler) {
                    if let Some(sample) = lat.begin(seq, PktType::of(&pkt), s.t_recv) {
                        add_sample(&mut per_samples, n, shard, batch.len(), sample);
                    }
                }
                batch.push((FaceId(face.id), pkt, Self::meta(face, fields)));
            }
        }
        if let Some(core) = &self.inline {
            // One shard, no hand-off: this reader runs the burst through the core.
            let mut batch = per.pop().unwrap_or_default();
            if !batch.is_empty() {
                let mut samples = per_samples.pop().unwrap_or_default();
                if let Some((_, s)) = samples.first() {
                    let now = s.now();
                    crate::latency::dispatched(&mut samples, now, 0);
                }
                let mut c = core.lock().unwrap_or_else(|e| e.into_inner());
                let now = self.clock();
                if samples.is_empty() {
                    c.packets(now, &mut batch);
                } else {
                    c.packets_sampled(now, &mut batch, samples);
                }
                c.flush(now);
            }
            self.shards[0].recycle(batch);
            return;
        }
        let mut per_samples = per_samples.into_iter();
        for (i, batch) in per.into_iter().enumerate() {
            let h = &self.shards[i];
            let samples = per_samples.next().unwrap_or_default();
            if batch.is_empty() {
                h.recycle(batch);
                continue;
            }
            let dropped = h.enqueue_sampled(batch, samples, self.queue_capacity) as u64;
            if dropped > 0 {
                h.drops.fetch_add(dropped, Relaxed);
                self.counters.shard_drops.fetch_add(dropped, Relaxed);
                face.stats.shard_drops.fetch_add(dropped, Relaxed);
            }
            h.queue.wake();
        }
    }

    fn face_closed(&self, face: &Arc<FaceEntry>) {
        face.mark_closed();
        if self.faces.remove(face.id).is_none() {
            return; // already done
        }
        tracing::info!(face = face.id, remote = %face.remote, "face closed");
        let id = face.id;
        self.broadcast(|| ShardMsg::RemoveFace(id));
        let _ = self.mgmt_tx.send(MgmtMsg::FaceClosed(face.clone()));
    }

    fn now(&self) -> u64 {
        self.clock()
    }

    fn alloc_face_id(&self) -> u64 {
        self.faces.alloc_id()
    }

    fn limits(&self) -> FaceLimits {
        self.limits
    }

    fn register_face(&self, face: &Arc<FaceEntry>) {
        if let Some(spec) = self.emulation.lookup(&face.remote) {
            face.set_emulation(spec.clone());
            tracing::info!(face = face.id, params = ?spec.params, "emulated link on the face's egress");
        }
        self.faces.insert(face.clone());
        tracing::info!(face = face.id, remote = %face.remote, local = %face.local, "face created");
        self.broadcast(|| ShardMsg::AddFace(face.clone()));
        let _ = self.mgmt_tx.send(MgmtMsg::FaceCreated(face.clone()));
    }
}

/// A running forwarder.
pub struct Daemon {
    shared: Arc<Shared>,
    shard_threads: Vec<std::thread::JoinHandle<()>>,
    unix_path: Option<PathBuf>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// What the daemon listens on (URIs with the actual ports).
    pub listening: Vec<String>,
}

impl Daemon {
    /// Starts shards, management and every configured listener and face. Must be
    /// called inside a tokio runtime. Fails (with the address) if a socket is taken.
    pub async fn start(cfg: FwdConfig) -> anyhow::Result<Daemon> {
        let checked = cfg.check()?;
        let auth = crate::mgmt::auth::CommandAuth::load(&cfg.management)?;
        let nshards = cfg.forwarder.effective_threads();
        // One shard runs inline on the face readers unless `[forwarder] inline =
        // false` or NDNLAB_FWD_INLINE=0 (see docs/BENCHMARKS.md).
        let inline = nshards == 1
            && cfg.forwarder.inline
            && std::env::var("NDNLAB_FWD_INLINE").map_or(true, |v| v != "0");
        let (mgmt_tx, mgmt_rx) = mpsc::unbounded_channel();
        // The inline shard has no queue to fill (only its pool of burst vectors).
        let capacity = if inline {
            1
        } else {
            cfg.forwarder.queue_capacity
        };
        let shards = (0..nshards).map(|_| ShardHandle::new(capacity)).collect();
        let latency = Latency::start(&cfg.latency, nshards)?;
        let limits = FaceLimits {
            queue_capacity: cfg.faces.queue_capacity,
            queue_capacity_bytes: cfg.faces.queue_capacity_bytes,
            congestion_interval_ns: cfg.faces.congestion_interval_ms * 1_000_000,
            congestion_threshold: cfg.faces.congestion_threshold,
            reassembly: cfg.limits.reassembly(),
        };
        let start_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let shared = Arc::new_cyclic(|me| Shared {
            queue_capacity: cfg.forwarder.queue_capacity,
            dispatch_k: cfg.forwarder.dispatch_components,
            inline: inline.then(|| Mutex::new(ShardCore::new(0, 1, &cfg, Some(mgmt_tx.clone())))),
            stopping: AtomicBool::new(false),
            cfg: cfg.clone(),
            faces: FaceTable::new(),
            shards,
            mgmt_tx,
            limits,
            counters: RuntimeCounters::default(),
            udp: Mutex::new(Vec::new()),
            ether: Mutex::new(Vec::new()),
            channels: Mutex::new(Vec::new()),
            emulation: checked.emulation.clone(),
            start_unix_ms,
            latency,
            epoch: Instant::now(),
            me: me.clone(),
        });
        let mut shard_threads = Vec::new();
        if inline {
            let sh = shared.clone();
            let th = std::thread::Builder::new()
                .name("ndnlab-timers".into())
                .spawn(crate::cpu_clock::inherit(move || {
                    if let Some(core) = &sh.inline {
                        shard::run_timers(core, &sh);
                    }
                }))?;
            shard_threads.push(th);
        } else {
            for i in 0..nshards {
                let sh = shared.clone();
                let th = std::thread::Builder::new()
                    .name(format!("ndnlab-shard-{i}"))
                    .spawn(crate::cpu_clock::inherit(move || shard::run(i, sh)))?;
                shard_threads.push(th);
            }
        }
        let mut tasks = Vec::new();
        let manager = Manager::new(shared.clone(), auth);
        tasks.push(tokio::spawn(manager.run(mgmt_rx)));

        let mut listening = Vec::new();
        let mut unix_path = None;
        let result: anyhow::Result<()> = async {
            if cfg.faces.unix.enabled {
                let path = cfg.faces.unix.path.clone();
                tasks.push(listeners::listen_unix(&shared, &path)?);
                listening.push(format!("unix://{}", path.display()));
                unix_path = Some(path);
            }
            for addr in &cfg.faces.tcp.listen {
                let (task, local) = listeners::listen_tcp(&shared, *addr).await?;
                tasks.push(task);
                listening.push(format!(
                    "{}://{}",
                    if local.is_ipv4() { "tcp4" } else { "tcp6" },
                    local
                ));
            }
            for addr in &cfg.faces.websocket.listen {
                let (task, uri) = crate::face::websocket::listen(*addr, shared.ingress()).await?;
                shared
                    .channels
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(uri.clone());
                tasks.push(task);
                listening.push(uri);
            }
            for addr in &cfg.faces.udp.listen {
                let ch = UdpChannel::bind(*addr, cfg.faces.udp.mtu, cfg.faces.udp.idle_timeout_s)
                    .map_err(|e| anyhow::anyhow!("cannot bind UDP {addr}: {e}"))?;
                ch.spawn_reader(shared.ingress());
                let local = ch.local_addr();
                let uri = format!(
                    "{}://{}",
                    if local.is_ipv4() { "udp4" } else { "udp6" },
                    local
                );
                shared
                    .channels
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(uri.clone());
                listening.push(uri);
                shared
                    .udp
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(ch);
            }
            for m in &cfg.faces.udp.multicast {
                let ch = UdpChannel::multicast(
                    m.group,
                    m.interface,
                    cfg.faces.udp.mtu,
                    &shared.ingress(),
                )
                .map_err(|e| anyhow::anyhow!("cannot join multicast {}: {e}", m.group))?;
                ch.spawn_reader(shared.ingress());
                let scheme = if m.group.is_ipv4() { "udp4" } else { "udp6" };
                listening.push(format!("{scheme}://{} (multicast)", m.group));
            }
            if let Some(e) = &cfg.faces.ether {
                listening.extend(listeners::start_ether(&shared, e));
            }
            // Static faces, routes and strategies.
            let mut static_ids = Vec::new();
            for f in &cfg.static_faces {
                let uri = crate::face::uri::FaceUri::parse(&f.uri).map_err(anyhow::Error::msg)?;
                let local = f
                    .local
                    .as_deref()
                    .map(crate::face::uri::FaceUri::parse)
                    .transpose()
                    .map_err(anyhow::Error::msg)?;
                let face = listeners::create_face(
                    &shared,
                    &uri,
                    local.as_ref(),
                    crate::face::Persistency::Permanent,
                    f.mtu,
                )
                .await
                .map_err(|e| anyhow::anyhow!("cannot create face {}: {e}", f.uri))?;
                crate::mgmt::configure_static_face(&shared, &face, f)?;
                static_ids.push((uri, face.id));
            }
            for r in &cfg.routes {
                let uri = crate::face::uri::FaceUri::parse(&r.face).map_err(anyhow::Error::msg)?;
                let id = static_ids
                    .iter()
                    .find(|(u, _)| *u == uri)
                    .map(|(_, id)| *id)
                    .ok_or_else(|| anyhow::anyhow!("route face {} not created", r.face))?;
                let prefix = ndnlab_wire::Name::from_uri(&r.prefix)?;
                let (tx, rx) = oneshot::channel();
                let _ = shared.mgmt_tx.send(MgmtMsg::StaticRoute {
                    prefix,
                    face: id,
                    cost: r.cost,
                    done: tx,
                });
                let _ = rx.await;
            }
            // Parsed into typed instances by the configuration checks, once.
            for (prefix, instance) in checked.strategies {
                let (tx, rx) = oneshot::channel();
                let _ = shared.mgmt_tx.send(MgmtMsg::StaticStrategy {
                    prefix: prefix.clone(),
                    instance,
                    done: tx,
                });
                rx.await?
                    .map_err(|e| anyhow::anyhow!("strategy for {prefix}: {e}"))?;
            }
            Ok(())
        }
        .await;
        let daemon = Daemon {
            shared,
            shard_threads,
            unix_path,
            tasks,
            listening,
        };
        if let Err(e) = result {
            daemon.shutdown().await;
            return Err(e);
        }
        Ok(daemon)
    }

    /// Shared state (for metrics, tests).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Opens an in-process face.
    pub fn app_face(&self, name: &str) -> AppFace {
        AppFace::open(name, self.shared.ingress())
    }

    /// A non-local face toward another forwarder in this process (see
    /// [`AppFace::open_peer`]).
    pub fn peer_face(&self, name: &str, mtu: Option<usize>) -> AppFace {
        AppFace::open_peer(name, self.shared.ingress(), mtu)
    }

    /// Registers a route toward a face, as `rib/register` would (origin app, CHILD_INHERIT).
    pub async fn register_route(&self, prefix: &ndnlab_wire::Name, face: u64, cost: u64) {
        let (tx, rx) = oneshot::channel();
        let _ = self.shared.mgmt_tx.send(MgmtMsg::StaticRoute {
            prefix: prefix.clone(),
            face,
            cost,
            done: tx,
        });
        let _ = rx.await;
    }

    /// Closes every face, stops shards and management, removes the Unix socket.
    pub async fn shutdown(mut self) {
        for t in self.tasks.drain(..) {
            t.abort();
        }
        for f in self.shared.faces.list() {
            self.shared.close_face(&f);
        }
        self.shared.broadcast(|| ShardMsg::Stop);
        self.shared.stopping.store(true, Relaxed);
        for th in self.shard_threads.drain(..) {
            th.thread().unpark();
            let _ = tokio::task::spawn_blocking(move || th.join()).await;
        }
        if let Some(l) = self.shared.latency.clone() {
            let _ = tokio::task::spawn_blocking(move || l.flush_log()).await;
        }
        if let Some(p) = self.unix_path.take() {
            let _ = std::fs::remove_file(&p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn burst(n: usize) -> Vec<Inbound> {
        (0..n)
            .map(|i| {
                let name = ndnlab_wire::Name::from_uri(&format!("/q/{i}")).unwrap();
                let wire = Interest::builder(name).nonce(i as u32).build();
                let interest = Interest::decode(wire).unwrap();
                (FaceId(1), InPacket::Interest(interest), LpMeta::default())
            })
            .collect()
    }

    fn take(h: &ShardHandle) -> Vec<usize> {
        let mut lens = Vec::new();
        while let Some(item) = h.queue.pop() {
            match item {
                ShardItem::Packets(b) => {
                    h.queued.fetch_sub(b.len(), Relaxed);
                    lens.push(b.len());
                    h.recycle(b);
                }
                ShardItem::Control(_) => lens.push(0),
                ShardItem::Sampled(b) => {
                    h.queued.fetch_sub(b.0.len(), Relaxed);
                    lens.push(b.0.len());
                }
            }
        }
        lens
    }

    /// The bound is in packets: a burst that does not fit is cut to the room left,
    /// the rest reported dropped; control messages pass a full queue, in order.
    #[test]
    fn shard_queue_bound_is_in_packets_and_control_is_never_dropped() {
        let h = ShardHandle::new(5);
        assert_eq!(h.enqueue(burst(3), 5), 0);
        assert_eq!(h.enqueue(burst(4), 5), 2);
        assert_eq!(h.queued.load(Relaxed), 5);
        assert_eq!(h.enqueue(burst(1), 5), 1);
        h.control(ShardMsg::RemoveFace(1));
        assert_eq!(h.queued.load(Relaxed), 5);
        assert_eq!(take(&h), vec![3, 2, 0]);
        assert_eq!(h.queued.load(Relaxed), 0);
        // Emptied bursts come back for reuse, with their capacity.
        let spare = h.take_spare();
        assert!(spare.is_empty() && spare.capacity() > 0);
        assert_eq!(h.enqueue(burst(5), 5), 0);
        assert_eq!(h.enqueue(Vec::new(), 5), 0);
        assert_eq!(take(&h), vec![5]);
    }
}
