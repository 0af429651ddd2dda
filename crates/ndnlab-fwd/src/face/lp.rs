//! NDNLPv2 link service: LpPacket header fields, fragmentation and reassembly.
//!
//! Receive: a top-level TLV from a transport is either a bare Interest/Data or an
//! LpPacket; [`LinkReceiver::receive`] returns the network-layer packet with its
//! [`LpFields`], reassembling fragments (keyed by `Sequence - FragIndex`, NFD's
//! scheme) with a bounded number of partial packets and a timeout.
//!
//! Send: [`LinkSender`] writes bare packets when no field is needed, otherwise an
//! LpPacket with header fields in increasing type order and the Fragment last (a
//! python-ndn client ignores a Nack whose IncomingFaceId comes first). It fragments
//! only on datagram faces with an MTU, never on stream (app) faces: python-ndn drops
//! LpPackets carrying FragIndex/FragCount.

use std::collections::HashMap;

use bytes::{BufMut, Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};

/// Nanoseconds on the daemon's monotonic clock.
pub type Nanos = u64;

/// How long a partial packet waits for its missing fragments (NFD: 500 ms).
pub const REASSEMBLY_TIMEOUT: Nanos = 500_000_000;
/// Most fragments accepted for one packet (NFD: 400).
pub const MAX_FRAGMENTS: u64 = 1024;
/// Most partial packets held per face.
pub const MAX_PARTIALS: usize = 256;

/// The NDNLPv2 header fields the forwarder acts on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LpFields {
    pub pit_token: Option<Bytes>,
    /// `Some(reason)` when the packet is a Nack (reason 0 = None).
    pub nack: Option<u64>,
    pub incoming_face_id: Option<u64>,
    pub next_hop_face_id: Option<u64>,
    pub no_cache: bool,
    pub congestion_mark: u64,
}

impl LpFields {
    /// Whether an LpPacket wrapper is needed to carry these fields.
    pub fn is_empty(&self) -> bool {
        self.pit_token.is_none()
            && self.nack.is_none()
            && self.incoming_face_id.is_none()
            && self.next_hop_face_id.is_none()
            && !self.no_cache
            && self.congestion_mark == 0
    }

    fn encoded_len(&self) -> usize {
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
            n += tlv::tlv_len(t::CACHE_POLICY, tlv::nni_tlv_len(t::CACHE_POLICY_TYPE, 1));
        }
        if self.congestion_mark != 0 {
            n += tlv::nni_tlv_len(t::CONGESTION_MARK, self.congestion_mark);
        }
        n
    }

    /// Writes the fields in increasing type order.
    fn encode(&self, out: &mut impl BufMut) {
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
                tlv::nni_tlv_len(t::CACHE_POLICY_TYPE, 1),
            );
            tlv::put_nni_tlv(out, t::CACHE_POLICY_TYPE, 1);
        }
        if self.congestion_mark != 0 {
            tlv::put_nni_tlv(out, t::CONGESTION_MARK, self.congestion_mark);
        }
    }
}

/// Why a received frame was dropped (a counter label each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LpDrop {
    #[error("malformed LpPacket")]
    Malformed,
    #[error("unknown packet type")]
    UnknownPacketType,
    #[error("unknown critical LP header field")]
    UnknownField,
    #[error("fragment index out of range")]
    BadFragment,
    #[error("too many partial packets")]
    ReassemblyFull,
    #[error("fragmented packet on a face that does not reassemble")]
    FragmentNotAllowed,
}

impl LpDrop {
    /// Counter label.
    pub fn reason(&self) -> &'static str {
        match self {
            LpDrop::Malformed => "lp-malformed",
            LpDrop::UnknownPacketType => "unknown-packet-type",
            LpDrop::UnknownField => "lp-unknown-field",
            LpDrop::BadFragment => "lp-bad-fragment",
            LpDrop::ReassemblyFull => "lp-reassembly-full",
            LpDrop::FragmentNotAllowed => "lp-fragment-not-allowed",
        }
    }
}

struct Partial {
    count: u64,
    received: u64,
    pieces: Vec<Option<Bytes>>,
    fields: LpFields,
    expires: Nanos,
}

/// The receiving half of a face's link service.
#[derive(Default)]
pub struct LinkReceiver {
    partials: HashMap<u64, Partial>,
    /// Partial packets dropped because their fragments did not all arrive in time.
    pub reassembly_timeouts: u64,
}

impl LinkReceiver {
    pub fn new() -> Self {
        Self::default()
    }

    /// Handles one top-level TLV. `Ok(None)`: an idle packet or a fragment of a
    /// packet not complete yet.
    pub fn receive(
        &mut self,
        now: Nanos,
        frame: Bytes,
    ) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        let mut pos = 0;
        let typ = tlv::read_varnum(&frame, &mut pos).map_err(|_| LpDrop::Malformed)?;
        match typ {
            t::INTEREST | t::DATA => return Ok(Some((LpFields::default(), frame))),
            t::LP_PACKET => {}
            _ => return Err(LpDrop::UnknownPacketType),
        }
        let el = tlv::read_element(&frame, 0, frame.len()).map_err(|_| LpDrop::Malformed)?;
        if el.end() != frame.len() {
            return Err(LpDrop::Malformed);
        }
        let mut fields = LpFields::default();
        let mut seq = None;
        let mut frag_index = None;
        let mut frag_count = None;
        let mut fragment = None;
        for e in tlv::Elements::new(&frame, el.value.clone()) {
            let e = e.map_err(|_| LpDrop::Malformed)?;
            if fragment.is_some() {
                return Err(LpDrop::Malformed); // Fragment must be last
            }
            let v = &frame[e.value.clone()];
            let nni = || tlv::read_nni(v).map_err(|_| LpDrop::Malformed);
            match e.typ {
                t::FRAGMENT => fragment = Some(frame.slice(e.value.clone())),
                t::SEQUENCE => {
                    if v.len() != 8 {
                        return Err(LpDrop::Malformed);
                    }
                    seq = Some(u64::from_be_bytes(v.try_into().unwrap_or([0; 8])));
                }
                t::FRAG_INDEX => frag_index = Some(nni()?),
                t::FRAG_COUNT => frag_count = Some(nni()?),
                t::PIT_TOKEN => {
                    if v.is_empty() || v.len() > 32 {
                        return Err(LpDrop::Malformed);
                    }
                    fields.pit_token = Some(frame.slice(e.value.clone()));
                }
                t::NACK => {
                    let mut reason = 0;
                    for r in tlv::Elements::new(&frame, e.value.clone()) {
                        let r = r.map_err(|_| LpDrop::Malformed)?;
                        if r.typ == t::NACK_REASON {
                            reason = tlv::read_nni(&frame[r.value.clone()])
                                .map_err(|_| LpDrop::Malformed)?;
                        }
                    }
                    fields.nack = Some(reason);
                }
                t::INCOMING_FACE_ID => fields.incoming_face_id = Some(nni()?),
                t::NEXT_HOP_FACE_ID => fields.next_hop_face_id = Some(nni()?),
                t::CACHE_POLICY => {
                    for r in tlv::Elements::new(&frame, e.value.clone()) {
                        let r = r.map_err(|_| LpDrop::Malformed)?;
                        if r.typ == t::CACHE_POLICY_TYPE
                            && tlv::read_nni(&frame[r.value.clone()]) == Ok(1)
                        {
                            fields.no_cache = true;
                        }
                    }
                }
                t::CONGESTION_MARK => fields.congestion_mark = nni()?,
                t::ACK | t::TX_SEQUENCE | t::NON_DISCOVERY | t::PREFIX_ANNOUNCEMENT => {}
                other if (800..=959).contains(&other) && other & 0b11 == 0 => {}
                _ => return Err(LpDrop::UnknownField),
            }
        }
        let Some(fragment) = fragment else {
            return Ok(None); // idle / ack-only
        };
        let count = frag_count.unwrap_or(1);
        let index = frag_index.unwrap_or(0);
        if count == 0 || index >= count || count > MAX_FRAGMENTS {
            return Err(LpDrop::BadFragment);
        }
        if count == 1 {
            return Ok(Some((fields, fragment)));
        }
        let Some(seq) = seq else {
            return Err(LpDrop::BadFragment);
        };
        self.expire(now);
        let base = seq.wrapping_sub(index);
        if !self.partials.contains_key(&base) && self.partials.len() >= MAX_PARTIALS {
            return Err(LpDrop::ReassemblyFull);
        }
        let p = self.partials.entry(base).or_insert_with(|| Partial {
            count,
            received: 0,
            pieces: vec![None; count as usize],
            fields: LpFields::default(),
            expires: now + REASSEMBLY_TIMEOUT,
        });
        if p.count != count {
            self.partials.remove(&base);
            return Err(LpDrop::BadFragment);
        }
        let slot = &mut p.pieces[index as usize];
        if slot.is_none() {
            *slot = Some(fragment);
            p.received += 1;
            if index == 0 {
                p.fields = fields;
            }
        }
        if p.received < p.count {
            return Ok(None);
        }
        let Some(p) = self.partials.remove(&base) else {
            return Ok(None);
        };
        let total: usize = p.pieces.iter().flatten().map(Bytes::len).sum();
        let mut whole = BytesMut::with_capacity(total);
        for piece in p.pieces.iter().flatten() {
            whole.extend_from_slice(piece);
        }
        Ok(Some((p.fields, whole.freeze())))
    }

    /// Drops partial packets whose time is up.
    pub fn expire(&mut self, now: Nanos) {
        let before = self.partials.len();
        self.partials.retain(|_, p| p.expires > now);
        self.reassembly_timeouts += (before - self.partials.len()) as u64;
    }

    /// Partial packets held.
    pub fn partials(&self) -> usize {
        self.partials.len()
    }
}

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

    /// Encodes `pkt` into one or more datagrams (fragmenting beyond the MTU).
    pub fn encode_datagrams(&mut self, fields: &LpFields, pkt: &Bytes, out: &mut Vec<Bytes>) {
        let mtu = self.mtu.unwrap_or(usize::MAX);
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
        for (i, chunk) in pkt.chunks(payload).enumerate() {
            let i = i as u64;
            let mut inner = 10
                + tlv::nni_tlv_len(t::FRAG_INDEX, i)
                + tlv::nni_tlv_len(t::FRAG_COUNT, count)
                + tlv::tlv_len(t::FRAGMENT, chunk.len());
            if i == 0 {
                inner += flen;
            }
            let mut b = BytesMut::with_capacity(tlv::tlv_len(t::LP_PACKET, inner));
            tlv::put_header(&mut b, t::LP_PACKET, inner);
            tlv::put_header(&mut b, t::SEQUENCE, 8);
            b.put_u64(base.wrapping_add(i));
            tlv::put_nni_tlv(&mut b, t::FRAG_INDEX, i);
            tlv::put_nni_tlv(&mut b, t::FRAG_COUNT, count);
            if i == 0 {
                fields.encode(&mut b);
            }
            tlv::put_tlv(&mut b, t::FRAGMENT, chunk);
            out.push(b.freeze());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Bytes {
        let mut b = BytesMut::new();
        tlv::put_header(&mut b, t::DATA, len);
        b.extend((0..len).map(|i| i as u8));
        b.freeze()
    }

    #[test]
    fn bare_packets_pass_through() {
        let d = data(10);
        let mut rx = LinkReceiver::new();
        let (f, p) = rx.receive(0, d.clone()).unwrap().unwrap();
        assert!(f.is_empty());
        assert_eq!(p, d);
        let mut tx = LinkSender::new(None, 0);
        let mut out = BytesMut::new();
        tx.encode_stream(&LpFields::default(), &d, &mut out);
        assert_eq!(out.as_ref(), d.as_ref());
    }

    #[test]
    fn fields_are_in_increasing_order_and_round_trip() {
        let d = data(20);
        let fields = LpFields {
            pit_token: Some(Bytes::from_static(&[1, 2, 3, 4])),
            nack: Some(150),
            incoming_face_id: Some(300),
            no_cache: true,
            congestion_mark: 1,
            ..Default::default()
        };
        let mut out = BytesMut::new();
        LinkSender::new(None, 0).encode_stream(&fields, &d, &mut out);
        let frame = out.freeze();
        let el = tlv::read_element(&frame, 0, frame.len()).unwrap();
        let types: Vec<u64> = tlv::Elements::new(&frame, el.value.clone())
            .map(|e| e.unwrap().typ)
            .collect();
        assert_eq!(types, vec![98, 800, 812, 820, 832, 80]);
        let (f, p) = LinkReceiver::new().receive(0, frame).unwrap().unwrap();
        assert_eq!(f, fields);
        assert_eq!(p, d);
    }

    #[test]
    fn nack_always_has_reason() {
        let d = data(4);
        let mut out = BytesMut::new();
        let fields = LpFields {
            nack: Some(0),
            ..Default::default()
        };
        LinkSender::new(None, 0).encode_stream(&fields, &d, &mut out);
        // LpPacket(100) Nack(800 = FD 03 20) len 3 { NackReason(801 = FD 03 21) len 1 00 }
        assert_eq!(
            &out[2..10],
            &[0xFD, 0x03, 0x20, 0x05, 0xFD, 0x03, 0x21, 0x01]
        );
    }

    #[test]
    fn fragments_and_reassembles_out_of_order() {
        let d = data(100_000);
        let fields = LpFields {
            pit_token: Some(Bytes::from_static(&[9; 8])),
            ..Default::default()
        };
        let mut tx = LinkSender::new(Some(1452), 77);
        let mut frags = Vec::new();
        tx.encode_datagrams(&fields, &d, &mut frags);
        assert!(frags.len() > 60);
        assert!(frags.iter().all(|f| f.len() <= 1452));
        let mut rx = LinkReceiver::new();
        let last = frags.pop().unwrap();
        frags.reverse();
        for f in frags {
            assert_eq!(rx.receive(1, f).unwrap(), None);
        }
        let (f, p) = rx.receive(2, last).unwrap().unwrap();
        assert_eq!(p, d);
        assert_eq!(f, fields);
        assert_eq!(rx.partials(), 0);
    }

    #[test]
    fn partials_time_out() {
        let d = data(5000);
        let mut frags = Vec::new();
        LinkSender::new(Some(1452), 0).encode_datagrams(&LpFields::default(), &d, &mut frags);
        let mut rx = LinkReceiver::new();
        assert_eq!(rx.receive(0, frags[0].clone()).unwrap(), None);
        rx.expire(REASSEMBLY_TIMEOUT + 1);
        assert_eq!(rx.partials(), 0);
        assert_eq!(rx.reassembly_timeouts, 1);
    }

    #[test]
    fn unknown_fields() {
        // ignorable field 804 (low bits 00) then Fragment
        let d = data(2);
        let mut b = BytesMut::new();
        let inner = 4 + tlv::tlv_len(80, d.len());
        tlv::put_header(&mut b, 100, inner);
        tlv::put_header(&mut b, 804, 0);
        tlv::put_tlv(&mut b, 80, &d);
        assert!(LinkReceiver::new()
            .receive(0, b.freeze())
            .unwrap()
            .is_some());
        let mut b = BytesMut::new();
        tlv::put_header(&mut b, 100, inner);
        tlv::put_header(&mut b, 805, 0);
        tlv::put_tlv(&mut b, 80, &d);
        assert_eq!(
            LinkReceiver::new().receive(0, b.freeze()),
            Err(LpDrop::UnknownField)
        );
        assert_eq!(
            LinkReceiver::new().receive(0, Bytes::from_static(&[100, 3, 1, 2])),
            Err(LpDrop::Malformed)
        );
        assert_eq!(
            LinkReceiver::new().receive(0, Bytes::from_static(&[9, 0])),
            Err(LpDrop::UnknownPacketType)
        );
    }

    #[test]
    fn random_frames_never_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(42);
        let mut rx = LinkReceiver::new();
        for i in 0..20_000u64 {
            let len = rng.gen_range(0..64);
            let mut v: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if !v.is_empty() && rng.gen_bool(0.5) {
                v[0] = 100; // LpPacket
                if v.len() > 1 {
                    v[1] = (v.len() - 2).min(252) as u8;
                }
            }
            let _ = rx.receive(i, Bytes::from(v));
        }
        assert!(rx.partials() <= MAX_PARTIALS);
    }
}
