//! Faces: a LinkService (NDNLPv2, `ndnlab_proto::lp`, with the face's state in
//! [`link`]) over a transport ([`stream`] for Unix and TCP, [`udp`] for unicast and
//! multicast datagrams, [`ether`] for Ethernet frames over `AF_PACKET`,
//! [`websocket`], [`app`] for in-process apps).
//!
//! A face is an [`FaceEntry`] in the shared [`FaceTable`]: its identity (id, URIs,
//! scope, persistency, link type), atomic counters, and its bounded send queue.
//! Forwarding shards push bursts of [`OutItem`]s into the queue; the face's writer
//! task encodes them (LpPacket fields, fragmentation, congestion marks) and writes
//! many packets per system call. Readers cut frames off the socket and hand them to
//! the runtime's router in bursts. A face that fails is closed once: its id leaves
//! the table, every shard removes it (PIT records, FIB next hops) and management
//! drops its routes and posts a face event.

pub mod app;
pub mod bind;
pub mod datagram;
pub mod emu;
pub mod emu_timer;
pub mod ether;
pub mod link;
pub mod peers;
pub(crate) mod share;
pub mod stream;
pub mod udp;
pub mod uri;
pub mod websocket;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use tokio::sync::{mpsc, Notify};

use ndnlab_proto::lp::{CongestionLimits, CongestionMarker, LpDrop, LpFields};
use uri::FaceUri;

/// Network-layer packet kind, for counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PktKind {
    Interest,
    Data,
    Nack,
}

/// One packet to send on a face.
#[derive(Debug)]
pub struct OutItem {
    /// A whole Interest or Data TLV.
    pub pkt: Bytes,
    pub fields: LpFields,
    pub kind: PktKind,
    /// The latency sample of the packet that caused this transmission, if timed
    /// (the writer records it once the packet is sent).
    pub sample: Option<Box<crate::latency::Sample>>,
}

/// NFD's FacePersistency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistency {
    Persistent = 0,
    OnDemand = 1,
    Permanent = 2,
}

/// A face's persistency, changeable while the face runs.
#[derive(Debug)]
pub struct PersistencyCell(std::sync::atomic::AtomicU8);

impl PersistencyCell {
    pub fn new(p: Persistency) -> Self {
        PersistencyCell(std::sync::atomic::AtomicU8::new(p as u8))
    }

    pub fn get(&self) -> Persistency {
        match self.0.load(Relaxed) {
            0 => Persistency::Persistent,
            1 => Persistency::OnDemand,
            _ => Persistency::Permanent,
        }
    }

    pub fn set(&self, p: Persistency) {
        self.0.store(p as u8, Relaxed);
    }
}

/// Per-face counters, updated by reader/writer tasks and read by management.
#[derive(Debug, Default)]
pub struct FaceStats {
    pub in_interests: AtomicU64,
    pub in_data: AtomicU64,
    pub in_nacks: AtomicU64,
    pub out_interests: AtomicU64,
    pub out_data: AtomicU64,
    pub out_nacks: AtomicU64,
    pub in_bytes: AtomicU64,
    pub out_bytes: AtomicU64,
    /// Frames dropped on receive (malformed, LP errors, unknown types).
    pub in_drops: AtomicU64,
    /// Packets dropped because the send queue was full (in packets).
    pub queue_drops: AtomicU64,
    /// Packets dropped because the send queue held its bound in bytes.
    pub queue_byte_drops: AtomicU64,
    /// Packets dropped because a shard's input queue was full.
    pub shard_drops: AtomicU64,
    /// Congestion marks added on send.
    pub congestion_marks: AtomicU64,
    /// Partial packets whose fragments did not all arrive.
    pub reassembly_timeouts: AtomicU64,
    /// Link-service drops (also in `in_drops`), by [`LpDrop::index`].
    pub lp_drops: [AtomicU64; LpDrop::REASONS.len()],
    /// Emulated link ([`emu`]): frames dropped because its transmit queue was full.
    pub emu_queue_drops: AtomicU64,
    /// Emulated link: frames lost at random.
    pub emu_lost: AtomicU64,
    /// Emulated link: frames larger than its MTU.
    pub emu_over_mtu: AtomicU64,
    /// Emulated link: every counter and its queue, for the `ndnlab/links` dataset.
    pub emu_link: emu::LinkStats,
    /// Packets dropped on receive for exceeding `[forwarder] max_packet_size`
    /// (also in `in_drops`).
    pub oversize_drops: AtomicU64,
}

impl FaceStats {
    /// Counts a frame the link service dropped, by its reason.
    pub fn count_lp_drop(&self, drop: &LpDrop) {
        self.in_drops.fetch_add(1, Relaxed);
        self.lp_drops[drop.index()].fetch_add(1, Relaxed);
    }

    pub fn count_in(&self, kind: PktKind) {
        match kind {
            PktKind::Interest => &self.in_interests,
            PktKind::Data => &self.in_data,
            PktKind::Nack => &self.in_nacks,
        }
        .fetch_add(1, Relaxed);
    }
    pub fn count_out(&self, kind: PktKind) {
        match kind {
            PktKind::Interest => &self.out_interests,
            PktKind::Data => &self.out_data,
            PktKind::Nack => &self.out_nacks,
        }
        .fetch_add(1, Relaxed);
    }
}

/// Face limits and congestion marking parameters.
#[derive(Debug, Clone, Copy)]
pub struct FaceLimits {
    pub queue_capacity: usize,
    /// Bytes the send queue may hold (`[faces] queue_capacity_bytes`); a packet that
    /// would take it beyond is dropped (counted), unless the queue is empty.
    pub queue_capacity_bytes: usize,
    pub congestion_interval_ns: u64,
    pub congestion_threshold: usize,
    /// Bounds of the face's NDNLPv2 reassembly buffer (`[limits]`).
    pub reassembly: ndnlab_proto::lp::ReassemblyLimits,
}

impl Default for FaceLimits {
    fn default() -> Self {
        FaceLimits {
            queue_capacity: 4096,
            queue_capacity_bytes: DEFAULT_QUEUE_CAPACITY_BYTES,
            congestion_interval_ns: 100_000_000,
            congestion_threshold: 65536,
            reassembly: Default::default(),
        }
    }
}

/// The default bound of a face's send queue in bytes: 32 MiB, the default 4,096
/// packets of 8 KiB (a consumer may ask for thousands of 8 KB Data at once).
pub const DEFAULT_QUEUE_CAPACITY_BYTES: usize = 32 << 20;

/// A face's send queue: bounded by atomic packet and byte counts (drops are counted).
pub struct SendQueue {
    tx: mpsc::UnboundedSender<Vec<OutItem>>,
    pub queued_pkts: AtomicUsize,
    pub queued_bytes: AtomicUsize,
}

/// Receiving end of a face's send queue (owned by its writer task).
pub type SendQueueRx = mpsc::UnboundedReceiver<Vec<OutItem>>;

/// One face.
pub struct FaceEntry {
    pub id: u64,
    pub remote: FaceUri,
    pub local: FaceUri,
    pub local_scope: bool,
    /// Changeable by faces/update (on-demand to persistent or permanent).
    pub persistency: PersistencyCell,
    pub multi_access: bool,
    /// Fragmentation size (datagram faces).
    pub mtu: Option<usize>,
    /// NFD's LocalFields flag: attach IncomingFaceId, honour NextHopFaceId/CachePolicy.
    pub local_fields: AtomicBool,
    /// Congestion marking enabled (flag bit 2).
    pub congestion_marking: AtomicBool,
    /// Link-service state changeable at run time: NDNLPv2 reliability (flag bit 1,
    /// off by default), MTU override, congestion marking parameters (faces/update).
    pub link: link::LinkState,
    pub limits: FaceLimits,
    pub stats: FaceStats,
    /// For faces closed when idle (on-demand UDP): when the last packet came
    /// (the daemon's clock, ns) and how long a face may stay idle.
    idle: std::sync::OnceLock<(Arc<AtomicU64>, u64)>,
    /// The emulated link on the face's egress, set when the face is registered
    /// (before its writer starts); none on most faces.
    emulation: std::sync::OnceLock<emu::EmuSpec>,
    queue: SendQueue,
    closed: AtomicBool,
    close_notify: Notify,
}

impl FaceEntry {
    /// A new face and the receiving end of its send queue.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u64,
        remote: FaceUri,
        local: FaceUri,
        local_scope: bool,
        persistency: Persistency,
        multi_access: bool,
        mtu: Option<usize>,
        limits: FaceLimits,
    ) -> (Arc<FaceEntry>, SendQueueRx) {
        let (tx, rx) = mpsc::unbounded_channel();
        let marking = !matches!(remote, FaceUri::App(_));
        let f = FaceEntry {
            id,
            remote,
            local,
            local_scope,
            persistency: PersistencyCell::new(persistency),
            multi_access,
            mtu,
            local_fields: AtomicBool::new(false),
            // NFD marks on every face whose send queue it can measure, local
            // (Unix, loopback TCP) ones included: that is where a consumer's
            // window overruns the producer. In-process app faces have no
            // socket and are left unmarked.
            congestion_marking: AtomicBool::new(marking),
            link: link::LinkState::new(&limits),
            limits,
            stats: FaceStats::default(),
            idle: std::sync::OnceLock::new(),
            emulation: std::sync::OnceLock::new(),
            queue: SendQueue {
                tx,
                queued_pkts: AtomicUsize::new(0),
                queued_bytes: AtomicUsize::new(0),
            },
            closed: AtomicBool::new(false),
            close_notify: Notify::new(),
        };
        (Arc::new(f), rx)
    }

    /// Queues a burst; packets beyond the queue's bounds (in packets, then in bytes)
    /// are dropped and counted. Returns the number dropped.
    pub fn send_batch(&self, mut items: Vec<OutItem>) -> usize {
        if self.is_closed() {
            return items.len();
        }
        let cap = self.limits.queue_capacity;
        let queued = self.queue.queued_pkts.load(Relaxed);
        let room = cap.saturating_sub(queued);
        let mut dropped = 0;
        if items.len() > room {
            dropped = items.len() - room;
            items.truncate(room);
            self.stats.queue_drops.fetch_add(dropped as u64, Relaxed);
        }
        let mut bytes = self.queue.queued_bytes.load(Relaxed);
        let cap_bytes = self.limits.queue_capacity_bytes;
        let fit = items
            .iter()
            .take_while(|i| {
                let fits = bytes == 0 || bytes + i.pkt.len() <= cap_bytes;
                bytes += i.pkt.len();
                fits
            })
            .count();
        if fit < items.len() {
            let over = items.len() - fit;
            items.truncate(fit);
            self.stats.queue_byte_drops.fetch_add(over as u64, Relaxed);
            dropped += over;
        }
        if items.is_empty() {
            return dropped;
        }
        let bytes: usize = items.iter().map(|i| i.pkt.len()).sum();
        self.queue.queued_pkts.fetch_add(items.len(), Relaxed);
        self.queue.queued_bytes.fetch_add(bytes, Relaxed);
        let n = items.len();
        if self.queue.tx.send(items).is_err() {
            self.queue.queued_pkts.fetch_sub(n, Relaxed);
            self.queue.queued_bytes.fetch_sub(bytes, Relaxed);
            return dropped + n;
        }
        dropped
    }

    /// Called by the writer for each burst it took off the queue.
    pub fn dequeued(&self, items: &[OutItem]) {
        let bytes: usize = items.iter().map(|i| i.pkt.len()).sum();
        self.queue.queued_pkts.fetch_sub(items.len(), Relaxed);
        self.queue.queued_bytes.fetch_sub(bytes, Relaxed);
    }

    /// Queue and congestion marking limits, with faces/update's changes.
    pub fn marking_limits(&self) -> FaceLimits {
        self.link.marking_limits(&self.limits)
    }

    /// Bytes waiting in the send queue.
    pub fn queued_bytes(&self) -> usize {
        self.queue.queued_bytes.load(Relaxed)
    }

    /// Marks the face closed and wakes its tasks; true the first time.
    pub fn mark_closed(&self) -> bool {
        let first = !self.closed.swap(true, Relaxed);
        if first {
            self.close_notify.notify_waiters();
            self.close_notify.notify_one();
        }
        first
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Relaxed)
    }

    /// Resolves when the face is closed.
    pub async fn closed(&self) {
        loop {
            let n = self.close_notify.notified();
            if self.is_closed() {
                return;
            }
            n.await;
        }
    }

    /// Makes the face report when it would be closed for idleness: `last_seen`
    /// is updated by its transport on every packet received.
    pub fn set_idle_timeout(&self, last_seen: Arc<AtomicU64>, timeout_ns: u64) {
        let _ = self.idle.set((last_seen, timeout_ns));
    }

    /// Gives the face an emulated link; only before its writer task starts (the
    /// writer reads it once). False if it already had one.
    pub fn set_emulation(&self, spec: emu::EmuSpec) -> bool {
        self.emulation.set(spec).is_ok()
    }

    /// The face's emulated link, if any.
    pub fn emulation(&self) -> Option<&emu::EmuSpec> {
        self.emulation.get()
    }

    /// Nanoseconds until an on-demand face is closed for idleness (NFD's
    /// ExpirationPeriod); `None` for faces that do not expire.
    pub fn expires_in(&self, now: u64) -> Option<u64> {
        let (seen, timeout) = self.idle.get()?;
        (self.persistency.get() == Persistency::OnDemand)
            .then(|| (seen.load(Relaxed).saturating_add(*timeout)).saturating_sub(now))
    }

    /// NFD face flags: bit 0 LocalFields, bit 1 LpReliability, bit 2 CongestionMarking.
    pub fn flags(&self) -> u64 {
        (self.local_fields.load(Relaxed) as u64)
            | ((self.link.reliability.is_enabled() as u64) << 1)
            | ((self.congestion_marking.load(Relaxed) as u64) << 2)
    }
}

/// Sets the CongestionMark of a packet `face` sends now, and counts it, when the face
/// has marking on and its queue has stayed above the threshold long enough.
pub fn mark_congestion(
    marker: &mut CongestionMarker,
    face: &FaceEntry,
    now: u64,
    fields: &mut LpFields,
) {
    mark_congestion_queued(marker, face, now, face.queued_bytes(), fields);
}

/// [`mark_congestion`] with the queue length given: stream faces add the bytes
/// the kernel still holds unsent (NFD's `getSendQueueLength`).
pub fn mark_congestion_queued(
    marker: &mut CongestionMarker,
    face: &FaceEntry,
    now: u64,
    queued: usize,
    fields: &mut LpFields,
) {
    if !face.congestion_marking.load(Relaxed) {
        return;
    }
    let l = face.marking_limits();
    let limits = CongestionLimits {
        interval_ns: l.congestion_interval_ns,
        threshold: l.congestion_threshold,
    };
    if marker.should_mark(now, queued, &limits) {
        fields.congestion_mark = 1;
        face.stats.congestion_marks.fetch_add(1, Relaxed);
    }
}

/// All faces, by id.
#[derive(Default)]
pub struct FaceTable {
    faces: RwLock<HashMap<u64, Arc<FaceEntry>>>,
    next_id: AtomicU64,
}

/// First id given to a real face (NFD numbering).
pub const FIRST_FACE_ID: u64 = 256;

impl FaceTable {
    pub fn new() -> Self {
        FaceTable {
            faces: RwLock::new(HashMap::new()),
            next_id: AtomicU64::new(FIRST_FACE_ID),
        }
    }

    pub fn alloc_id(&self) -> u64 {
        self.next_id.fetch_add(1, Relaxed)
    }

    pub fn insert(&self, f: Arc<FaceEntry>) {
        self.faces
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(f.id, f);
    }

    pub fn remove(&self, id: u64) -> Option<Arc<FaceEntry>> {
        self.faces
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id)
    }

    pub fn get(&self, id: u64) -> Option<Arc<FaceEntry>> {
        self.faces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned()
    }

    /// Faces sorted by id.
    pub fn list(&self) -> Vec<Arc<FaceEntry>> {
        let mut v: Vec<_> = self
            .faces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        v.sort_by_key(|f| f.id);
        v
    }

    pub fn find_remote(&self, remote: &FaceUri) -> Option<Arc<FaceEntry>> {
        self.faces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .find(|f| &f.remote == remote)
            .cloned()
    }

    pub fn len(&self) -> usize {
        self.faces.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(n: usize) -> OutItem {
        OutItem {
            pkt: Bytes::from(vec![0u8; n]),
            fields: LpFields::default(),
            kind: PktKind::Data,
            sample: None,
        }
    }

    /// A face entry with these limits, and the receiving end of its queue.
    fn entry(limits: FaceLimits) -> (Arc<FaceEntry>, SendQueueRx) {
        FaceEntry::new(
            256,
            FaceUri::Fd(1),
            FaceUri::Internal,
            true,
            Persistency::OnDemand,
            false,
            None,
            limits,
        )
    }

    #[test]
    fn queue_limit_drops_and_counts() {
        let limits = FaceLimits {
            queue_capacity: 3,
            ..Default::default()
        };
        let (f, mut rx) = entry(limits);
        assert_eq!(f.send_batch(vec![item(10), item(10)]), 0);
        assert_eq!(f.send_batch(vec![item(10), item(10)]), 1);
        assert_eq!(f.stats.queue_drops.load(Relaxed), 1);
        assert_eq!(f.queued_bytes(), 30);
        let b = rx.try_recv().unwrap();
        f.dequeued(&b);
        assert_eq!(f.queued_bytes(), 10);
    }

    #[test]
    fn queue_byte_bound_drops_and_counts_but_lets_one_packet_into_an_empty_queue() {
        let limits = FaceLimits {
            queue_capacity_bytes: 25,
            ..Default::default()
        };
        let (f, mut rx) = entry(limits);
        assert_eq!(f.send_batch(vec![item(10), item(10), item(10)]), 1);
        assert_eq!(f.queued_bytes(), 20);
        assert_eq!(
            f.send_batch(vec![item(5), item(1)]),
            1,
            "5 fits, 1 more does not"
        );
        assert_eq!(f.queued_bytes(), 25);
        assert_eq!(f.stats.queue_byte_drops.load(Relaxed), 2);
        assert_eq!(f.stats.queue_drops.load(Relaxed), 0);
        for _ in 0..2 {
            let b = rx.try_recv().unwrap();
            f.dequeued(&b);
        }
        assert_eq!(f.queued_bytes(), 0);
        // A packet larger than the bound still goes out through an empty queue.
        assert_eq!(f.send_batch(vec![item(100), item(1)]), 1);
        assert_eq!(f.queued_bytes(), 100);
    }

    #[test]
    fn marking_is_on_for_local_socket_faces_off_for_in_process() {
        let face = |remote| {
            let (f, _rx) = FaceEntry::new(
                256,
                remote,
                FaceUri::Internal,
                true,
                Persistency::OnDemand,
                false,
                None,
                FaceLimits::default(),
            );
            f
        };
        // a local Unix-socket app face: marks must reach the consumer (flag bit 2)
        assert!(face(FaceUri::Fd(7)).congestion_marking.load(Relaxed));
        assert_eq!(face(FaceUri::Fd(7)).flags() & 4, 4);
        assert!(!face(FaceUri::App("x".into()))
            .congestion_marking
            .load(Relaxed));
    }
}
