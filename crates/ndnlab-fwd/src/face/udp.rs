//! UDP transports: a channel (one socket) carries many unicast faces, demultiplexed
//! by the peer's address, plus multicast faces.
//!
//! The reader drains every datagram ready on the socket (non-blocking `try_recv_from`
//! after one readiness wake-up), reassembles NDNLPv2 fragments per face and hands each
//! face's burst to the router. A datagram from an unknown peer creates an on-demand
//! face; on-demand faces idle for the configured time are closed. Each face's writer
//! fragments packets beyond the MTU and sends them on the shared socket.

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::net::UdpSocket;

use super::lp::{LinkReceiver, LinkSender, LpFields};
use super::stream::Ingress;
use super::uri::FaceUri;
use super::{mmsg, CongestionMarker, FaceEntry, Persistency, SendQueueRx};

/// Largest datagram read.
const MAX_DATAGRAM: usize = 65536;
/// Datagrams drained per readiness wake-up.
const RECV_BURST: usize = 64;

/// Packets received on one face during one wake-up.
type FaceBurst = (Arc<FaceEntry>, Vec<(LpFields, Bytes)>);

struct Peer {
    face: Arc<FaceEntry>,
    last_seen: Arc<AtomicU64>,
}

/// A UDP socket and the faces that use it.
pub struct UdpChannel {
    socket: Arc<UdpSocket>,
    local: SocketAddr,
    mtu: usize,
    idle_timeout_ns: u64,
    peers: Mutex<HashMap<SocketAddr, Peer>>,
    /// For a multicast channel, its one face.
    multicast: Option<Arc<FaceEntry>>,
}

impl UdpChannel {
    /// Binds a unicast channel. Fails if the address is taken.
    pub fn bind(addr: SocketAddr, mtu: usize, idle_timeout_s: u64) -> io::Result<Arc<UdpChannel>> {
        let std = std::net::UdpSocket::bind(addr)?;
        std.set_nonblocking(true)?;
        let sock = socket2::SockRef::from(&std);
        let _ = sock.set_recv_buffer_size(8 << 20);
        let _ = sock.set_send_buffer_size(8 << 20);
        let socket = UdpSocket::from_std(std)?;
        let local = socket.local_addr()?;
        Ok(Arc::new(UdpChannel {
            socket: Arc::new(socket),
            local,
            mtu,
            idle_timeout_ns: idle_timeout_s.saturating_mul(1_000_000_000),
            peers: Mutex::new(HashMap::new()),
            multicast: None,
        }))
    }

    /// Joins an IPv4 multicast group and creates its multi-access face.
    pub fn multicast(
        group: SocketAddr,
        iface: Option<Ipv4Addr>,
        mtu: usize,
        ingress: &Arc<dyn Ingress>,
    ) -> io::Result<Arc<UdpChannel>> {
        let SocketAddr::V4(g) = group else {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "IPv6 multicast is not supported",
            ));
        };
        let iface = iface.unwrap_or(Ipv4Addr::UNSPECIFIED);
        let s = socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::DGRAM,
            Some(socket2::Protocol::UDP),
        )?;
        s.set_reuse_address(true)?;
        s.set_reuse_port(true)?;
        s.bind(&SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), g.port()).into())?;
        s.join_multicast_v4(g.ip(), &iface)?;
        s.set_multicast_loop_v4(false)?;
        s.set_nonblocking(true)?;
        let socket = UdpSocket::from_std(s.into())?;
        let local = socket.local_addr()?;
        let (face, queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::Udp(group),
            FaceUri::Udp(SocketAddr::new(iface.into(), g.port())),
            false,
            Persistency::Permanent,
            true,
            Some(mtu),
            ingress.limits(),
        );
        let ch = Arc::new(UdpChannel {
            socket: Arc::new(socket),
            local,
            mtu,
            idle_timeout_ns: u64::MAX,
            peers: Mutex::new(HashMap::new()),
            multicast: Some(face.clone()),
        });
        ingress.register_face(&face);
        ch.spawn_writer(face, queue, group, ingress.clone(), None);
        Ok(ch)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    pub fn is_multicast(&self) -> bool {
        self.multicast.is_some()
    }

    /// The face toward `remote`, created (and registered) if needed.
    pub fn connect(
        self: &Arc<Self>,
        remote: SocketAddr,
        persistency: Persistency,
        mtu: Option<usize>,
        ingress: &Arc<dyn Ingress>,
    ) -> Arc<FaceEntry> {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = peers.get(&remote) {
            if !p.face.is_closed() {
                return p.face.clone();
            }
        }
        let (face, queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::Udp(remote),
            FaceUri::Udp(self.local),
            false,
            persistency,
            false,
            Some(mtu.unwrap_or(self.mtu)),
            ingress.limits(),
        );
        let last_seen = Arc::new(AtomicU64::new(ingress.now()));
        peers.insert(
            remote,
            Peer {
                face: face.clone(),
                last_seen: last_seen.clone(),
            },
        );
        drop(peers);
        ingress.register_face(&face);
        let idle = (persistency == Persistency::OnDemand).then_some(last_seen);
        self.spawn_writer(face.clone(), queue, remote, ingress.clone(), idle);
        face
    }

    fn spawn_writer(
        self: &Arc<Self>,
        face: Arc<FaceEntry>,
        mut queue: SendQueueRx,
        remote: SocketAddr,
        ingress: Arc<dyn Ingress>,
        idle: Option<Arc<AtomicU64>>,
    ) {
        let ch = self.clone();
        tokio::spawn(async move {
            let mut link = LinkSender::new(face.mtu, rand_seed(face.id));
            let mut marker = CongestionMarker::default();
            let mut dgrams: Vec<Bytes> = Vec::with_capacity(64);
            let idle_check = ch.idle_timeout_ns.min(3600 * 1_000_000_000) / 2;
            let mut tick =
                tokio::time::interval(std::time::Duration::from_nanos(idle_check.max(1_000_000)));
            let result: io::Result<()> = async {
                loop {
                    let items = tokio::select! {
                        i = queue.recv() => match i { Some(i) => i, None => return Ok(()) },
                        _ = face.closed() => return Ok(()),
                        _ = tick.tick() => {
                            if let Some(seen) = &idle {
                                if ingress.now().saturating_sub(seen.load(Relaxed)) > ch.idle_timeout_ns {
                                    tracing::debug!(face = face.id, "idle on-demand UDP face closed");
                                    return Ok(());
                                }
                            }
                            continue;
                        }
                    };
                    // Take every burst waiting, encode all, send with sendmmsg.
                    dgrams.clear();
                    let mut next = Some(items);
                    while let Some(items) = next.take() {
                        face.dequeued(&items);
                        let marking = face.congestion_marking.load(Relaxed);
                        let now = ingress.now();
                        for mut it in items {
                            if marking && marker.should_mark(now, face.queued_bytes(), &face.limits) {
                                it.fields.congestion_mark = 1;
                                face.stats.congestion_marks.fetch_add(1, Relaxed);
                            }
                            link.encode_datagrams(&it.fields, &it.pkt, &mut dgrams);
                            face.stats.count_out(it.kind);
                        }
                        if dgrams.len() < 4 * mmsg::BATCH {
                            next = queue.try_recv().ok();
                        }
                    }
                    let mut off = 0;
                    while off < dgrams.len() {
                        let sock = &ch.socket;
                        match sock.try_io(tokio::io::Interest::WRITABLE, || {
                            mmsg::send_batch(&**sock, remote, &dgrams[off..])
                        }) {
                            Ok(k) => {
                                let bytes: usize = dgrams[off..off + k].iter().map(Bytes::len).sum();
                                face.stats.out_bytes.fetch_add(bytes as u64, Relaxed);
                                off += k;
                            }
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => sock.writable().await?,
                            Err(e) => return Err(e),
                        }
                    }
                }
            }
            .await;
            if let Err(e) = result {
                tracing::debug!(face = face.id, error = %e, "UDP send failed");
            }
            ch.peers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|_, p| p.face.id != face.id);
            ingress.face_closed(&face);
        });
    }

    /// Runs the channel's reader until the daemon stops.
    pub fn spawn_reader(self: &Arc<Self>, ingress: Arc<dyn Ingress>) {
        let ch = self.clone();
        tokio::spawn(async move {
            let mut bufs = mmsg::RecvBufs::new(RECV_BURST, MAX_DATAGRAM);
            let mut got: Vec<(usize, SocketAddr)> = Vec::with_capacity(RECV_BURST);
            let mut links: HashMap<u64, LinkReceiver> = HashMap::new();
            let mut bursts: Vec<FaceBurst> = Vec::new();
            loop {
                if ch.socket.readable().await.is_err() {
                    return;
                }
                let now = ingress.now();
                // One recvmmsg for up to RECV_BURST datagrams.
                let sock = &ch.socket;
                match sock.try_io(tokio::io::Interest::READABLE, || {
                    mmsg::recv_batch(&**sock, &mut bufs, &mut got)
                }) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => {
                        // ICMP port unreachable and the like: not fatal for a channel.
                        tracing::trace!(error = %e, "UDP receive error");
                        got.clear();
                    }
                }
                for (i, &(n, from)) in got.iter().enumerate() {
                    let face = match &ch.multicast {
                        Some(f) => f.clone(),
                        None => {
                            let known = {
                                let peers = ch.peers.lock().unwrap_or_else(|e| e.into_inner());
                                peers.get(&from).map(|p| {
                                    p.last_seen.store(now, Relaxed);
                                    p.face.clone()
                                })
                            };
                            match known {
                                Some(f) if !f.is_closed() => f,
                                _ => ch.connect(from, Persistency::OnDemand, None, &ingress),
                            }
                        }
                    };
                    face.stats.in_bytes.fetch_add(n as u64, Relaxed);
                    let link = links.entry(face.id).or_default();
                    let before = link.reassembly_timeouts;
                    match link.receive(now, Bytes::copy_from_slice(bufs.get(i, n))) {
                        Ok(Some(pkt)) => match bursts.iter_mut().find(|(f, _)| f.id == face.id) {
                            Some((_, b)) => b.push(pkt),
                            None => bursts.push((face.clone(), vec![pkt])),
                        },
                        Ok(None) => {}
                        Err(e) => {
                            face.stats.in_drops.fetch_add(1, Relaxed);
                            tracing::trace!(face = face.id, drop = e.reason());
                        }
                    }
                    let timeouts = link.reassembly_timeouts - before;
                    if timeouts > 0 {
                        face.stats.reassembly_timeouts.fetch_add(timeouts, Relaxed);
                    }
                }
                for (face, mut burst) in bursts.drain(..) {
                    ingress.deliver(&face, &mut burst);
                }
                if links.len() > 64 {
                    links.retain(|id, _| ingress_has(&ch, *id));
                }
            }
        });
    }
}

fn ingress_has(ch: &UdpChannel, id: u64) -> bool {
    ch.peers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .any(|p| p.face.id == id)
        || ch.multicast.as_ref().is_some_and(|f| f.id == id)
}

/// A per-face starting LP sequence number (fragments of different faces never mix,
/// this only makes restarts unlikely to collide with a peer's stale partials).
fn rand_seed(id: u64) -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t.rotate_left(17) ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
