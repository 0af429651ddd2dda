//! SignatureInfo (Data and Interest forms), KeyLocator, ValidityPeriod, the
//! [`Signer`] trait and the one signature this crate implements: DigestSha256.
//! Real key-based signatures live in `ndnlab-security`.

use core::fmt;

use bytes::{BufMut, Bytes};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::name::Name;
use crate::tlv::{self, types};
use crate::DecodeError;

/// SignatureType values.
pub mod sig_type {
    pub const DIGEST_SHA256: u64 = 0;
    pub const SHA256_WITH_RSA: u64 = 1;
    pub const SHA256_WITH_ECDSA: u64 = 3;
    pub const HMAC_WITH_SHA256: u64 = 4;
    pub const ED25519: u64 = 5;

    /// Human name of a signature type.
    pub fn name(t: u64) -> &'static str {
        match t {
            DIGEST_SHA256 => "DigestSha256",
            SHA256_WITH_RSA => "SignatureSha256WithRsa",
            SHA256_WITH_ECDSA => "SignatureSha256WithEcdsa",
            HMAC_WITH_SHA256 => "SignatureHmacWithSha256",
            ED25519 => "SignatureEd25519",
            _ => "Unknown",
        }
    }
}

/// Where to find the key that verifies a signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyLocator {
    /// A key or certificate name.
    Name(Name),
    /// KeyDigest: SHA-256 of the key (or another digest).
    Digest(Bytes),
}

impl KeyLocator {
    fn value_len(&self) -> usize {
        match self {
            KeyLocator::Name(n) => n.encoded_len(),
            KeyLocator::Digest(d) => tlv::tlv_len(types::KEY_DIGEST, d.len()),
        }
    }

    /// Size of the KeyLocator TLV.
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(types::KEY_LOCATOR, self.value_len())
    }

    /// Writes the KeyLocator TLV.
    pub fn encode(&self, out: &mut impl BufMut) {
        tlv::put_header(out, types::KEY_LOCATOR, self.value_len());
        match self {
            KeyLocator::Name(n) => n.encode(out),
            KeyLocator::Digest(d) => tlv::put_tlv(out, types::KEY_DIGEST, d),
        }
    }

    /// The name, if this locator is a name.
    pub fn name(&self) -> Option<&Name> {
        match self {
            KeyLocator::Name(n) => Some(n),
            KeyLocator::Digest(_) => None,
        }
    }
}

/// A UTC time in the `YYYYMMDDThhmmss` form of ValidityPeriod (second precision).
/// Ordering is chronological.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IsoTime([u8; 15]);

impl IsoTime {
    /// Parses and checks `YYYYMMDDThhmmss` (digits in range, a real calendar day).
    pub fn parse(s: &[u8]) -> Option<IsoTime> {
        let b: [u8; 15] = s.try_into().ok()?;
        if b[8] != b'T' {
            return None;
        }
        let digits = b[..8].iter().chain(&b[9..]).all(u8::is_ascii_digit);
        if !digits {
            return None;
        }
        let t = IsoTime(b);
        let (y, mo, d, h, mi, s) = t.fields();
        if !(1..=12).contains(&mo)
            || d < 1
            || d > days_in_month(y, mo)
            || h > 23
            || mi > 59
            || s > 60
        {
            return None;
        }
        Some(t)
    }

    fn num(&self, r: core::ops::Range<usize>) -> u64 {
        self.0[r]
            .iter()
            .fold(0u64, |a, &c| a * 10 + (c.wrapping_sub(b'0') as u64 % 10))
    }

    fn fields(&self) -> (u64, u64, u64, u64, u64, u64) {
        (
            self.num(0..4),
            self.num(4..6),
            self.num(6..8),
            self.num(9..11),
            self.num(11..13),
            self.num(13..15),
        )
    }

    /// From seconds since the Unix epoch (years up to 9999).
    pub fn from_unix(secs: u64) -> IsoTime {
        let secs = secs.min(253_402_300_799); // 9999-12-31T23:59:59
        let days = secs / 86400;
        let rem = secs % 86400;
        let (y, m, d) = civil_from_days(days as i64);
        let s = format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}",
            y,
            m,
            d,
            rem / 3600,
            rem / 60 % 60,
            rem % 60
        );
        let mut b = [0u8; 15];
        b.copy_from_slice(s.as_bytes());
        IsoTime(b)
    }

    /// Seconds since the Unix epoch (0 for times before 1970).
    pub fn to_unix(&self) -> u64 {
        let (y, mo, d, h, mi, s) = self.fields();
        let days = days_from_civil(y as i64, mo as i64, d as i64);
        if days < 0 {
            return 0;
        }
        days as u64 * 86400 + h * 3600 + mi * 60 + s
    }

    /// The 15 ASCII bytes.
    pub fn as_bytes(&self) -> &[u8; 15] {
        &self.0
    }
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

// Howard Hinnant's civil-date algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl fmt::Display for IsoTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(core::str::from_utf8(&self.0).unwrap_or("?"))
    }
}

impl fmt::Debug for IsoTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IsoTime({self})")
    }
}

/// ValidityPeriod of a certificate (inclusive bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValidityPeriod {
    pub not_before: IsoTime,
    pub not_after: IsoTime,
}

impl ValidityPeriod {
    /// Whether `unix_secs` falls inside the period.
    pub fn contains(&self, unix_secs: u64) -> bool {
        self.not_before.to_unix() <= unix_secs && unix_secs <= self.not_after.to_unix()
    }

    fn value_len() -> usize {
        2 * tlv::tlv_len(types::NOT_BEFORE, 15)
    }

    /// Size of the ValidityPeriod TLV.
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(types::VALIDITY_PERIOD, Self::value_len())
    }

    /// Writes the ValidityPeriod TLV.
    pub fn encode(&self, out: &mut impl BufMut) {
        tlv::put_header(out, types::VALIDITY_PERIOD, Self::value_len());
        tlv::put_tlv(out, types::NOT_BEFORE, &self.not_before.0);
        tlv::put_tlv(out, types::NOT_AFTER, &self.not_after.0);
    }
}

/// SignatureInfo of a Data or InterestSignatureInfo of a signed Interest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SignatureInfo {
    /// SignatureType (see [`sig_type`]).
    pub sig_type: u64,
    pub key_locator: Option<KeyLocator>,
    /// SignatureNonce (signed Interests).
    pub nonce: Option<Bytes>,
    /// SignatureTime, milliseconds since the Unix epoch (signed Interests).
    pub time: Option<u64>,
    /// SignatureSeqNum (signed Interests).
    pub seq_num: Option<u64>,
    pub validity: Option<ValidityPeriod>,
    /// Other (non-critical) elements, whole TLVs, kept in order and re-encoded last.
    pub other: Vec<Bytes>,
}

impl SignatureInfo {
    /// A SignatureInfo with only a type.
    pub fn new(sig_type: u64) -> Self {
        SignatureInfo {
            sig_type,
            ..Default::default()
        }
    }

    /// With a KeyLocator name.
    pub fn with_key_name(mut self, name: Name) -> Self {
        self.key_locator = Some(KeyLocator::Name(name));
        self
    }

    fn value_len(&self) -> usize {
        let mut n = tlv::nni_tlv_len(types::SIGNATURE_TYPE, self.sig_type);
        if let Some(k) = &self.key_locator {
            n += k.encoded_len();
        }
        if let Some(x) = &self.nonce {
            n += tlv::tlv_len(types::SIGNATURE_NONCE, x.len());
        }
        if let Some(t) = self.time {
            n += tlv::nni_tlv_len(types::SIGNATURE_TIME, t);
        }
        if let Some(s) = self.seq_num {
            n += tlv::nni_tlv_len(types::SIGNATURE_SEQ_NUM, s);
        }
        if let Some(v) = &self.validity {
            n += v.encoded_len();
        }
        n + self.other.iter().map(Bytes::len).sum::<usize>()
    }

    /// Size of the TLV with outer type `typ` (22 for Data, 44 for Interest).
    pub fn encoded_len(&self, typ: u64) -> usize {
        tlv::tlv_len(typ, self.value_len())
    }

    /// Writes the TLV with outer type `typ` (22 for Data, 44 for Interest).
    pub fn encode(&self, typ: u64, out: &mut impl BufMut) {
        tlv::put_header(out, typ, self.value_len());
        tlv::put_nni_tlv(out, types::SIGNATURE_TYPE, self.sig_type);
        if let Some(k) = &self.key_locator {
            k.encode(out);
        }
        if let Some(x) = &self.nonce {
            tlv::put_tlv(out, types::SIGNATURE_NONCE, x);
        }
        if let Some(t) = self.time {
            tlv::put_nni_tlv(out, types::SIGNATURE_TIME, t);
        }
        if let Some(s) = self.seq_num {
            tlv::put_nni_tlv(out, types::SIGNATURE_SEQ_NUM, s);
        }
        if let Some(v) = &self.validity {
            v.encode(out);
        }
        for o in &self.other {
            out.put_slice(o);
        }
    }

    /// Parses the TLV-VALUE at `buf[value]` (offsets in errors are in `buf`).
    pub(crate) fn parse(buf: &Bytes, value: core::ops::Range<usize>) -> Result<Self, DecodeError> {
        let mut si = SignatureInfo::default();
        si.sig_type = walk(buf, value, |f| match f {
            Field::KeyName(r) => {
                // validated by walk
                if let Ok(n) = crate::Name::parse_at(buf, r) {
                    si.key_locator = Some(KeyLocator::Name(n));
                }
            }
            Field::KeyDigest(r) => si.key_locator = Some(KeyLocator::Digest(buf.slice(r))),
            Field::Nonce(r) => si.nonce = Some(buf.slice(r)),
            Field::Time(t) => si.time = Some(t),
            Field::SeqNum(n) => si.seq_num = Some(n),
            Field::Validity(v) => si.validity = Some(v),
            Field::Other(r) => si.other.push(buf.slice(r)),
        })?;
        Ok(si)
    }

    /// Checks the TLV-VALUE at `buf[value]` exactly as [`SignatureInfo::parse`]
    /// does, without building anything; returns the SignatureType.
    #[inline]
    pub(crate) fn validate(buf: &[u8], value: core::ops::Range<usize>) -> Result<u64, DecodeError> {
        walk(buf, value, |_| {})
    }
}

/// One SignatureInfo element found by [`walk`] (ranges in the buffer).
enum Field {
    KeyName(core::ops::Range<usize>),
    KeyDigest(core::ops::Range<usize>),
    Nonce(core::ops::Range<usize>),
    Time(u64),
    SeqNum(u64),
    Validity(ValidityPeriod),
    Other(core::ops::Range<usize>),
}

/// Validates a SignatureInfo TLV-VALUE, reporting each element; returns the
/// SignatureType. Repeated known elements and unknown critical ones are errors.
#[inline]
fn walk(
    buf: &[u8],
    value: core::ops::Range<usize>,
    mut on: impl FnMut(Field),
) -> Result<u64, DecodeError> {
    let mut it = tlv::Elements::new(buf, value);
    let first = it.next().ok_or(DecodeError::Missing {
        field: "SignatureType",
    })??;
    if first.typ != types::SIGNATURE_TYPE {
        return Err(DecodeError::Unexpected {
            expected: types::SIGNATURE_TYPE,
            got: first.typ,
            offset: first.offset,
        });
    }
    let sig_type = tlv::read_nni_at(&buf[first.value.clone()], first.offset)?;
    let mut seen = 0u8;
    for e in it {
        let e = e?;
        let bit = match e.typ {
            types::KEY_LOCATOR => 1,
            types::SIGNATURE_NONCE => 2,
            types::SIGNATURE_TIME => 4,
            types::SIGNATURE_SEQ_NUM => 8,
            types::VALIDITY_PERIOD => 16,
            t if tlv::is_critical(t) => {
                return Err(DecodeError::UnknownCritical {
                    typ: t,
                    offset: e.offset,
                })
            }
            _ => {
                on(Field::Other(e.range()));
                continue;
            }
        };
        if seen & bit != 0 {
            return Err(DecodeError::OutOfOrder {
                typ: e.typ,
                offset: e.offset,
            });
        }
        seen |= bit;
        let v = &buf[e.value.clone()];
        match e.typ {
            types::KEY_LOCATOR => {
                if e.is_empty() {
                    return Err(DecodeError::Missing {
                        field: "KeyLocator content",
                    });
                }
                let inner = tlv::read_element(buf, e.value.start, e.value.end)?;
                if inner.end() != e.value.end {
                    return Err(DecodeError::BadLength { offset: e.offset });
                }
                match inner.typ {
                    types::NAME => {
                        crate::Name::scan(buf, inner.value.clone())?;
                        on(Field::KeyName(inner.value));
                    }
                    types::KEY_DIGEST => on(Field::KeyDigest(inner.value)),
                    t => {
                        return Err(DecodeError::Unexpected {
                            expected: types::NAME,
                            got: t,
                            offset: inner.offset,
                        })
                    }
                }
            }
            types::SIGNATURE_NONCE => on(Field::Nonce(e.value.clone())),
            types::SIGNATURE_TIME => on(Field::Time(tlv::read_nni_at(v, e.value.start)?)),
            types::SIGNATURE_SEQ_NUM => on(Field::SeqNum(tlv::read_nni_at(v, e.value.start)?)),
            _ => on(Field::Validity(parse_validity(buf, &e)?)),
        }
    }
    Ok(sig_type)
}

pub(crate) fn parse_validity(buf: &[u8], e: &tlv::Element) -> Result<ValidityPeriod, DecodeError> {
    let mut it = tlv::Elements::new(buf, e.value.clone());
    let mut time = |typ: u64, field: &'static str| -> Result<IsoTime, DecodeError> {
        let x = it.next().ok_or(DecodeError::Missing { field })??;
        if x.typ != typ {
            return Err(DecodeError::Unexpected {
                expected: typ,
                got: x.typ,
                offset: x.offset,
            });
        }
        IsoTime::parse(&buf[x.value.clone()]).ok_or(DecodeError::BadValue {
            field,
            offset: x.value.start,
        })
    };
    let not_before = time(types::NOT_BEFORE, "NotBefore")?;
    let not_after = time(types::NOT_AFTER, "NotAfter")?;
    if let Some(x) = it.next() {
        let x = x?;
        return Err(DecodeError::UnknownCritical {
            typ: x.typ,
            offset: x.offset,
        });
    }
    Ok(ValidityPeriod {
        not_before,
        not_after,
    })
}

/// Why signing failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SignError {
    /// The key is missing or unusable.
    #[error("key unavailable: {0}")]
    Key(String),
    /// The crypto backend failed.
    #[error("signing failed: {0}")]
    Failed(String),
}

/// Something that signs packets (a key, or the DigestSha256 "signature").
pub trait Signer: Send + Sync {
    /// The SignatureInfo to put in the packet (type and KeyLocator).
    fn signature_info(&self) -> SignatureInfo;
    /// The SignatureValue over `signed_portion`.
    fn sign(&self, signed_portion: &[u8]) -> Result<Vec<u8>, SignError>;
    /// Upper bound of the SignatureValue size, for buffer sizing (a hint).
    fn max_signature_len(&self) -> usize {
        64
    }
}

/// DigestSha256 (type 0): SHA-256 of the signed portion, no key.
#[derive(Debug, Clone, Copy, Default)]
pub struct DigestSha256;

impl Signer for DigestSha256 {
    fn signature_info(&self) -> SignatureInfo {
        SignatureInfo::new(sig_type::DIGEST_SHA256)
    }

    fn sign(&self, signed_portion: &[u8]) -> Result<Vec<u8>, SignError> {
        Ok(Sha256::digest(signed_portion).to_vec())
    }

    fn max_signature_len(&self) -> usize {
        32
    }
}

impl DigestSha256 {
    /// Checks a DigestSha256 signature value.
    pub fn verify(signed_portion: &[u8], value: &[u8]) -> bool {
        Sha256::digest(signed_portion).as_slice() == value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_time_roundtrip() {
        let t = IsoTime::parse(b"20240229T235959").unwrap();
        assert_eq!(IsoTime::from_unix(t.to_unix()), t);
        assert_eq!(IsoTime::from_unix(0).to_string(), "19700101T000000");
        assert_eq!(
            IsoTime::from_unix(1_700_000_000).to_string(),
            "20231114T221320"
        );
        assert!(IsoTime::parse(b"20230229T000000").is_none());
        assert!(IsoTime::parse(b"20231301T000000").is_none());
        assert!(IsoTime::parse(b"20230101 000000").is_none());
        assert!(IsoTime::parse(b"2023010T000000").is_none());
    }

    #[test]
    fn signature_info_roundtrip() {
        let si = SignatureInfo {
            sig_type: 3,
            key_locator: Some(KeyLocator::Name("/a/KEY/x".parse().unwrap())),
            nonce: Some(Bytes::from_static(&[1, 2, 3, 4])),
            time: Some(1_700_000_000_000),
            seq_num: Some(7),
            validity: Some(ValidityPeriod {
                not_before: IsoTime::from_unix(0),
                not_after: IsoTime::from_unix(1 << 32),
            }),
            other: vec![Bytes::from_static(&[0xfd, 0x01, 0x02, 0x00])],
        };
        let mut v = Vec::new();
        si.encode(22, &mut v);
        assert_eq!(v.len(), si.encoded_len(22));
        let b = Bytes::from(v);
        let e = tlv::read_element(&b, 0, b.len()).unwrap();
        assert_eq!(SignatureInfo::parse(&b, e.value).unwrap(), si);
    }

    #[test]
    fn digest_signer() {
        let v = DigestSha256.sign(b"abc").unwrap();
        assert_eq!(
            hex::encode(&v),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(DigestSha256::verify(b"abc", &v));
    }
}
