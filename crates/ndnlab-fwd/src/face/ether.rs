//! Ethernet transports (NFD's Ethernet faces) over Linux `AF_PACKET` sockets.
//!
//! An [`EtherChannel`] is one raw socket bound to one interface and to NDN's
//! EtherType (0x8624). It carries the unicast faces toward peers on that link
//! (`ether://[08:00:27:01:01:01]`, local URI `dev://eth0`), demultiplexed by the
//! sender's MAC address, and at most one multicast face (NDN's group
//! 01:00:5e:00:17:aa by default, joined with `PACKET_ADD_MEMBERSHIP`; link type
//! multi-access, permanent). A listening channel creates an on-demand face when a
//! frame addressed to the interface arrives from a new MAC address, as NFD's
//! EthernetChannel does; on-demand faces idle for the configured time are closed.
//!
//! Frames are built and checked by `ndnlab_proto::ether` (header, padding to the
//! 60-byte minimum, the TLV length cutting the padding off). The link service is
//! the one UDP faces use ([`super::datagram::run_writer`] and
//! [`super::link::DatagramDecoder`]): NDNLPv2 fragmentation to the interface MTU
//! and reassembly. The reader takes up to 64 frames per `recvmmsg`; each face's
//! writer sends up to 64 frames per `sendmmsg`, each frame as three buffers
//! (header, datagram, padding) so a fragment is never copied. Frames that fail the
//! checks are dropped and counted per channel by [`EtherDrop`] reason.
//!
//! NFD reads frames with libpcap and a BPF filter; a packet socket bound to the
//! EtherType gets the same frames without the library. Needs `CAP_NET_RAW`.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use tokio::io::unix::AsyncFd;

use ndnlab_proto::ether::{self, EtherDrop, MacAddr, ETHERTYPE_NDN, HDR_LEN, PADDING};

use super::datagram::{DatagramSink, WriterParams};
use super::link::DatagramDecoder;
use super::peers::{spawn_writer, Created, Peers};
use super::stream::Ingress;
use super::uri::FaceUri;
use super::{FaceEntry, Persistency, SendQueueRx};

/// Frames per `recvmmsg` / `sendmmsg`.
const BATCH: usize = 64;

/// A network interface, as the kernel reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Netif {
    pub name: String,
    pub index: u32,
    pub mac: MacAddr,
    pub mtu: usize,
    /// ARPHRD_ETHER (Ethernet, veth, bridges, ...).
    pub is_ethernet: bool,
    pub is_up: bool,
    pub is_loopback: bool,
    pub can_multicast: bool,
}

impl Netif {
    /// Looks an interface up by name (in the calling thread's network namespace).
    pub fn lookup(name: &str) -> io::Result<Netif> {
        let cname = CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in interface name"))?;
        if name.is_empty() || name.len() > super::uri::MAX_IFNAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{name}' is not an interface name"),
            ));
        }
        // SAFETY: a NUL-terminated string.
        let index = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if index == 0 {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no network interface named '{name}'"),
            ));
        }
        // Any socket answers the SIOCGIF* ioctls; a UDP one needs no privilege.
        let probe = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)?;
        let fd = probe.as_raw_fd();
        let hw = ifreq_ioctl(fd, name, libc::SIOCGIFHWADDR)?;
        // SAFETY: SIOCGIFHWADDR filled ifru_hwaddr.
        let hwaddr = unsafe { hw.ifr_ifru.ifru_hwaddr };
        let mut mac = MacAddr::default();
        for (o, b) in mac.0.iter_mut().zip(hwaddr.sa_data.iter()) {
            *o = *b as u8;
        }
        // SAFETY: SIOCGIFMTU filled ifru_mtu.
        let mtu = unsafe { ifreq_ioctl(fd, name, libc::SIOCGIFMTU)?.ifr_ifru.ifru_mtu };
        // SAFETY: SIOCGIFFLAGS filled ifru_flags.
        let flags = unsafe {
            ifreq_ioctl(fd, name, libc::SIOCGIFFLAGS)?
                .ifr_ifru
                .ifru_flags
        } as i32;
        Ok(Netif {
            name: name.to_string(),
            index,
            mac,
            mtu: mtu.max(0) as usize,
            is_ethernet: hwaddr.sa_family == libc::ARPHRD_ETHER,
            is_up: flags & libc::IFF_UP != 0,
            is_loopback: flags & libc::IFF_LOOPBACK != 0,
            can_multicast: flags & libc::IFF_MULTICAST != 0,
        })
    }

    /// Every interface an Ethernet face can use: Ethernet type, up, not loopback,
    /// with a hardware address (what NFD's EthernetFactory accepts).
    pub fn list_ethernet() -> Vec<Netif> {
        let mut names = Vec::new();
        // SAFETY: if_nameindex returns an array ended by a zero entry, freed below.
        unsafe {
            let list = libc::if_nameindex();
            if list.is_null() {
                return Vec::new();
            }
            let mut p = list;
            while (*p).if_index != 0 && !(*p).if_name.is_null() {
                names.push(
                    std::ffi::CStr::from_ptr((*p).if_name)
                        .to_string_lossy()
                        .into_owned(),
                );
                p = p.add(1);
            }
            libc::if_freenameindex(list);
        }
        names.sort();
        names
            .iter()
            .filter_map(|n| Netif::lookup(n).ok())
            .filter(Netif::is_usable)
            .collect()
    }

    /// Ethernet type, up, not loopback, with a hardware address.
    pub fn is_usable(&self) -> bool {
        self.is_ethernet && self.is_up && !self.is_loopback && !self.mac.is_null()
    }
}

fn ifreq_ioctl(fd: RawFd, name: &str, req: libc::c_ulong) -> io::Result<libc::ifreq> {
    // SAFETY: plain data; all-zero is valid.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: `ifr` is a valid ifreq with a NUL-terminated name (checked shorter
    // than IFNAMSIZ by the caller); the kernel writes within it.
    let r = unsafe { libc::ioctl(fd, req as _, &mut ifr as *mut libc::ifreq) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ifr)
}

/// Opens a non-blocking packet socket for NDN's EtherType bound to `netif`.
fn open_socket(netif: &Netif) -> io::Result<OwnedFd> {
    let proto = (ETHERTYPE_NDN).to_be() as libc::c_int;
    // SAFETY: plain socket(2).
    let fd = unsafe {
        libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            proto,
        )
    };
    if fd < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EPERM) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "Ethernet faces need CAP_NET_RAW (run as root or grant the capability)",
            ));
        }
        return Err(e);
    }
    // SAFETY: a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: plain data; all-zero is valid.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = ETHERTYPE_NDN.to_be();
    sll.sll_ifindex = netif.index as i32;
    // SAFETY: `sll` is a valid sockaddr_ll of the size given.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            &sll as *const libc::sockaddr_ll as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // Our own frames are never wanted back (older kernels lack the option; the
    // reader drops frames from our address anyway).
    let _ = setsockopt_int(&fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1);
    let sock = socket2::SockRef::from(&fd);
    let _ = sock.set_recv_buffer_size(8 << 20);
    let _ = sock.set_send_buffer_size(8 << 20);
    Ok(fd)
}

fn setsockopt_int(
    fd: &OwnedFd,
    level: libc::c_int,
    opt: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: an int option of the size given.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            opt,
            &v as *const libc::c_int as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Receives up to [`BATCH`] frames; `lens[i]` is the i-th frame's length, or
/// `None` when it did not fit its buffer.
fn recv_frames(
    fd: RawFd,
    bufs: &mut [Vec<u8>],
    lens: &mut Vec<Option<usize>>,
) -> io::Result<usize> {
    lens.clear();
    let n = bufs.len().min(BATCH);
    let mut iovs: [libc::iovec; BATCH] = [libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; BATCH];
    // SAFETY: plain data; all-zero is valid.
    let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
    for ((iov, msg), buf) in iovs.iter_mut().zip(msgs.iter_mut()).zip(bufs.iter_mut()) {
        *iov = libc::iovec {
            iov_base: buf.as_mut_ptr() as *mut libc::c_void,
            iov_len: buf.len(),
        };
        msg.msg_hdr.msg_iov = iov as *mut libc::iovec;
        msg.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: buffers and iovecs outlive the call; the kernel writes at most
    // iov_len bytes into each buffer.
    let r = unsafe {
        libc::recvmmsg(
            fd,
            msgs.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    for m in msgs.iter().take(r as usize) {
        let truncated = m.msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
        lens.push((!truncated).then_some(m.msg_len as usize));
    }
    Ok(r as usize)
}

/// Sends up to [`BATCH`] frames `hdr + dgram + padding` on the bound socket;
/// returns how many went.
fn send_frames(fd: RawFd, hdr: &[u8; HDR_LEN], dgrams: &[Bytes]) -> io::Result<usize> {
    let n = dgrams.len().min(BATCH);
    if n == 0 {
        return Ok(0);
    }
    let empty = libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    };
    let mut iovs: [[libc::iovec; 3]; BATCH] = [[empty; 3]; BATCH];
    // SAFETY: plain data; all-zero is valid.
    let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
    for ((iov, msg), d) in iovs.iter_mut().zip(msgs.iter_mut()).zip(dgrams).take(n) {
        iov[0] = libc::iovec {
            iov_base: hdr.as_ptr() as *mut libc::c_void,
            iov_len: HDR_LEN,
        };
        iov[1] = libc::iovec {
            iov_base: d.as_ptr() as *mut libc::c_void,
            iov_len: d.len(),
        };
        let pad = ether::padding_len(d.len());
        iov[2] = libc::iovec {
            iov_base: PADDING.as_ptr() as *mut libc::c_void,
            iov_len: pad,
        };
        msg.msg_hdr.msg_iov = iov.as_mut_ptr();
        msg.msg_hdr.msg_iovlen = if pad > 0 { 3 } else { 2 };
    }
    // SAFETY: every buffer (header, datagrams, padding, iovecs) lives until the
    // call returns; the kernel only reads them. No address: the socket is bound.
    let r = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), n as libc::c_uint, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as usize)
}

/// An Ethernet face's frames: one header toward its peer (or group) on its
/// channel's interface.
struct EtherSink {
    ch: Arc<EtherChannel>,
    hdr: [u8; HDR_LEN],
}

impl DatagramSink for EtherSink {
    async fn send(&self, face: &FaceEntry, dgrams: &[Bytes]) -> io::Result<()> {
        self.ch.send_all(face, &self.hdr, dgrams).await
    }
}

/// One interface's packet socket and the Ethernet faces on it.
pub struct EtherChannel {
    fd: AsyncFd<OwnedFd>,
    netif: Netif,
    listening: bool,
    idle_timeout_ns: u64,
    peers: Peers<MacAddr>,
    /// The multicast group joined and its face.
    multicast: OnceLock<(MacAddr, Arc<FaceEntry>)>,
    /// Frames dropped before reaching a face, by [`EtherDrop::index`].
    drops: [AtomicU64; EtherDrop::REASONS.len()],
}

impl EtherChannel {
    /// Opens a channel on `netif`. `listening`: frames to this interface from a MAC
    /// without a face create an on-demand face (otherwise they are dropped as
    /// `no-face`). Must be called inside a tokio runtime.
    pub fn open(
        netif: Netif,
        listening: bool,
        idle_timeout_s: u64,
    ) -> io::Result<Arc<EtherChannel>> {
        if !netif.is_ethernet {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not an Ethernet interface", netif.name),
            ));
        }
        if netif.mac.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has no Ethernet address", netif.name),
            ));
        }
        let sock = open_socket(&netif)?;
        // SAFETY: `sock` is an open descriptor that the AsyncFd owns (and closes)
        // from here on; nothing else refers to it.
        let fd = unsafe { AsyncFd::register(sock) }.map_err(|e| e.into_parts().1)?;
        Ok(Arc::new(EtherChannel {
            fd,
            netif,
            listening,
            idle_timeout_ns: idle_timeout_s.saturating_mul(1_000_000_000),
            peers: Peers::default(),
            multicast: OnceLock::new(),
            drops: Default::default(),
        }))
    }

    pub fn netif(&self) -> &Netif {
        &self.netif
    }

    /// `dev://<interface>`.
    pub fn local_uri(&self) -> FaceUri {
        FaceUri::Dev(self.netif.name.clone())
    }

    pub fn is_listening(&self) -> bool {
        self.listening
    }

    /// Frames dropped before reaching a face: (reason, count) for each reason.
    pub fn drop_counts(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        EtherDrop::REASONS
            .iter()
            .zip(&self.drops)
            .map(|(r, c)| (*r, c.load(Relaxed)))
    }

    fn count_drop(&self, d: EtherDrop) {
        self.drops[d.index()].fetch_add(1, Relaxed);
        tracing::trace!(dev = %self.netif.name, drop = d.reason(), "Ethernet frame dropped");
    }

    /// The multicast face, if the channel joined a group.
    pub fn multicast_face(&self) -> Option<&Arc<FaceEntry>> {
        self.multicast.get().map(|(_, f)| f)
    }

    /// Joins `group` on the interface and creates its permanent multi-access face
    /// (remote `ether://[group]`, local `dev://<interface>`). One group per channel.
    pub fn join_multicast(
        self: &Arc<Self>,
        group: MacAddr,
        ingress: &Arc<dyn Ingress>,
    ) -> io::Result<Arc<FaceEntry>> {
        if !group.is_multicast() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{group} is not a multicast address"),
            ));
        }
        if let Some((g, _)) = self.multicast.get() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} already joined {g}", self.netif.name),
            ));
        }
        if !group.is_broadcast() {
            // SAFETY: plain data; all-zero is valid.
            let mut mr: libc::packet_mreq = unsafe { std::mem::zeroed() };
            mr.mr_ifindex = self.netif.index as i32;
            mr.mr_type = libc::PACKET_MR_MULTICAST as u16;
            mr.mr_alen = ether::ADDR_LEN as u16;
            mr.mr_address[..ether::ADDR_LEN].copy_from_slice(&group.0);
            // SAFETY: a valid packet_mreq of the size given.
            let r = unsafe {
                libc::setsockopt(
                    self.fd.as_raw_fd(),
                    libc::SOL_PACKET,
                    libc::PACKET_ADD_MEMBERSHIP,
                    &mr as *const libc::packet_mreq as *const libc::c_void,
                    std::mem::size_of::<libc::packet_mreq>() as libc::socklen_t,
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot join {group} on {}: {e}", self.netif.name),
                ));
            }
        }
        let (face, queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::Ether(group),
            self.local_uri(),
            false,
            Persistency::Permanent,
            true,
            Some(self.netif.mtu),
            ingress.limits(),
        );
        if self.multicast.set((group, face.clone())).is_err() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} already joined a group", self.netif.name),
            ));
        }
        ingress.register_face(&face);
        self.spawn_writer(face.clone(), queue, group, ingress.clone(), None);
        Ok(face)
    }

    /// The unicast face toward `remote`, created (and registered) if needed.
    pub fn connect(
        self: &Arc<Self>,
        remote: MacAddr,
        persistency: Persistency,
        mtu: Option<usize>,
        ingress: &Arc<dyn Ingress>,
    ) -> Arc<FaceEntry> {
        let make = || {
            FaceEntry::new(
                ingress.alloc_face_id(),
                FaceUri::Ether(remote),
                self.local_uri(),
                false,
                persistency,
                false,
                Some(mtu.map_or(self.netif.mtu, |m| m.min(self.netif.mtu))),
                ingress.limits(),
            )
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
        remote: MacAddr,
        ingress: Arc<dyn Ingress>,
        idle: Option<Arc<AtomicU64>>,
    ) {
        let sink = EtherSink {
            hdr: ether::header(remote, self.netif.mac),
            ch: self.clone(),
        };
        let params = WriterParams {
            idle,
            idle_timeout_ns: self.idle_timeout_ns,
            batch: 4 * BATCH,
            medium: "Ethernet",
        };
        let ch = self.clone();
        spawn_writer(sink, face, queue, ingress, params, move |id| {
            ch.peers.forget(id)
        });
    }

    /// Sends every datagram as a frame. A full device queue (`ENOBUFS`) or an
    /// oversized frame (`EMSGSIZE`) drops that frame and counts it; other errors end a non-permanent face (a permanent one
    /// drops the frames and carries on, as NFD's do).
    async fn send_all(
        &self,
        face: &FaceEntry,
        hdr: &[u8; HDR_LEN],
        dgrams: &[Bytes],
    ) -> io::Result<()> {
        let mut off = 0;
        while off < dgrams.len() {
            let mut guard = self.fd.writable().await?;
            match guard.try_io(|fd| send_frames(fd.as_raw_fd(), hdr, &dgrams[off..])) {
                Ok(Ok(k)) => {
                    let bytes: usize = dgrams[off..off + k].iter().map(Bytes::len).sum();
                    face.stats.out_bytes.fetch_add(bytes as u64, Relaxed);
                    off += k;
                }
                // A full device queue, or a frame beyond the interface MTU (an
                // Mtu override larger than the link's): that frame is lost.
                Ok(Err(e)) if matches!(e.raw_os_error(), Some(libc::ENOBUFS | libc::EMSGSIZE)) => {
                    face.stats.queue_drops.fetch_add(1, Relaxed);
                    off += 1;
                }
                Ok(Err(e)) => {
                    if face.persistency.get() != Persistency::Permanent {
                        return Err(e);
                    }
                    tracing::debug!(face = face.id, error = %e, "permanent Ethernet face ignores a send error");
                    face.stats
                        .queue_drops
                        .fetch_add((dgrams.len() - off) as u64, Relaxed);
                    return Ok(());
                }
                Err(_would_block) => continue,
            }
        }
        Ok(())
    }

    /// Runs the channel's reader until the daemon stops.
    pub fn spawn_reader(self: &Arc<Self>, ingress: Arc<dyn Ingress>) {
        let ch = self.clone();
        tokio::spawn(async move {
            // Room for the largest frame the interface carries, and a little more
            // to tell a too-long frame (MSG_TRUNC) from a full one.
            let size = (ch.netif.mtu + HDR_LEN + 64).max(2048);
            let mut bufs: Vec<Vec<u8>> = (0..BATCH).map(|_| vec![0u8; size]).collect();
            let mut lens: Vec<Option<usize>> = Vec::with_capacity(BATCH);
            let mut dec = DatagramDecoder::default();
            loop {
                let mut guard = match ch.fd.readable().await {
                    Ok(g) => g,
                    Err(e) => {
                        tracing::warn!(dev = %ch.netif.name, error = %e, "Ethernet channel stopped");
                        return;
                    }
                };
                match guard.try_io(|fd| recv_frames(fd.as_raw_fd(), &mut bufs, &mut lens)) {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => {
                        // ENETDOWN while the link is down, and the like: not fatal.
                        tracing::trace!(dev = %ch.netif.name, error = %e, "Ethernet receive error");
                        lens.clear();
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    }
                    Err(_would_block) => continue,
                }
                let now = ingress.now();
                for (buf, len) in bufs.iter().zip(lens.iter()) {
                    let Some(len) = *len else {
                        ch.count_drop(EtherDrop::Truncated);
                        continue;
                    };
                    match ch.classify(&buf[..len], now, &ingress) {
                        Ok((face, payload)) => {
                            face.stats.in_bytes.fetch_add(payload.len() as u64, Relaxed);
                            dec.receive(&face, now, ndnlab_wire::packet_bytes(payload));
                        }
                        Err(d) => ch.count_drop(d),
                    }
                }
                dec.deliver(&*ingress);
                dec.prune(|id| ch.has_face(id));
            }
        });
    }

    /// Checks a frame and finds (or creates) the face it belongs to.
    fn classify<'a>(
        self: &Arc<Self>,
        frame: &'a [u8],
        now: u64,
        ingress: &Arc<dyn Ingress>,
    ) -> Result<(Arc<FaceEntry>, &'a [u8]), EtherDrop> {
        let f = ether::parse_frame(frame)?;
        if f.src == self.netif.mac {
            return Err(EtherDrop::FromSelf);
        }
        if f.dst == self.netif.mac {
            let face = match self.peers.heard(&f.src, now) {
                Some(face) => face,
                _ if self.listening && !f.src.is_multicast() => {
                    self.connect(f.src, Persistency::OnDemand, None, ingress)
                }
                _ => return Err(EtherDrop::NoFace),
            };
            return Ok((face, f.payload));
        }
        match self.multicast.get() {
            Some((g, face)) if *g == f.dst && !face.is_closed() => Ok((face.clone(), f.payload)),
            _ => Err(EtherDrop::OtherDestination),
        }
    }

    fn has_face(&self, id: u64) -> bool {
        self.peers.has(id) || self.multicast_face().is_some_and(|f| f.id == id)
    }
}

/// Whether an interface name matches a whitelist/blacklist pattern: the name
/// itself, or a glob where `*` stands for any run of characters (`*`, `veth*`).
pub fn name_matches(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_patterns() {
        assert!(name_matches("*", "eth0"));
        assert!(name_matches("eth0", "eth0"));
        assert!(!name_matches("eth0", "eth01"));
        assert!(name_matches("veth*", "veth-a"));
        assert!(name_matches("*-b", "veth-b"));
        assert!(!name_matches("veth*", "eth0"));
        assert!(name_matches("e*h*", "enp0s3h"));
    }

    #[test]
    fn loopback_is_found_and_is_not_usable() {
        let lo = Netif::lookup("lo").expect("every Linux namespace has lo");
        assert!(lo.is_loopback && !lo.is_ethernet && !lo.is_usable());
        assert!(lo.index > 0 && lo.mtu > 0);
        let e = Netif::lookup("no-such-if0").unwrap_err();
        assert!(e.to_string().contains("no network interface named"), "{e}");
        assert!(Netif::list_ethernet().iter().all(|n| n.name != "lo"));
    }

    /// Frames built the way the writer sends them (header, datagram, padding as
    /// three buffers) and read back through a socketpair are what the reader
    /// parses: covers `send_frames`/`recv_frames` without a packet socket.
    #[test]
    fn send_and_receive_batches_over_a_socketpair() {
        let mut fds = [0; 2];
        // SAFETY: plain socketpair(2) into a two-element array.
        let r = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_DGRAM | libc::SOCK_NONBLOCK,
                0,
                fds.as_mut_ptr(),
            )
        };
        assert_eq!(r, 0);
        // SAFETY: fresh descriptors we own.
        let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let peer = MacAddr([2, 0, 0, 0, 0, 2]);
        let me = MacAddr([2, 0, 0, 0, 0, 1]);
        let hdr = ether::header(peer, me);
        let small = ndnlab_wire::Interest::builder(ndnlab_wire::Name::from_uri("/s").unwrap())
            .nonce(3)
            .build();
        let big = Bytes::from(vec![7u8; 1400]);
        let sent = send_frames(a.as_raw_fd(), &hdr, &[small.clone(), big.clone()]).unwrap();
        assert_eq!(sent, 2);
        let mut bufs: Vec<Vec<u8>> = (0..4).map(|_| vec![0u8; 2048]).collect();
        let mut lens = Vec::new();
        assert_eq!(recv_frames(b.as_raw_fd(), &mut bufs, &mut lens).unwrap(), 2);
        assert_eq!(lens[0], Some(ether::MIN_FRAME_LEN), "short frame padded");
        assert_eq!(lens[1], Some(HDR_LEN + 1400));
        let f = ether::parse_frame(&bufs[0][..lens[0].unwrap()]).unwrap();
        assert_eq!((f.dst, f.src, f.payload), (peer, me, &small[..]));
        // A frame longer than its buffer is reported, not cut short silently.
        send_frames(a.as_raw_fd(), &hdr, &[Bytes::from(vec![1u8; 4000])]).unwrap();
        assert_eq!(recv_frames(b.as_raw_fd(), &mut bufs, &mut lens).unwrap(), 1);
        assert_eq!(lens[0], None);
    }
}
