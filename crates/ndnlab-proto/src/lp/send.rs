//! The sending half of the link service: header fields and fragmentation.

use bytes::{BufMut, Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};

use super::reliability::Frame;
use super::LpFields;

/// The sending half of a face's link service.
#[derive(Debug, Clone)]
pub struct LinkSender {
    mtu: Option<usize>,
    next_seq: u64,
}

/// Worst-case bytes of LpPacket header, Sequence, FragIndex, FragCount and the
/// Fragment header around each fragment's payload.
const FRAG_OVERHEAD: usize = 4 + 10 + 4 + 4 + 4;

impl LinkSender {
    /// `mtu`: `Some` on datagram faces (fragment beyond it), `None` on streams.
    pub fn new(mtu: Option<usize>, seed: u64) -> Self {
        LinkSender {
            mtu,
            next_seq: seed,
        }
    }

    /// The face's MTU, if it fragments.
    pub fn mtu(&self) -> Option<usize> {
        self.mtu
    }

    /// Appends the encoding of `pkt` (a whole Interest/Data TLV) with `fields`
    /// onto a stream buffer.
    pub fn encode_stream(&mut self, fields: &LpFields, pkt: &[u8], out: &mut BytesMut) {
        if fields.is_empty() {
            out.extend_from_slice(pkt);
            return;
        }
        let inner = fields.encoded_len() + tlv::tlv_len(t::FRAGMENT, pkt.len());
        out.reserve(tlv::tlv_len(t::LP_PACKET, inner));
        tlv::put_header(out, t::LP_PACKET, inner);
        fields.encode(out);
        tlv::put_tlv(out, t::FRAGMENT, pkt);
    }

    /// Appends only the LpPacket header for `pkt` (`pkt_len` bytes) with `fields`:
    /// the LpPacket TLV header, the fields and the Fragment TLV header, so that the
    /// caller writes `pkt` itself right after (e.g. as its own `writev` buffer, without
    /// copying a large payload). Header and packet together are exactly what
    /// [`encode_stream`](Self::encode_stream) writes. Nothing is appended when
    /// `fields` is empty (the packet goes bare).
    pub fn encode_stream_header(&self, fields: &LpFields, pkt_len: usize, out: &mut BytesMut) {
        if fields.is_empty() {
            return;
        }
        let flen = fields.encoded_len();
        let inner = flen + tlv::tlv_len(t::FRAGMENT, pkt_len);
        out.reserve(tlv::tlv_len(t::LP_PACKET, inner) - pkt_len);
        tlv::put_header(out, t::LP_PACKET, inner);
        fields.encode(out);
        tlv::put_header(out, t::FRAGMENT, pkt_len);
    }

    /// Encodes `pkt` into one or more datagrams (fragmenting beyond the MTU). The
    /// fragments of one packet share one buffer (one allocation per packet).
    pub fn encode_datagrams(&mut self, fields: &LpFields, pkt: &Bytes, out: &mut Vec<Bytes>) {
        self.encode_with_mtu(self.mtu, fields, pkt, out);
    }

    /// [`encode_datagrams`](Self::encode_datagrams) with another MTU (a face's
    /// run-time override); `None` never fragments.
    pub fn encode_with_mtu(
        &mut self,
        mtu: Option<usize>,
        fields: &LpFields,
        pkt: &Bytes,
        out: &mut Vec<Bytes>,
    ) {
        let mtu = mtu.unwrap_or(usize::MAX);
        if fields.is_empty() && pkt.len() <= mtu {
            out.push(pkt.clone());
            return;
        }
        let flen = fields.encoded_len();
        let whole_inner = flen + tlv::tlv_len(t::FRAGMENT, pkt.len());
        if tlv::tlv_len(t::LP_PACKET, whole_inner) <= mtu {
            let mut b = BytesMut::with_capacity(tlv::tlv_len(t::LP_PACKET, whole_inner));
            tlv::put_header(&mut b, t::LP_PACKET, whole_inner);
            fields.encode(&mut b);
            tlv::put_tlv(&mut b, t::FRAGMENT, pkt);
            out.push(b.freeze());
            return;
        }
        let payload = mtu.saturating_sub(FRAG_OVERHEAD + flen).max(64);
        let count = pkt.len().div_ceil(payload) as u64;
        let base = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(count);
        // One buffer for all the fragments, each frozen off its front: the
        // headers are at most FRAG_OVERHEAD bytes (and the fields on the first).
        let mut b = BytesMut::with_capacity(pkt.len() + count as usize * FRAG_OVERHEAD + flen);
        for (i, chunk) in pkt.chunks(payload).enumerate() {
            let i = i as u64;
            let mut inner = 10
                + tlv::nni_tlv_len(t::FRAG_INDEX, i)
                + tlv::nni_tlv_len(t::FRAG_COUNT, count)
                + tlv::tlv_len(t::FRAGMENT, chunk.len());
            if i == 0 {
                inner += flen;
            }
            debug_assert!(tlv::tlv_len(t::LP_PACKET, inner) <= b.capacity() - b.len());
            tlv::put_header(&mut b, t::LP_PACKET, inner);
            tlv::put_header(&mut b, t::SEQUENCE, 8);
            b.put_u64(base.wrapping_add(i));
            tlv::put_nni_tlv(&mut b, t::FRAG_INDEX, i);
            tlv::put_nni_tlv(&mut b, t::FRAG_COUNT, count);
            if i == 0 {
                fields.encode(&mut b);
            }
            tlv::put_tlv(&mut b, t::FRAGMENT, chunk);
            out.push(b.split().freeze());
        }
    }
}

impl LinkSender {
    /// Cuts `pkt` into reliability [`Frame`]s whose header (Sequence, FragIndex and
    /// FragCount when fragmented, then `fields` on the first) and Fragment TLV take
    /// at most `budget` bytes each. Every frame gets a Sequence.
    pub fn reliable_frames(
        &mut self,
        fields: &LpFields,
        pkt: &Bytes,
        budget: usize,
        out: &mut Vec<Frame>,
    ) {
        const SEQ: usize = 12;
        let flen = fields.encoded_len();
        if SEQ + flen + tlv::tlv_len(t::FRAGMENT, pkt.len()) <= budget {
            let mut h = BytesMut::with_capacity(SEQ + flen);
            tlv::put_header(&mut h, t::SEQUENCE, 8);
            h.put_u64(self.next_seq);
            self.next_seq = self.next_seq.wrapping_add(1);
            fields.encode_head(&mut h);
            out.push(Frame {
                header: h.freeze(),
                tail: tail(fields),
                fragment: pkt.clone(),
            });
            return;
        }
        // Sequence, FragIndex and FragCount (at most 10 bytes each), the first
        // frame's fields and the Fragment TLV header (4 bytes below 64 KiB).
        let payload = budget.saturating_sub(SEQ + 20 + flen + 4).max(64);
        let count = pkt.len().div_ceil(payload) as u64;
        let base = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(count);
        for i in 0..count {
            let start = i as usize * payload;
            let chunk = pkt.slice(start..(start + payload).min(pkt.len()));
            let mut h = BytesMut::with_capacity(SEQ + 20 + flen);
            tlv::put_header(&mut h, t::SEQUENCE, 8);
            h.put_u64(base.wrapping_add(i));
            tlv::put_nni_tlv(&mut h, t::FRAG_INDEX, i);
            tlv::put_nni_tlv(&mut h, t::FRAG_COUNT, count);
            let mut t = Bytes::new();
            if i == 0 {
                fields.encode_head(&mut h);
                t = tail(fields);
            }
            out.push(Frame {
                header: h.freeze(),
                tail: t,
                fragment: chunk,
            });
        }
    }
}

/// The fields a reliable frame carries after its TxSequence.
fn tail(fields: &LpFields) -> Bytes {
    if fields.tail_len() == 0 {
        return Bytes::new();
    }
    let mut t = BytesMut::with_capacity(fields.tail_len());
    fields.encode_tail(&mut t);
    t.freeze()
}
