//! The NDNLPv2 header fields an endpoint acts on, and their encoding.

use crate::tlv::{self, types as t};
use crate::{LpPacket, CACHE_POLICY_NO_CACHE};
use bytes::{BufMut, Bytes};

/// The NDNLPv2 header fields an endpoint acts on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LpFields {
    pub pit_token: Option<Bytes>,
    /// `Some(code)` when the packet is a Nack (code 0 = no reason).
    pub nack: Option<u64>,
    pub incoming_face_id: Option<u64>,
    pub next_hop_face_id: Option<u64>,
    pub no_cache: bool,
    pub congestion_mark: u64,
    /// NonDiscovery (844, empty): a self-learning Interest that follows the FIB.
    pub non_discovery: bool,
    /// PrefixAnnouncement (848): a prefix-announcement Data TLV on a Data
    /// (self-learning). Boxed: rare, and it rides in every queued packet's fields.
    pub prefix_announcement: Option<Box<Bytes>>,
    /// Not a header field: on a received packet, the bytes of the buffer it was read
    /// into that it stands for, set by the face's reader (0: not reported). A stream
    /// reader gives a Data the bytes from the end of the previous Data it read into
    /// the same buffer to its own end; a datagram reader gives the datagram's buffer,
    /// with the top bit set (it holds nothing else). The forwarder's CS charges a
    /// slice it keeps that share (`ndnlab_core::cs::share`).
    pub buffer_share: u32,
}

impl LpFields {
    /// The fields of a decoded LpPacket.
    pub fn of(lp: &LpPacket) -> LpFields {
        LpFields {
            pit_token: lp.pit_token_bytes(),
            nack: lp.nack().map(|r| r.code()),
            incoming_face_id: lp.incoming_face_id(),
            next_hop_face_id: lp.next_hop_face_id(),
            no_cache: lp.cache_policy() == Some(CACHE_POLICY_NO_CACHE),
            congestion_mark: lp.congestion_mark().unwrap_or(0),
            non_discovery: lp.non_discovery(),
            prefix_announcement: lp.prefix_announcement().map(Box::new),
            buffer_share: 0,
        }
    }

    /// Whether an LpPacket wrapper is needed to carry these fields.
    pub fn is_empty(&self) -> bool {
        self.pit_token.is_none()
            && self.nack.is_none()
            && self.incoming_face_id.is_none()
            && self.next_hop_face_id.is_none()
            && !self.no_cache
            && self.congestion_mark == 0
            && !self.non_discovery
            && self.prefix_announcement.is_none()
    }

    /// Bytes [`encode`](Self::encode) writes.
    pub fn encoded_len(&self) -> usize {
        self.head_len() + self.tail_len()
    }

    /// Writes the fields in increasing type order. A Nack always carries its
    /// NackReason, even 0.
    pub fn encode(&self, out: &mut impl BufMut) {
        self.encode_head(out);
        self.encode_tail(out);
    }

    /// Bytes [`encode_tail`](Self::encode_tail) writes.
    pub fn tail_len(&self) -> usize {
        let mut n = 0;
        if self.non_discovery {
            n += tlv::tlv_len(t::NON_DISCOVERY, 0);
        }
        if let Some(pa) = &self.prefix_announcement {
            n += tlv::tlv_len(t::PREFIX_ANNOUNCEMENT, pa.len());
        }
        n
    }

    /// Writes the fields whose types follow TxSequence (840): NonDiscovery (844) and
    /// PrefixAnnouncement (848). A reliable link puts its Ack and TxSequence fields
    /// between [`encode_head`](Self::encode_head) and this, to keep the order.
    pub fn encode_tail(&self, out: &mut impl BufMut) {
        if self.non_discovery {
            tlv::put_header(out, t::NON_DISCOVERY, 0);
        }
        if let Some(pa) = &self.prefix_announcement {
            tlv::put_tlv(out, t::PREFIX_ANNOUNCEMENT, pa);
        }
    }

    /// Bytes [`encode_head`](Self::encode_head) writes.
    pub fn head_len(&self) -> usize {
        let mut n = 0;
        if let Some(tok) = &self.pit_token {
            n += tlv::tlv_len(t::PIT_TOKEN, tok.len());
        }
        if let Some(r) = self.nack {
            n += tlv::tlv_len(t::NACK, tlv::nni_tlv_len(t::NACK_REASON, r));
        }
        if let Some(id) = self.incoming_face_id {
            n += tlv::nni_tlv_len(t::INCOMING_FACE_ID, id);
        }
        if let Some(id) = self.next_hop_face_id {
            n += tlv::nni_tlv_len(t::NEXT_HOP_FACE_ID, id);
        }
        if self.no_cache {
            n += tlv::tlv_len(
                t::CACHE_POLICY,
                tlv::nni_tlv_len(t::CACHE_POLICY_TYPE, CACHE_POLICY_NO_CACHE),
            );
        }
        if self.congestion_mark != 0 {
            n += tlv::nni_tlv_len(t::CONGESTION_MARK, self.congestion_mark);
        }
        n
    }

    /// Writes the fields up to CongestionMark (832), in increasing type order. A Nack
    /// always carries its NackReason, even 0.
    pub fn encode_head(&self, out: &mut impl BufMut) {
        if let Some(tok) = &self.pit_token {
            tlv::put_tlv(out, t::PIT_TOKEN, tok);
        }
        if let Some(r) = self.nack {
            tlv::put_header(out, t::NACK, tlv::nni_tlv_len(t::NACK_REASON, r));
            tlv::put_nni_tlv(out, t::NACK_REASON, r);
        }
        if let Some(id) = self.incoming_face_id {
            tlv::put_nni_tlv(out, t::INCOMING_FACE_ID, id);
        }
        if let Some(id) = self.next_hop_face_id {
            tlv::put_nni_tlv(out, t::NEXT_HOP_FACE_ID, id);
        }
        if self.no_cache {
            tlv::put_header(
                out,
                t::CACHE_POLICY,
                tlv::nni_tlv_len(t::CACHE_POLICY_TYPE, CACHE_POLICY_NO_CACHE),
            );
            tlv::put_nni_tlv(out, t::CACHE_POLICY_TYPE, CACHE_POLICY_NO_CACHE);
        }
        if self.congestion_mark != 0 {
            tlv::put_nni_tlv(out, t::CONGESTION_MARK, self.congestion_mark);
        }
    }
}
