//! A small blocking management client (used by `ndnlab ctl` and tests): signed
//! command Interests (v0.3, DigestSha256) and segmented dataset fetching over a
//! Unix or TCP connection to the forwarder.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_wire::{Data, DigestSha256, Interest, Name, Packet};

use super::params::{ControlParameters, ControlResponse};
use crate::face::framing::next_frame;

/// Where the forwarder listens, from `--socket`, then `NDN_CLIENT_TRANSPORT`, then
/// NFD's default (as python-ndn and ndn-cxx resolve it).
pub fn resolve_transport(socket: Option<&str>) -> String {
    if let Some(s) = socket {
        return if s.contains("://") {
            s.to_string()
        } else {
            format!("unix://{s}")
        };
    }
    if let Ok(t) = std::env::var("NDN_CLIENT_TRANSPORT") {
        if !t.is_empty() {
            return t;
        }
    }
    format!("unix://{}", crate::config::DEFAULT_UNIX_SOCKET)
}

trait Conn: Read + Write + Send {}
impl<T: Read + Write + Send> Conn for T {}

/// A connection to a forwarder's management.
pub struct MgmtClient {
    conn: Box<dyn Conn>,
    unix: Option<UnixStream>,
    buf: BytesMut,
    timeout: Duration,
}

/// Client errors.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot connect to {0}: {1}")]
    Connect(String, std::io::Error),
    #[error("unsupported transport '{0}' (use unix://PATH or tcp://HOST:PORT)")]
    Transport(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("no answer from the forwarder within {0:?}")]
    Timeout(Duration),
    #[error("the forwarder sent a Nack ({0})")]
    Nack(String),
    #[error("bad reply: {0}")]
    BadReply(String),
}

impl MgmtClient {
    /// Connects to `unix://path` or `tcp://host:port`.
    pub fn connect(transport: &str) -> Result<MgmtClient, ClientError> {
        let timeout = Duration::from_secs(4);
        let mut unix = None;
        let conn: Box<dyn Conn> = if let Some(path) = transport.strip_prefix("unix://") {
            let s =
                UnixStream::connect(path).map_err(|e| ClientError::Connect(transport.into(), e))?;
            s.set_read_timeout(Some(Duration::from_millis(200)))?;
            unix = s.try_clone().ok();
            Box::new(s)
        } else if let Some(rest) = transport
            .strip_prefix("tcp://")
            .or_else(|| transport.strip_prefix("tcp4://"))
            .or_else(|| transport.strip_prefix("tcp6://"))
        {
            let addr = if rest.contains(':') {
                rest.to_string()
            } else {
                format!("{rest}:6363")
            };
            let s =
                TcpStream::connect(&addr).map_err(|e| ClientError::Connect(transport.into(), e))?;
            s.set_read_timeout(Some(Duration::from_millis(200)))?;
            s.set_nodelay(true)?;
            Box::new(s)
        } else {
            return Err(ClientError::Transport(transport.into()));
        };
        Ok(MgmtClient {
            conn,
            unix,
            buf: BytesMut::with_capacity(65536),
            timeout,
        })
    }

    /// The underlying Unix connection (its face keeps the routes it registered),
    /// if nothing is buffered unread.
    pub fn into_unix(self) -> Option<UnixStream> {
        if self.buf.is_empty() {
            self.unix
        } else {
            None
        }
    }

    /// Sends raw bytes (tests use this for hand-made Interests).
    pub fn send_raw(&mut self, wire: &[u8]) -> Result<(), ClientError> {
        self.conn.write_all(wire)?;
        Ok(())
    }

    /// Waits for a Data whose name starts with `prefix` (or is a prefix match for
    /// CanBePrefix requests); Nacks for that name are errors.
    pub fn recv_data(&mut self, prefix: &Name) -> Result<Data, ClientError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            while let Some(frame) =
                next_frame(&mut self.buf).map_err(|e| ClientError::BadReply(e.to_string()))?
            {
                match Packet::decode(frame) {
                    Ok(Packet::Data(d)) if prefix.is_prefix_of(d.name()) => return Ok(d),
                    Ok(Packet::Lp(lp)) => {
                        if let Some(frag) = lp.fragment() {
                            if let Some(reason) = lp.nack() {
                                if let Ok(i) = Interest::decode(frag) {
                                    if prefix.is_prefix_of(i.name()) {
                                        return Err(ClientError::Nack(reason.as_str().into()));
                                    }
                                }
                            } else if let Ok(d) = Data::decode(frag) {
                                if prefix.is_prefix_of(d.name()) {
                                    return Ok(d);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            if Instant::now() >= deadline {
                return Err(ClientError::Timeout(self.timeout));
            }
            let mut chunk = [0u8; 65536];
            match self.conn.read(&mut chunk) {
                Ok(0) => {
                    return Err(ClientError::Io(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "forwarder closed the connection",
                    )))
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Receives the next Interest, Data or Nack (LpPackets unwrapped; fragments are
    /// not expected on a stream). `Ok(None)` on timeout.
    pub fn recv_packet(&mut self, timeout: Duration) -> Result<Option<Packet>, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(frame) =
                next_frame(&mut self.buf).map_err(|e| ClientError::BadReply(e.to_string()))?
            {
                match Packet::decode(frame) {
                    Ok(p) => return Ok(Some(p)),
                    Err(e) => return Err(ClientError::BadReply(e.to_string())),
                }
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            let mut chunk = [0u8; 65536];
            match self.conn.read(&mut chunk) {
                Ok(0) => {
                    return Err(ClientError::Io(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "forwarder closed the connection",
                    )))
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Builds a signed (v0.3, DigestSha256) command Interest.
    pub fn command_interest(module: &str, verb: &str, params: &ControlParameters) -> Bytes {
        let mut b = Name::builder();
        b.push_generic(b"localhost")
            .push_generic(b"nfd")
            .push_generic(module.as_bytes())
            .push_generic(verb.as_bytes())
            .push_generic(&params.encode());
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let nonce: [u8; 8] =
            (now_ms ^ (std::process::id() as u64).rotate_left(32) ^ next_counter()).to_be_bytes();
        Interest::builder(b.build())
            .lifetime_ms(4000)
            .nonce(now_ms as u32 ^ next_counter() as u32)
            .app_params(Bytes::new())
            .signature_nonce(Bytes::copy_from_slice(&nonce))
            .signature_time(now_ms)
            .sign(&DigestSha256)
            .expect("DigestSha256 never fails")
    }

    /// Sends a control command and returns the forwarder's response.
    pub fn command(
        &mut self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        let wire = Self::command_interest(module, verb, params);
        let name = Interest::decode(wire.clone())
            .map_err(|e| ClientError::BadReply(e.to_string()))?
            .name()
            .clone();
        self.send_raw(&wire)?;
        let d = self.recv_data(&name)?;
        ControlResponse::decode(&d.content()).map_err(ClientError::BadReply)
    }

    /// Fetches every segment of the latest version of a dataset.
    pub fn dataset(&mut self, module: &str, dataset: &str) -> Result<Bytes, ClientError> {
        let mut b = Name::builder();
        b.push_generic(b"localhost")
            .push_generic(b"nfd")
            .push_generic(module.as_bytes())
            .push_generic(dataset.as_bytes());
        self.fetch_segmented(b.build())
    }

    /// Fetches a segmented, versioned object under `prefix`.
    pub fn fetch_segmented(&mut self, prefix: Name) -> Result<Bytes, ClientError> {
        let first = Interest::builder(prefix.clone())
            .can_be_prefix(true)
            .must_be_fresh(true)
            .nonce(next_counter() as u32 ^ 0x5a5a_1234)
            .lifetime_ms(4000)
            .build();
        self.send_raw(&first)?;
        let d0 = self.recv_data(&prefix)?;
        let name = d0.name().clone();
        let n = name.len();
        let versioned = name.prefix(n.saturating_sub(1));
        if name.get(n.wrapping_sub(1)).and_then(|c| c.as_segment()) != Some(0) {
            return Err(ClientError::BadReply(format!("{name} is not segment 0")));
        }
        let last = d0
            .final_block_id()
            .and_then(|c| c.as_segment())
            .unwrap_or(0);
        let mut out = BytesMut::from(&d0.content()[..]);
        for seg in 1..=last {
            let sname = versioned.append_segment(seg);
            let i = Interest::builder(sname.clone())
                .nonce(next_counter() as u32 ^ 0x1357_9bdf)
                .lifetime_ms(4000)
                .build();
            self.send_raw(&i)?;
            let d = self.recv_data(&sname)?;
            out.extend_from_slice(&d.content());
        }
        Ok(out.freeze())
    }
}

fn next_counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static C: AtomicU64 = AtomicU64::new(0x9E37_79B9);
    C.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
}
