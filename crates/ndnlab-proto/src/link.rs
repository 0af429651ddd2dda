//! An in-memory link: a pair of channel ends carrying whole TLV packets (bare
//! Interest/Data or LpPacket), exactly what a Unix-socket client would see.
//!
//! A forwarder in the same process keeps one end and pumps it to and from one of
//! its faces; an application takes the other (the client library's
//! `Client::from_link`). Each direction is bounded; a full channel makes the sender
//! wait.

use bytes::Bytes;
use tokio::sync::mpsc;

/// One end of an in-memory link.
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

/// A face that moves whole TLVs in bursts without a channel in between: a
/// forwarder's in-process app face implements it, so load generators in the
/// client library drive a forwarder in the same process at its own speed.
pub trait BurstFace: Send + 'static {
    /// Hands a burst of whole TLVs to the forwarder, on the caller's thread.
    fn send_burst(&mut self, pkts: Vec<Bytes>);
    /// The next burst from the forwarder (`None` once the face closed).
    fn recv_burst(&mut self) -> impl std::future::Future<Output = Option<Vec<Bytes>>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn both_directions_carry_packets_in_order() {
        let (mut a, mut b) = pair(4);
        a.tx.send(Bytes::from_static(b"1")).await.unwrap();
        a.tx.send(Bytes::from_static(b"2")).await.unwrap();
        b.tx.send(Bytes::from_static(b"3")).await.unwrap();
        assert_eq!(b.rx.recv().await.unwrap(), "1");
        assert_eq!(b.rx.recv().await.unwrap(), "2");
        assert_eq!(a.rx.recv().await.unwrap(), "3");
        drop(a);
        assert!(b.rx.recv().await.is_none(), "closed with its peer");
    }
}
