//! Prefix announcements (the object ndn-cxx calls `PrefixAnnouncement`): a signed
//! Data that announces a name prefix, carried by the NDNLPv2 PrefixAnnouncement field
//! (self-learning) and by the `rib/announce` command.
//!
//! ```text
//! Data
//!   Name         <announced prefix>/32=PA/v=<version>/seg=0
//!   MetaInfo     ContentType PrefixAnn (5)
//!   Content      ExpirationPeriod (109, milliseconds) [ValidityPeriod (253)]
//!   SignatureInfo, SignatureValue
//! ```
//!
//! Decoding checks what ndn-cxx checks: the name structure (keyword `PA`, a version,
//! a segment), the ContentType, a non-empty content with an ExpirationPeriod, an
//! optional ValidityPeriod, and no other element of a critical type.

use bytes::{Bytes, BytesMut};
use thiserror::Error;

use crate::data::content_type;
use crate::signature::{parse_validity, ValidityPeriod};
use crate::tlv::{self, types};
use crate::{Component, Data, DataBuilder, DecodeError, Name};

/// TLV-TYPE of ExpirationPeriod (an NFD management element, reused by the content).
pub const EXPIRATION_PERIOD: u64 = 109;

/// The keyword component `32=PA` that precedes the version.
pub const KEYWORD: Component<'static> = Component::new(types::KEYWORD_NAME_COMPONENT, b"PA");

/// Why a Data is not a prefix announcement (texts as ndn-cxx words them).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PrefixAnnError {
    /// Not a valid Data packet at all.
    #[error("not a Data packet: {0}")]
    Data(DecodeError),
    /// The name does not end with `32=PA/v=<version>/seg=<n>`.
    #[error("Data is not a prefix announcement: wrong name structure")]
    NameStructure,
    /// The ContentType is not PrefixAnn.
    #[error("Data is not a prefix announcement: ContentType is {0}")]
    ContentType(u64),
    /// The Content is empty.
    #[error("Prefix announcement is empty")]
    Empty,
    /// The Content is not a sequence of elements with an ExpirationPeriod.
    #[error("malformed prefix announcement content: {0}")]
    Content(DecodeError),
    /// The Content holds an unknown element of a critical type.
    #[error("Unrecognized element of critical type {0}")]
    UnknownCritical(u64),
}

/// A decoded prefix announcement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixAnnouncement {
    data: Data,
    announced: Name,
    expiration_ms: u64,
    validity: Option<ValidityPeriod>,
}

impl PrefixAnnouncement {
    /// Decodes and checks a prefix-announcement Data TLV.
    pub fn decode(wire: Bytes) -> Result<Self, PrefixAnnError> {
        Self::from_data(Data::decode(wire).map_err(PrefixAnnError::Data)?)
    }

    /// Checks a decoded Data.
    pub fn from_data(data: Data) -> Result<Self, PrefixAnnError> {
        let name = data.name();
        let n = name.len();
        let structured = n >= 3
            && name.get(n - 3) == Some(KEYWORD)
            && name.get(n - 2).and_then(|c| c.as_version()).is_some()
            && name.get(n - 1).and_then(|c| c.as_segment()).is_some();
        if !structured {
            return Err(PrefixAnnError::NameStructure);
        }
        let announced = name.prefix(n - 3);
        if data.content_type() != content_type::PREFIX_ANN {
            return Err(PrefixAnnError::ContentType(data.content_type()));
        }
        let content = data.content();
        if content.is_empty() {
            return Err(PrefixAnnError::Empty);
        }
        let mut expiration_ms = None;
        let mut validity = None;
        for e in tlv::Elements::new(&content, 0..content.len()) {
            let e = e.map_err(PrefixAnnError::Content)?;
            let v = &content[e.value.clone()];
            match e.typ {
                EXPIRATION_PERIOD if expiration_ms.is_none() => {
                    expiration_ms =
                        Some(tlv::read_nni_at(v, e.value.start).map_err(PrefixAnnError::Content)?);
                }
                types::VALIDITY_PERIOD if validity.is_none() => {
                    validity = Some(parse_validity(&content, &e).map_err(PrefixAnnError::Content)?);
                }
                EXPIRATION_PERIOD | types::VALIDITY_PERIOD => {}
                t if tlv::is_critical(t) => return Err(PrefixAnnError::UnknownCritical(t)),
                _ => {}
            }
        }
        let expiration_ms = expiration_ms.ok_or(PrefixAnnError::Content(DecodeError::Missing {
            field: "ExpirationPeriod",
        }))?;
        Ok(PrefixAnnouncement {
            data,
            announced,
            expiration_ms,
            validity,
        })
    }

    /// The announced prefix (the Data name without its last three components).
    pub fn announced_name(&self) -> &Name {
        &self.announced
    }

    /// ExpirationPeriod, in milliseconds.
    pub fn expiration_ms(&self) -> u64 {
        self.expiration_ms
    }

    /// ValidityPeriod, if any.
    pub fn validity(&self) -> Option<&ValidityPeriod> {
        self.validity.as_ref()
    }

    /// The Data.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The Data TLV.
    pub fn wire(&self) -> &Bytes {
        self.data.wire()
    }

    /// How long a route made from this announcement lives, in milliseconds, at
    /// `unix_ms` (NFD's route expiration): the ExpirationPeriod, cut to the end of the
    /// ValidityPeriod, or 0 outside the ValidityPeriod.
    pub fn route_lifetime_ms(&self, unix_ms: u64) -> u64 {
        let Some(v) = &self.validity else {
            return self.expiration_ms;
        };
        if !v.contains(unix_ms / 1000) {
            return 0;
        }
        let end_ms = v.not_after.to_unix().saturating_mul(1000);
        self.expiration_ms.min(end_ms.saturating_sub(unix_ms))
    }

    /// An unsigned announcement of `prefix` (to sign with [`DataBuilder::sign`] or
    /// [`DataBuilder::sign_digest`]): ExpirationPeriod `expiration_ms`, an optional
    /// ValidityPeriod, named `prefix/32=PA/v=<version>/seg=0`.
    pub fn builder(
        prefix: &Name,
        expiration_ms: u64,
        validity: Option<&ValidityPeriod>,
        version: u64,
    ) -> DataBuilder {
        let name = prefix
            .append(KEYWORD)
            .append_version(version)
            .append_segment(0);
        let len = tlv::nni_tlv_len(EXPIRATION_PERIOD, expiration_ms)
            + validity.map_or(0, ValidityPeriod::encoded_len);
        let mut content = BytesMut::with_capacity(len);
        tlv::put_nni_tlv(&mut content, EXPIRATION_PERIOD, expiration_ms);
        if let Some(v) = validity {
            v.encode(&mut content);
        }
        debug_assert_eq!(content.len(), len);
        Data::builder(name)
            .content_type(content_type::PREFIX_ANN)
            .content(content.freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::IsoTime;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    #[test]
    fn builds_and_decodes() {
        let wire =
            PrefixAnnouncement::builder(&n("/net/example"), 3_600_000, None, 7).sign_digest();
        let pa = PrefixAnnouncement::decode(wire.clone()).unwrap();
        assert_eq!(pa.announced_name(), &n("/net/example"));
        assert_eq!(pa.expiration_ms(), 3_600_000);
        assert!(pa.validity().is_none());
        assert_eq!(pa.data().name().to_string(), "/net/example/32=PA/v=7/seg=0");
        assert_eq!(pa.wire(), &wire);
        assert_eq!(pa.route_lifetime_ms(1_700_000_000_000), 3_600_000);
    }

    #[test]
    fn content_bytes_are_the_expiration_period_then_the_validity_period() {
        let v = ValidityPeriod {
            not_before: IsoTime::parse(b"20240101T000000").unwrap(),
            not_after: IsoTime::parse(b"20240101T000010").unwrap(),
        };
        let wire = PrefixAnnouncement::builder(&n("/p"), 10_000, Some(&v), 1).sign_digest();
        let pa = PrefixAnnouncement::decode(wire).unwrap();
        let c = pa.data().content();
        // ExpirationPeriod 109 (0x6d), 2 bytes: 10000 = 0x2710.
        assert_eq!(&c[..4], &[0x6d, 0x02, 0x27, 0x10]);
        // ValidityPeriod 253 (0xfd 0x00 0xfd), 38 bytes: NotBefore 254 and NotAfter 255,
        // each a 3-byte type, a length and 15 bytes.
        assert_eq!(&c[4..8], &[0xfd, 0x00, 0xfd, 38]);
        assert_eq!(&c[8..11], &[0xfd, 0x00, 0xfe]);
        assert_eq!(pa.validity(), Some(&v));
        let start = v.not_before.to_unix() * 1000;
        // Inside the period: cut to its end (10 s after the start).
        assert_eq!(pa.route_lifetime_ms(start + 4_000), 6_000);
        // Outside: 0.
        assert_eq!(pa.route_lifetime_ms(start + 11_000), 0);
        assert_eq!(pa.route_lifetime_ms(start - 1_000), 0);
    }

    #[test]
    fn rejects_what_ndn_cxx_rejects() {
        let plain = Data::builder(n("/p/32=PA/v=1/seg=0"))
            .content(&b"\x6d\x01\x05"[..])
            .sign_digest();
        assert_eq!(
            PrefixAnnouncement::decode(plain).unwrap_err(),
            PrefixAnnError::ContentType(0)
        );
        let bad_name = Data::builder(n("/p/PA/v=1/seg=0"))
            .content_type(content_type::PREFIX_ANN)
            .content(&b"\x6d\x01\x05"[..])
            .sign_digest();
        assert_eq!(
            PrefixAnnouncement::decode(bad_name).unwrap_err(),
            PrefixAnnError::NameStructure
        );
        let ann = |content: &'static [u8]| {
            Data::builder(n("/p/32=PA/v=1/seg=0"))
                .content_type(content_type::PREFIX_ANN)
                .content(content)
                .sign_digest()
        };
        assert_eq!(
            PrefixAnnouncement::decode(ann(b"")).unwrap_err(),
            PrefixAnnError::Empty
        );
        assert!(matches!(
            PrefixAnnouncement::decode(ann(b"\x80\x00")).unwrap_err(),
            PrefixAnnError::Content(DecodeError::Missing { .. })
        ));
        assert_eq!(
            PrefixAnnouncement::decode(ann(b"\x6d\x01\x05\x81\x00")).unwrap_err(),
            PrefixAnnError::UnknownCritical(0x81)
        );
        // A non-critical unknown element is ignored.
        let pa = PrefixAnnouncement::decode(ann(b"\x6d\x01\x05\x80\x00")).unwrap();
        assert_eq!(pa.expiration_ms(), 5);
        assert_eq!(pa.announced_name(), &n("/p"));
    }
}
