//! A simulated node: one forwarder, as `ndnlab fwd` runs it. Its forwarding
//! threads are `ndnlab_core::Forwarder` shards (each its own PIT-CS, FIB and
//! strategy-choice replica) behind the Name Dispatch Table: Interests go to the
//! shard of the hash of their first `k` name components, Data and Nacks to the
//! shard named by the PIT token they echo. Frames arrive through each face's
//! NDNLPv2 link service (`LinkReceiver`: reassembly, header fields).

use std::collections::VecDeque;

use bytes::Bytes;
use ndnlab_core::{
    dispatch_by_token, dispatch_interest, FaceId, FaceScope, Forwarder, InPacket, LinkType, LpMeta,
    Transmit,
};
use ndnlab_proto::lp::{LinkReceiver, LpFields};
use ndnlab_wire::tlv::types as t;
use ndnlab_wire::{Data, Interest, Nack, NackReason};

use crate::stats::Drops;
use ndnlab_des::Nanos;
use ndnlab_des::{Class, DropPolicy, Station};
use ndnlab_des::{CostModel, CostSampler};

/// A packet for a shard's core: its face, the packet, its link-layer fields.
pub type Inbound = (FaceId, InPacket, LpMeta);

/// The first face id of a node (NFD numbering: below are reserved).
pub const FIRST_FACE: u64 = 256;

/// What a face of a node leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaceKind {
    /// The sending direction of a link (index in the network's links).
    Link(u32),
    /// An application (index in the network's apps).
    App(u32),
}

/// A face of a node.
pub struct Face {
    pub kind: FaceKind,
    pub(crate) rx: LinkReceiver,
}

/// One forwarding thread.
pub struct Shard {
    pub fw: Forwarder,
    /// Packets dispatched to this shard and not handled yet.
    pub(crate) inbox: Vec<(FaceId, InPacket, LpMeta)>,
    /// When a timer event is scheduled (`u64::MAX`: none).
    pub(crate) armed: Nanos,
    pub(crate) dirty: bool,
    /// The thread as a server with an input queue, when processing costs time.
    pub(crate) station: Option<(Station<Inbound>, CostSampler)>,
    /// Apps whose next packet waits for room in the input queue, in turn
    /// ([`Node::app_backpressure`]).
    pub(crate) waiting: VecDeque<u32>,
}

/// What a node is built from: its forwarding shards, configured (shard `i` of
/// `n` made with `ForwarderConfig::shard` = `(i, n)`, which its PIT tokens
/// carry), and the leading name components the Name Dispatch Table hashes.
/// `ndnlab_fwd::runtime::shard::configured` makes the shards of a forwarder's
/// configuration file as `ndnlab fwd` does; the lab builds its nodes that way.
pub struct NodeSpec {
    pub shards: Vec<Forwarder>,
    pub dispatch_components: usize,
}

/// A node: its shards and faces.
pub struct Node {
    pub name: String,
    pub shards: Vec<Shard>,
    pub faces: Vec<Face>,
    dispatch_k: usize,
    /// Packets fed to the forwarder cores so far.
    pub handled: u64,
}

impl Node {
    /// A node of the shards of `spec`.
    pub fn new(name: &str, spec: NodeSpec) -> Node {
        let shards = spec
            .shards
            .into_iter()
            .map(|fw| Shard {
                fw,
                inbox: Vec::new(),
                armed: u64::MAX,
                dirty: false,
                station: None,
                waiting: VecDeque::new(),
            })
            .collect();
        Node {
            name: name.to_string(),
            shards,
            faces: Vec::new(),
            dispatch_k: spec.dispatch_components,
            handled: 0,
        }
    }

    /// Adds a face leading to `kind`; returns its index (its id is
    /// [`FIRST_FACE`] + index).
    pub fn add_face(&mut self, kind: FaceKind) -> u32 {
        let idx = self.faces.len() as u32;
        let (scope, link) = match kind {
            FaceKind::Link(_) => (FaceScope::NonLocal, LinkType::PointToPoint),
            FaceKind::App(_) => (FaceScope::Local, LinkType::PointToPoint),
        };
        for s in &mut self.shards {
            s.fw.add_face(face_id(idx), scope, link);
        }
        self.faces.push(Face {
            kind,
            rx: LinkReceiver::new(),
        });
        idx
    }

    /// Adds a route on every shard (management's replica of the FIB).
    pub fn add_route(&mut self, now: Nanos, prefix: &ndnlab_wire::Name, face: u32, cost: u64) {
        for s in &mut self.shards {
            s.fw.add_nexthop(now, prefix, face_id(face), cost);
        }
    }

    /// A frame arrived on face `face` at `now`: through the link service,
    /// decoded, dispatched. Returns its shard and the packet, if the frame
    /// completed one.
    pub fn receive(
        &mut self,
        now: Nanos,
        face: u32,
        frame: Bytes,
        drops: &mut Drops,
    ) -> Option<(usize, Inbound)> {
        let f = self.faces.get_mut(face as usize)?;
        let local = matches!(f.kind, FaceKind::App(_));
        let (fields, wire) = match f.rx.receive(now, frame) {
            Ok(Some(x)) => x,
            Ok(None) => return None,
            Err(_) => {
                drops.lp += 1;
                return None;
            }
        };
        let n = self.shards.len();
        let (shard, pkt) = match decode(fields.nack, wire) {
            Some(Decoded::Interest(i)) => (
                dispatch_interest(i.name(), self.dispatch_k, n),
                InPacket::Interest(i),
            ),
            Some(Decoded::Data(d)) => {
                let s = token_shard(&fields, n)
                    .unwrap_or_else(|| dispatch_interest(d.name(), self.dispatch_k, n));
                (s, InPacket::Data(d))
            }
            Some(Decoded::Nack(k)) => {
                let s = token_shard(&fields, n)
                    .unwrap_or_else(|| dispatch_interest(k.interest.name(), self.dispatch_k, n));
                (s, InPacket::Nack(k))
            }
            None => {
                drops.decode += 1;
                return None;
            }
        };
        let meta = LpMeta {
            pit_token: fields.pit_token,
            next_hop_face_id: None,
            congestion_mark: fields.congestion_mark,
            incoming_face_id: None,
            cache_policy_no_cache: local && fields.no_cache,
            non_discovery: fields.non_discovery,
            prefix_announcement: fields.prefix_announcement,
            // Packets here are not read into buffers: the CS charges its formula.
            buffer_share: 0,
        };
        Some((shard, (face_id(face), pkt, meta)))
    }

    /// Runs shard `i`'s inbox through its core, fires due timers, and moves
    /// its transmits to `out`. Returns the core's next timeout (`poll_timeout`
    /// afterwards, asked once: it is on the per-packet path).
    pub fn process(&mut self, now: Nanos, i: usize, out: &mut Vec<Transmit>) -> Option<Nanos> {
        let s = &mut self.shards[i];
        s.dirty = false;
        if !s.inbox.is_empty() {
            self.handled += s.inbox.len() as u64;
            s.fw.handle_burst(now, &mut s.inbox);
            s.inbox.clear();
        }
        let mut next = s.fw.poll_timeout();
        if next.is_some_and(|due| due <= now) {
            s.fw.handle_timeout(now);
            next = s.fw.poll_timeout();
        }
        s.fw.drain_transmits(out);
        next
    }

    /// Makes every shard a server with an input queue of `capacity` packets
    /// (0: unbounded) serving each packet for a time drawn from `model`
    /// (each shard's sampler seeded from `seed`). Packets then reach the core
    /// when their service completes.
    pub fn set_cost(&mut self, model: &CostModel, capacity: usize, policy: DropPolicy, seed: u64) {
        for (i, s) in self.shards.iter_mut().enumerate() {
            let sampler = model.sampler(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            s.station = Some((Station::new(capacity, policy), sampler));
        }
    }

    /// Whether the node's app faces wait for room in the input queue rather
    /// than lose packets to it: a node of one forwarding thread with a cost.
    /// `ndnlab fwd` runs a single shard inline (`ndnlab_fwd::runtime`): the
    /// face that received a burst runs it through the core itself, so an
    /// application's `send_burst` returns only once the forwarder has handled
    /// it, and the application cannot outrun the forwarder. With several
    /// shards a burst is pushed to the shard queues and what does not fit is
    /// dropped (`ShardHandle::enqueue`), which the station's tail drop models.
    /// Link faces always tail-drop (see [`crate::net`]).
    pub fn app_backpressure(&self) -> bool {
        self.shards.len() == 1 && self.shards[0].station.is_some()
    }

    /// The counters of shard `i`'s station, if it has one (a cost model).
    pub fn station_counters(&self, i: usize) -> Option<&ndnlab_des::StationCounters> {
        self.shards
            .get(i)?
            .station
            .as_ref()
            .map(|(st, _)| st.counters())
    }

    /// Packets waiting in (or being served by) the shards' input queues.
    pub fn queued(&self) -> usize {
        self.shards
            .iter()
            .filter_map(|s| s.station.as_ref())
            .map(|(st, _)| st.in_system())
            .sum()
    }

    /// PIT entries over every shard.
    pub fn pit_len(&self) -> usize {
        self.shards.iter().map(|s| s.fw.pit_len()).sum()
    }

    /// CS entries over every shard.
    pub fn cs_len(&self) -> usize {
        self.shards.iter().map(|s| s.fw.cs_ref().len()).sum()
    }
}

/// The station class of a packet on arrival.
pub fn class_of(p: &InPacket) -> Class {
    match p {
        InPacket::Interest(_) => Class::Interest,
        InPacket::Data(_) => Class::Data,
        InPacket::Nack(_) => Class::Nack,
    }
}

/// The core's id of face index `idx`.
pub fn face_id(idx: u32) -> FaceId {
    FaceId(FIRST_FACE + u64::from(idx))
}

/// The face index of a core face id.
pub fn face_index(id: FaceId) -> Option<u32> {
    id.0.checked_sub(FIRST_FACE).map(|i| i as u32)
}

fn token_shard(fields: &LpFields, n: usize) -> Option<usize> {
    fields
        .pit_token
        .as_deref()
        .and_then(|tok| dispatch_by_token(tok, n))
}

enum Decoded {
    Interest(Interest),
    Data(Data),
    Nack(Nack),
}

/// A network-layer packet, as the forwarder's ingress decodes it.
fn decode(nack: Option<u64>, wire: Bytes) -> Option<Decoded> {
    match u64::from(*wire.first()?) {
        t::INTEREST => {
            let i = Interest::decode(wire).ok()?;
            Some(match nack {
                Some(code) => Decoded::Nack(Nack::new(i, NackReason::from_code(code))),
                None => Decoded::Interest(i),
            })
        }
        t::DATA if nack.is_none() => Data::decode(wire).ok().map(Decoded::Data),
        _ => None,
    }
}
