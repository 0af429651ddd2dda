//! A forwarding shard: one `ndnlab_core::Forwarder` with the faces it sends to.
//!
//! [`ShardCore`] is the shard's state and its three steps: apply a control message,
//! feed a burst of packets through the core (`handle_burst`), and flush (fire due
//! timers, drain every transmit, hand them to the faces grouped into one burst per
//! face). It runs in one of two ways:
//!
//! * **threaded** ([`run`]): the shard owns a thread that waits on its queue (spins
//!   briefly, then parks) until something arrives or the core's next timer is due,
//!   then takes the bursts and control messages waiting, in order (up to
//!   [`BURST_MSGS`]), before it flushes;
//! * **inline** ([`run_timers`]): with a single shard, the face reader that received a
//!   burst runs it through the core itself, under a mutex, with no hand-off to
//!   another thread; a small thread only fires timers while no packet arrives.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ndnlab_core::{
    BurstProbe, CsInfo, CsPolicyKind, FaceId, FaceScope, Forwarder, ForwarderConfig,
    ForwarderCounters, InPacket, LinkType, LpMeta, OutPacket, StrategyChoiceError,
    StrategyInstance,
};
use ndnlab_wire::Name;
use tokio::sync::{mpsc, oneshot};

use super::cs_split::shard_cs_capacity;
use super::{ShardItem, Shared};
use crate::config::FwdConfig;
use crate::face::{FaceEntry, OutItem, PktKind};
use crate::latency::{CsOutcome, Sample, Samples};
use crate::mgmt::rib::FibOp;
use crate::mgmt::MgmtMsg;
use ndnlab_proto::lp::LpFields;

/// A packet for the core: the face it came from, the packet, its link-layer fields.
pub type Inbound = (FaceId, InPacket, LpMeta);

/// What a shard reports to management.
#[derive(Debug, Clone)]
pub struct ShardReport {
    pub counters: ForwarderCounters,
    pub n_pit: usize,
    pub cs: CsInfo,
    /// Dead Nonce List entries, and those dropped early because it was full.
    pub n_dead_nonces: usize,
    pub dead_nonce_overflows: u64,
}

/// A shard's answer to a strategy change: applied, or why not.
pub type StrategyAck = oneshot::Sender<Result<(), StrategyChoiceError>>;

/// Messages on a shard's queue.
pub enum ShardMsg {
    Packets(Vec<Inbound>),
    /// Packets with some being timed (see [`ShardCore::packets_sampled`]).
    Sampled(Vec<Inbound>, Samples),
    AddFace(Arc<FaceEntry>),
    RemoveFace(u64),
    Fib(Arc<Vec<FibOp>>),
    /// Choose a strategy instance for a prefix. The instance was parsed (and checked)
    /// once by management; the shard applies it as is and says whether it could.
    StrategySet {
        prefix: Name,
        instance: StrategyInstance,
        done: StrategyAck,
    },
    /// Remove the strategy choice of a prefix; the shard says whether it could.
    StrategyUnset {
        prefix: Name,
        done: StrategyAck,
    },
    /// The CS capacity (for the whole forwarder: each shard takes its share, see
    /// [`shard_cs_capacity`]) and flags, as `cs/config` sets them.
    CsConfig {
        capacity: Option<usize>,
        admit: Option<bool>,
        serve: Option<bool>,
    },
    CsErase {
        prefix: Name,
        limit: usize,
        reply: oneshot::Sender<usize>,
    },
    Query(oneshot::Sender<ShardReport>),
    /// The RIB's answer to a self-learning `FindAnnouncement`.
    Announcement {
        id: u64,
        announcement: Option<bytes::Bytes>,
    },
    Stop,
}

/// Whether the shard keeps running after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Queue items taken before a flush (threaded mode).
pub const BURST_MSGS: usize = 64;
/// Longest sleep of the inline mode's timer thread (new timers armed by packets
/// are also fired by the readers themselves, so this only bounds idle latency).
const INLINE_TIMER_TICK: Duration = Duration::from_millis(10);

/// The core of shard `index` of `count`, configured from `cfg` as every runtime
/// of it does (the daemon's shards, the simulator's nodes): its share of the CS,
/// its share of the limits, the CS policy and flags, the network regions.
/// Strategies and routes are management's (applied to every shard after).
/// `[forwarder] verify_data` gives each shard its Data verifier (the configuration
/// was checked before: should its trust files fail to load now, the shard refuses
/// every signed Data rather than forward them unverified).
pub fn forwarder(index: usize, count: usize, cfg: &FwdConfig) -> Forwarder {
    let verify_data = crate::verify::verifier(&cfg.forwarder).unwrap_or_else(|e| {
        tracing::error!("shard {index}: {e}; every signed Data is refused");
        crate::verify::refuse_all()
    });
    let mut fw = Forwarder::new(ForwarderConfig {
        cs_capacity: shard_cs_capacity(cfg.cs.capacity, index, count),
        cs_capacity_bytes: shard_cs_capacity(cfg.cs.capacity_bytes, index, count),
        limits: cfg.limits.for_shard(index, count),
        dead_nonce_capacity: cfg.limits.dead_nonce_for_shard(index, count),
        cs_policy: CsPolicyKind::parse(&cfg.cs.policy).unwrap_or_default(),
        shard: (index, count),
        network_region: cfg.tables.network_region_table(),
        verify_data,
        ..Default::default()
    });
    fw.cs().set_admit(cfg.cs.admit);
    fw.cs().set_serve(cfg.cs.serve);
    fw
}

/// The `count` shards of a forwarder configured from `cfg` as `ndnlab fwd`
/// configures itself, its `[[strategy]]` choices installed: what the simulator
/// runs as a node. The error names the offending key.
pub fn configured(cfg: &FwdConfig, count: usize) -> Result<Vec<Forwarder>, String> {
    let checked = cfg.check().map_err(|e| e.to_string())?;
    (0..count)
        .map(|i| {
            let mut fw = forwarder(i, count, cfg);
            for (prefix, instance) in &checked.strategies {
                fw.strategy_choice()
                    .set_instance(prefix, instance.clone())
                    .map_err(|e| format!("strategy for {prefix}: {e}"))?;
            }
            Ok(fw)
        })
        .collect()
}

/// One shard's forwarder and the faces it knows.
pub struct ShardCore {
    index: usize,
    count: usize,
    fw: Forwarder,
    faces: std::collections::HashMap<u64, Arc<FaceEntry>>,
    /// Transmits grouped per face for one flush (few faces per flush: linear search).
    per_face: Vec<(Arc<FaceEntry>, Vec<OutItem>)>,
    /// Where self-learning's requests to the RIB go (management).
    rib_tx: Option<mpsc::UnboundedSender<MgmtMsg>>,
    /// Timed packets whose first transmit waits in the core's transmit queue, at
    /// that position (counted from the queue's head), in order.
    sampled_out: std::collections::VecDeque<(usize, Box<Sample>)>,
}

impl ShardCore {
    /// Shard `index` of `count`, configured from `cfg` (the CS is split between shards);
    /// self-learning's requests to the RIB go to `rib_tx`.
    pub fn new(
        index: usize,
        count: usize,
        cfg: &FwdConfig,
        rib_tx: Option<mpsc::UnboundedSender<MgmtMsg>>,
    ) -> Self {
        let mut fw = forwarder(index, count, cfg);
        // Packets are slices of 256 KiB read buffers: the CS copies every entry into a
        // buffer of its own and charges what it occupies, so that no cached Data keeps
        // its read buffer alive and `capacity_bytes` bounds the CS's memory
        // (ContentStore::set_own_buffers).
        fw.cs().set_own_buffers(true);
        ShardCore {
            index,
            count,
            fw,
            faces: Default::default(),
            per_face: Vec::new(),
            rib_tx,
            sampled_out: Default::default(),
        }
    }

    /// [`Self::packets`] for a burst with timed packets (`samples`: their indices in
    /// `batch`, ascending). The burst goes through the core whole, as an untimed one
    /// does; the clock is read just before and just after each timed packet's own
    /// pipeline ([`Timing`]).
    pub fn packets_sampled(&mut self, now: u64, batch: &mut Vec<Inbound>, samples: Samples) {
        let mut timing = Timing {
            shard: self.index,
            pending: samples.into_iter(),
            current: None,
            done: Vec::new(),
        };
        timing.next();
        self.fw.handle_burst_probed(now, batch, &mut timing);
        let pit = self.fw.pit_len();
        // A sample whose packet the core never saw (none: the indices are the
        // burst's) would have no forwarding stage: recorded without output.
        let unseen = timing.current.take().into_iter().map(|c| c.sample);
        for s in unseen.chain(timing.pending.map(|(_, s)| s)) {
            s.finish_without_output();
        }
        for (at, mut s) in timing.done {
            s.set_pit_size(pit);
            match at {
                Some(at) => self.sampled_out.push_back((at, s)),
                None => s.finish_without_output(),
            }
        }
    }

    /// Runs a burst of packets through the core (drains `batch`).
    pub fn packets(&mut self, now: u64, batch: &mut Vec<Inbound>) {
        self.fw.handle_burst(now, batch);
    }

    /// Applies one message.
    pub fn handle(&mut self, now: u64, msg: ShardMsg) -> Flow {
        let (fw, index, count) = (&mut self.fw, self.index, self.count);
        match msg {
            ShardMsg::Packets(mut batch) => fw.handle_burst(now, &mut batch),
            ShardMsg::Sampled(mut batch, samples) => self.packets_sampled(now, &mut batch, samples),
            ShardMsg::AddFace(f) => {
                let scope = if f.local_scope {
                    FaceScope::Local
                } else {
                    FaceScope::NonLocal
                };
                let link = if f.multi_access {
                    LinkType::MultiAccess
                } else {
                    LinkType::PointToPoint
                };
                fw.add_face(FaceId(f.id), scope, link);
                self.faces.insert(f.id, f);
            }
            ShardMsg::RemoveFace(id) => {
                fw.remove_face(FaceId(id), now);
                self.faces.remove(&id);
            }
            ShardMsg::Fib(ops) => {
                for op in ops.iter() {
                    match op {
                        FibOp::AddNextHop { prefix, face, cost } => {
                            // Through the forwarder: a new next hop runs the strategies'
                            // afterNewNextHop (multicast forwards pending Interests).
                            fw.add_nexthop(now, prefix, FaceId(*face), *cost)
                        }
                        FibOp::RemoveNextHop { prefix, face } => {
                            fw.fib().remove_nexthop(prefix, FaceId(*face));
                        }
                    }
                }
            }
            ShardMsg::StrategySet {
                prefix,
                instance,
                done,
            } => {
                let r = fw.strategy_choice().set_instance(&prefix, instance);
                if let Err(e) = &r {
                    tracing::warn!(shard = index, error = %e, "strategy set refused");
                }
                let _ = done.send(r);
            }
            ShardMsg::StrategyUnset { prefix, done } => {
                let _ = done.send(fw.strategy_choice().unset(&prefix));
            }
            ShardMsg::CsConfig {
                capacity,
                admit,
                serve,
            } => {
                if let Some(c) = capacity {
                    fw.cs()
                        .set_capacity(shard_cs_capacity(c, index, count), now);
                }
                if let Some(a) = admit {
                    fw.cs().set_admit(a);
                }
                if let Some(s) = serve {
                    fw.cs().set_serve(s);
                }
            }
            ShardMsg::CsErase {
                prefix,
                limit,
                reply,
            } => {
                let _ = reply.send(fw.cs().erase(&prefix, limit));
            }
            ShardMsg::Query(reply) => {
                let _ = reply.send(ShardReport {
                    counters: fw.counters().clone(),
                    n_pit: fw.pit_len(),
                    cs: fw.cs().info(),
                    n_dead_nonces: fw.dead_nonce_len(),
                    dead_nonce_overflows: fw.dead_nonce_overflows(),
                });
            }
            ShardMsg::Announcement { id, announcement } => {
                fw.handle_announcement(now, id, announcement)
            }
            ShardMsg::Stop => return Flow::Stop,
        }
        Flow::Continue
    }

    /// Fires due timers, then hands every transmit to its face, one burst per face.
    pub fn flush(&mut self, now: u64) {
        if self.fw.poll_timeout().is_some_and(|due| due <= now) {
            self.fw.handle_timeout(now);
        }
        while let Some(request) = self.fw.poll_rib_request() {
            if let Some(tx) = &self.rib_tx {
                let _ = tx.send(MgmtMsg::SelfLearning {
                    shard: self.index,
                    request,
                });
            }
        }
        let n = self.fw.pending_transmits();
        if n == 0 {
            return;
        }
        if self.sampled_out.is_empty() {
            self.hand_off::<false>(n);
        } else {
            self.hand_off::<true>(n);
            // Transmits to faces gone meanwhile: no output stage.
            for (_, s) in self.sampled_out.drain(..) {
                s.finish_without_output();
            }
        }
    }

    /// [`Self::flush`]'s hand-off of the `n` transmits waiting: straight from the
    /// core's queue into per-face bursts (one move per packet); consecutive packets
    /// usually go to the same face, so the last burst is checked before the face
    /// map. `TIMED`: timed packets wait in the queue ([`Self::sampled_out`]), and the
    /// first transmit of each carries its sample to the face's writer.
    fn hand_off<const TIMED: bool>(&mut self, n: usize) {
        let n = n.min(1024);
        let mut pos = 0;
        while let Some(tx) = self.fw.poll_transmit() {
            let to = tx.face.0;
            let sample = if TIMED {
                pos += 1;
                self.sample_at(pos - 1)
            } else {
                None
            };
            if let Some((f, items)) = self.per_face.last_mut() {
                if f.id == to {
                    let mut it = to_out_item(f, tx.packet, tx.meta);
                    it.sample = sample;
                    items.push(it);
                    continue;
                }
            }
            if let Some((f, items)) = self.per_face.iter_mut().find(|(f, _)| f.id == to) {
                let mut it = to_out_item(f, tx.packet, tx.meta);
                it.sample = sample;
                items.push(it);
                continue;
            }
            let Some(face) = self.faces.get(&to) else {
                if let Some(s) = sample {
                    s.finish_without_output();
                }
                continue;
            };
            let mut items = Vec::with_capacity(n);
            let mut it = to_out_item(face, tx.packet, tx.meta);
            it.sample = sample;
            items.push(it);
            self.per_face.push((face.clone(), items));
        }
        for (face, items) in self.per_face.drain(..) {
            face.send_batch(items);
        }
    }

    /// The sample of the transmit at `pos` in the core's queue, if it is a timed
    /// packet's first; samples before `pos` (none in order) are recorded without output.
    fn sample_at(&mut self, pos: usize) -> Option<Box<Sample>> {
        while self.sampled_out.front().is_some_and(|(at, _)| *at <= pos) {
            let (at, s) = self.sampled_out.pop_front()?;
            if at == pos {
                return Some(s);
            }
            s.finish_without_output();
        }
        None
    }

    /// When the core next needs [`ShardCore::flush`] for its timers.
    pub fn next_timer(&self) -> Option<u64> {
        self.fw.poll_timeout()
    }
}

/// The timed packets of one burst, and what the core did with them: a
/// [`BurstProbe`] that reads the clock around each timed packet's pipeline and
/// notes its CS outcome (from the core's hit and miss counters) and where its first
/// transmit is in the core's transmit queue.
struct Timing {
    shard: usize,
    /// Samples still ahead in the burst, by index.
    pending: std::vec::IntoIter<(usize, Box<Sample>)>,
    /// The next timed packet, and once its pipeline started, what was read then.
    current: Option<Timed>,
    /// Finished samples, with the queue position of their first transmit (`None`: none).
    done: Vec<(Option<usize>, Box<Sample>)>,
}

struct Timed {
    index: usize,
    sample: Box<Sample>,
    hits: u64,
    misses: u64,
    queued: usize,
    start: u64,
}

impl Timing {
    /// Moves to the next timed packet.
    fn next(&mut self) {
        self.current = self.pending.next().map(|(index, sample)| Timed {
            index,
            sample,
            hits: 0,
            misses: 0,
            queued: 0,
            start: 0,
        });
    }
}

impl BurstProbe for Timing {
    #[inline]
    fn before(&mut self, i: usize, fw: &Forwarder) {
        let Some(t) = self.current.as_mut().filter(|t| t.index == i) else {
            return;
        };
        let c = fw.counters();
        (t.hits, t.misses) = (c.n_cs_hits, c.n_cs_misses);
        t.queued = fw.pending_transmits();
        t.start = t.sample.now();
    }

    #[inline]
    fn after(&mut self, i: usize, fw: &Forwarder) {
        if self.current.as_ref().is_none_or(|t| t.index != i) {
            return;
        }
        let Some(mut t) = self.current.take() else {
            return;
        };
        let end = t.sample.now();
        let c = fw.counters();
        let cs = match (
            t.sample.is_interest(),
            c.n_cs_hits > t.hits,
            c.n_cs_misses > t.misses,
        ) {
            (false, _, _) => CsOutcome::None,
            (true, true, _) => CsOutcome::Hit,
            (true, false, true) => CsOutcome::Miss,
            (true, false, false) => CsOutcome::None,
        };
        t.sample.forwarded(self.shard, t.start, end, cs);
        let sent = fw.pending_transmits() > t.queued;
        self.done.push((sent.then_some(t.queued), t.sample));
        self.next();
    }
}

/// The shard thread's main loop (threaded mode).
pub fn run(index: usize, shared: Arc<Shared>) {
    /// Tells producers that nothing drains the queue any more (also on a panic).
    struct Exited<'a>(&'a super::ShardHandle);
    impl Drop for Exited<'_> {
        fn drop(&mut self) {
            self.0.queue.consumer_exited();
        }
    }
    let mut core = ShardCore::new(
        index,
        shared.shards.len(),
        &shared.cfg,
        Some(shared.mgmt_tx.clone()),
    );
    let handle = &shared.shards[index];
    let _exited = Exited(handle);
    handle.queue.register_consumer();
    loop {
        let now = shared.clock();
        let mut taken = 0;
        while taken < BURST_MSGS {
            let Some(item) = handle.queue.pop() else {
                break;
            };
            taken += 1;
            match item {
                ShardItem::Packets(mut burst) => {
                    handle.queued.fetch_sub(burst.len(), Relaxed);
                    core.packets(now, &mut burst);
                    handle.recycle(burst);
                }
                ShardItem::Control(msg) => {
                    if core.handle(now, *msg) == Flow::Stop {
                        return;
                    }
                }
                ShardItem::Sampled(b) => {
                    let (mut burst, samples) = *b;
                    handle.queued.fetch_sub(burst.len(), Relaxed);
                    core.packets_sampled(now, &mut burst, samples);
                    handle.recycle(burst);
                }
            }
        }
        core.flush(now);
        if taken == 0 {
            let now = shared.clock();
            let timeout = core
                .next_timer()
                .map(|due| Duration::from_nanos(due.saturating_sub(now)));
            handle.queue.wait(timeout);
        }
    }
}

/// The timer thread of the inline mode: fires the core's timers while no packet
/// arrives, until [`Shared`] says stop.
pub fn run_timers(core: &Mutex<ShardCore>, shared: &Shared) {
    while !shared.stopping.load(Relaxed) {
        let wait = {
            let mut c = core.lock().unwrap_or_else(|e| e.into_inner());
            let now = shared.clock();
            c.flush(now);
            c.next_timer()
                .map_or(INLINE_TIMER_TICK, |due| {
                    Duration::from_nanos(due.saturating_sub(now))
                })
                .clamp(Duration::from_micros(100), INLINE_TIMER_TICK)
        };
        std::thread::park_timeout(wait);
    }
}

fn to_out_item(face: &FaceEntry, packet: OutPacket, meta: LpMeta) -> OutItem {
    let local_fields = face.local_scope && face.local_fields.load(Relaxed);
    let (pkt, fields, kind) = out_fields(packet, meta, local_fields);
    OutItem {
        pkt,
        fields,
        kind,
        sample: None,
    }
}

/// A transmit of the core as a face sends it: the packet's TLV and the NDNLPv2
/// fields to attach ([`OutPacket::into_lp`]), and its kind.
fn out_fields(
    packet: OutPacket,
    meta: LpMeta,
    local_fields: bool,
) -> (bytes::Bytes, LpFields, PktKind) {
    let kind = match &packet {
        OutPacket::Interest(_) => PktKind::Interest,
        OutPacket::Data(_) => PktKind::Data,
        OutPacket::Nack(_) => PktKind::Nack,
    };
    let (pkt, fields) = packet.into_lp(meta, local_fields);
    (pkt, fields, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies a strategy change to `core` and returns the shard's answer.
    fn strategy(
        core: &mut ShardCore,
        prefix: &Name,
        set: Option<StrategyInstance>,
    ) -> Result<(), StrategyChoiceError> {
        let (done, mut rx) = oneshot::channel();
        let msg = match set {
            Some(instance) => ShardMsg::StrategySet {
                prefix: prefix.clone(),
                instance,
                done,
            },
            None => ShardMsg::StrategyUnset {
                prefix: prefix.clone(),
                done,
            },
        };
        assert_eq!(core.handle(0, msg), Flow::Continue);
        rx.try_recv()
            .expect("the shard answers while handling the message")
    }

    #[test]
    fn strategy_changes_are_acknowledged_with_the_shards_reason() {
        let mut core = ShardCore::new(0, 1, &FwdConfig::default(), None);
        let asf = StrategyInstance::from_uri("/localhost/nfd/strategy/asf").unwrap();
        let a = Name::from_uri("/a").unwrap();
        assert_eq!(strategy(&mut core, &a, Some(asf.clone())), Ok(()));
        assert_eq!(
            core.fw.strategy_choice().instance_name(&a),
            Some(asf.name())
        );
        // A prefix deeper than the table takes: refused, and the table is unchanged.
        let deep =
            Name::from_uri(&"/d".repeat(ndnlab_core::strategy_choice::MAX_PREFIX_LEN + 1)).unwrap();
        let e = strategy(&mut core, &deep, Some(asf)).unwrap_err();
        assert!(matches!(e, StrategyChoiceError::PrefixTooLong(_)), "{e}");
        assert_eq!(core.fw.strategy_choice().len(), 2);
        assert_eq!(
            strategy(&mut core, &Name::new(), None),
            Err(StrategyChoiceError::CannotUnsetRoot)
        );
        assert_eq!(strategy(&mut core, &a, None), Ok(()));
        assert_eq!(core.fw.strategy_choice().len(), 1);
    }

    #[test]
    fn cs_capacity_is_the_shards_share_from_config_and_cs_config() {
        let mut cfg = FwdConfig::default();
        cfg.cs.capacity = 10;
        let mut cores: Vec<_> = (0..3).map(|i| ShardCore::new(i, 3, &cfg, None)).collect();
        let caps = |cores: &mut Vec<ShardCore>| {
            cores
                .iter_mut()
                .map(|c| c.fw.cs().capacity())
                .collect::<Vec<_>>()
        };
        assert_eq!(caps(&mut cores), [4, 3, 3]);
        for c in &mut cores {
            c.handle(
                0,
                ShardMsg::CsConfig {
                    capacity: Some(0),
                    admit: None,
                    serve: None,
                },
            );
        }
        assert_eq!(caps(&mut cores), [0, 0, 0]);
        cfg.cs.capacity = 0;
        assert_eq!(
            ShardCore::new(1, 3, &cfg, None).fw.cs().capacity(),
            0,
            "0 in the file is caching off too"
        );
    }
}
