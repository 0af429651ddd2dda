//! A raw face for tests: one Unix or TCP connection to the forwarder on which a
//! test writes hand-made packets and reads exactly what the forwarder sends back.
//! It is a fixture for probing the daemon's wire behaviour, not a client library
//! (applications use `ndnlab_app::client`): management commands and datasets go
//! through the protocol layer's `ndnlab_proto::mgmt`, with only the socket here.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_proto::framing::next_frame;
use ndnlab_proto::mgmt::{self, ControlParameters, ControlResponse, FetchStep, SegmentFetch};
use ndnlab_wire::{Data, Interest, Name, Packet};

trait Conn: Read + Write + Send {}
impl<T: Read + Write + Send> Conn for T {}

/// One raw connection to a forwarder.
pub struct RawFace {
    conn: Box<dyn Conn>,
    buf: BytesMut,
    timeout: Duration,
}

impl RawFace {
    /// Connects to `unix://path` or `tcp://host:port`.
    pub fn connect(transport: &str) -> RawFace {
        let conn: Box<dyn Conn> = if let Some(path) = transport.strip_prefix("unix://") {
            let s = UnixStream::connect(path).expect("connect");
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            Box::new(s)
        } else {
            let addr = transport
                .split_once("://")
                .map_or(transport, |(_, a)| a)
                .to_string();
            let s = TcpStream::connect(&addr).expect("connect");
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            s.set_nodelay(true).unwrap();
            Box::new(s)
        };
        RawFace {
            conn,
            buf: BytesMut::with_capacity(65536),
            timeout: Duration::from_secs(4),
        }
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, wire: &[u8]) -> std::io::Result<()> {
        self.conn.write_all(wire)
    }

    fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = [0u8; 65536];
        match self.conn.read(&mut chunk) {
            Ok(0) => Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "forwarder closed the connection",
            )),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The next Interest, Data or LpPacket; `Ok(None)` on timeout.
    pub fn recv_packet(&mut self, timeout: Duration) -> Result<Option<Packet>, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(frame) = next_frame(&mut self.buf).map_err(|e| e.to_string())? {
                return Packet::decode(frame).map(Some).map_err(|e| e.to_string());
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            self.fill().map_err(|e| e.to_string())?;
        }
    }

    /// Waits for a Data under `prefix` (bare or in an LpPacket); a Nack for a name
    /// under `prefix` is an error naming its reason.
    pub fn recv_data(&mut self, prefix: &Name) -> Result<Data, String> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(p) = self.recv_packet(left)? else {
                return Err(format!("no answer within {:?}", self.timeout));
            };
            match p {
                Packet::Data(d) if prefix.is_prefix_of(d.name()) => return Ok(d),
                Packet::Lp(lp) => {
                    let Some(frag) = lp.fragment() else { continue };
                    if let Some(reason) = lp.nack() {
                        if let Ok(i) = Interest::decode(frag) {
                            if prefix.is_prefix_of(i.name()) {
                                return Err(format!("Nack {}", reason.as_str()));
                            }
                        }
                    } else if let Ok(d) = Data::decode(frag) {
                        if prefix.is_prefix_of(d.name()) {
                            return Ok(d);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Sends a command and returns the forwarder's response, whatever its code.
    pub fn command(
        &mut self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, String> {
        let wire = ndnlab_app::client::mgmt::command_interest(module, verb, params);
        let name = Interest::decode(wire.clone())
            .map_err(|e| e.to_string())?
            .name()
            .clone();
        self.send_raw(&wire).map_err(|e| e.to_string())?;
        let d = self.recv_data(&name)?;
        mgmt::decode_response(&d.content()).map_err(|e| e.to_string())
    }

    /// Every segment of the newest version of `/localhost/nfd/<module>/<dataset>`.
    pub fn dataset(&mut self, module: &str, dataset: &str) -> Result<Bytes, String> {
        self.fetch_segmented(
            format!("/localhost/nfd/{module}/{dataset}")
                .parse()
                .map_err(|e| format!("{e}"))?,
        )
    }

    /// A segmented, versioned object under `prefix`.
    pub fn fetch_segmented(&mut self, prefix: Name) -> Result<Bytes, String> {
        let mut fetch = SegmentFetch::new(prefix, rand::random());
        let mut next = fetch.first_interest();
        loop {
            self.send_raw(&next).map_err(|e| e.to_string())?;
            let d = self.recv_data(&fetch.expected())?;
            match fetch.on_data(&d).map_err(|e| e.to_string())? {
                FetchStep::Send(i) => next = i,
                FetchStep::Done(all) => return Ok(all),
            }
        }
    }
}
