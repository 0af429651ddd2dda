//! UDP transports: a channel (one socket) carries many unicast faces, demultiplexed
//! by the peer's address, plus multicast faces.
//!
//! The reader drains the datagrams ready on the socket with one `recvmmsg` per
//! readiness wake-up (with UDP GRO, a burst from one sender arrives as one message
//! and is split here), reassembles NDNLPv2 fragments per face and hands each face's
//! burst to the router. A datagram from an unknown peer creates an on-demand
//! face; on-demand faces idle for the configured time are closed. Each face's writer
//! fragments packets beyond the MTU and sends them on the shared socket: `sendmmsg`
//! for up to 64 datagrams per call, and UDP GSO (`UDP_SEGMENT`) for runs of
//! equal-size datagrams, such as the fragments of a large packet (one system call
//! and one kernel buffer for up to 64 of them; see [`mmsg::send_some`]).

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use bytes::Bytes;
use tokio::net::UdpSocket;

use super::datagram::{DatagramSink, WriterParams};
use super::peers::{spawn_writer, Created, Peers};
use super::stream::Ingress;
use super::uri::FaceUri;
use ndnlab_udp as mmsg;

use super::{FaceEntry, Persistency, SendQueueRx};

/// Largest datagram read.
const MAX_DATAGRAM: usize = 65536;
/// Datagrams drained per readiness wake-up.
const RECV_BURST: usize = 64;

/// A UDP socket and the faces that use it.
pub struct UdpChannel {
    socket: Arc<UdpSocket>,
    local: SocketAddr,
    mtu: usize,
    idle_timeout_ns: u64,
    peers: Peers<SocketAddr>,
    /// For a multicast channel, its one face.
    multicast: Option<Arc<FaceEntry>>,
    /// UDP GSO works on this socket (cleared at the first failure).
    gso: AtomicBool,
}

impl UdpChannel {
    /// Binds a unicast channel. Fails if the address is taken.
    pub fn bind(addr: SocketAddr, mtu: usize, idle_timeout_s: u64) -> io::Result<Arc<UdpChannel>> {
        let std = super::bind::udp_socket(addr)?;
        let sock = socket2::SockRef::from(&std);
        let _ = sock.set_recv_buffer_size(8 << 20);
        let _ = sock.set_send_buffer_size(8 << 20);
        mmsg::enable_gro(&std);
        let socket = UdpSocket::from_std(std)?;
        let local = socket.local_addr()?;
        Ok(Arc::new(UdpChannel {
            socket: Arc::new(socket),
            local,
            mtu,
            idle_timeout_ns: idle_timeout_s.saturating_mul(1_000_000_000),
            peers: Peers::default(),
            multicast: None,
            gso: AtomicBool::new(true),
        }))
    }

    /// Joins a multicast group and creates its multi-access face.
    ///
    /// IPv4: `iface` is the local interface address to join on and send from
    /// (default 0.0.0.0: the kernel's choice). IPv6: the interface is the group
    /// address's scope id (`[ff02::1234%1]:56363` joins on interface index 1), and
    /// 0 lets the kernel choose. Our own datagrams are not looped back to us.
    pub fn multicast(
        group: SocketAddr,
        iface: Option<Ipv4Addr>,
        mtu: usize,
        ingress: &Arc<dyn Ingress>,
    ) -> io::Result<Arc<UdpChannel>> {
        let (s, local_ip) = match group {
            SocketAddr::V4(g) => {
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
                if !iface.is_unspecified() {
                    s.set_multicast_if_v4(&iface)?;
                }
                s.set_multicast_loop_v4(false)?;
                (s, std::net::IpAddr::from(iface))
            }
            SocketAddr::V6(g) => {
                if !g.ip().is_multicast() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{} is not an IPv6 multicast address", g.ip()),
                    ));
                }
                let index = g.scope_id();
                let s = socket2::Socket::new(
                    socket2::Domain::IPV6,
                    socket2::Type::DGRAM,
                    Some(socket2::Protocol::UDP),
                )?;
                s.set_only_v6(true)?;
                s.set_reuse_address(true)?;
                s.set_reuse_port(true)?;
                s.bind(&SocketAddr::new(Ipv6Addr::UNSPECIFIED.into(), g.port()).into())?;
                s.join_multicast_v6(g.ip(), index)?;
                if index != 0 {
                    s.set_multicast_if_v6(index)?;
                }
                s.set_multicast_loop_v6(false)?;
                (s, std::net::IpAddr::from(Ipv6Addr::UNSPECIFIED))
            }
        };
        s.set_nonblocking(true)?;
        mmsg::enable_gro(&s);
        let sock = socket2::SockRef::from(&s);
        let _ = sock.set_recv_buffer_size(8 << 20);
        let socket = UdpSocket::from_std(s.into())?;
        let local = socket.local_addr()?;
        let (face, queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::Udp(group),
            FaceUri::Udp(SocketAddr::new(local_ip, group.port())),
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
            peers: Peers::default(),
            multicast: Some(face.clone()),
            gso: AtomicBool::new(true),
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
        let make = || {
            let (face, queue) = FaceEntry::new(
                ingress.alloc_face_id(),
                FaceUri::Udp(remote),
                FaceUri::Udp(local_toward(self.local, remote)),
                false,
                persistency,
                false,
                Some(mtu.unwrap_or(self.mtu)),
                ingress.limits(),
            );
            face.link
                .reliability
                .attach_udp(self.socket.clone(), remote);
            (face, queue)
        };
        let spawn = |face: Arc<FaceEntry>, c: Created| {
            self.spawn_writer(face, c.queue, remote, ingress.clone(), c.idle);
        };
        self.peers.connect(
            remote,
            persistency,
            self.idle_timeout_ns,
            ingress,
            make,
            spawn,
        )
    }

    fn spawn_writer(
        self: &Arc<Self>,
        face: Arc<FaceEntry>,
        queue: SendQueueRx,
        remote: SocketAddr,
        ingress: Arc<dyn Ingress>,
        idle: Option<Arc<AtomicU64>>,
    ) {
        let sink = UdpSink {
            ch: self.clone(),
            remote,
        };
        let params = WriterParams {
            idle,
            idle_timeout_ns: self.idle_timeout_ns,
            batch: 4 * mmsg::BATCH,
            medium: "UDP",
        };
        let ch = self.clone();
        spawn_writer(sink, face, queue, ingress, params, move |id| {
            ch.peers.forget(id)
        });
    }

    /// Runs the channel's reader until the daemon stops.
    pub fn spawn_reader(self: &Arc<Self>, ingress: Arc<dyn Ingress>) {
        let ch = self.clone();
        tokio::spawn(async move {
            let mut bufs = mmsg::RecvBufs::new(RECV_BURST, MAX_DATAGRAM);
            let mut got: Vec<(usize, SocketAddr)> = Vec::with_capacity(RECV_BURST);
            let mut dec = super::link::DatagramDecoder::default();
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
                    for dgram in bufs.datagrams(i, n) {
                        let n = dgram.len();
                        let face = match &ch.multicast {
                            Some(f) => f.clone(),
                            None => match ch.peers.heard(&from, now) {
                                Some(f) => f,
                                None => ch.connect(from, Persistency::OnDemand, None, &ingress),
                            },
                        };
                        face.stats.in_bytes.fetch_add(n as u64, Relaxed);
                        dec.receive(&face, now, ndnlab_wire::packet_bytes(dgram));
                    }
                }
                dec.deliver(&*ingress);
                dec.prune(|id| ingress_has(&ch, id));
            }
        });
    }
}

/// A UDP face's datagrams: `sendmmsg` toward the peer, and UDP GSO for runs of
/// equal-size datagrams (fragments).
struct UdpSink {
    ch: Arc<UdpChannel>,
    remote: SocketAddr,
}

impl DatagramSink for UdpSink {
    async fn send(&self, face: &FaceEntry, dgrams: &[Bytes]) -> io::Result<()> {
        let mut off = 0;
        while off < dgrams.len() {
            let sock = &self.ch.socket;
            match sock.try_io(tokio::io::Interest::WRITABLE, || {
                mmsg::send_some(&**sock, self.remote, &dgrams[off..], &self.ch.gso)
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
        Ok(())
    }
}

/// The address a face's datagrams leave from: the channel's, with a wildcard IP
/// replaced by the source address the kernel picks toward `remote` (NFD's faces
/// report it, e.g. `udp4://127.0.0.1:6363` for a loopback peer of a `0.0.0.0:6363`
/// channel). A connected probe socket asks the routing table; nothing is sent.
fn local_toward(channel: SocketAddr, remote: SocketAddr) -> SocketAddr {
    if !channel.ip().is_unspecified() {
        return channel;
    }
    let probe = std::net::UdpSocket::bind(SocketAddr::new(channel.ip(), 0))
        .and_then(|s| s.connect(remote).and_then(|()| s.local_addr()));
    match probe {
        Ok(a) => SocketAddr::new(a.ip(), channel.port()),
        Err(_) => channel,
    }
}

fn ingress_has(ch: &UdpChannel, id: u64) -> bool {
    ch.peers.has(id) || ch.multicast.as_ref().is_some_and(|f| f.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::FaceLimits;
    use ndnlab_proto::lp::LpFields;
    use std::sync::atomic::AtomicU64;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Records what the channel delivers.
    #[derive(Default)]
    struct Sink {
        got: Mutex<Vec<(u64, Bytes)>>,
        ids: AtomicU64,
    }

    impl Ingress for Sink {
        fn deliver(&self, face: &Arc<FaceEntry>, burst: &mut Vec<(LpFields, Bytes)>) {
            let mut g = self.got.lock().unwrap();
            g.extend(burst.drain(..).map(|(_, p)| (face.id, p)));
        }
        fn face_closed(&self, _: &Arc<FaceEntry>) {}
        fn now(&self) -> u64 {
            0
        }
        fn alloc_face_id(&self) -> u64 {
            256 + self.ids.fetch_add(1, Relaxed)
        }
        fn limits(&self) -> FaceLimits {
            FaceLimits::default()
        }
        fn register_face(&self, _: &Arc<FaceEntry>) {}
    }

    fn interest() -> Bytes {
        ndnlab_wire::Interest::builder(ndnlab_wire::Name::from_uri("/mc/test").unwrap())
            .nonce(7)
            .build()
    }

    async fn wait_for(sink: &Sink, n: usize) -> Vec<(u64, Bytes)> {
        for _ in 0..100 {
            if sink.got.lock().unwrap().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        sink.got.lock().unwrap().clone()
    }

    fn free_port() -> u16 {
        std::net::UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[tokio::test]
    async fn ipv4_multicast_face_receives_on_loopback() {
        let sink = Arc::new(Sink::default());
        let ingress: Arc<dyn Ingress> = sink.clone();
        let group: SocketAddr = format!(
            "239.255.77.{}:{}",
            1 + std::process::id() % 250,
            free_port()
        )
        .parse()
        .unwrap();
        let ch = UdpChannel::multicast(group, Some(Ipv4Addr::LOCALHOST), 1452, &ingress).unwrap();
        ch.spawn_reader(ingress.clone());
        let tx = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None).unwrap();
        tx.set_multicast_if_v4(&Ipv4Addr::LOCALHOST).unwrap();
        tx.set_multicast_loop_v4(true).unwrap();
        tx.send_to(&interest(), &group.into()).unwrap();
        let got = wait_for(&sink, 1).await;
        assert_eq!(got.len(), 1, "the multicast face got the datagram");
        assert_eq!(got[0].1, interest());
        assert!(ch.is_multicast());
    }

    #[tokio::test]
    async fn ipv6_multicast_face_joins_on_an_interface_index() {
        let sink = Arc::new(Sink::default());
        let ingress: Arc<dyn Ingress> = sink.clone();
        // SAFETY: a NUL-terminated interface name.
        let lo = unsafe { libc::if_nametoindex(c"lo".as_ptr()) };
        assert!(lo > 0, "no loopback interface");
        let port = free_port();
        let group: SocketAddr =
            format!("[ff02::114:{:x}%{lo}]:{port}", std::process::id() & 0xffff)
                .parse()
                .unwrap();
        assert!(group.to_string().contains('%'));
        // Joining on lo works on every Linux kernel.
        let ch =
            UdpChannel::multicast(group, None, 1452, &ingress).expect("join an IPv6 group on lo");
        ch.spawn_reader(ingress.clone());
        let tx = socket2::Socket::new(socket2::Domain::IPV6, socket2::Type::DGRAM, None).unwrap();
        tx.set_multicast_if_v6(lo).unwrap();
        tx.set_multicast_loop_v6(true).unwrap();
        match tx.send_to(&interest(), &group.into()) {
            Ok(_) => {}
            // Found on this machine (and usual in containers): lo has no MULTICAST
            // flag and no ff00::/8 route, so the kernel refuses to send IPv6
            // multicast on it. Joining was checked above; delivery cannot be.
            Err(e) if e.raw_os_error() == Some(libc::ENETUNREACH) => {
                ndnlab_testkit::skip(
                    "the delivery check: the kernel refuses IPv6 multicast on lo \
                     (ENETUNREACH: no multicast route on lo); the join succeeded",
                );
                return;
            }
            Err(e) => panic!("send to {group}: {e}"),
        }
        let got = wait_for(&sink, 1).await;
        assert_eq!(got.len(), 1, "the IPv6 multicast face got the datagram");
        assert_eq!(got[0].1, interest());
    }

    #[tokio::test]
    async fn a_face_on_a_wildcard_channel_reports_its_real_local_address() {
        let ch = UdpChannel::bind("0.0.0.0:0".parse().unwrap(), 1452, 600).unwrap();
        let port = ch.local_addr().port();
        let ingress: Arc<dyn Ingress> = Arc::new(Sink::default());
        let face = ch.connect(
            "127.0.0.1:9".parse().unwrap(),
            Persistency::Persistent,
            None,
            &ingress,
        );
        assert_eq!(face.local.to_string(), format!("udp4://127.0.0.1:{port}"));
        // a channel bound to one address keeps it
        let ch = UdpChannel::bind("127.0.0.1:0".parse().unwrap(), 1452, 600).unwrap();
        let face = ch.connect(
            "127.0.0.1:9".parse().unwrap(),
            Persistency::Persistent,
            None,
            &ingress,
        );
        assert_eq!(FaceUri::Udp(ch.local_addr()), face.local);
    }

    #[test]
    fn ipv6_unicast_group_is_refused() {
        let sink: Arc<dyn Ingress> = Arc::new(Sink::default());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _g = rt.enter();
        let e = UdpChannel::multicast("[::1]:56363".parse().unwrap(), None, 1452, &sink)
            .err()
            .expect("not a group");
        assert!(
            e.to_string().contains("not an IPv6 multicast address"),
            "{e}"
        );
    }
}
