//! The packets the forwarder takes and gives: [`LpMeta`] (the NDNLPv2 fields that
//! matter to forwarding, in and out), [`InPacket`] (an input of a burst), and
//! [`Transmit`] (an output: a face, an [`OutPacket`] as wire bytes, its fields).

use std::num::NonZeroU64;

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, LpFields, Nack, NackReason};

use crate::face::FaceId;

/// NDNLPv2 fields that matter to forwarding, in and out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LpMeta {
    /// PitToken: on input, the token the peer sent (downstream's on Interests, ours
    /// echoed on Data/Nack); on output, the token to send.
    pub pit_token: Option<Bytes>,
    /// NextHopFaceId (honoured on Interests from local faces).
    pub next_hop_face_id: Option<u64>,
    /// CongestionMark (copied from input to output).
    pub congestion_mark: u64,
    /// IncomingFaceId: on output to local faces, the face the packet came from (never
    /// 0, NFD's invalid face id: the niche keeps a [`Transmit`] within 128 bytes).
    pub incoming_face_id: Option<NonZeroU64>,
    /// CachePolicy NoCache on a Data: do not cache it.
    pub cache_policy_no_cache: bool,
    /// NonDiscovery on an Interest (self-learning): in, the downstream marked it; out,
    /// the strategy marks it.
    pub non_discovery: bool,
    /// PrefixAnnouncement on a Data (self-learning): the prefix-announcement Data TLV.
    /// Boxed: rare, and an inline `Bytes` would make every [`Transmit`] 24 bytes larger.
    pub prefix_announcement: Option<Box<Bytes>>,
    /// On an incoming Data, the bytes of the read buffer it arrived in that it stands
    /// for, as the face's reader counts them (0: not reported): its own, and those
    /// back to the previous Data read into that buffer. The CS charges a slice it
    /// keeps that share ([`crate::cs::share`]). Not sent.
    pub buffer_share: u32,
}

impl LpMeta {
    /// The PrefixAnnouncement, if any.
    pub fn prefix_announcement(&self) -> Option<&Bytes> {
        self.prefix_announcement.as_deref()
    }
}

/// A packet to send, as wire bytes: what a face writes. No decoded view travels
/// with it (moving views, then 200 bytes, through the output queue and rebuilding
/// one for every CS hit cost ~30% of a hit, measured with callgrind).
/// [`OutPacket::to_interest`] and friends decode when a caller wants the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutPacket {
    /// An Interest TLV (the incoming bytes, hot fields rewritten in place).
    Interest(Bytes),
    /// A Data TLV (shared bytes: the incoming ones, or the Content Store's).
    Data(Bytes),
    /// A Nack. Boxed: Nacks are rare, and an inline 16-byte [`NackReason`] made
    /// every [`Transmit`] 136 bytes, past the 128 bytes the compiler moves inline:
    /// each queued output then cost a `memcpy` call (measured with callgrind).
    Nack(Box<OutNack>),
}

/// The contents of [`OutPacket::Nack`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutNack {
    /// The Interest TLV the Nack carries.
    pub wire: Bytes,
    /// The reason.
    pub reason: NackReason,
}

impl OutPacket {
    /// The packet's TLV (for a Nack, the Interest it carries).
    pub fn wire(&self) -> &Bytes {
        match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => &n.wire,
        }
    }

    /// Consumes the packet, returning its TLV (for a Nack, the Interest's).
    pub fn into_wire(self) -> Bytes {
        match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => n.wire,
        }
    }

    /// Consumes the packet and its metadata, returning the TLV to send and the
    /// NDNLPv2 fields to attach: the Nack's reason, and IncomingFaceId only with
    /// `local_fields` (a local face that enabled them). What the daemon's faces
    /// and the simulator's links both send.
    #[inline]
    pub fn into_lp(self, meta: LpMeta, local_fields: bool) -> (Bytes, LpFields) {
        let mut fields = LpFields {
            pit_token: meta.pit_token,
            congestion_mark: meta.congestion_mark,
            incoming_face_id: if local_fields {
                meta.incoming_face_id.map(|id| id.get())
            } else {
                None
            },
            non_discovery: meta.non_discovery,
            prefix_announcement: meta.prefix_announcement,
            ..Default::default()
        };
        let pkt = match self {
            OutPacket::Interest(w) | OutPacket::Data(w) => w,
            OutPacket::Nack(n) => {
                fields.nack = Some(n.reason.code());
                n.wire
            }
        };
        (pkt, fields)
    }

    /// The Interest, decoded (`None` for a Data or a Nack).
    pub fn to_interest(&self) -> Option<Interest> {
        match self {
            OutPacket::Interest(w) => Interest::decode(w.clone()).ok(),
            _ => None,
        }
    }

    /// The Data, decoded (`None` for an Interest or a Nack).
    pub fn to_data(&self) -> Option<Data> {
        match self {
            OutPacket::Data(w) => Data::decode(w.clone()).ok(),
            _ => None,
        }
    }

    /// The Nack, decoded (`None` for an Interest or a Data).
    pub fn to_nack(&self) -> Option<Nack> {
        match self {
            OutPacket::Nack(n) => Interest::decode(n.wire.clone())
                .ok()
                .map(|i| Nack::new(i, n.reason)),
            _ => None,
        }
    }
}

/// An input packet, for [`Forwarder::handle_burst`](crate::Forwarder::handle_burst).
#[derive(Debug, Clone)]
pub enum InPacket {
    /// An Interest.
    Interest(Interest),
    /// A Data.
    Data(Data),
    /// A Nack.
    Nack(Nack),
}

/// One output: send `packet` with `meta` on `face`.
#[derive(Debug, Clone)]
pub struct Transmit {
    /// Outgoing face.
    pub face: FaceId,
    /// The packet.
    pub packet: OutPacket,
    /// LpPacket fields to attach.
    pub meta: LpMeta,
}

#[cfg(test)]
mod tests {
    /// Every queued output moves through `VecDeque` pushes and pops: at <= 128 bytes
    /// the compiler moves it inline instead of calling `memcpy` (see `OutPacket::Nack`).
    #[test]
    fn transmit_moves_inline() {
        assert!(std::mem::size_of::<super::Transmit>() <= 128);
    }
}
