//! NDN directly over Ethernet, as NFD's Ethernet faces carry it: each frame is a
//! 14-byte Ethernet II header (destination, source, EtherType 0x8624) followed by
//! one top-level TLV (an Interest, a Data or an NDNLPv2 LpPacket, usually a
//! fragment cut to the interface MTU by [`crate::lp::LinkSender`]). A payload
//! shorter than Ethernet's 46-byte minimum is followed by zero padding on send;
//! on receive the TLV's own length says where the packet ends and the rest of the
//! frame is ignored.
//!
//! Addresses and the default NDN multicast group (01:00:5e:00:17:aa) are those of
//! ndn-cxx (`ndn::ethernet`). Sans-IO: the forwarder's AF_PACKET faces call
//! [`header`] and [`padding_len`] to build frames and [`parse_frame`] to check
//! them.

use std::fmt;
use std::str::FromStr;

use ndnlab_wire::tlv::read_varnum;

/// NDN's EtherType.
pub const ETHERTYPE_NDN: u16 = 0x8624;
/// Bytes in a MAC address.
pub const ADDR_LEN: usize = 6;
/// Ethernet II header: destination, source, EtherType.
pub const HDR_LEN: usize = 14;
/// Smallest payload of an Ethernet frame; shorter payloads are padded with zeros.
pub const MIN_DATA_LEN: usize = 46;
/// Smallest frame sent (header and padded payload, without the FCS).
pub const MIN_FRAME_LEN: usize = HDR_LEN + MIN_DATA_LEN;
/// NDN's default Ethernet multicast group (ndn-cxx `getDefaultMulticastAddress`).
pub const DEFAULT_MULTICAST: MacAddr = MacAddr([0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa]);
/// All-zero bytes for padding short payloads.
pub const PADDING: [u8; MIN_DATA_LEN] = [0; MIN_DATA_LEN];

/// A 48-bit MAC address; shown as ndn-cxx shows it (`08:00:27:01:01:01`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddr(pub [u8; ADDR_LEN]);

impl MacAddr {
    /// ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; ADDR_LEN]);

    /// Group (multicast or broadcast) address: the I/G bit of the first octet.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 1 == 1
    }

    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// 00:00:00:00:00:00 (an interface without a hardware address).
    pub fn is_null(&self) -> bool {
        self.0 == [0; ADDR_LEN]
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a string is not a MAC address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a MAC address (six hex octets separated by ':' or '-')")]
pub struct BadMacAddr(pub String);

impl FromStr for MacAddr {
    type Err = BadMacAddr;

    /// Six two-digit hex octets separated by `:` or `-` (as ndn-cxx accepts).
    fn from_str(s: &str) -> Result<MacAddr, BadMacAddr> {
        let bad = || BadMacAddr(s.to_string());
        let sep = if s.contains('-') { '-' } else { ':' };
        let mut out = [0u8; ADDR_LEN];
        let mut parts = s.split(sep);
        for o in out.iter_mut() {
            let p = parts.next().ok_or_else(bad)?;
            if p.len() != 2 {
                return Err(bad());
            }
            *o = u8::from_str_radix(p, 16).map_err(|_| bad())?;
        }
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(MacAddr(out))
    }
}

/// The Ethernet header of a frame from `src` to `dst` carrying NDN.
pub fn header(dst: MacAddr, src: MacAddr) -> [u8; HDR_LEN] {
    let mut h = [0u8; HDR_LEN];
    h[..ADDR_LEN].copy_from_slice(&dst.0);
    h[ADDR_LEN..2 * ADDR_LEN].copy_from_slice(&src.0);
    h[2 * ADDR_LEN..].copy_from_slice(&ETHERTYPE_NDN.to_be_bytes());
    h
}

/// Zero bytes to append after a payload of `payload_len` bytes (NFD pads to the
/// 46-byte minimum).
pub fn padding_len(payload_len: usize) -> usize {
    MIN_DATA_LEN.saturating_sub(payload_len)
}

/// Appends a whole frame (header, payload, padding) to `out`. The forwarder sends
/// the three parts as separate buffers instead; this is the same layout in one.
pub fn encode_frame(dst: MacAddr, src: MacAddr, payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&header(dst, src));
    out.extend_from_slice(payload);
    out.extend_from_slice(&PADDING[..padding_len(payload.len())]);
}

/// Why a received frame was dropped (counted per reason by the faces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EtherDrop {
    /// Shorter than an Ethernet header plus a TLV header.
    #[error("frame too short")]
    TooShort,
    /// Not EtherType 0x8624 (a VLAN-tagged frame, say).
    #[error("wrong EtherType")]
    WrongEthertype,
    /// Sent by this interface (looped back).
    #[error("frame sent by this host")]
    FromSelf,
    /// Addressed to another host or to a group no face here has joined.
    #[error("frame addressed to another host or group")]
    OtherDestination,
    /// From a source with no face, on a channel that does not create faces.
    #[error("no face for this source")]
    NoFace,
    /// The payload does not start with a valid TLV header.
    #[error("payload is not a TLV")]
    BadTlv,
    /// The TLV is longer than the frame carries.
    #[error("TLV longer than the frame")]
    Truncated,
}

impl EtherDrop {
    /// Every counter label, indexed by [`EtherDrop::index`].
    pub const REASONS: [&'static str; 7] = [
        "too-short",
        "wrong-ethertype",
        "from-self",
        "other-destination",
        "no-face",
        "bad-tlv",
        "truncated",
    ];

    /// Position of this drop's label in [`EtherDrop::REASONS`].
    pub fn index(&self) -> usize {
        match self {
            EtherDrop::TooShort => 0,
            EtherDrop::WrongEthertype => 1,
            EtherDrop::FromSelf => 2,
            EtherDrop::OtherDestination => 3,
            EtherDrop::NoFace => 4,
            EtherDrop::BadTlv => 5,
            EtherDrop::Truncated => 6,
        }
    }

    /// Stable counter label.
    pub fn reason(&self) -> &'static str {
        Self::REASONS[self.index()]
    }
}

/// A received frame: its addresses and the one TLV it carries (padding removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub dst: MacAddr,
    pub src: MacAddr,
    pub payload: &'a [u8],
}

/// Checks a received frame's header and cuts its payload to the TLV it carries.
/// Frames shorter than the 60-byte minimum are accepted as long as the TLV is
/// complete (a sender that does not pad, or a NIC that strips padding).
pub fn parse_frame(frame: &[u8]) -> Result<Frame<'_>, EtherDrop> {
    if frame.len() < HDR_LEN + 2 {
        return Err(EtherDrop::TooShort);
    }
    let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    if ethertype != ETHERTYPE_NDN {
        return Err(EtherDrop::WrongEthertype);
    }
    let mut dst = MacAddr::default();
    let mut src = MacAddr::default();
    dst.0.copy_from_slice(&frame[..ADDR_LEN]);
    src.0.copy_from_slice(&frame[ADDR_LEN..2 * ADDR_LEN]);
    let body = &frame[HDR_LEN..];
    let mut pos = 0;
    let typ = read_varnum(body, &mut pos).map_err(|_| EtherDrop::BadTlv)?;
    if typ == 0 {
        return Err(EtherDrop::BadTlv);
    }
    let len = read_varnum(body, &mut pos).map_err(|e| match e {
        ndnlab_wire::DecodeError::Truncated { .. } => EtherDrop::Truncated,
        _ => EtherDrop::BadTlv,
    })?;
    let end = (pos as u64).saturating_add(len);
    if end > body.len() as u64 {
        return Err(EtherDrop::Truncated);
    }
    Ok(Frame {
        dst,
        src,
        payload: &body[..end as usize],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lp::{LinkReceiver, LinkSender, LpFields};
    use bytes::Bytes;

    const A: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
    const B: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0b]);

    fn interest(name: &str) -> Bytes {
        ndnlab_wire::Interest::builder(ndnlab_wire::Name::from_uri(name).unwrap())
            .nonce(1)
            .build()
    }

    #[test]
    fn mac_addresses_parse_and_show_like_ndn_cxx() {
        let m: MacAddr = "08:00:27:01:01:01".parse().unwrap();
        assert_eq!(m.0, [8, 0, 0x27, 1, 1, 1]);
        assert_eq!(m.to_string(), "08:00:27:01:01:01");
        assert_eq!("08-00-27-01-01-01".parse::<MacAddr>().unwrap(), m);
        assert_eq!(
            "01:00:5E:00:17:AA".parse::<MacAddr>().unwrap(),
            DEFAULT_MULTICAST
        );
        assert_eq!(DEFAULT_MULTICAST.to_string(), "01:00:5e:00:17:aa");
        assert!(DEFAULT_MULTICAST.is_multicast() && !DEFAULT_MULTICAST.is_broadcast());
        assert!(!m.is_multicast() && !m.is_null());
        assert!(MacAddr::BROADCAST.is_multicast() && MacAddr::BROADCAST.is_broadcast());
        for bad in [
            "",
            "08:00:27:01:01",
            "08:00:27:01:01:01:01",
            "8:0:27:1:1:1",
            "08:00:27:01:01:zz",
            "08:00-27:01:01:01",
            "080027010101",
        ] {
            assert!(bad.parse::<MacAddr>().is_err(), "{bad}");
        }
    }

    #[test]
    fn short_payload_is_padded_to_60_bytes_and_the_padding_is_ignored() {
        let pkt = interest("/a");
        assert!(pkt.len() < MIN_DATA_LEN);
        let mut f = Vec::new();
        encode_frame(B, A, &pkt, &mut f);
        assert_eq!(f.len(), MIN_FRAME_LEN);
        assert_eq!(&f[..6], &B.0);
        assert_eq!(&f[6..12], &A.0);
        assert_eq!(&f[12..14], &[0x86, 0x24]);
        assert!(f[HDR_LEN + pkt.len()..].iter().all(|&b| b == 0));
        let got = parse_frame(&f).unwrap();
        assert_eq!((got.dst, got.src), (B, A));
        assert_eq!(got.payload, &pkt[..]);
        // A long payload gets no padding.
        let big = [0u8; 100];
        assert_eq!(padding_len(big.len()), 0);
        assert_eq!(padding_len(MIN_DATA_LEN), 0);
        assert_eq!(padding_len(10), 36);
        // An unpadded short frame is accepted too.
        let mut raw = header(B, A).to_vec();
        raw.extend_from_slice(&pkt);
        assert_eq!(parse_frame(&raw).unwrap().payload, &pkt[..]);
    }

    #[test]
    fn malformed_frames_are_refused_with_a_reason() {
        let pkt = interest("/a");
        let mut good = Vec::new();
        encode_frame(B, A, &pkt, &mut good);
        assert_eq!(parse_frame(&good[..10]), Err(EtherDrop::TooShort));
        assert_eq!(parse_frame(&[]), Err(EtherDrop::TooShort));
        let mut vlan = good.clone();
        vlan[12..14].copy_from_slice(&[0x81, 0x00]);
        assert_eq!(parse_frame(&vlan), Err(EtherDrop::WrongEthertype));
        // Padding only: TLV type 0.
        let mut zeros = header(B, A).to_vec();
        zeros.extend_from_slice(&PADDING);
        assert_eq!(parse_frame(&zeros), Err(EtherDrop::BadTlv));
        // A length beyond the frame (NFD's test: 0x64 0xfd 0xff 0xff).
        let mut long = header(B, A).to_vec();
        long.extend_from_slice(&[0x64, 0xfd, 0xff, 0xff]);
        long.extend_from_slice(&PADDING[..42]);
        assert_eq!(parse_frame(&long), Err(EtherDrop::Truncated));
        // A header cut in the middle of the length.
        let mut cut = header(B, A).to_vec();
        cut.extend_from_slice(&[0x05, 0xfd, 0x01]);
        assert_eq!(parse_frame(&cut), Err(EtherDrop::Truncated));
        for d in [
            EtherDrop::TooShort,
            EtherDrop::WrongEthertype,
            EtherDrop::FromSelf,
            EtherDrop::OtherDestination,
            EtherDrop::NoFace,
            EtherDrop::BadTlv,
            EtherDrop::Truncated,
        ] {
            assert_eq!(EtherDrop::REASONS[d.index()], d.reason());
        }
    }

    /// An 8 KB Data over a 1500-byte MTU: fragmented by the link service, each
    /// fragment framed (the last one padded if short), parsed and reassembled.
    #[test]
    fn fragments_fit_the_mtu_and_reassemble() {
        let name = ndnlab_wire::Name::from_uri("/ether/big").unwrap();
        let data = ndnlab_wire::Data::builder(name)
            .content(Bytes::from(vec![0x5a; 8192]))
            .sign_digest();
        let mtu = 1500;
        let mut tx = LinkSender::new(Some(mtu), 7);
        let mut frags = Vec::new();
        tx.encode_with_mtu(Some(mtu), &LpFields::default(), &data, &mut frags);
        assert!(frags.len() >= 6, "{} fragments", frags.len());
        let mut rx = LinkReceiver::new();
        let mut out = None;
        for (i, frag) in frags.iter().enumerate() {
            assert!(frag.len() <= mtu);
            let mut f = Vec::new();
            encode_frame(B, A, frag, &mut f);
            assert!(f.len() <= HDR_LEN + mtu && f.len() >= MIN_FRAME_LEN);
            let p = parse_frame(&f).unwrap();
            let r = rx
                .receive(0, Bytes::copy_from_slice(p.payload))
                .expect("fragment accepted");
            if i + 1 < frags.len() {
                assert!(r.is_none());
            } else {
                out = r;
            }
        }
        let (_, pkt) = out.expect("reassembled");
        assert_eq!(pkt, data);
    }
}
