//! TLV primitives: var-numbers, NonNegativeIntegers, element iteration and the
//! type numbers of packet format v0.3 and NDNLPv2.
//!
//! Decoding is strict: TLV-TYPE and TLV-LENGTH must be in their shortest form
//! (this makes the encoding of a name canonical, so names compare bytewise),
//! TLV-TYPE 0 is invalid, and a NonNegativeInteger is 1, 2, 4 or 8 bytes.

use core::ops::Range;

use bytes::BufMut;

use crate::DecodeError;

/// TLV-TYPE numbers (packet format v0.3, NDNLPv2).
pub mod types {
    // packets
    pub const INTEREST: u64 = 5;
    pub const DATA: u64 = 6;
    // names
    pub const NAME: u64 = 7;
    pub const IMPLICIT_SHA256_DIGEST_COMPONENT: u64 = 1;
    pub const PARAMETERS_SHA256_DIGEST_COMPONENT: u64 = 2;
    pub const GENERIC_NAME_COMPONENT: u64 = 8;
    pub const KEYWORD_NAME_COMPONENT: u64 = 32;
    pub const SEGMENT_NAME_COMPONENT: u64 = 50;
    pub const BYTE_OFFSET_NAME_COMPONENT: u64 = 52;
    pub const VERSION_NAME_COMPONENT: u64 = 54;
    pub const TIMESTAMP_NAME_COMPONENT: u64 = 56;
    pub const SEQUENCE_NUM_NAME_COMPONENT: u64 = 58;
    // Interest
    pub const CAN_BE_PREFIX: u64 = 33;
    pub const MUST_BE_FRESH: u64 = 18;
    pub const FORWARDING_HINT: u64 = 30;
    pub const NONCE: u64 = 10;
    pub const INTEREST_LIFETIME: u64 = 12;
    pub const HOP_LIMIT: u64 = 34;
    pub const APPLICATION_PARAMETERS: u64 = 36;
    pub const INTEREST_SIGNATURE_INFO: u64 = 44;
    pub const INTEREST_SIGNATURE_VALUE: u64 = 46;
    // Data
    pub const META_INFO: u64 = 20;
    pub const CONTENT: u64 = 21;
    pub const SIGNATURE_INFO: u64 = 22;
    pub const SIGNATURE_VALUE: u64 = 23;
    pub const CONTENT_TYPE: u64 = 24;
    pub const FRESHNESS_PERIOD: u64 = 25;
    pub const FINAL_BLOCK_ID: u64 = 26;
    // signature
    pub const SIGNATURE_TYPE: u64 = 27;
    pub const KEY_LOCATOR: u64 = 28;
    pub const KEY_DIGEST: u64 = 29;
    pub const SIGNATURE_NONCE: u64 = 38;
    pub const SIGNATURE_TIME: u64 = 40;
    pub const SIGNATURE_SEQ_NUM: u64 = 42;
    pub const VALIDITY_PERIOD: u64 = 253;
    pub const NOT_BEFORE: u64 = 254;
    pub const NOT_AFTER: u64 = 255;
    pub const ADDITIONAL_DESCRIPTION: u64 = 258;
    pub const DESCRIPTION_ENTRY: u64 = 512;
    pub const DESCRIPTION_KEY: u64 = 513;
    pub const DESCRIPTION_VALUE: u64 = 514;
    // NDNLPv2
    pub const LP_PACKET: u64 = 100;
    pub const FRAGMENT: u64 = 80;
    pub const SEQUENCE: u64 = 81;
    pub const FRAG_INDEX: u64 = 82;
    pub const FRAG_COUNT: u64 = 83;
    pub const PIT_TOKEN: u64 = 98;
    pub const NACK: u64 = 800;
    pub const NACK_REASON: u64 = 801;
    pub const INCOMING_FACE_ID: u64 = 812;
    pub const NEXT_HOP_FACE_ID: u64 = 816;
    pub const CACHE_POLICY: u64 = 820;
    pub const CACHE_POLICY_TYPE: u64 = 821;
    pub const CONGESTION_MARK: u64 = 832;
    pub const ACK: u64 = 836;
    pub const TX_SEQUENCE: u64 = 840;
    pub const NON_DISCOVERY: u64 = 844;
    pub const PREFIX_ANNOUNCEMENT: u64 = 848;
}

/// Human name of a TLV-TYPE in packet context (for dissectors and logs), if known.
pub fn type_name(typ: u64) -> Option<&'static str> {
    use types::*;
    Some(match typ {
        INTEREST => "Interest",
        DATA => "Data",
        NAME => "Name",
        IMPLICIT_SHA256_DIGEST_COMPONENT => "ImplicitSha256DigestComponent",
        PARAMETERS_SHA256_DIGEST_COMPONENT => "ParametersSha256DigestComponent",
        GENERIC_NAME_COMPONENT => "GenericNameComponent",
        KEYWORD_NAME_COMPONENT => "KeywordNameComponent",
        SEGMENT_NAME_COMPONENT => "SegmentNameComponent",
        BYTE_OFFSET_NAME_COMPONENT => "ByteOffsetNameComponent",
        VERSION_NAME_COMPONENT => "VersionNameComponent",
        TIMESTAMP_NAME_COMPONENT => "TimestampNameComponent",
        SEQUENCE_NUM_NAME_COMPONENT => "SequenceNumNameComponent",
        CAN_BE_PREFIX => "CanBePrefix",
        MUST_BE_FRESH => "MustBeFresh",
        FORWARDING_HINT => "ForwardingHint",
        NONCE => "Nonce",
        INTEREST_LIFETIME => "InterestLifetime",
        HOP_LIMIT => "HopLimit",
        APPLICATION_PARAMETERS => "ApplicationParameters",
        INTEREST_SIGNATURE_INFO => "InterestSignatureInfo",
        INTEREST_SIGNATURE_VALUE => "InterestSignatureValue",
        META_INFO => "MetaInfo",
        CONTENT => "Content",
        SIGNATURE_INFO => "SignatureInfo",
        SIGNATURE_VALUE => "SignatureValue",
        CONTENT_TYPE => "ContentType",
        FRESHNESS_PERIOD => "FreshnessPeriod",
        FINAL_BLOCK_ID => "FinalBlockId",
        SIGNATURE_TYPE => "SignatureType",
        KEY_LOCATOR => "KeyLocator",
        KEY_DIGEST => "KeyDigest",
        SIGNATURE_NONCE => "SignatureNonce",
        SIGNATURE_TIME => "SignatureTime",
        SIGNATURE_SEQ_NUM => "SignatureSeqNum",
        VALIDITY_PERIOD => "ValidityPeriod",
        NOT_BEFORE => "NotBefore",
        NOT_AFTER => "NotAfter",
        ADDITIONAL_DESCRIPTION => "AdditionalDescription",
        DESCRIPTION_ENTRY => "DescriptionEntry",
        DESCRIPTION_KEY => "DescriptionKey",
        DESCRIPTION_VALUE => "DescriptionValue",
        LP_PACKET => "LpPacket",
        FRAGMENT => "Fragment",
        SEQUENCE => "Sequence",
        FRAG_INDEX => "FragIndex",
        FRAG_COUNT => "FragCount",
        PIT_TOKEN => "PitToken",
        NACK => "Nack",
        NACK_REASON => "NackReason",
        INCOMING_FACE_ID => "IncomingFaceId",
        NEXT_HOP_FACE_ID => "NextHopFaceId",
        CACHE_POLICY => "CachePolicy",
        CACHE_POLICY_TYPE => "CachePolicyType",
        CONGESTION_MARK => "CongestionMark",
        ACK => "Ack",
        TX_SEQUENCE => "TxSequence",
        NON_DISCOVERY => "NonDiscovery",
        PREFIX_ANNOUNCEMENT => "PrefixAnnouncement",
        _ => return None,
    })
}

/// Evolvability rule of packet format v0.3: an unknown element is critical when
/// its type is odd or in 0..=31; the packet carrying it is invalid.
#[inline]
pub const fn is_critical(typ: u64) -> bool {
    typ <= 31 || typ & 1 == 1
}

/// Reads a var-number at `*pos`, advancing `*pos`; rejects non-shortest forms.
#[inline(always)]
pub fn read_varnum(buf: &[u8], pos: &mut usize) -> Result<u64, DecodeError> {
    let start = *pos;
    let Some(&first) = buf.get(start) else {
        return Err(DecodeError::Truncated { offset: start });
    };
    let (v, n, min) = match first {
        0..=252 => {
            *pos = start + 1;
            return Ok(first as u64);
        }
        253 => match buf.get(start + 1..start + 3) {
            Some(b) => (u16::from_be_bytes([b[0], b[1]]) as u64, 3, 253),
            None => return Err(DecodeError::Truncated { offset: start }),
        },
        254 => match buf.get(start + 1..start + 5) {
            Some(b) => (
                u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64,
                5,
                0x1_0000,
            ),
            None => return Err(DecodeError::Truncated { offset: start }),
        },
        255 => match buf.get(start + 1..start + 9) {
            Some(b) => {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                (u64::from_be_bytes(a), 9, 0x1_0000_0000)
            }
            None => return Err(DecodeError::Truncated { offset: start }),
        },
    };
    if v < min {
        return Err(DecodeError::NonMinimalVarNumber { offset: start });
    }
    *pos = start + n;
    Ok(v)
}

/// Encoded size of a var-number.
#[inline]
pub const fn varnum_len(n: u64) -> usize {
    if n < 253 {
        1
    } else if n <= 0xFFFF {
        3
    } else if n <= 0xFFFF_FFFF {
        5
    } else {
        9
    }
}

/// Writes a var-number in shortest form.
#[inline]
pub fn put_varnum(out: &mut impl BufMut, n: u64) {
    if n < 253 {
        out.put_u8(n as u8);
    } else if n <= 0xFFFF {
        out.put_u8(253);
        out.put_u16(n as u16);
    } else if n <= 0xFFFF_FFFF {
        out.put_u8(254);
        out.put_u32(n as u32);
    } else {
        out.put_u8(255);
        out.put_u64(n);
    }
}

/// Encoded size of a NonNegativeInteger (shortest of 1, 2, 4, 8 bytes).
#[inline]
pub const fn nni_len(n: u64) -> usize {
    if n <= 0xFF {
        1
    } else if n <= 0xFFFF {
        2
    } else if n <= 0xFFFF_FFFF {
        4
    } else {
        8
    }
}

/// Writes a NonNegativeInteger in its shortest form (no TLV header).
#[inline]
pub fn put_nni(out: &mut impl BufMut, n: u64) {
    match nni_len(n) {
        1 => out.put_u8(n as u8),
        2 => out.put_u16(n as u16),
        4 => out.put_u32(n as u32),
        _ => out.put_u64(n),
    }
}

/// Reads a NonNegativeInteger from a whole TLV-VALUE. The error offset is 0:
/// callers that know where the value sits use [`read_nni_at`].
#[inline]
pub fn read_nni(value: &[u8]) -> Result<u64, DecodeError> {
    read_nni_at(value, 0)
}

/// [`read_nni`] reporting errors at `offset`.
#[inline]
pub fn read_nni_at(value: &[u8], offset: usize) -> Result<u64, DecodeError> {
    Ok(match value.len() {
        1 => value[0] as u64,
        2 => u16::from_be_bytes([value[0], value[1]]) as u64,
        4 => u32::from_be_bytes([value[0], value[1], value[2], value[3]]) as u64,
        8 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(value);
            u64::from_be_bytes(a)
        }
        _ => return Err(DecodeError::BadNonNegativeInteger { offset }),
    })
}

/// Encoded size of a whole TLV with a value of `value_len` bytes.
#[inline]
pub const fn tlv_len(typ: u64, value_len: usize) -> usize {
    varnum_len(typ) + varnum_len(value_len as u64) + value_len
}

/// Writes a TLV header (type and length).
#[inline]
pub fn put_header(out: &mut impl BufMut, typ: u64, value_len: usize) {
    put_varnum(out, typ);
    put_varnum(out, value_len as u64);
}

/// Writes a whole TLV.
#[inline]
pub fn put_tlv(out: &mut impl BufMut, typ: u64, value: &[u8]) {
    put_header(out, typ, value.len());
    out.put_slice(value);
}

/// Encoded size of a TLV holding a NonNegativeInteger.
#[inline]
pub const fn nni_tlv_len(typ: u64, n: u64) -> usize {
    varnum_len(typ) + 1 + nni_len(n)
}

/// Writes a TLV holding a NonNegativeInteger.
#[inline]
pub fn put_nni_tlv(out: &mut impl BufMut, typ: u64, n: u64) {
    put_varnum(out, typ);
    out.put_u8(nni_len(n) as u8);
    put_nni(out, n);
}

/// One TLV element located in a buffer (offsets relative to that buffer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// TLV-TYPE.
    pub typ: u64,
    /// Offset of the first byte of the TLV-TYPE.
    pub offset: usize,
    /// Size of TLV-TYPE plus TLV-LENGTH.
    pub header_len: usize,
    /// Range of the TLV-VALUE.
    pub value: Range<usize>,
}

impl Element {
    /// Range of the whole TLV (header and value).
    #[inline]
    pub fn range(&self) -> Range<usize> {
        self.offset..self.value.end
    }
    /// End of the TLV (exclusive).
    #[inline]
    pub fn end(&self) -> usize {
        self.value.end
    }
    /// Length of the TLV-VALUE.
    #[inline]
    pub fn len(&self) -> usize {
        self.value.end - self.value.start
    }
    /// Whether the TLV-VALUE is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.value.start == self.value.end
    }
}

/// Reads the one TLV of type `typ` that a whole packet is: it must start at 0, end
/// exactly at the end of `wire` (no trailing bytes), and fit a 32-bit length (the
/// offsets views keep are `u32`). The preamble of every packet decoder.
#[inline(always)]
pub fn read_packet(wire: &[u8], typ: u64) -> Result<Element, DecodeError> {
    let outer = read_element(wire, 0, wire.len())?;
    if outer.typ != typ {
        return Err(DecodeError::Unexpected {
            expected: typ,
            got: outer.typ,
            offset: 0,
        });
    }
    if outer.end() != wire.len() {
        return Err(DecodeError::TrailingBytes {
            offset: outer.end(),
        });
    }
    if wire.len() > u32::MAX as usize {
        return Err(DecodeError::BadLength { offset: 0 });
    }
    Ok(outer)
}

/// Reads the Name that must come first in the value `pos..end` of an Interest or
/// a Data.
#[inline(always)]
pub fn read_first_name(wire: &[u8], pos: usize, end: usize) -> Result<Element, DecodeError> {
    if pos >= end {
        return Err(DecodeError::Missing { field: "Name" });
    }
    let ne = read_element(wire, pos, end)?;
    if ne.typ != types::NAME {
        return Err(DecodeError::Unexpected {
            expected: types::NAME,
            got: ne.typ,
            offset: pos,
        });
    }
    Ok(ne)
}

/// Reads one TLV starting at `pos` that must end at or before `end`.
#[inline(always)]
pub fn read_element(buf: &[u8], pos: usize, end: usize) -> Result<Element, DecodeError> {
    let mut p = pos;
    let typ = read_varnum(buf, &mut p)?;
    if typ == 0 {
        return Err(DecodeError::InvalidType { typ, offset: pos });
    }
    let len = read_varnum(buf, &mut p)?;
    let end = end.min(buf.len());
    if p > end || len > (end - p) as u64 {
        return Err(DecodeError::Truncated { offset: pos });
    }
    Ok(Element {
        typ,
        offset: pos,
        header_len: p - pos,
        value: p..p + len as usize,
    })
}

/// Iterator over sibling TLVs in `buf[pos..end]` (no recursion); offsets are
/// relative to `buf`. After the first error it yields nothing more.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Elements<'a> {
    /// Siblings in `buf[range]`.
    pub fn new(buf: &'a [u8], range: Range<usize>) -> Self {
        Elements {
            buf,
            pos: range.start,
            end: range.end.min(buf.len()),
        }
    }
}

impl Iterator for Elements<'_> {
    type Item = Result<Element, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.end {
            return None;
        }
        match read_element(self.buf, self.pos, self.end) {
            Ok(e) => {
                self.pos = e.value.end;
                Some(Ok(e))
            }
            Err(err) => {
                self.pos = self.end;
                Some(Err(err))
            }
        }
    }
}

/// Iterates over the sibling TLVs filling `buf`.
pub fn elements(buf: &[u8]) -> Elements<'_> {
    Elements::new(buf, 0..buf.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varnum_forms() {
        for (n, hex) in [
            (0u64, "00"),
            (252, "fc"),
            (253, "fd00fd"),
            (0xFFFF, "fdffff"),
            (0x1_0000, "fe00010000"),
            (0xFFFF_FFFF, "feffffffff"),
            (0x1_0000_0000, "ff0000000100000000"),
        ] {
            let mut v = Vec::new();
            put_varnum(&mut v, n);
            assert_eq!(hex::encode(&v), hex, "{n}");
            assert_eq!(varnum_len(n), v.len());
            let mut pos = 0;
            assert_eq!(read_varnum(&v, &mut pos), Ok(n));
            assert_eq!(pos, v.len());
        }
    }

    #[test]
    fn varnum_rejects_non_minimal_and_truncated() {
        for hex in ["fd00fc", "fe0000ffff", "ff00000000ffffffff"] {
            let b = hex::decode(hex).unwrap();
            assert_eq!(
                read_varnum(&b, &mut 0),
                Err(DecodeError::NonMinimalVarNumber { offset: 0 })
            );
        }
        for hex in ["", "fd00", "fe000100", "ff00000001000000"] {
            let b = hex::decode(hex).unwrap();
            assert_eq!(
                read_varnum(&b, &mut 0),
                Err(DecodeError::Truncated { offset: 0 })
            );
        }
    }

    #[test]
    fn nni_forms() {
        for (n, hex) in [
            (0u64, "00"),
            (255, "ff"),
            (256, "0100"),
            (65536, "00010000"),
            (1 << 32, "0000000100000000"),
        ] {
            let mut v = Vec::new();
            put_nni(&mut v, n);
            assert_eq!(hex::encode(&v), hex);
            assert_eq!(read_nni(&v), Ok(n));
        }
        assert!(read_nni(&[0, 0, 1]).is_err());
        assert!(read_nni(&[]).is_err());
        // non-minimal NNI is accepted (the spec allows it)
        assert_eq!(read_nni(&[0, 5]), Ok(5));
    }

    #[test]
    fn elements_iterate_siblings() {
        // 08 01 61 | 08 00 | 21 00
        let b = hex::decode("080161080021 00".replace(' ', "")).unwrap();
        let v: Vec<_> = elements(&b).collect::<Result<_, _>>().unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].value, 2..3);
        assert_eq!(v[1].typ, 8);
        assert!(v[1].is_empty());
        assert_eq!(v[2].typ, 33);
        // length beyond buffer
        let b = hex::decode("08056161").unwrap();
        assert_eq!(
            elements(&b).next(),
            Some(Err(DecodeError::Truncated { offset: 0 }))
        );
        // type 0
        assert!(matches!(
            elements(&[0, 0]).next(),
            Some(Err(DecodeError::InvalidType { .. }))
        ));
    }

    #[test]
    fn criticality() {
        assert!(is_critical(1));
        assert!(is_critical(30));
        assert!(is_critical(31));
        assert!(!is_critical(32));
        assert!(is_critical(33));
        assert!(!is_critical(126));
    }
}
