//! In-process faces: an application (or a benchmark) in the same process exchanges
//! whole TLVs with the forwarder through channels, without sockets. The packets are
//! exactly what a Unix-socket client would see (bare Interest/Data or LpPacket), so
//! any NDN client code can run over it. App faces are local.
//!
//! There is no writer task: the application takes bursts straight off the face's
//! send queue ([`AppFace::recv_burst`]) and adds the LpPacket wrapper itself, so a
//! packet crosses exactly one queue from the forwarder to the application, and
//! [`AppFace::send_burst`] hands packets to the router on the caller's thread.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use super::stream::Ingress;
use super::uri::FaceUri;
use super::{FaceEntry, OutItem, Persistency, SendQueueRx};
use ndnlab_proto::link::Link;
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};

/// The application's end of an in-process face.
pub struct AppFace {
    face: Arc<FaceEntry>,
    ingress: Arc<dyn Ingress>,
    link: LinkReceiver,
    sender: LinkSender,
    queue: SendQueueRx,
    burst: Vec<(LpFields, Bytes)>,
    /// Where the forwarding CPU of [`AppFace::send_burst`] is charged.
    cpu: Option<Arc<crate::cpu_clock::Account>>,
}

impl AppFace {
    /// Creates and registers an app face named `app://<name>`.
    pub fn open(name: &str, ingress: Arc<dyn Ingress>) -> AppFace {
        Self::create(name, ingress, true, None)
    }

    /// Creates and registers a face toward another forwarder in the same process
    /// (`app://<name>`, non-local, permanent): what the laboratory joins two
    /// forwarders with. With an `mtu`, packets beyond it leave as NDNLPv2
    /// fragments, as on a datagram face.
    pub fn open_peer(name: &str, ingress: Arc<dyn Ingress>, mtu: Option<usize>) -> AppFace {
        Self::create(name, ingress, false, mtu)
    }

    fn create(name: &str, ingress: Arc<dyn Ingress>, local: bool, mtu: Option<usize>) -> AppFace {
        let persistency = if local {
            Persistency::OnDemand
        } else {
            Persistency::Permanent
        };
        let (face, queue) = FaceEntry::new(
            ingress.alloc_face_id(),
            FaceUri::App(name.to_string()),
            FaceUri::App(name.to_string()),
            local,
            persistency,
            false,
            mtu,
            ingress.limits(),
        );
        ingress.register_face(&face);
        AppFace {
            face,
            ingress,
            link: LinkReceiver::new(),
            sender: LinkSender::new(None, 0),
            queue,
            burst: Vec::new(),
            cpu: None,
        }
    }

    /// Charges the CPU the forwarder spends on this face's bursts, on the
    /// sender's thread, to `account` (its forwarder's; see [`crate::cpu_clock`]).
    pub fn charge_cpu_to(&mut self, account: Arc<crate::cpu_clock::Account>) {
        self.cpu = Some(account);
    }

    /// The face id the forwarder gave this face.
    pub fn id(&self) -> u64 {
        self.face.id
    }

    /// Sends a burst of whole TLVs (Interest, Data or LpPacket) to the forwarder.
    pub fn send_burst(&mut self, pkts: impl IntoIterator<Item = Bytes>) {
        if self.face.is_closed() {
            return;
        }
        let now = self.ingress.now();
        for p in pkts {
            self.face.stats.in_bytes.fetch_add(p.len() as u64, Relaxed);
            match self.link.receive(now, p) {
                Ok(Some(x)) => self.burst.push(x),
                Ok(None) => {}
                Err(e) => {
                    self.face.stats.count_lp_drop(&e);
                }
            }
        }
        if !self.burst.is_empty() {
            crate::cpu_clock::charge_sampled(self.cpu.as_ref(), || {
                self.ingress.deliver(&self.face, &mut self.burst)
            });
            self.burst.clear();
        }
    }

    /// Sends one packet.
    pub fn send(&mut self, pkt: Bytes) {
        self.send_burst([pkt]);
    }

    /// Receives the next burst of packets from the forwarder (`None` once closed).
    /// Cancel-safe.
    pub async fn recv_burst(&mut self) -> Option<Vec<Bytes>> {
        let items = tokio::select! {
            biased;
            i = self.queue.recv() => i?,
            _ = self.face.closed() => return None,
        };
        Some(self.encode(items))
    }

    /// Non-blocking receive (`None`: nothing waiting, or closed).
    pub fn try_recv_burst(&mut self) -> Option<Vec<Bytes>> {
        let items = self.queue.try_recv().ok()?;
        Some(self.encode(items))
    }

    fn encode(&mut self, items: Vec<OutItem>) -> Vec<Bytes> {
        self.face.dequeued(&items);
        let mut out = Vec::with_capacity(items.len());
        let mut timed = crate::latency::OutSamples::default();
        for mut it in items {
            timed.take(&mut it.sample);
            self.face.stats.count_out(it.kind);
            self.face
                .stats
                .out_bytes
                .fetch_add(it.pkt.len() as u64, Relaxed);
            if let Some(mtu) = self.face.link.mtu_override().or(self.face.mtu) {
                self.sender
                    .encode_with_mtu(Some(mtu), &it.fields, &it.pkt, &mut out);
            } else if it.fields.is_empty() {
                out.push(it.pkt);
            } else {
                let mut b = BytesMut::new();
                self.sender.encode_stream(&it.fields, &it.pkt, &mut b);
                out.push(b.freeze());
            }
        }
        timed.finish();
        out
    }

    /// Closes the face (its routes and PIT entries go away).
    pub fn close(&self) {
        self.face.mark_closed();
        self.ingress.face_closed(&self.face);
    }
}

impl Drop for AppFace {
    fn drop(&mut self) {
        self.close();
    }
}

impl ndnlab_proto::link::BurstFace for AppFace {
    fn send_burst(&mut self, pkts: Vec<Bytes>) {
        AppFace::send_burst(self, pkts)
    }

    async fn recv_burst(&mut self) -> Option<Vec<Bytes>> {
        AppFace::recv_burst(self).await
    }
}

/// Largest burst handed to the forwarder at once from a link.
const LINK_BURST: usize = 64;

impl AppFace {
    /// Serves this face over an in-memory link: returns the application's end
    /// (for the client library's `Client::from_link`), and a task pumps packets
    /// between the link and the face until either side closes. `capacity` bounds
    /// each direction of the link.
    pub fn into_link(mut self, capacity: usize) -> Link {
        let (mine, mut theirs) = ndnlab_proto::link::pair(capacity);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    b = self.recv_burst() => {
                        let Some(pkts) = b else { return };
                        for p in pkts {
                            if theirs.tx.send(p).await.is_err() {
                                self.close();
                                return;
                            }
                        }
                    }
                    p = theirs.rx.recv() => {
                        let Some(p) = p else {
                            self.close();
                            return;
                        };
                        let mut burst = vec![p];
                        while burst.len() < LINK_BURST {
                            match theirs.rx.try_recv() {
                                Ok(p) => burst.push(p),
                                Err(_) => break,
                            }
                        }
                        self.send_burst(burst);
                    }
                }
            }
        });
        mine
    }
}
