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
//!
//! Reliability (optional, UDP unicast faces): [`LinkSender::encode_datagrams_for`]
//! and [`LinkReceiver::receive_for`] hand a face's frames and their Acks/TxSequence
//! to its [`ReliabilitySlot`] (the sans-IO machine is [`super::lp_reliability`]); a
//! small per-face task sends retransmissions and idle acks. [`LinkState`] also
//! holds what faces/update changes at run time (MTU, congestion parameters).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use bytes::{BufMut, Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};
use tokio::net::UdpSocket;
use tokio::sync::Notify;

use super::lp_reliability::{
    rx_info, Frame, LpReliability, ReliabilityCounters, ReliabilityOptions, RxInfo,
};
use super::stream::Ingress;
use super::{FaceEntry, FaceLimits};

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

/// A received top-level TLV, checked.
enum Parsed {
    Bare(Bytes),
    Lp(ParsedLp),
}

struct ParsedLp {
    fields: LpFields,
    seq: Option<u64>,
    frag_index: Option<u64>,
    frag_count: Option<u64>,
    fragment: Option<Bytes>,
}

/// Checks a frame and reads its LP header (Ack and TxSequence are read by
/// [`rx_info`] when the face has reliability on, and skipped here).
fn parse(frame: Bytes) -> Result<Parsed, LpDrop> {
    let mut pos = 0;
    let typ = tlv::read_varnum(&frame, &mut pos).map_err(|_| LpDrop::Malformed)?;
    match typ {
        t::INTEREST | t::DATA => return Ok(Parsed::Bare(frame)),
        t::LP_PACKET => {}
        _ => return Err(LpDrop::UnknownPacketType),
    }
    let el = tlv::read_element(&frame, 0, frame.len()).map_err(|_| LpDrop::Malformed)?;
    if el.end() != frame.len() {
        return Err(LpDrop::Malformed);
    }
    let mut lp = ParsedLp {
        fields: LpFields::default(),
        seq: None,
        frag_index: None,
        frag_count: None,
        fragment: None,
    };
    let fields = &mut lp.fields;
    for e in tlv::Elements::new(&frame, el.value.clone()) {
        let e = e.map_err(|_| LpDrop::Malformed)?;
        if lp.fragment.is_some() {
            return Err(LpDrop::Malformed); // Fragment must be last
        }
        let v = &frame[e.value.clone()];
        let nni = || tlv::read_nni(v).map_err(|_| LpDrop::Malformed);
        match e.typ {
            t::FRAGMENT => lp.fragment = Some(frame.slice(e.value.clone())),
            t::SEQUENCE => {
                if v.len() != 8 {
                    return Err(LpDrop::Malformed);
                }
                lp.seq = Some(u64::from_be_bytes(v.try_into().unwrap_or([0; 8])));
            }
            t::FRAG_INDEX => lp.frag_index = Some(nni()?),
            t::FRAG_COUNT => lp.frag_count = Some(nni()?),
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
            t::ACK | t::TX_SEQUENCE => {
                if v.len() != 8 {
                    return Err(LpDrop::Malformed);
                }
            }
            t::NON_DISCOVERY | t::PREFIX_ANNOUNCEMENT => {}
            other if (800..=959).contains(&other) && other & 0b11 == 0 => {}
            _ => return Err(LpDrop::UnknownField),
        }
    }
    Ok(Parsed::Lp(lp))
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
        match parse(frame)? {
            Parsed::Bare(pkt) => Ok(Some((LpFields::default(), pkt))),
            Parsed::Lp(lp) => self.accept(now, lp),
        }
    }

    /// [`receive`](Self::receive) on a face: when the face has LP reliability on,
    /// its Acks and TxSequence are processed first and a repeated Sequence is
    /// dropped (it is still acknowledged).
    pub fn receive_for(
        &mut self,
        face: &FaceEntry,
        now: Nanos,
        frame: Bytes,
    ) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        if face.link.reliability.is_enabled() && frame.first() == Some(&(t::LP_PACKET as u8)) {
            if let Some(info) = rx_info(&frame) {
                if !face.link.reliability.on_receive(now, &info) {
                    return Ok(None);
                }
            }
        }
        self.receive(now, frame)
    }

    fn accept(&mut self, now: Nanos, lp: ParsedLp) -> Result<Option<(LpFields, Bytes)>, LpDrop> {
        let ParsedLp {
            fields,
            seq,
            frag_index,
            frag_count,
            fragment,
        } = lp;
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

    fn encode_with_mtu(
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
    /// [`encode_datagrams`](Self::encode_datagrams) on a face: with LP reliability
    /// on, every frame is an LpPacket with a Sequence, handed to the face's
    /// reliability state which adds Acks and a TxSequence and keeps it for
    /// retransmission.
    pub fn encode_datagrams_for(
        &mut self,
        face: &FaceEntry,
        now: Nanos,
        fields: &LpFields,
        pkt: &Bytes,
        out: &mut Vec<Bytes>,
    ) {
        let mtu = face.link.mtu_override().or(self.mtu);
        let slot = &face.link.reliability;
        if slot.is_enabled() {
            if let Some(mtu) = mtu {
                let mut frames = Vec::new();
                self.reliable_frames(fields, pkt, LpReliability::frame_budget(mtu), &mut frames);
                if slot.send(now, frames, out) {
                    return;
                }
            }
        }
        self.encode_with_mtu(mtu, fields, pkt, out);
    }

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
            fields.encode(&mut h);
            out.push(Frame {
                header: h.freeze(),
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
            if i == 0 {
                fields.encode(&mut h);
            }
            out.push(Frame {
                header: h.freeze(),
                fragment: chunk,
            });
        }
    }
}

/// A face's link-service settings that management may change while it runs.
pub struct LinkState {
    /// NDNLPv2 reliability.
    pub reliability: ReliabilitySlot,
    /// MTU override (0: the face's own MTU).
    mtu: AtomicUsize,
    congestion_interval_ns: AtomicU64,
    congestion_threshold: AtomicUsize,
}

impl LinkState {
    pub fn new(limits: &FaceLimits) -> Self {
        LinkState {
            reliability: ReliabilitySlot::default(),
            mtu: AtomicUsize::new(0),
            congestion_interval_ns: AtomicU64::new(limits.congestion_interval_ns),
            congestion_threshold: AtomicUsize::new(limits.congestion_threshold),
        }
    }

    /// The MTU set by faces/update, if any.
    pub fn mtu_override(&self) -> Option<usize> {
        Some(self.mtu.load(Relaxed)).filter(|&m| m > 0)
    }

    pub fn set_mtu(&self, mtu: usize) {
        self.mtu.store(mtu, Relaxed);
        if let Some(st) = lock(&self.reliability.state).as_mut() {
            st.set_mtu(mtu);
        }
    }

    /// `base` (queue capacity) with the current congestion marking parameters.
    pub fn marking_limits(&self, base: &FaceLimits) -> FaceLimits {
        FaceLimits {
            queue_capacity: base.queue_capacity,
            congestion_interval_ns: self.congestion_interval_ns.load(Relaxed),
            congestion_threshold: self.congestion_threshold.load(Relaxed),
        }
    }

    /// BaseCongestionMarkingInterval (ns) and DefaultCongestionThreshold (bytes).
    pub fn set_congestion(&self, interval_ns: Option<u64>, threshold: Option<usize>) {
        if let Some(i) = interval_ns {
            self.congestion_interval_ns.store(i, Relaxed);
        }
        if let Some(t) = threshold {
            self.congestion_threshold.store(t, Relaxed);
        }
    }
}

/// A face's LP reliability: off by default; on, it holds the [`LpReliability`]
/// state shared by the face's reader (acks in, duplicates out), its writer (new
/// frames, piggybacked acks) and a small task that sends retransmissions and idle
/// acks when their timers fire. Only UDP unicast faces can turn it on: the UDP
/// transport attaches its socket and peer address when it creates the face.
#[derive(Default)]
pub struct ReliabilitySlot {
    on: AtomicBool,
    state: Mutex<Option<LpReliability>>,
    transport: Mutex<Option<(Arc<UdpSocket>, SocketAddr)>>,
    wake: Notify,
    pump_running: AtomicBool,
}

impl ReliabilitySlot {
    /// Whether reliability is on.
    pub fn is_enabled(&self) -> bool {
        self.on.load(Relaxed)
    }

    /// Called by the UDP transport: the socket and peer the timer task sends on.
    pub fn attach_udp(&self, socket: Arc<UdpSocket>, remote: SocketAddr) {
        *lock(&self.transport) = Some((socket, remote));
    }

    /// Whether this face's transport supports reliability.
    pub fn is_supported(&self) -> bool {
        lock(&self.transport).is_some()
    }

    /// The counters, while reliability is on.
    pub fn counters(&self) -> Option<ReliabilityCounters> {
        lock(&self.state).as_ref().map(LpReliability::counters)
    }

    /// Frames waiting for an ack (0 when off).
    pub fn unacked(&self) -> usize {
        lock(&self.state).as_ref().map_or(0, LpReliability::unacked)
    }

    /// Runs `f` on the state if reliability is on; wakes the timer task when the
    /// next deadline moved earlier.
    fn with<R>(&self, f: impl FnOnce(&mut LpReliability) -> R) -> Option<R> {
        let (r, wake) = {
            let mut g = lock(&self.state);
            let st = g.as_mut()?;
            let before = st.poll_timeout();
            let r = f(st);
            let after = st.poll_timeout();
            let wake = match (before, after) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(b), Some(a)) => a < b,
            };
            (r, wake)
        };
        if wake {
            self.wake.notify_one();
        }
        Some(r)
    }

    fn send(&self, now: Nanos, frames: Vec<Frame>, out: &mut Vec<Bytes>) -> bool {
        self.with(|st| st.send(now, frames, out)).is_some()
    }

    fn on_receive(&self, now: Nanos, info: &RxInfo) -> bool {
        self.with(|st| st.on_receive(now, info)).unwrap_or(true)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Turns LP reliability on or off on a face (faces/create, faces/update, the
/// config file). Turning it on starts the face's timer task; the state starts
/// fresh each time. Fails on faces whose transport cannot carry it.
pub fn set_reliability(
    face: &Arc<FaceEntry>,
    on: bool,
    opts: ReliabilityOptions,
    ingress: &Arc<dyn Ingress>,
) -> Result<(), &'static str> {
    let slot = &face.link.reliability;
    if !on {
        slot.on.store(false, Relaxed);
        *lock(&slot.state) = None;
        slot.wake.notify_one();
        return Ok(());
    }
    if slot.is_enabled() {
        return Ok(());
    }
    let Some(mtu) = face
        .link
        .mtu_override()
        .or(face.mtu)
        .filter(|_| slot.is_supported())
    else {
        return Err("LP reliability is supported on UDP unicast faces only");
    };
    let seed = ingress.now() ^ face.id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    *lock(&slot.state) = Some(LpReliability::new(opts, mtu, seed));
    slot.on.store(true, Relaxed);
    if !slot.pump_running.swap(true, Relaxed) {
        tokio::spawn(reliability_timers(face.clone(), ingress.clone()));
    }
    Ok(())
}

/// A reliable face's timer task: retransmissions and idle acks, sent directly on
/// the UDP socket (the writer task carries new frames and piggybacked acks).
async fn reliability_timers(face: Arc<FaceEntry>, ingress: Arc<dyn Ingress>) {
    let slot = &face.link.reliability;
    let Some((socket, remote)) = lock(&slot.transport).clone() else {
        slot.pump_running.store(false, Relaxed);
        return;
    };
    let mut out = Vec::new();
    loop {
        let now = ingress.now();
        let next = {
            let mut g = lock(&slot.state);
            match g.as_mut() {
                Some(st) if !face.is_closed() => {
                    st.handle_timeout(now);
                    st.poll_transmit(now, &mut out);
                    Some(st.poll_timeout())
                }
                _ => None,
            }
        };
        let Some(next) = next else {
            if let Some(c) = slot.counters() {
                tracing::debug!(
                    face = face.id,
                    frames = c.frames_sent,
                    acked = c.acknowledged,
                    retx = c.retransmitted,
                    given_up = c.retx_exhausted,
                    duplicates = c.duplicates,
                    "LP reliability stopped"
                );
            }
            slot.pump_running.store(false, Relaxed);
            // Turned on again while stopping: carry on.
            if slot.is_enabled() && !face.is_closed() && !slot.pump_running.swap(true, Relaxed) {
                continue;
            }
            return;
        };
        for f in out.drain(..) {
            match socket.send_to(&f, remote).await {
                Ok(n) => {
                    face.stats.out_bytes.fetch_add(n as u64, Relaxed);
                }
                Err(e) => tracing::trace!(face = face.id, error = %e, "LP retransmission failed"),
            }
        }
        let wait = next.map_or(3_600_000_000_000, |t| t.saturating_sub(ingress.now()));
        tokio::select! {
            _ = slot.wake.notified() => {}
            _ = tokio::time::sleep(std::time::Duration::from_nanos(wait)) => {}
            _ = face.closed() => {}
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
    fn stream_header_plus_packet_equals_encode_stream() {
        let d = data(9000);
        let tx = LinkSender::new(None, 0);
        for fields in [
            LpFields::default(),
            LpFields {
                pit_token: Some(Bytes::from_static(&[1, 2, 3, 4, 5, 6, 7, 8])),
                ..Default::default()
            },
            LpFields {
                pit_token: Some(Bytes::from_static(&[7; 32])),
                incoming_face_id: Some(70_000),
                congestion_mark: 1,
                ..Default::default()
            },
        ] {
            let mut whole = BytesMut::new();
            LinkSender::new(None, 0).encode_stream(&fields, &d, &mut whole);
            let mut header = BytesMut::new();
            tx.encode_stream_header(&fields, d.len(), &mut header);
            if fields.is_empty() {
                assert!(header.is_empty());
            }
            header.extend_from_slice(&d);
            assert_eq!(header, whole);
        }
    }

    #[test]
    fn fragments_of_a_packet_share_one_contiguous_buffer() {
        let d = data(65_536);
        let fields = LpFields {
            pit_token: Some(Bytes::from_static(&[9; 8])),
            ..Default::default()
        };
        let mut frags = Vec::new();
        LinkSender::new(Some(1452), 1).encode_datagrams(&fields, &d, &mut frags);
        assert!(frags.len() > 40);
        for w in frags.windows(2) {
            assert!(w[0].len() <= 1452);
            // The next fragment starts where this one ends.
            assert_eq!(w[0].as_ptr().wrapping_add(w[0].len()), w[1].as_ptr());
        }
        let mut rx = LinkReceiver::new();
        let mut got = None;
        for f in frags {
            got = rx.receive(0, f).unwrap().or(got);
        }
        let (f, p) = got.expect("reassembled");
        assert_eq!((f, p), (fields, d));
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
