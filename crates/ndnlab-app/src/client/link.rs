//! In-process link: a pair of channel ends carrying whole TLV packets (bare
//! Interest/Data or LpPacket), exactly what a Unix-socket client would see.
//!
//! A forwarder in the same process (e.g. `ndnlab_fwd::face::app::AppFace`)
//! keeps one end and pumps it to and from its face; the client takes the
//! other with [`Client::from_link`](super::Client::from_link).

use bytes::Bytes;
use tokio::sync::mpsc;

/// One end of an in-process link.
#[derive(Debug)]
pub struct Link {
    /// Packets to the other end.
    pub tx: mpsc::Sender<Bytes>,
    /// Packets from the other end.
    pub rx: mpsc::Receiver<Bytes>,
}

/// Two connected ends, each direction bounded to `capacity` packets.
pub fn pair(capacity: usize) -> (Link, Link) {
    let (atx, brx) = mpsc::channel(capacity);
    let (btx, arx) = mpsc::channel(capacity);
    (Link { tx: atx, rx: arx }, Link { tx: btx, rx: brx })
}
