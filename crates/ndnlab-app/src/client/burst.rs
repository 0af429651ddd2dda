//! The client library's batched path: one connection (Unix, TCP or UDP) driven
//! synchronously from one thread, moving many packets per system call: one
//! `writev` or `sendmmsg` for a burst out, one `read` or `recvmmsg` for a burst in.
//!
//! The async [`Client`](super::Client) gives every Interest its own waiter, which
//! costs a lock, a channel and a task wake-up per packet. A load (`ndnlab perf`,
//! `ndnlab bench fwd`) needs the other shape: a loop that queues a burst of
//! packets, writes them with one `write`, reads everything the forwarder sent with
//! one `read`, and hands each packet to the caller. [`BurstConn`] is that loop's
//! connection. It speaks the same protocol layer as the async client (the stream
//! framing and NDNLPv2 link service of `ndnlab_proto`), and encodes Interests
//! straight into its output buffer: nothing is allocated per packet once the
//! buffers have grown to a burst's size. Large packets already in memory (a
//! producer's pre-signed Data) are queued by reference and written with `writev`,
//! not copied.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::unix::net::UnixStream;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_proto::framing::{advance_segments, io_slices, make_room, next_frame};
use ndnlab_proto::lp::{LinkReceiver, LpDrop, LpFields};
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::{Interest, Name, Packet};

use super::mgmt::{self, ControlParameters};
use super::{ClientError, FaceUri};

/// Bytes read per system call at most.
const READ_CHUNK: usize = 1 << 20;
/// Length of the PIT tokens [`BurstConn::push_interest`] writes.
pub const TOKEN_LEN: usize = 8;

enum Transport {
    Unix(UnixStream),
    Tcp(TcpStream),
    /// A UDP socket connected to the forwarder; every queued packet is one datagram.
    Udp {
        sock: UdpSocket,
        peer: SocketAddr,
        bufs: ndnlab_udp::RecvBufs,
        got: Vec<(usize, SocketAddr)>,
    },
}

impl Transport {
    fn stream(&mut self) -> Option<&mut dyn ReadWrite> {
        match self {
            Transport::Unix(s) => Some(s),
            Transport::Tcp(s) => Some(s),
            Transport::Udp { .. } => None,
        }
    }

    fn set_read_timeout(&self, d: Option<Duration>) -> std::io::Result<()> {
        match self {
            Transport::Unix(s) => s.set_read_timeout(d),
            Transport::Tcp(s) => s.set_read_timeout(d),
            Transport::Udp { .. } => Ok(()),
        }
    }
}

impl std::os::fd::AsRawFd for BurstConn {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        match &self.transport {
            Transport::Unix(s) => s.as_raw_fd(),
            Transport::Tcp(s) => s.as_raw_fd(),
            Transport::Udp { sock, .. } => sock.as_raw_fd(),
        }
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// Packets from this size on are queued by reference (written with `writev`).
const BY_REFERENCE: usize = 1024;

/// A UDP socket on the loopback or any local address, connected to `peer`, with
/// large buffers and GRO on.
fn udp_to(peer: SocketAddr) -> std::io::Result<UdpSocket> {
    let local: SocketAddr = if peer.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    };
    let s = UdpSocket::bind(local)?;
    let sr = socket2::SockRef::from(&s);
    let _ = sr.set_recv_buffer_size(8 << 20);
    let _ = sr.set_send_buffer_size(8 << 20);
    ndnlab_udp::enable_gro(&s);
    s.connect(peer)?;
    s.set_nonblocking(true)?;
    Ok(s)
}

/// What [`BurstConn::push_interest`] puts in an Interest besides its name.
#[derive(Debug, Clone, Copy)]
pub struct InterestShape {
    pub must_be_fresh: bool,
    pub can_be_prefix: bool,
    pub lifetime_ms: u64,
}

/// One batched connection to a forwarder.
pub struct BurstConn {
    transport: Transport,
    uri: String,
    inb: BytesMut,
    out: BytesMut,
    /// Queued packets not yet in `out`'s unsplit tail: stream segments (written
    /// with `writev`) or whole datagrams.
    segs: Vec<Bytes>,
    link: LinkReceiver,
    epoch: Instant,
    /// Frames the link service dropped.
    pub link_drops: u64,
}

impl BurstConn {
    /// Connects to a Unix, TCP or UDP forwarder.
    pub fn connect(uri: &FaceUri) -> Result<BurstConn, ClientError> {
        let err = |source| ClientError::Connect {
            uri: uri.to_string(),
            cause: source,
        };
        let transport = match uri {
            FaceUri::Unix(path) => Transport::Unix(UnixStream::connect(path).map_err(err)?),
            FaceUri::Tcp(hp) => {
                let s = TcpStream::connect(hp.as_str()).map_err(err)?;
                s.set_nodelay(true).map_err(err)?;
                Transport::Tcp(s)
            }
            FaceUri::Udp(hp) => {
                let peer = hp
                    .as_str()
                    .to_socket_addrs()
                    .map_err(err)?
                    .next()
                    .ok_or_else(|| err(std::io::Error::other("no address")))?;
                Transport::Udp {
                    sock: udp_to(peer).map_err(err)?,
                    peer,
                    bufs: ndnlab_udp::RecvBufs::new(ndnlab_udp::BATCH, 65536),
                    got: Vec::with_capacity(ndnlab_udp::BATCH),
                }
            }
        };
        Ok(BurstConn {
            transport,
            uri: uri.to_string(),
            inb: BytesMut::with_capacity(READ_CHUNK),
            out: BytesMut::with_capacity(256 * 1024),
            segs: Vec::with_capacity(1024),
            link: LinkReceiver::new(),
            epoch: Instant::now(),
            link_drops: 0,
        })
    }

    /// The local address of a UDP connection (the forwarder's face has it as
    /// its remote URI).
    pub fn local_udp_addr(&self) -> Option<SocketAddr> {
        match &self.transport {
            Transport::Udp { sock, .. } => sock.local_addr().ok(),
            _ => None,
        }
    }

    fn is_udp(&self) -> bool {
        matches!(self.transport, Transport::Udp { .. })
    }

    /// Ends the packet just written into `out`: on UDP it becomes a datagram.
    fn end_packet(&mut self) {
        if self.is_udp() {
            self.segs.push(self.out.split().freeze());
        }
    }

    /// The forwarder's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Queues an Interest for `<prefix>/<seq>` (a SequenceNum component) in an
    /// LpPacket carrying the 8-byte PIT token `token`. Nothing is allocated.
    pub fn push_interest(
        &mut self,
        prefix: &Name,
        seq: u64,
        nonce: u32,
        shape: InterestShape,
        token: u64,
    ) {
        let comp = tlv::nni_tlv_len(t::SEQUENCE_NUM_NAME_COMPONENT, seq);
        let name_value = prefix.value_bytes().len() + comp;
        let mut value = tlv::tlv_len(t::NAME, name_value)
            + 6
            + tlv::nni_tlv_len(t::INTEREST_LIFETIME, shape.lifetime_ms);
        value += 2 * (shape.can_be_prefix as usize + shape.must_be_fresh as usize);
        let interest = tlv::tlv_len(t::INTEREST, value);
        let lp_value = tlv::tlv_len(t::PIT_TOKEN, TOKEN_LEN) + tlv::tlv_len(t::FRAGMENT, interest);
        let out = &mut self.out;
        out.reserve(tlv::tlv_len(t::LP_PACKET, lp_value));
        tlv::put_header(out, t::LP_PACKET, lp_value);
        tlv::put_tlv(out, t::PIT_TOKEN, &token.to_be_bytes());
        tlv::put_header(out, t::FRAGMENT, interest);
        tlv::put_header(out, t::INTEREST, value);
        tlv::put_header(out, t::NAME, name_value);
        out.extend_from_slice(prefix.value_bytes());
        tlv::put_nni_tlv(out, t::SEQUENCE_NUM_NAME_COMPONENT, seq);
        if shape.can_be_prefix {
            tlv::put_header(out, t::CAN_BE_PREFIX, 0);
        }
        if shape.must_be_fresh {
            tlv::put_header(out, t::MUST_BE_FRESH, 0);
        }
        tlv::put_tlv(out, t::NONCE, &nonce.to_be_bytes());
        tlv::put_nni_tlv(out, t::INTEREST_LIFETIME, shape.lifetime_ms);
        self.end_packet();
    }

    /// Queues a whole TLV (Interest, Data or LpPacket) as it is.
    pub fn push_raw(&mut self, wire: &[u8]) {
        self.out.extend_from_slice(wire);
        self.end_packet();
    }

    /// Queues `pkt` in an LpPacket carrying `token` (bare when `None`). A large
    /// packet is queued by reference, behind its header, and not copied.
    pub fn push_with_token(&mut self, pkt: &Bytes, token: Option<&[u8]>) {
        let by_ref = pkt.len() >= BY_REFERENCE;
        if let Some(token) = token {
            let lp_value =
                tlv::tlv_len(t::PIT_TOKEN, token.len()) + tlv::tlv_len(t::FRAGMENT, pkt.len());
            self.out.reserve(tlv::tlv_len(t::LP_PACKET, lp_value));
            tlv::put_header(&mut self.out, t::LP_PACKET, lp_value);
            tlv::put_tlv(&mut self.out, t::PIT_TOKEN, token);
            tlv::put_header(&mut self.out, t::FRAGMENT, pkt.len());
        }
        if by_ref && !self.is_udp() {
            if !self.out.is_empty() {
                self.segs.push(self.out.split().freeze());
            }
            self.segs.push(pkt.clone());
        } else {
            self.out.extend_from_slice(pkt);
            self.end_packet();
        }
    }

    /// Bytes queued and not written yet.
    pub fn queued(&self) -> usize {
        self.out.len() + self.segs.iter().map(Bytes::len).sum::<usize>()
    }

    /// Writes everything queued: one `writev` per `ndnlab_proto::framing::MAX_SEGMENTS` buffers on
    /// streams, `sendmmsg` (and GSO for runs of equal-size datagrams) on UDP.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if !self.out.is_empty() {
            self.segs.push(self.out.split().freeze());
        }
        if self.segs.is_empty() {
            return Ok(());
        }
        let r = match &mut self.transport {
            Transport::Udp { sock, peer, .. } => send_all(sock, *peer, &self.segs),
            t => {
                let io = t.stream().expect("a stream");
                write_all_segments(io, &mut self.segs)
            }
        };
        self.segs.clear();
        if self.out.capacity() < 64 * 1024 {
            self.out = BytesMut::with_capacity(256 * 1024);
        }
        r
    }

    /// One read of at most `timeout` (zero: wait without limit); every packet it
    /// completes goes through the link service to `each` with its link fields.
    /// Returns how many packets were handed over; `Ok(0)` on timeout.
    pub fn poll(
        &mut self,
        timeout: Duration,
        mut each: impl FnMut(LpFields, Bytes),
    ) -> std::io::Result<usize> {
        if self.is_udp() {
            return self.poll_udp(timeout, each);
        }
        self.transport
            .set_read_timeout((!timeout.is_zero()).then_some(timeout))?;
        make_room(&mut self.inb, READ_CHUNK, READ_CHUNK / 4);
        let spare = self.inb.spare_capacity_mut();
        // SAFETY: `read` only writes initialized bytes into the slice, and only
        // the `n` bytes it reports are marked initialized below.
        let buf = unsafe { &mut *(spare as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
        let io = self.transport.stream().expect("a stream");
        let n = match io.read(buf) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the forwarder closed the connection",
                ))
            }
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(0)
            }
            Err(e) => return Err(e),
        };
        // SAFETY: the read initialized these `n` bytes.
        unsafe { self.inb.set_len(self.inb.len() + n) };
        let now = self.epoch.elapsed().as_nanos() as u64;
        let mut got = 0;
        loop {
            let frame = match next_frame(&mut self.inb) {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
            };
            match self.link.receive(now, frame) {
                Ok(Some((fields, pkt))) => {
                    got += 1;
                    each(fields, pkt);
                }
                Ok(None) => {}
                Err(e) => self.count_drop(&e),
            }
        }
        Ok(got)
    }

    fn poll_udp(
        &mut self,
        timeout: Duration,
        mut each: impl FnMut(LpFields, Bytes),
    ) -> std::io::Result<usize> {
        let Transport::Udp {
            sock, bufs, got, ..
        } = &mut self.transport
        else {
            return Ok(0);
        };
        let wait = if timeout.is_zero() {
            Duration::from_secs(3600)
        } else {
            timeout
        };
        if !ndnlab_udp::wait(sock, libc::POLLIN, wait)? {
            return Ok(0);
        }
        match ndnlab_udp::recv_batch(sock, bufs, got) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::ConnectionRefused
                ) =>
            {
                return Ok(0)
            }
            Err(e) => return Err(e),
        }
        let now = self.epoch.elapsed().as_nanos() as u64;
        let mut n = 0;
        for (i, &(len, _)) in got.iter().enumerate() {
            for dgram in bufs.datagrams(i, len) {
                match self.link.receive(now, Bytes::copy_from_slice(dgram)) {
                    Ok(Some((fields, pkt))) => {
                        n += 1;
                        each(fields, pkt);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        self.link_drops += 1;
                        tracing::trace!(uri = %self.uri, drop = e.reason());
                    }
                }
            }
        }
        Ok(n)
    }

    fn count_drop(&mut self, e: &LpDrop) {
        self.link_drops += 1;
        tracing::trace!(uri = %self.uri, drop = e.reason());
    }

    /// Registers `prefix` toward this connection's own face (rib/register, origin
    /// app, CHILD_INHERIT) and waits for the forwarder's answer. Packets that
    /// arrive meanwhile are dropped, so register before the load starts.
    pub fn register(&mut self, prefix: &Name, timeout: Duration) -> Result<(), ClientError> {
        self.register_signed(prefix, timeout, None)
    }

    /// [`Self::register`] with the command signed by `signer` (a key a forwarder's
    /// `[[management.authorize]]` lists) instead of DigestSha256.
    pub fn register_signed(
        &mut self,
        prefix: &Name,
        timeout: Duration,
        signer: Option<&dyn ndnlab_wire::Signer>,
    ) -> Result<(), ClientError> {
        let params = ControlParameters {
            name: Some(prefix.clone()),
            origin: Some(mgmt::ORIGIN_APP),
            cost: Some(0),
            flags: Some(mgmt::ROUTE_CHILD_INHERIT),
            ..Default::default()
        };
        let wire = match signer {
            None => mgmt::command_interest("rib", "register", &params),
            Some(s) => mgmt::command_interest_with(s, "rib", "register", &params)
                .map_err(|e| ClientError::Build(format!("signing rib/register: {e}")))?,
        };
        let name = Interest::decode(wire.clone())
            .map_err(|e| ClientError::Build(e.to_string()))?
            .name()
            .clone();
        let closed = |_| ClientError::Closed;
        self.push_raw(&wire);
        self.flush().map_err(closed)?;
        let deadline = Instant::now() + timeout;
        let mut answer = None;
        while answer.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ClientError::NoAnswer {
                    what: "rib/register".into(),
                    outcome: super::COMMAND_TIMEOUT.into(),
                });
            }
            self.poll(left, |_, pkt| {
                if let Ok(Packet::Data(d)) = Packet::decode(pkt) {
                    if d.name() == &name {
                        answer = Some(d.content());
                    }
                }
            })
            .map_err(closed)?;
        }
        let resp = mgmt::decode_response(&answer.unwrap_or_default()).map_err(|source| {
            ClientError::Mgmt {
                what: "rib/register".into(),
                cause: source,
            }
        })?;
        if resp.code != 200 {
            return Err(ClientError::Mgmt {
                what: "rib/register".into(),
                cause: mgmt::MgmtError::Refused {
                    code: resp.code,
                    text: resp.text,
                },
            });
        }
        Ok(())
    }
}

/// `writev`s every segment, continuing after partial writes.
fn write_all_segments(io: &mut dyn ReadWrite, segs: &mut [Bytes]) -> std::io::Result<()> {
    let mut first = 0;
    while first < segs.len() {
        let n = match io.write_vectored(&io_slices(segs, first)) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        advance_segments(segs, &mut first, n);
    }
    Ok(())
}

/// Sends every datagram (`sendmmsg`, GSO for runs of equal-size ones), waiting
/// when the socket buffer is full; a refused datagram is dropped (the forwarder is
/// not up yet).
fn send_all(s: &UdpSocket, to: SocketAddr, dgrams: &[Bytes]) -> std::io::Result<()> {
    static GSO: AtomicBool = AtomicBool::new(true);
    let mut off = 0;
    while off < dgrams.len() {
        match ndnlab_udp::send_some(s, to, &dgrams[off..], &GSO) {
            Ok(k) => off += k.max(1),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                ndnlab_udp::wait(s, libc::POLLOUT, Duration::from_millis(100))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => off += 1,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::LpPacket;

    #[test]
    fn pushed_interests_decode_with_their_token() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut c = BurstConn {
            transport: Transport::Unix(a),
            uri: "test".into(),
            inb: BytesMut::new(),
            out: BytesMut::new(),
            segs: Vec::new(),
            link: LinkReceiver::new(),
            epoch: Instant::now(),
            link_drops: 0,
        };
        let prefix: Name = "/ndnlab/perf".parse().unwrap();
        let shape = InterestShape {
            must_be_fresh: true,
            can_be_prefix: false,
            lifetime_ms: 4000,
        };
        c.push_interest(&prefix, 300, 7, shape, 42);
        c.push_interest(
            &prefix,
            0,
            8,
            InterestShape {
                can_be_prefix: true,
                ..shape
            },
            43,
        );
        let len = c.queued();
        c.flush().unwrap();
        let mut buf = vec![0u8; len];
        b.read_exact(&mut buf).unwrap();
        let mut inb = BytesMut::from(&buf[..]);
        for (seq, nonce, token, cbp) in [(300u64, 7u32, 42u64, false), (0, 8, 43, true)] {
            let lp = LpPacket::decode(next_frame(&mut inb).unwrap().unwrap()).unwrap();
            assert_eq!(lp.pit_token(), Some(&token.to_be_bytes()[..]));
            let i = Interest::decode(lp.fragment().unwrap()).unwrap();
            let want: Name = format!("/ndnlab/perf/seq={seq}").parse().unwrap();
            assert_eq!(i.name(), &want);
            assert_eq!(i.nonce(), Some(nonce));
            assert!(i.must_be_fresh());
            assert_eq!(i.can_be_prefix(), cbp);
            assert_eq!(i.lifetime(), Duration::from_millis(4000));
        }
        // and packets come back through the link service
        let d = ndnlab_wire::Data::builder(prefix.clone())
            .sign(&ndnlab_wire::DigestSha256)
            .unwrap();
        let mut reply = BytesMut::new();
        let lp = LpPacket::builder()
            .pit_token(Bytes::from_static(&[1, 2, 3, 4, 5, 6, 7, 8]))
            .fragment(d.clone())
            .build();
        reply.extend_from_slice(&lp);
        reply.extend_from_slice(&d);
        b.write_all(&reply).unwrap();
        let mut got = Vec::new();
        while got.len() < 2 {
            c.poll(Duration::from_secs(2), |f, p| got.push((f.pit_token, p)))
                .unwrap();
        }
        assert_eq!(got[0].0.as_deref(), Some(&[1, 2, 3, 4, 5, 6, 7, 8][..]));
        assert_eq!(got[0].1, d);
        assert_eq!(got[1], (None, d));
    }
}
