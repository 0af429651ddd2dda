//! A forwarding shard: one thread owning one `ndnlab_core::Forwarder`.
//!
//! It blocks on its queue until a message arrives or the core's next timer is due,
//! then takes every message waiting (up to a burst), feeds the core, fires timers,
//! drains all transmits and hands them to the faces grouped into one burst per face.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use ndnlab_core::{
    CsInfo, CsPolicyKind, FaceId, FaceScope, Forwarder, ForwarderConfig, ForwarderCounters,
    LinkType, LpMeta, OutPacket, Transmit,
};
use ndnlab_wire::{Data, Interest, Nack, Name};
use tokio::sync::oneshot;

use super::Shared;
use crate::face::lp::LpFields;
use crate::face::{FaceEntry, OutItem, PktKind};
use crate::mgmt::rib::FibOp;

/// A packet for the core.
pub enum InboundPkt {
    Interest(Interest),
    Data(Data),
    Nack(Nack),
}

/// A packet with the face it came from and its link-layer fields.
pub struct Inbound {
    pub face: u64,
    pub pkt: InboundPkt,
    pub meta: LpMeta,
}

/// What a shard reports to management.
#[derive(Debug, Clone)]
pub struct ShardReport {
    pub counters: ForwarderCounters,
    pub n_pit: usize,
    pub cs: CsInfo,
}

/// Messages on a shard's queue.
pub enum ShardMsg {
    Packets(Vec<Inbound>),
    AddFace(Arc<FaceEntry>),
    RemoveFace(u64),
    Fib(Arc<Vec<FibOp>>),
    StrategySet(Name, Name),
    StrategyUnset(Name),
    CsConfig {
        capacity: Option<usize>,
        admit: Option<bool>,
        serve: Option<bool>,
    },
    CsErase {
        prefix: Name,
        limit: usize,
        reply: oneshot::Sender<usize>,
    },
    Query(oneshot::Sender<ShardReport>),
    Stop,
}

const BURST_MSGS: usize = 64;

/// The shard thread's main loop.
pub fn run(index: usize, count: usize, rx: Receiver<ShardMsg>, shared: Arc<Shared>) {
    let cfg = &shared.cfg;
    let mut fw = Forwarder::new(ForwarderConfig {
        cs_capacity: (cfg.cs.capacity / count).max(1),
        cs_policy: CsPolicyKind::parse(&cfg.cs.policy).unwrap_or_default(),
        shard: (index, count),
        ..Default::default()
    });
    fw.cs().set_admit(cfg.cs.admit);
    fw.cs().set_serve(cfg.cs.serve);
    let mut faces: HashMap<u64, Arc<FaceEntry>> = HashMap::new();
    let mut out: Vec<Transmit> = Vec::with_capacity(256);
    let mut per_face: HashMap<u64, Vec<OutItem>> = HashMap::new();
    let handle = &shared.shards[index];
    loop {
        let now = shared.clock();
        let first = match fw.poll_timeout() {
            Some(due) if due <= now => None,
            Some(due) => match rx.recv_timeout(Duration::from_nanos(due - now)) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            },
            None => match rx.recv() {
                Ok(m) => Some(m),
                Err(_) => return,
            },
        };
        let now = shared.clock();
        let mut next = first;
        let mut taken = 0;
        while let Some(msg) = next.take() {
            match msg {
                ShardMsg::Packets(batch) => {
                    handle.queued.fetch_sub(batch.len(), Relaxed);
                    for p in batch {
                        let from = FaceId(p.face);
                        match p.pkt {
                            InboundPkt::Interest(i) => fw.handle_interest(now, from, i, p.meta),
                            InboundPkt::Data(d) => fw.handle_data(now, from, d, p.meta),
                            InboundPkt::Nack(n) => fw.handle_nack(now, from, n, p.meta),
                        }
                    }
                }
                ShardMsg::AddFace(f) => {
                    let scope = if f.local_scope {
                        FaceScope::Local
                    } else {
                        FaceScope::NonLocal
                    };
                    let link = if f.multi_access {
                        LinkType::MultiAccess
                    } else {
                        LinkType::PointToPoint
                    };
                    fw.add_face(FaceId(f.id), scope, link);
                    faces.insert(f.id, f);
                }
                ShardMsg::RemoveFace(id) => {
                    fw.remove_face(FaceId(id), now);
                    faces.remove(&id);
                }
                ShardMsg::Fib(ops) => {
                    for op in ops.iter() {
                        match op {
                            FibOp::AddNextHop { prefix, face, cost } => {
                                fw.fib().add_nexthop(prefix, FaceId(*face), *cost)
                            }
                            FibOp::RemoveNextHop { prefix, face } => {
                                fw.fib().remove_nexthop(prefix, FaceId(*face));
                            }
                        }
                    }
                }
                ShardMsg::StrategySet(prefix, strategy) => {
                    if let Err(e) = fw.strategy_choice().set(&prefix, &strategy) {
                        tracing::warn!(shard = index, error = %e, "strategy set failed");
                    }
                }
                ShardMsg::StrategyUnset(prefix) => {
                    let _ = fw.strategy_choice().unset(&prefix);
                }
                ShardMsg::CsConfig {
                    capacity,
                    admit,
                    serve,
                } => {
                    if let Some(c) = capacity {
                        fw.cs()
                            .set_capacity((c / count).max(usize::from(c > 0)), now);
                    }
                    if let Some(a) = admit {
                        fw.cs().set_admit(a);
                    }
                    if let Some(s) = serve {
                        fw.cs().set_serve(s);
                    }
                }
                ShardMsg::CsErase {
                    prefix,
                    limit,
                    reply,
                } => {
                    let _ = reply.send(fw.cs().erase(&prefix, limit));
                }
                ShardMsg::Query(reply) => {
                    let _ = reply.send(ShardReport {
                        counters: fw.counters().clone(),
                        n_pit: fw.pit_len(),
                        cs: fw.cs().info(),
                    });
                }
                ShardMsg::Stop => return,
            }
            taken += 1;
            if taken < BURST_MSGS {
                next = rx.try_recv().ok();
            }
        }
        if fw.poll_timeout().is_some_and(|due| due <= now) {
            fw.handle_timeout(now);
        }
        fw.drain_transmits(&mut out);
        if out.is_empty() {
            continue;
        }
        for tx in out.drain(..) {
            let Some(face) = faces.get(&tx.face.0) else {
                continue;
            };
            let item = to_out_item(face, tx.packet, tx.meta);
            per_face.entry(face.id).or_default().push(item);
        }
        for (id, items) in per_face.iter_mut() {
            if items.is_empty() {
                continue;
            }
            if let Some(face) = faces.get(id) {
                face.send_batch(std::mem::take(items));
            }
        }
        if per_face.len() > 1024 {
            per_face.retain(|id, _| faces.contains_key(id));
        }
    }
}

fn to_out_item(face: &FaceEntry, packet: OutPacket, meta: LpMeta) -> OutItem {
    let local_fields = face.local_scope && face.local_fields.load(Relaxed);
    let mut fields = LpFields {
        pit_token: meta.pit_token,
        congestion_mark: meta.congestion_mark,
        incoming_face_id: if local_fields {
            meta.incoming_face_id
        } else {
            None
        },
        ..Default::default()
    };
    let (pkt, kind) = match packet {
        OutPacket::Interest(i) => (i.into_wire(), PktKind::Interest),
        OutPacket::Data(d) => (d.into_wire(), PktKind::Data),
        OutPacket::Nack(n) => {
            fields.nack = Some(n.reason.code());
            (n.interest.into_wire(), PktKind::Nack)
        }
    };
    OutItem { pkt, fields, kind }
}
