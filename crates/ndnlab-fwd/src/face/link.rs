//! A face's link service in the daemon: the sans-IO NDNLPv2 machines of
//! `ndnlab_proto::lp` bound to a face's shared state. [`LinkState`] holds what
//! faces/update changes at run time (MTU, congestion parameters, reliability);
//! [`ReliabilitySlot`] shares a face's LpReliability between its reader, its writer
//! and a small task that sends retransmissions and idle acks.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use ndnlab_proto::lp::reliability::{
    Frame, LpReliability, ReliabilityCounters, ReliabilityOptions, RxInfo,
};
use ndnlab_proto::lp::{CongestionMarker, LinkReceiver, LinkSender, LpDrop, LpFields, Nanos};
use tokio::net::UdpSocket;
use tokio::sync::Notify;

use super::stream::Ingress;
use super::{mark_congestion, FaceEntry, FaceLimits, OutItem, SendQueueRx};

/// [`LinkReceiver::receive`] on a face: when the face has LP reliability on, each
/// LpPacket's Acks and TxSequence are processed first and a repeated Sequence is
/// dropped (it is still acknowledged).
pub fn receive_for(
    rx: &mut LinkReceiver,
    face: &FaceEntry,
    now: Nanos,
    frame: Bytes,
) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
    let slot = &face.link.reliability;
    if !slot.is_enabled() {
        return rx.receive(now, frame);
    }
    rx.receive_with(now, frame, |lp| slot.on_receive(now, &RxInfo::of(lp)))
}

/// [`LinkSender::encode_datagrams`] on a face: with LP reliability on, every frame
/// is an LpPacket with a Sequence, handed to the face's reliability state which adds
/// Acks and a TxSequence and keeps it for retransmission.
pub fn encode_datagrams_for(
    tx: &mut LinkSender,
    face: &FaceEntry,
    now: Nanos,
    fields: &LpFields,
    pkt: &Bytes,
    out: &mut Vec<Bytes>,
) {
    let mtu = face.link.mtu_override().or(tx.mtu());
    let slot = &face.link.reliability;
    if slot.is_enabled() {
        if let Some(mtu) = mtu {
            let mut frames = Vec::new();
            tx.reliable_frames(fields, pkt, LpReliability::frame_budget(mtu), &mut frames);
            if slot.send(now, frames, out) {
                return;
            }
        }
    }
    tx.encode_with_mtu(mtu, fields, pkt, out);
}

/// The sending side of a datagram face (UDP, Ethernet): its link service and its
/// congestion marker, kept by the face's writer task.
pub struct DatagramEncoder {
    link: LinkSender,
    marker: CongestionMarker,
}

impl DatagramEncoder {
    pub fn new(face: &FaceEntry) -> Self {
        DatagramEncoder {
            link: LinkSender::new(face.mtu, rand_seed(face.id)),
            marker: CongestionMarker::default(),
        }
    }

    /// Encodes `items` and the bursts already waiting behind them in `queue` (until
    /// `out` holds `limit` datagrams) into `out`: congestion marks, LP fields and
    /// fragmentation to the face's MTU ([`encode_datagrams_for`]). Counts the
    /// packets sent and takes them off the queue's accounting.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_waiting(
        &mut self,
        face: &FaceEntry,
        items: Vec<OutItem>,
        queue: &mut SendQueueRx,
        ingress: &dyn Ingress,
        limit: usize,
        out: &mut Vec<Bytes>,
        timed: &mut crate::latency::OutSamples,
    ) {
        let mut next = Some(items);
        while let Some(items) = next.take() {
            face.dequeued(&items);
            let now = ingress.now();
            for mut it in items {
                mark_congestion(&mut self.marker, face, now, &mut it.fields);
                encode_datagrams_for(&mut self.link, face, now, &it.fields, &it.pkt, out);
                timed.take(&mut it.sample);
                face.stats.count_out(it.kind);
            }
            if out.len() < limit {
                next = queue.try_recv().ok();
            }
        }
    }
}

/// Packets received on one face during one wake-up.
type FaceBurst = (Arc<FaceEntry>, Vec<(LpFields, Bytes)>);

/// The receiving side of a channel that carries many datagram faces (UDP,
/// Ethernet): one [`LinkReceiver`] per face (reassembly, LP reliability), and the
/// packets of one wake-up gathered per face for the router.
#[derive(Default)]
pub struct DatagramDecoder {
    links: HashMap<u64, LinkReceiver>,
    bursts: Vec<FaceBurst>,
}

impl DatagramDecoder {
    /// One datagram (one top-level TLV) received on `face`: a whole packet joins
    /// the face's burst, a fragment waits for the rest, a bad frame is counted by
    /// its reason. Partial packets timed out meanwhile are counted too.
    pub fn receive(&mut self, face: &Arc<FaceEntry>, now: Nanos, frame: Bytes) {
        let link = self
            .links
            .entry(face.id)
            .or_insert_with(|| LinkReceiver::with_limits(face.limits.reassembly));
        let before = link.reassembly_timeouts;
        let (at, alloc) = (frame.as_ptr(), frame.len());
        match receive_for(link, face, now, frame) {
            Ok(Some(mut pkt)) => {
                // UDP and Ethernet readers copy each datagram into a buffer of its
                // own (`ndnlab_wire::packet_bytes`).
                super::share::assign_own(&mut pkt, at, alloc);
                match self.bursts.iter_mut().find(|(f, _)| f.id == face.id) {
                    Some((_, b)) => b.push(pkt),
                    None => self.bursts.push((face.clone(), vec![pkt])),
                }
            }
            Ok(None) => {}
            Err(e) => {
                face.stats.count_lp_drop(&e);
                tracing::trace!(face = face.id, drop = e.reason());
            }
        }
        let timeouts = link.reassembly_timeouts - before;
        if timeouts > 0 {
            face.stats.reassembly_timeouts.fetch_add(timeouts, Relaxed);
        }
    }

    /// Hands every face's burst to the router.
    pub fn deliver(&mut self, ingress: &dyn Ingress) {
        for (face, mut burst) in self.bursts.drain(..) {
            ingress.deliver(&face, &mut burst);
        }
    }

    /// Forgets the receivers of faces gone (checked once more than 64 are held).
    pub fn prune(&mut self, alive: impl Fn(u64) -> bool) {
        if self.links.len() > 64 {
            self.links.retain(|id, _| alive(*id));
        }
    }
}

/// A per-face starting LP sequence number (fragments of different faces never mix,
/// this only makes restarts unlikely to collide with a peer's stale partials).
fn rand_seed(id: u64) -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t.rotate_left(17) ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A face's link-service settings that management may change while it runs.
pub struct LinkState {
    /// NDNLPv2 reliability.
    pub reliability: ReliabilitySlot,
    /// MTU override (0: the face's own MTU).
    mtu: AtomicUsize,
    congestion_interval_ns: AtomicU64,
    congestion_threshold: AtomicUsize,
}

impl LinkState {
    pub fn new(limits: &FaceLimits) -> Self {
        LinkState {
            reliability: ReliabilitySlot::default(),
            mtu: AtomicUsize::new(0),
            congestion_interval_ns: AtomicU64::new(limits.congestion_interval_ns),
            congestion_threshold: AtomicUsize::new(limits.congestion_threshold),
        }
    }

    /// The MTU set by faces/update, if any.
    pub fn mtu_override(&self) -> Option<usize> {
        Some(self.mtu.load(Relaxed)).filter(|&m| m > 0)
    }

    pub fn set_mtu(&self, mtu: usize) {
        self.mtu.store(mtu, Relaxed);
        if let Some(st) = lock(&self.reliability.state).as_mut() {
            st.set_mtu(mtu);
        }
    }

    /// `base` (queue capacity) with the current congestion marking parameters.
    pub fn marking_limits(&self, base: &FaceLimits) -> FaceLimits {
        FaceLimits {
            queue_capacity: base.queue_capacity,
            queue_capacity_bytes: base.queue_capacity_bytes,
            congestion_interval_ns: self.congestion_interval_ns.load(Relaxed),
            congestion_threshold: self.congestion_threshold.load(Relaxed),
            reassembly: base.reassembly,
        }
    }

    /// BaseCongestionMarkingInterval (ns) and DefaultCongestionThreshold (bytes).
    pub fn set_congestion(&self, interval_ns: Option<u64>, threshold: Option<usize>) {
        if let Some(i) = interval_ns {
            self.congestion_interval_ns.store(i, Relaxed);
        }
        if let Some(t) = threshold {
            self.congestion_threshold.store(t, Relaxed);
        }
    }
}

/// A face's LP reliability: off by default; on, it holds the [`LpReliability`]
/// state shared by the face's reader (acks in, duplicates out), its writer (new
/// frames, piggybacked acks) and a small task that sends retransmissions and idle
/// acks when their timers fire. Only UDP unicast faces can turn it on: the UDP
/// transport attaches its socket and peer address when it creates the face.
#[derive(Default)]
pub struct ReliabilitySlot {
    on: AtomicBool,
    state: Mutex<Option<LpReliability>>,
    transport: Mutex<Option<(Arc<UdpSocket>, SocketAddr)>>,
    wake: Notify,
    pump_running: AtomicBool,
}

impl ReliabilitySlot {
    /// Whether reliability is on.
    pub fn is_enabled(&self) -> bool {
        self.on.load(Relaxed)
    }

    /// Called by the UDP transport: the socket and peer the timer task sends on.
    pub fn attach_udp(&self, socket: Arc<UdpSocket>, remote: SocketAddr) {
        *lock(&self.transport) = Some((socket, remote));
    }

    /// Whether this face's transport supports reliability.
    pub fn is_supported(&self) -> bool {
        lock(&self.transport).is_some()
    }

    /// The counters, while reliability is on.
    pub fn counters(&self) -> Option<ReliabilityCounters> {
        lock(&self.state).as_ref().map(LpReliability::counters)
    }

    /// Frames waiting for an ack (0 when off).
    pub fn unacked(&self) -> usize {
        lock(&self.state).as_ref().map_or(0, LpReliability::unacked)
    }

    /// Runs `f` on the state if reliability is on; wakes the timer task when the
    /// next deadline moved earlier.
    fn with<R>(&self, f: impl FnOnce(&mut LpReliability) -> R) -> Option<R> {
        let (r, wake) = {
            let mut g = lock(&self.state);
            let st = g.as_mut()?;
            let before = st.poll_timeout();
            let r = f(st);
            let after = st.poll_timeout();
            let wake = match (before, after) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(b), Some(a)) => a < b,
            };
            (r, wake)
        };
        if wake {
            self.wake.notify_one();
        }
        Some(r)
    }

    fn send(&self, now: Nanos, frames: Vec<Frame>, out: &mut Vec<Bytes>) -> bool {
        self.with(|st| st.send(now, frames, out)).is_some()
    }

    fn on_receive(&self, now: Nanos, info: &RxInfo) -> bool {
        self.with(|st| st.on_receive(now, info)).unwrap_or(true)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Turns LP reliability on or off on a face (faces/create, faces/update, the
/// config file). Turning it on starts the face's timer task; the state starts
/// fresh each time. Fails on faces whose transport cannot carry it.
pub fn set_reliability(
    face: &Arc<FaceEntry>,
    on: bool,
    opts: ReliabilityOptions,
    ingress: &Arc<dyn Ingress>,
) -> Result<(), &'static str> {
    let slot = &face.link.reliability;
    if !on {
        slot.on.store(false, Relaxed);
        *lock(&slot.state) = None;
        slot.wake.notify_one();
        return Ok(());
    }
    if slot.is_enabled() {
        return Ok(());
    }
    let Some(mtu) = face
        .link
        .mtu_override()
        .or(face.mtu)
        .filter(|_| slot.is_supported())
    else {
        return Err("LP reliability is supported on UDP unicast faces only");
    };
    let seed = ingress.now() ^ face.id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    *lock(&slot.state) = Some(LpReliability::new(opts, mtu, seed));
    slot.on.store(true, Relaxed);
    if !slot.pump_running.swap(true, Relaxed) {
        tokio::spawn(reliability_timers(face.clone(), ingress.clone()));
    }
    Ok(())
}

/// A reliable face's timer task: retransmissions and idle acks, sent directly on
/// the UDP socket (the writer task carries new frames and piggybacked acks).
async fn reliability_timers(face: Arc<FaceEntry>, ingress: Arc<dyn Ingress>) {
    let slot = &face.link.reliability;
    let Some((socket, remote)) = lock(&slot.transport).clone() else {
        slot.pump_running.store(false, Relaxed);
        return;
    };
    let mut out = Vec::new();
    loop {
        let now = ingress.now();
        let next = {
            let mut g = lock(&slot.state);
            match g.as_mut() {
                Some(st) if !face.is_closed() => {
                    st.handle_timeout(now);
                    st.poll_transmit(now, &mut out);
                    Some(st.poll_timeout())
                }
                _ => None,
            }
        };
        let Some(next) = next else {
            if let Some(c) = slot.counters() {
                tracing::debug!(
                    face = face.id,
                    frames = c.frames_sent,
                    acked = c.acknowledged,
                    retx = c.retransmitted,
                    given_up = c.retx_exhausted,
                    duplicates = c.duplicates,
                    "LP reliability stopped"
                );
            }
            slot.pump_running.store(false, Relaxed);
            // Turned on again while stopping: carry on.
            if slot.is_enabled() && !face.is_closed() && !slot.pump_running.swap(true, Relaxed) {
                continue;
            }
            return;
        };
        for f in out.drain(..) {
            match socket.send_to(&f, remote).await {
                Ok(n) => {
                    face.stats.out_bytes.fetch_add(n as u64, Relaxed);
                }
                Err(e) => tracing::trace!(face = face.id, error = %e, "LP retransmission failed"),
            }
        }
        let wait = next.map_or(3_600_000_000_000, |t| t.saturating_sub(ingress.now()));
        tokio::select! {
            _ = slot.wake.notified() => {}
            _ = tokio::time::sleep(std::time::Duration::from_nanos(wait)) => {}
            _ = face.closed() => {}
        }
    }
}
