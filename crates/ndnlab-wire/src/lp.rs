//! NDNLPv2 [`LpPacket`]: header fields and an optional Fragment.
//!
//! Unknown header fields: a type in 800..=959 whose two low bits are 0 is
//! ignored (kept in the wire); any other unknown field drops the packet.

use core::ops::Range;

use bytes::{BufMut, Bytes, BytesMut};
use smallvec::SmallVec;

use crate::nack::NackReason;
use crate::tlv::{self, types};
use crate::DecodeError;

/// CachePolicyType NoCache.
pub const CACHE_POLICY_NO_CACHE: u64 = 1;

/// A decoded LpPacket. Accessors never fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LpPacket {
    wire: Bytes,
    sequence: Option<u64>,
    frag_index: Option<u64>,
    frag_count: Option<u64>,
    pit_token: Option<Range<u32>>,
    nack: Option<NackReason>,
    /// the Nack header holds an explicit `NackReason 0`
    nack_reason_zero: bool,
    incoming_face_id: Option<u64>,
    next_hop_face_id: Option<u64>,
    cache_policy: Option<u64>,
    congestion_mark: Option<u64>,
    acks: SmallVec<[u64; 2]>,
    tx_sequence: Option<u64>,
    non_discovery: bool,
    prefix_announcement: Option<Range<u32>>,
    fragment: Option<Range<u32>>,
}

fn fixed_u64(v: &[u8], offset: usize) -> Result<u64, DecodeError> {
    let a: [u8; 8] = v
        .try_into()
        .map_err(|_| DecodeError::BadLength { offset })?;
    Ok(u64::from_be_bytes(a))
}

impl LpPacket {
    /// A builder for a new LpPacket.
    pub fn builder() -> LpPacketBuilder {
        LpPacketBuilder::default()
    }

    /// Validates an LpPacket TLV (the whole of `wire`).
    pub fn decode(wire: Bytes) -> Result<LpPacket, DecodeError> {
        let outer = tlv::read_packet(&wire, types::LP_PACKET)?;
        let mut lp = LpPacket {
            wire: Bytes::new(),
            sequence: None,
            frag_index: None,
            frag_count: None,
            pit_token: None,
            nack: None,
            nack_reason_zero: false,
            incoming_face_id: None,
            next_hop_face_id: None,
            cache_policy: None,
            congestion_mark: None,
            acks: SmallVec::new(),
            tx_sequence: None,
            non_discovery: false,
            prefix_announcement: None,
            fragment: None,
        };
        for e in tlv::Elements::new(&wire, outer.value.clone()) {
            let e = e?;
            let dup = DecodeError::OutOfOrder {
                typ: e.typ,
                offset: e.offset,
            };
            if lp.fragment.is_some() {
                // Fragment must be the last field
                return Err(dup);
            }
            let v = &wire[e.value.clone()];
            let at = e.value.start;
            let r32 = e.value.start as u32..e.value.end as u32;
            fn set<T>(slot: &mut Option<T>, val: T, dup: DecodeError) -> Result<(), DecodeError> {
                if slot.is_some() {
                    return Err(dup);
                }
                *slot = Some(val);
                Ok(())
            }
            match e.typ {
                types::SEQUENCE => set(&mut lp.sequence, fixed_u64(v, e.offset)?, dup)?,
                types::FRAG_INDEX => set(&mut lp.frag_index, tlv::read_nni_at(v, at)?, dup)?,
                types::FRAG_COUNT => set(&mut lp.frag_count, tlv::read_nni_at(v, at)?, dup)?,
                types::PIT_TOKEN => {
                    if v.is_empty() || v.len() > 32 {
                        return Err(DecodeError::BadLength { offset: e.offset });
                    }
                    set(&mut lp.pit_token, r32, dup)?
                }
                types::NACK => {
                    let mut reason = NackReason::None;
                    for x in tlv::Elements::new(&wire, e.value.clone()) {
                        let x = x?;
                        match x.typ {
                            types::NACK_REASON => {
                                let code = tlv::read_nni_at(&wire[x.value.clone()], x.value.start)?;
                                reason = NackReason::from_code(code);
                                lp.nack_reason_zero = code == 0;
                            }
                            t if tlv::is_critical(t) => {
                                return Err(DecodeError::UnknownCritical {
                                    typ: t,
                                    offset: x.offset,
                                })
                            }
                            _ => {}
                        }
                    }
                    set(&mut lp.nack, reason, dup)?
                }
                types::INCOMING_FACE_ID => {
                    set(&mut lp.incoming_face_id, tlv::read_nni_at(v, at)?, dup)?
                }
                types::NEXT_HOP_FACE_ID => {
                    set(&mut lp.next_hop_face_id, tlv::read_nni_at(v, at)?, dup)?
                }
                types::CACHE_POLICY => {
                    let x = tlv::read_element(&wire, e.value.start, e.value.end).map_err(|_| {
                        DecodeError::Missing {
                            field: "CachePolicyType",
                        }
                    })?;
                    if x.typ != types::CACHE_POLICY_TYPE {
                        return Err(DecodeError::Unexpected {
                            expected: types::CACHE_POLICY_TYPE,
                            got: x.typ,
                            offset: x.offset,
                        });
                    }
                    let t = tlv::read_nni_at(&wire[x.value.clone()], x.value.start)?;
                    set(&mut lp.cache_policy, t, dup)?
                }
                types::CONGESTION_MARK => {
                    set(&mut lp.congestion_mark, tlv::read_nni_at(v, at)?, dup)?
                }
                types::ACK => lp.acks.push(fixed_u64(v, e.offset)?),
                types::TX_SEQUENCE => set(&mut lp.tx_sequence, fixed_u64(v, e.offset)?, dup)?,
                types::NON_DISCOVERY => {
                    if !v.is_empty() {
                        return Err(DecodeError::BadLength { offset: e.offset });
                    }
                    if lp.non_discovery {
                        return Err(dup);
                    }
                    lp.non_discovery = true;
                }
                types::PREFIX_ANNOUNCEMENT => {
                    let d = tlv::read_element(&wire, e.value.start, e.value.end)?;
                    if d.typ != types::DATA {
                        return Err(DecodeError::Unexpected {
                            expected: types::DATA,
                            got: d.typ,
                            offset: d.offset,
                        });
                    }
                    set(&mut lp.prefix_announcement, r32, dup)?
                }
                types::FRAGMENT => lp.fragment = Some(r32),
                t if (800..=959).contains(&t) && t & 3 == 0 => {}
                t => {
                    return Err(DecodeError::UnknownCritical {
                        typ: t,
                        offset: e.offset,
                    })
                }
            }
        }
        lp.wire = wire;
        Ok(lp)
    }

    fn slice(&self, r: &Range<u32>) -> Bytes {
        self.wire.slice(r.start as usize..r.end as usize)
    }

    /// The Fragment TLV-VALUE (a whole packet unless fragmented), zero-copy.
    pub fn fragment(&self) -> Option<Bytes> {
        self.fragment.as_ref().map(|r| self.slice(r))
    }

    /// Sequence.
    pub fn sequence(&self) -> Option<u64> {
        self.sequence
    }

    /// FragIndex (0 when absent, as the spec says).
    pub fn frag_index(&self) -> Option<u64> {
        self.frag_index
    }

    /// FragCount (1 when absent, as the spec says).
    pub fn frag_count(&self) -> Option<u64> {
        self.frag_count
    }

    /// Whether this is one fragment of a larger packet.
    pub fn is_fragmented(&self) -> bool {
        self.frag_count.is_some_and(|c| c > 1)
    }

    /// PitToken bytes.
    pub fn pit_token(&self) -> Option<&[u8]> {
        let r = self.pit_token.as_ref()?;
        self.wire.get(r.start as usize..r.end as usize)
    }

    /// PitToken as shared bytes.
    pub fn pit_token_bytes(&self) -> Option<Bytes> {
        self.pit_token.as_ref().map(|r| self.slice(r))
    }

    /// Nack header (reason `None` when the Nack carries no NackReason).
    pub fn nack(&self) -> Option<NackReason> {
        self.nack
    }

    /// Whether the Nack header holds an explicit `NackReason 0` (reported as
    /// [`NackReason::None`], like an absent NackReason).
    pub fn nack_reason_zero(&self) -> bool {
        self.nack_reason_zero
    }

    pub fn incoming_face_id(&self) -> Option<u64> {
        self.incoming_face_id
    }

    pub fn next_hop_face_id(&self) -> Option<u64> {
        self.next_hop_face_id
    }

    /// CachePolicyType.
    pub fn cache_policy(&self) -> Option<u64> {
        self.cache_policy
    }

    /// Whether CachePolicy is NoCache.
    pub fn no_cache(&self) -> bool {
        self.cache_policy == Some(CACHE_POLICY_NO_CACHE)
    }

    pub fn congestion_mark(&self) -> Option<u64> {
        self.congestion_mark
    }

    /// Ack fields, in order.
    pub fn acks(&self) -> &[u64] {
        &self.acks
    }

    pub fn tx_sequence(&self) -> Option<u64> {
        self.tx_sequence
    }

    pub fn non_discovery(&self) -> bool {
        self.non_discovery
    }

    /// PrefixAnnouncement: the prefix-announcement Data TLV, zero-copy.
    pub fn prefix_announcement(&self) -> Option<Bytes> {
        self.prefix_announcement.as_ref().map(|r| self.slice(r))
    }

    /// Whole LpPacket TLV.
    pub fn wire(&self) -> &Bytes {
        &self.wire
    }

    /// A builder holding every field of this packet (unknown ignorable
    /// fields are dropped), to re-encode it with changes.
    pub fn to_builder(&self) -> LpPacketBuilder {
        LpPacketBuilder {
            sequence: self.sequence,
            frag_index: self.frag_index,
            frag_count: self.frag_count,
            pit_token: self.pit_token_bytes(),
            nack: self.nack,
            nack_reason_zero: self.nack_reason_zero,
            incoming_face_id: self.incoming_face_id,
            next_hop_face_id: self.next_hop_face_id,
            cache_policy: self.cache_policy,
            congestion_mark: self.congestion_mark,
            acks: self.acks.to_vec(),
            tx_sequence: self.tx_sequence,
            non_discovery: self.non_discovery,
            prefix_announcement: self.prefix_announcement(),
            fragment: self.fragment(),
        }
    }

    /// Sets the PitToken (1..=32 bytes; others are ignored): in place when a
    /// token of the same size is present, else the packet is re-encoded.
    pub fn set_pit_token(&mut self, token: &[u8]) {
        if token.is_empty() || token.len() > 32 {
            return;
        }
        if let Some(r) = self.pit_token.clone() {
            if r.len() == token.len() {
                let wire = core::mem::take(&mut self.wire);
                let mut m = match wire.try_into_mut() {
                    Ok(m) => m,
                    Err(shared) => BytesMut::from(&shared[..]),
                };
                m[r.start as usize..r.end as usize].copy_from_slice(token);
                self.wire = m.freeze();
                return;
            }
        }
        let wire = self
            .to_builder()
            .pit_token(Bytes::copy_from_slice(token))
            .build();
        if let Ok(lp) = LpPacket::decode(wire) {
            *self = lp;
        }
    }
}

/// Builder of an LpPacket; fields are written in increasing type order with
/// the Fragment last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LpPacketBuilder {
    pub sequence: Option<u64>,
    pub frag_index: Option<u64>,
    pub frag_count: Option<u64>,
    pub pit_token: Option<Bytes>,
    pub nack: Option<NackReason>,
    /// With `nack` = `Some(NackReason::None)`: write `NackReason 0` instead of
    /// an empty Nack header (both mean "no reason"; other reasons are always written).
    pub nack_reason_zero: bool,
    pub incoming_face_id: Option<u64>,
    pub next_hop_face_id: Option<u64>,
    pub cache_policy: Option<u64>,
    pub congestion_mark: Option<u64>,
    pub acks: Vec<u64>,
    pub tx_sequence: Option<u64>,
    pub non_discovery: bool,
    pub prefix_announcement: Option<Bytes>,
    pub fragment: Option<Bytes>,
}

impl LpPacketBuilder {
    pub fn sequence(mut self, n: u64) -> Self {
        self.sequence = Some(n);
        self
    }
    pub fn frag_index(mut self, n: u64) -> Self {
        self.frag_index = Some(n);
        self
    }
    pub fn frag_count(mut self, n: u64) -> Self {
        self.frag_count = Some(n);
        self
    }
    /// PitToken (1..=32 bytes).
    pub fn pit_token(mut self, t: impl Into<Bytes>) -> Self {
        self.pit_token = Some(t.into());
        self
    }
    /// Nack header; [`NackReason::None`] writes no NackReason element unless
    /// [`nack_reason_zero`](Self::nack_reason_zero) is set.
    pub fn nack(mut self, reason: NackReason) -> Self {
        self.nack = Some(reason);
        self
    }
    /// Writes `NackReason 0` for [`NackReason::None`] (as python-ndn does).
    pub fn nack_reason_zero(mut self, yes: bool) -> Self {
        self.nack_reason_zero = yes;
        self
    }
    pub fn incoming_face_id(mut self, id: u64) -> Self {
        self.incoming_face_id = Some(id);
        self
    }
    pub fn next_hop_face_id(mut self, id: u64) -> Self {
        self.next_hop_face_id = Some(id);
        self
    }
    pub fn cache_policy(mut self, t: u64) -> Self {
        self.cache_policy = Some(t);
        self
    }
    pub fn congestion_mark(mut self, m: u64) -> Self {
        self.congestion_mark = Some(m);
        self
    }
    pub fn ack(mut self, n: u64) -> Self {
        self.acks.push(n);
        self
    }
    pub fn tx_sequence(mut self, n: u64) -> Self {
        self.tx_sequence = Some(n);
        self
    }
    pub fn non_discovery(mut self, yes: bool) -> Self {
        self.non_discovery = yes;
        self
    }
    /// PrefixAnnouncement: a whole prefix-announcement Data TLV.
    pub fn prefix_announcement(mut self, data: impl Into<Bytes>) -> Self {
        self.prefix_announcement = Some(data.into());
        self
    }
    /// Fragment: a whole network packet (or a piece of one).
    pub fn fragment(mut self, f: impl Into<Bytes>) -> Self {
        self.fragment = Some(f.into());
        self
    }

    /// Whether the Nack header gets a NackReason element.
    fn nack_reason_element(&self, reason: NackReason) -> bool {
        reason != NackReason::None || self.nack_reason_zero
    }

    fn nack_value_len(&self, reason: NackReason) -> usize {
        if self.nack_reason_element(reason) {
            tlv::nni_tlv_len(types::NACK_REASON, reason.code())
        } else {
            0
        }
    }

    /// Size of the LpPacket TLV-VALUE.
    pub fn value_len(&self) -> usize {
        let opt = |t: u64, v: Option<u64>| v.map_or(0, |n| tlv::nni_tlv_len(t, n));
        let mut n = 0;
        if self.sequence.is_some() {
            n += tlv::tlv_len(types::SEQUENCE, 8);
        }
        n += opt(types::FRAG_INDEX, self.frag_index);
        n += opt(types::FRAG_COUNT, self.frag_count);
        if let Some(t) = &self.pit_token {
            n += tlv::tlv_len(types::PIT_TOKEN, t.len());
        }
        if let Some(r) = self.nack {
            n += tlv::tlv_len(types::NACK, self.nack_value_len(r));
        }
        n += opt(types::INCOMING_FACE_ID, self.incoming_face_id);
        n += opt(types::NEXT_HOP_FACE_ID, self.next_hop_face_id);
        if let Some(c) = self.cache_policy {
            n += tlv::tlv_len(
                types::CACHE_POLICY,
                tlv::nni_tlv_len(types::CACHE_POLICY_TYPE, c),
            );
        }
        n += opt(types::CONGESTION_MARK, self.congestion_mark);
        n += self.acks.len() * tlv::tlv_len(types::ACK, 8);
        if self.tx_sequence.is_some() {
            n += tlv::tlv_len(types::TX_SEQUENCE, 8);
        }
        if self.non_discovery {
            n += tlv::tlv_len(types::NON_DISCOVERY, 0);
        }
        if let Some(p) = &self.prefix_announcement {
            n += tlv::tlv_len(types::PREFIX_ANNOUNCEMENT, p.len());
        }
        if let Some(f) = &self.fragment {
            n += tlv::tlv_len(types::FRAGMENT, f.len());
        }
        n
    }

    /// Size of the whole LpPacket TLV.
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(types::LP_PACKET, self.value_len())
    }

    /// Writes the LpPacket TLV.
    pub fn encode(&self, out: &mut impl BufMut) {
        tlv::put_header(out, types::LP_PACKET, self.value_len());
        if let Some(s) = self.sequence {
            tlv::put_tlv(out, types::SEQUENCE, &s.to_be_bytes());
        }
        if let Some(x) = self.frag_index {
            tlv::put_nni_tlv(out, types::FRAG_INDEX, x);
        }
        if let Some(x) = self.frag_count {
            tlv::put_nni_tlv(out, types::FRAG_COUNT, x);
        }
        if let Some(t) = &self.pit_token {
            tlv::put_tlv(out, types::PIT_TOKEN, t);
        }
        if let Some(r) = self.nack {
            tlv::put_header(out, types::NACK, self.nack_value_len(r));
            if self.nack_reason_element(r) {
                tlv::put_nni_tlv(out, types::NACK_REASON, r.code());
            }
        }
        if let Some(x) = self.incoming_face_id {
            tlv::put_nni_tlv(out, types::INCOMING_FACE_ID, x);
        }
        if let Some(x) = self.next_hop_face_id {
            tlv::put_nni_tlv(out, types::NEXT_HOP_FACE_ID, x);
        }
        if let Some(c) = self.cache_policy {
            tlv::put_header(
                out,
                types::CACHE_POLICY,
                tlv::nni_tlv_len(types::CACHE_POLICY_TYPE, c),
            );
            tlv::put_nni_tlv(out, types::CACHE_POLICY_TYPE, c);
        }
        if let Some(x) = self.congestion_mark {
            tlv::put_nni_tlv(out, types::CONGESTION_MARK, x);
        }
        for a in &self.acks {
            tlv::put_tlv(out, types::ACK, &a.to_be_bytes());
        }
        if let Some(s) = self.tx_sequence {
            tlv::put_tlv(out, types::TX_SEQUENCE, &s.to_be_bytes());
        }
        if self.non_discovery {
            tlv::put_header(out, types::NON_DISCOVERY, 0);
        }
        if let Some(p) = &self.prefix_announcement {
            tlv::put_tlv(out, types::PREFIX_ANNOUNCEMENT, p);
        }
        if let Some(f) = &self.fragment {
            tlv::put_tlv(out, types::FRAGMENT, f);
        }
    }

    /// Encodes into one exact-size buffer.
    pub fn build(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(self.encoded_len());
        self.encode(&mut out);
        out.freeze()
    }
}
