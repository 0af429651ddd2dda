//! The client library's batched path: one stream connection (Unix or TCP) driven
//! synchronously from one thread, moving many packets per system call.
//!
//! The async [`Client`](super::Client) gives every Interest its own waiter, which
//! costs a lock, a channel and a task wake-up per packet. A load (`ndnlab perf`,
//! `ndnlab bench fwd`) needs the other shape: a loop that queues a burst of
//! packets, writes them with one `write`, reads everything the forwarder sent with
//! one `read`, and hands each packet to the caller. [`BurstConn`] is that loop's
//! connection. It speaks the same protocol layer as the async client (the stream
//! framing and NDNLPv2 link service of `ndnlab_proto`), and encodes Interests
//! straight into its output buffer: nothing is allocated per packet once the
//! buffers have grown to a burst's size.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_proto::framing::next_frame;
use ndnlab_proto::lp::{LinkReceiver, LpDrop, LpFields};
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::{Interest, Name, Packet};

use super::mgmt::{self, ControlParameters};
use super::{ClientError, FaceUri};

/// Bytes read per system call at most.
const READ_CHUNK: usize = 1 << 20;
/// Length of the PIT tokens [`BurstConn::push_interest`] writes.
pub const TOKEN_LEN: usize = 8;

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn io(&mut self) -> &mut dyn ReadWrite {
        match self {
            Stream::Unix(s) => s,
            Stream::Tcp(s) => s,
        }
    }

    fn set_read_timeout(&self, d: Option<Duration>) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_read_timeout(d),
            Stream::Tcp(s) => s.set_read_timeout(d),
        }
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// What [`BurstConn::push_interest`] puts in an Interest besides its name.
#[derive(Debug, Clone, Copy)]
pub struct InterestShape {
    pub must_be_fresh: bool,
    pub can_be_prefix: bool,
    pub lifetime_ms: u64,
}

/// One batched stream connection to a forwarder.
pub struct BurstConn {
    stream: Stream,
    uri: String,
    inb: BytesMut,
    out: BytesMut,
    link: LinkReceiver,
    epoch: Instant,
    /// Frames the link service dropped.
    pub link_drops: u64,
}

impl BurstConn {
    /// Connects to a Unix or TCP forwarder (UDP has no batched client path; use
    /// the async client).
    pub fn connect(uri: &FaceUri) -> Result<BurstConn, ClientError> {
        let err = |source| ClientError::Connect {
            uri: uri.to_string(),
            source,
        };
        let stream = match uri {
            FaceUri::Unix(path) => Stream::Unix(UnixStream::connect(path).map_err(err)?),
            FaceUri::Tcp(hp) => {
                let s = TcpStream::connect(hp.as_str()).map_err(err)?;
                s.set_nodelay(true).map_err(err)?;
                Stream::Tcp(s)
            }
            FaceUri::Udp(_) => {
                return Err(err(std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "the batched path needs a stream transport (unix:// or tcp://)",
                )))
            }
        };
        Ok(BurstConn {
            stream,
            uri: uri.to_string(),
            inb: BytesMut::with_capacity(READ_CHUNK),
            out: BytesMut::with_capacity(256 * 1024),
            link: LinkReceiver::new(),
            epoch: Instant::now(),
            link_drops: 0,
        })
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
    }

    /// Queues a whole TLV (Interest, Data or LpPacket) as it is.
    pub fn push_raw(&mut self, wire: &[u8]) {
        self.out.extend_from_slice(wire);
    }

    /// Queues `pkt` in an LpPacket carrying `token` (bare when `None`).
    pub fn push_with_token(&mut self, pkt: &[u8], token: Option<&[u8]>) {
        let Some(token) = token else {
            self.out.extend_from_slice(pkt);
            return;
        };
        let lp_value =
            tlv::tlv_len(t::PIT_TOKEN, token.len()) + tlv::tlv_len(t::FRAGMENT, pkt.len());
        self.out.reserve(tlv::tlv_len(t::LP_PACKET, lp_value));
        tlv::put_header(&mut self.out, t::LP_PACKET, lp_value);
        tlv::put_tlv(&mut self.out, t::PIT_TOKEN, token);
        tlv::put_tlv(&mut self.out, t::FRAGMENT, pkt);
    }

    /// Bytes queued and not written yet.
    pub fn queued(&self) -> usize {
        self.out.len()
    }

    /// Writes everything queued with as few system calls as the socket allows.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        self.stream.io().write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }

    /// One read of at most `timeout` (zero: wait without limit); every packet it
    /// completes goes through the link service to `each` with its link fields.
    /// Returns how many packets were handed over; `Ok(0)` on timeout.
    pub fn poll(
        &mut self,
        timeout: Duration,
        mut each: impl FnMut(LpFields, Bytes),
    ) -> std::io::Result<usize> {
        self.stream
            .set_read_timeout((!timeout.is_zero()).then_some(timeout))?;
        if self.inb.capacity() - self.inb.len() < READ_CHUNK / 4 {
            self.inb.reserve(READ_CHUNK);
        }
        let spare = self.inb.spare_capacity_mut();
        // SAFETY: `read` only writes initialized bytes into the slice, and only
        // the `n` bytes it reports are marked initialized below.
        let buf = unsafe { &mut *(spare as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
        let n = match self.stream.io().read(buf) {
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

    fn count_drop(&mut self, e: &LpDrop) {
        self.link_drops += 1;
        tracing::trace!(uri = %self.uri, drop = e.reason());
    }

    /// The Unix socket underneath, for a loop that drives it itself (the load
    /// generator's producer), once nothing read is left unhandled.
    pub fn into_unix(self) -> Option<UnixStream> {
        match self.stream {
            Stream::Unix(s) if self.inb.is_empty() && self.out.is_empty() => {
                s.set_read_timeout(None).ok()?;
                Some(s)
            }
            _ => None,
        }
    }

    /// Registers `prefix` toward this connection's own face (rib/register, origin
    /// app, CHILD_INHERIT) and waits for the forwarder's answer. Packets that
    /// arrive meanwhile are dropped, so register before the load starts.
    pub fn register(&mut self, prefix: &Name, timeout: Duration) -> Result<(), ClientError> {
        let params = ControlParameters {
            name: Some(prefix.clone()),
            origin: Some(mgmt::ORIGIN_APP),
            cost: Some(0),
            flags: Some(mgmt::ROUTE_CHILD_INHERIT),
            ..Default::default()
        };
        let wire = mgmt::command_interest("rib", "register", &params);
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
                    outcome: "timeout (is the forwarder's management enabled?)".into(),
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
                source,
            }
        })?;
        if resp.code != 200 {
            return Err(ClientError::Mgmt {
                what: "rib/register".into(),
                source: mgmt::MgmtError::Refused {
                    code: resp.code,
                    text: resp.text,
                },
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::LpPacket;

    #[test]
    fn pushed_interests_decode_with_their_token() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut c = BurstConn {
            stream: Stream::Unix(a),
            uri: "test".into(),
            inb: BytesMut::new(),
            out: BytesMut::new(),
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
