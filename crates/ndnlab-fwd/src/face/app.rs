//! In-process faces: an application (or a benchmark) in the same process exchanges
//! whole TLVs with the forwarder through channels, without sockets. The packets are
//! exactly what a Unix-socket client would see (bare Interest/Data or LpPacket), so
//! any NDN client code can run over it. App faces are local.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use tokio::sync::mpsc;

use super::lp::{LinkReceiver, LinkSender};
use super::stream::Ingress;
use super::uri::FaceUri;
use super::{FaceEntry, Persistency};

/// The application's end of an in-process face.
pub struct AppFace {
    face: Arc<FaceEntry>,
    ingress: Arc<dyn Ingress>,
    link: LinkReceiver,
    rx: mpsc::UnboundedReceiver<Vec<Bytes>>,
    burst: Vec<(super::lp::LpFields, Bytes)>,
}

impl AppFace {
    /// Creates and registers an app face named `app://<name>`.
    pub fn open(name: &str, ingress: Arc<dyn Ingress>) -> AppFace {
        let (face, mut queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::App(name.to_string()),
            FaceUri::App(name.to_string()),
            true,
            Persistency::OnDemand,
            false,
            None,
            ingress.limits(),
        );
        ingress.register_face(&face);
        let (tx, rx) = mpsc::unbounded_channel();
        let (f2, i2) = (face.clone(), ingress.clone());
        tokio::spawn(async move {
            let mut link = LinkSender::new(None, 0);
            loop {
                let items = tokio::select! {
                    i = queue.recv() => match i { Some(i) => i, None => break },
                    _ = f2.closed() => break,
                };
                f2.dequeued(&items);
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    f2.stats.count_out(it.kind);
                    f2.stats.out_bytes.fetch_add(it.pkt.len() as u64, Relaxed);
                    if it.fields.is_empty() {
                        out.push(it.pkt);
                    } else {
                        let mut b = BytesMut::new();
                        link.encode_stream(&it.fields, &it.pkt, &mut b);
                        out.push(b.freeze());
                    }
                }
                if tx.send(out).is_err() {
                    break;
                }
            }
            i2.face_closed(&f2);
        });
        AppFace {
            face,
            ingress,
            link: LinkReceiver::new(),
            rx,
            burst: Vec::new(),
        }
    }

    /// The face id the forwarder gave this face.
    pub fn id(&self) -> u64 {
        self.face.id
    }

    /// Sends a burst of whole TLVs (Interest, Data or LpPacket) to the forwarder.
    pub fn send_burst(&mut self, pkts: impl IntoIterator<Item = Bytes>) {
        let now = self.ingress.now();
        for p in pkts {
            self.face.stats.in_bytes.fetch_add(p.len() as u64, Relaxed);
            match self.link.receive(now, p) {
                Ok(Some(x)) => self.burst.push(x),
                Ok(None) => {}
                Err(_) => {
                    self.face.stats.in_drops.fetch_add(1, Relaxed);
                }
            }
        }
        if !self.burst.is_empty() {
            self.ingress.deliver(&self.face, &mut self.burst);
            self.burst.clear();
        }
    }

    /// Sends one packet.
    pub fn send(&mut self, pkt: Bytes) {
        self.send_burst([pkt]);
    }

    /// Receives the next burst of packets from the forwarder (`None` once closed).
    pub async fn recv_burst(&mut self) -> Option<Vec<Bytes>> {
        self.rx.recv().await
    }

    /// Non-blocking receive.
    pub fn try_recv_burst(&mut self) -> Option<Vec<Bytes>> {
        self.rx.try_recv().ok()
    }

    /// Closes the face (its routes and PIT entries go away).
    pub fn close(&self) {
        self.face.mark_closed();
    }
}

impl Drop for AppFace {
    fn drop(&mut self) {
        self.face.mark_closed();
    }
}
