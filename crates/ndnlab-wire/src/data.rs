//! [`Data`]: a checked zero-copy view (content is a slice of the wire bytes).

use core::ops::Range;
use core::time::Duration;
use std::sync::OnceLock;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::component::{Component, OwnedComponent};
use crate::data_builder::DataBuilder;
use crate::name::Name;
use crate::signature::SignatureInfo;
use crate::tlv::{self, types};
use crate::DecodeError;

/// ContentType values.
pub mod content_type {
    pub const BLOB: u64 = 0;
    pub const LINK: u64 = 1;
    pub const KEY: u64 = 2;
    pub const NACK: u64 = 3;
    pub const MANIFEST: u64 = 4;
    pub const PREFIX_ANN: u64 = 5;
    pub const FLIC: u64 = 1024;
}

/// A decoded Data packet. Accessors never fail.
///
/// The view records where its elements start and re-reads their (already
/// validated) headers on access, to stay at 128 bytes: views are moved by value
/// (into the forwarder, through bursts), and the compiler moves up to 128 bytes
/// inline but calls `memcpy` for more (~35 instructions per move of the former
/// 200-byte view, measured with callgrind).
#[derive(Debug, Clone)]
pub struct Data {
    /// the name; its backing buffer is the whole Data wire
    name: Name,
    /// offset of the MetaInfo TLV; 0 = absent
    meta_at: u32,
    /// offset of the Content TLV; 0 = absent
    content_at: u32,
    /// offset of the SignatureInfo TLV (its end is the end of the signed portion;
    /// SignatureValue is the next element of that type)
    sig_info_at: u32,
    /// FreshnessPeriod (read on every CS insert, so kept decoded)
    freshness_ms: u64,
    has_freshness: bool,
    /// SignatureInfo and implicit digest, computed on first use
    lazy: OnceLock<Box<Lazy>>,
}

/// What a [`Data`] computes on first use (one box for both, to keep the view small).
#[derive(Debug, Clone, Default)]
struct Lazy {
    sig_info: OnceLock<SignatureInfo>,
    digest: OnceLock<[u8; 32]>,
}

/// What the decoders record, as in [`Data`].
#[derive(Default)]
struct ElementOffsets {
    meta: u32,
    content: u32,
    sig_info: u32,
    freshness: Option<u64>,
    has_sig_info: bool,
    has_sig_value: bool,
}

fn order(typ: u64) -> Option<u8> {
    Some(match typ {
        types::META_INFO => 1,
        types::CONTENT => 2,
        types::SIGNATURE_INFO => 3,
        types::SIGNATURE_VALUE => 4,
        _ => return None,
    })
}

impl Data {
    /// A builder for a new Data packet.
    pub fn builder(name: Name) -> DataBuilder {
        DataBuilder::new(name)
    }

    /// Validates a Data TLV (the whole of `wire`) and records its offsets.
    pub fn decode(wire: Bytes) -> Result<Data, DecodeError> {
        let outer = tlv::read_packet(&wire, types::DATA)?;
        let end = outer.end();
        let mut pos = outer.value.start;
        let ne = tlv::read_first_name(&wire, pos, end)?;
        let name_offs = Name::scan(&wire, ne.value.clone())?;
        pos = ne.end();
        let mut at = ElementOffsets::default();
        let mut last = 0u8;
        while pos < end {
            let e = tlv::read_element(&wire, pos, end)?;
            pos = e.end();
            let Some(ord) = order(e.typ) else {
                if tlv::is_critical(e.typ) {
                    return Err(DecodeError::UnknownCritical {
                        typ: e.typ,
                        offset: e.offset,
                    });
                }
                continue;
            };
            if ord <= last {
                return Err(DecodeError::OutOfOrder {
                    typ: e.typ,
                    offset: e.offset,
                });
            }
            last = ord;
            match e.typ {
                types::META_INFO => {
                    at.meta = e.offset as u32;
                    let mut mlast = 0u8;
                    for m in tlv::Elements::new(&wire, e.value.clone()) {
                        let m = m?;
                        let mord = match m.typ {
                            types::CONTENT_TYPE => 1,
                            types::FRESHNESS_PERIOD => 2,
                            types::FINAL_BLOCK_ID => 3,
                            t if tlv::is_critical(t) => {
                                return Err(DecodeError::UnknownCritical {
                                    typ: t,
                                    offset: m.offset,
                                })
                            }
                            _ => continue,
                        };
                        if mord <= mlast {
                            return Err(DecodeError::OutOfOrder {
                                typ: m.typ,
                                offset: m.offset,
                            });
                        }
                        mlast = mord;
                        let v = &wire[m.value.clone()];
                        match mord {
                            1 => {
                                tlv::read_nni_at(v, m.value.start)?;
                            }
                            2 => at.freshness = Some(tlv::read_nni_at(v, m.value.start)?),
                            _ => {
                                let c = tlv::read_element(&wire, m.value.start, m.value.end)?;
                                if c.end() != m.value.end {
                                    return Err(DecodeError::BadLength { offset: m.offset });
                                }
                                // validate as a one-component name
                                Name::scan(&wire, m.value.clone())?;
                            }
                        }
                    }
                }
                types::CONTENT => at.content = e.offset as u32,
                types::SIGNATURE_INFO => {
                    SignatureInfo::validate(&wire, e.value.clone())?;
                    at.sig_info = e.offset as u32;
                    at.has_sig_info = true;
                }
                _ => at.has_sig_value = true,
            }
        }
        Data::from_parts(Name::from_backing(wire, ne.value, name_offs), at)
    }

    /// The view over what a decoder recorded; both signature elements are required.
    fn from_parts(name: Name, at: ElementOffsets) -> Result<Data, DecodeError> {
        if !at.has_sig_info {
            return Err(DecodeError::Missing {
                field: "SignatureInfo",
            });
        }
        if !at.has_sig_value {
            return Err(DecodeError::Missing {
                field: "SignatureValue",
            });
        }
        Ok(Data {
            name,
            meta_at: at.meta,
            content_at: at.content,
            sig_info_at: at.sig_info,
            freshness_ms: at.freshness.unwrap_or(0),
            has_freshness: at.freshness.is_some(),
            lazy: OnceLock::new(),
        })
    }

    /// A cheaper decode for bytes that an earlier [`Data::decode`] accepted (a
    /// cache handing out a packet it stored, for example): it re-derives only the
    /// offsets the view records. It still bounds-checks every TLV it reads, but does
    /// not re-check element order, unknown critical types or SignatureInfo's nested
    /// elements (only the leading SignatureType is read).
    /// The name's component offsets are copied from `name_hint` when its TLV-VALUE
    /// is byte-for-byte the Data's name (e.g. the Interest that matched exactly),
    /// else scanned (and validated) as in `decode`.
    ///
    /// On bytes `decode` accepted, the result equals `decode`'s. For other input it
    /// returns an error or a view whose accessors still never panic (its fields may
    /// then differ from what a strict decode would report; `signature_info` falls
    /// back to a bare SignatureInfo of the recorded type).
    pub fn decode_prevalidated(wire: Bytes, name_hint: Option<&Name>) -> Result<Data, DecodeError> {
        let outer = tlv::read_element(&wire, 0, wire.len())?;
        if outer.typ != types::DATA || outer.end() != wire.len() || wire.len() > u32::MAX as usize {
            return Err(DecodeError::BadValue {
                field: "Data",
                offset: 0,
            });
        }
        let end = outer.end();
        let ne = tlv::read_element(&wire, outer.value.start, end)?;
        if ne.typ != types::NAME {
            return Err(DecodeError::Missing { field: "Name" });
        }
        let name_offs = Name::scan_with_hint(&wire, ne.value.clone(), name_hint)?;
        let mut pos = ne.end();
        let mut at = ElementOffsets::default();
        while pos < end {
            let e = tlv::read_element(&wire, pos, end)?;
            pos = e.end();
            match e.typ {
                types::META_INFO => {
                    at.meta = e.offset as u32;
                    for m in tlv::Elements::new(&wire, e.value.clone()) {
                        let m = m?;
                        let v = &wire[m.value.clone()];
                        match m.typ {
                            types::CONTENT_TYPE => {
                                tlv::read_nni_at(v, m.value.start)?;
                            }
                            types::FRESHNESS_PERIOD => {
                                at.freshness = Some(tlv::read_nni_at(v, m.value.start)?)
                            }
                            types::FINAL_BLOCK_ID => {
                                // rare, and what `final_block_id` hands out: checked as in `decode`
                                let c = tlv::read_element(&wire, m.value.start, m.value.end)?;
                                if c.end() != m.value.end {
                                    return Err(DecodeError::BadLength { offset: m.offset });
                                }
                                Name::scan(&wire, m.value.clone())?;
                            }
                            _ => {}
                        }
                    }
                }
                types::CONTENT => at.content = e.offset as u32,
                types::SIGNATURE_INFO => {
                    let t = tlv::read_element(&wire, e.value.start, e.value.end)?;
                    if t.typ != types::SIGNATURE_TYPE {
                        return Err(DecodeError::Missing {
                            field: "SignatureType",
                        });
                    }
                    tlv::read_nni_at(&wire[t.value.clone()], t.value.start)?;
                    at.sig_info = e.offset as u32;
                    at.has_sig_info = true;
                }
                types::SIGNATURE_VALUE => at.has_sig_value = true,
                _ => {}
            }
        }
        Data::from_parts(Name::from_backing(wire, ne.value, name_offs), at)
    }

    /// The element whose TLV starts at `at` (recorded by a decoder, so it reads;
    /// `None` only for bytes `decode_prevalidated` took on trust).
    #[inline]
    fn element_at(&self, at: u32) -> Option<tlv::Element> {
        let w = self.name.backing();
        tlv::read_element(w, at as usize, w.len()).ok()
    }

    /// TLV-VALUE range of the element at `at`, if recorded (`at != 0`).
    #[inline]
    fn value_at(&self, at: u32) -> Option<Range<usize>> {
        if at == 0 {
            return None;
        }
        self.element_at(at).map(|e| e.value)
    }

    /// The MetaInfo element of type `typ` (first one), as a TLV-VALUE range.
    fn meta_field(&self, typ: u64) -> Option<Range<usize>> {
        let meta = self.value_at(self.meta_at)?;
        tlv::Elements::new(self.name.backing(), meta)
            .map_while(Result::ok)
            .find(|m| m.typ == typ)
            .map(|m| m.value)
    }

    /// A non-negative integer at `r` in the wire (0 if it does not read).
    #[inline]
    fn nni(&self, r: Range<usize>) -> u64 {
        let start = r.start;
        self.name
            .backing()
            .get(r)
            .and_then(|v| tlv::read_nni_at(v, start).ok())
            .unwrap_or(0)
    }

    fn lazy(&self) -> &Lazy {
        self.lazy.get_or_init(Default::default)
    }

    /// The name.
    #[inline]
    pub fn name(&self) -> &Name {
        &self.name
    }

    /// ContentType (BLOB when absent).
    #[inline]
    pub fn content_type(&self) -> u64 {
        self.content_type_field().unwrap_or(content_type::BLOB)
    }

    /// ContentType as written: `None` when the element is absent.
    pub fn content_type_field(&self) -> Option<u64> {
        self.meta_field(types::CONTENT_TYPE).map(|r| self.nni(r))
    }

    /// Whether a MetaInfo element is present (possibly with no field).
    pub fn has_meta_info(&self) -> bool {
        self.meta_at != 0
    }

    /// A builder holding every field of this Data as written (ContentType only
    /// if present, an empty MetaInfo kept, the same SignatureInfo; unknown
    /// non-critical elements are dropped), to re-encode or re-sign it.
    pub fn to_builder(&self) -> DataBuilder {
        let mut b = DataBuilder::new(self.name.clone())
            .empty_meta_info(self.has_meta_info())
            .signature_info(self.signature_info().clone());
        if let Some(t) = self.content_type_field() {
            b = b.content_type(t);
        }
        if let Some(f) = self.freshness_ms() {
            b = b.freshness_ms(f);
        }
        if let Some(c) = self.final_block_id() {
            b = b.final_block_id(c);
        }
        if self.has_content() {
            b = b.content(self.content());
        }
        b
    }

    /// FreshnessPeriod in milliseconds, if present.
    #[inline]
    fn freshness_ms(&self) -> Option<u64> {
        self.has_freshness.then_some(self.freshness_ms)
    }

    /// FreshnessPeriod, if present.
    #[inline]
    pub fn freshness_period(&self) -> Option<Duration> {
        self.freshness_ms().map(Duration::from_millis)
    }

    /// FreshnessPeriod in nanoseconds, 0 when absent (stale at once). A period
    /// longer than `u64::MAX` ns (about 584 years) is `u64::MAX`: it clamps, never
    /// wraps to a short one.
    #[inline]
    pub fn freshness_ns(&self) -> u64 {
        self.freshness_ms()
            .map_or(0, |ms| ms.saturating_mul(1_000_000))
    }

    /// FinalBlockId component.
    pub fn final_block_id(&self) -> Option<Component<'_>> {
        let r = self.meta_field(types::FINAL_BLOCK_ID)?;
        let b = self.name.backing().get(r)?;
        let mut p = 0;
        let typ = tlv::read_varnum(b, &mut p).ok()?;
        tlv::read_varnum(b, &mut p).ok()?;
        Some(Component::new(typ, &b[p..]))
    }

    /// FinalBlockId as an owned component.
    pub fn final_block_id_owned(&self) -> Option<OwnedComponent> {
        self.final_block_id().map(OwnedComponent::from)
    }

    /// Content TLV-VALUE, zero-copy (empty if absent).
    #[inline]
    pub fn content(&self) -> Bytes {
        match self.value_at(self.content_at) {
            Some(r) => self.name.backing().slice(r),
            None => Bytes::new(),
        }
    }

    /// Content TLV-VALUE as a slice (empty if absent).
    #[inline]
    pub fn content_slice(&self) -> &[u8] {
        self.value_at(self.content_at)
            .and_then(|r| self.name.backing().get(r))
            .unwrap_or(&[])
    }

    /// Whether a Content element is present.
    pub fn has_content(&self) -> bool {
        self.content_at != 0
    }

    /// SignatureInfo (parsed on first call; validated by `decode`).
    pub fn signature_info(&self) -> &SignatureInfo {
        self.lazy().sig_info.get_or_init(|| {
            // cannot fail: `decode` validated the same bytes with the same code
            self.element_at(self.sig_info_at)
                .and_then(|e| SignatureInfo::parse(self.name.backing(), e.value).ok())
                .unwrap_or_else(|| SignatureInfo::new(self.signature_type()))
        })
    }

    /// SignatureType.
    #[inline]
    pub fn signature_type(&self) -> u64 {
        // The first element of SignatureInfo (both decoders check it).
        let w = self.name.backing();
        self.element_at(self.sig_info_at)
            .and_then(|e| tlv::read_element(w, e.value.start, e.value.end).ok())
            .map_or(0, |t| self.nni(t.value))
    }

    /// SignatureValue TLV-VALUE.
    #[inline]
    pub fn signature_value(&self) -> &[u8] {
        // After SignatureInfo (only unknown non-critical elements may come between).
        let w = self.name.backing();
        self.element_at(self.sig_info_at)
            .and_then(|si| {
                tlv::Elements::new(w, si.end()..w.len())
                    .map_while(Result::ok)
                    .find(|e| e.typ == types::SIGNATURE_VALUE)
            })
            .and_then(|e| w.get(e.value))
            .unwrap_or(&[])
    }

    /// The signed portion: from the Name TLV to the end of SignatureInfo.
    #[inline]
    pub fn signed_portion(&self) -> &[u8] {
        let w = self.name.backing();
        // The Name TLV is the Data's first element.
        let start = tlv::read_element(w, 0, w.len()).map_or(0, |outer| outer.value.start);
        let end = self.element_at(self.sig_info_at).map_or(0, |e| e.end());
        w.get(start..end).unwrap_or(&[])
    }

    /// SHA-256 of the whole Data TLV (computed once, then cached).
    pub fn implicit_digest(&self) -> [u8; 32] {
        *self
            .lazy()
            .digest
            .get_or_init(|| Sha256::digest(self.name.backing()).into())
    }

    /// The name with the implicit digest component appended.
    pub fn full_name(&self) -> Name {
        self.name
            .append(OwnedComponent::implicit_digest(self.implicit_digest()).as_component())
    }

    /// Whether this Data can satisfy an Interest for `interest_name` with
    /// CanBePrefix `can_be_prefix` (implicit digest handled; MustBeFresh is the
    /// CS's business).
    pub fn matches_name(&self, interest_name: &Name, can_be_prefix: bool) -> bool {
        if interest_name.len() == self.name.len() + 1 {
            if let Some(last) = interest_name.last() {
                if last.is_implicit_digest() {
                    return interest_name.prefix(self.name.len()) == self.name
                        && last.value == self.implicit_digest();
                }
            }
        }
        if can_be_prefix {
            interest_name.is_prefix_of(&self.name)
        } else {
            *interest_name == self.name
        }
    }

    /// The whole Data TLV.
    #[inline]
    pub fn wire(&self) -> &Bytes {
        self.name.backing()
    }

    /// Consumes the view, returning the wire bytes. Inlined, and moving the buffer
    /// out without writing to the view: the forwarder calls it on a view it received
    /// behind a pointer, and a call that took the view by value first copied the
    /// whole view (a `memcpy` call per forwarded Data, measured with callgrind).
    #[inline]
    pub fn into_wire(self) -> Bytes {
        let Data { name, lazy, .. } = self;
        // Never computed (the usual case): nothing to free, so no call to its drop.
        if lazy.get().is_none() {
            std::mem::forget(lazy);
        }
        name.into_backing()
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Self) -> bool {
        self.wire() == other.wire()
    }
}

impl Eq for Data {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The view re-reads its elements from the recorded offsets: check every
    /// accessor, with an unknown non-critical element before SignatureValue.
    #[test]
    fn accessors_read_recorded_elements() {
        let wire: &[u8] = &[
            0x06, 0x1a, // Data
            0x07, 0x03, 0x08, 0x01, b'a', // Name /a
            0x14, 0x03, 0x19, 0x01, 0x05, // MetaInfo: FreshnessPeriod 5
            0x15, 0x02, b'h', b'i', // Content
            0x16, 0x03, 0x1b, 0x01, 0x00, // SignatureInfo: DigestSha256
            0xfc, 0x01, 0x00, // unknown non-critical
            0x17, 0x02, 0xaa, 0xbb, // SignatureValue
        ];
        let strict = Data::decode(Bytes::copy_from_slice(wire)).expect("valid");
        let trusted = Data::decode_prevalidated(Bytes::copy_from_slice(wire), None).expect("valid");
        for d in [strict, trusted] {
            assert_eq!(d.freshness_period(), Some(Duration::from_millis(5)));
            assert_eq!(&d.content()[..], b"hi");
            assert_eq!(d.content_slice(), b"hi");
            assert!(d.has_content() && d.has_meta_info());
            assert_eq!(d.content_type(), content_type::BLOB);
            assert_eq!(d.content_type_field(), None);
            assert!(d.final_block_id().is_none());
            assert_eq!(d.signature_type(), 0);
            assert_eq!(d.signature_info().sig_type, 0);
            assert_eq!(d.signature_value(), &[0xaa, 0xbb]);
            assert_eq!(d.signed_portion(), &wire[2..21]);
            assert_eq!(d.implicit_digest(), <[u8; 32]>::from(Sha256::digest(wire)));
        }
    }

    /// FreshnessPeriod in nanoseconds for the extreme values of the field: exact
    /// up to `u64::MAX` ns, clamped beyond (2^63-1 ms, the largest VarNumber).
    #[test]
    fn freshness_ns_clamps_instead_of_wrapping() {
        let name = Name::from_uri("/f").expect("uri");
        let at = |ms: Option<u64>| {
            let b = Data::builder(name.clone());
            let b = match ms {
                Some(ms) => b.freshness_ms(ms),
                None => b,
            };
            Data::decode(b.sign_digest()).expect("valid").freshness_ns()
        };
        assert_eq!(at(None), 0);
        assert_eq!(at(Some(0)), 0);
        assert_eq!(at(Some(1)), 1_000_000);
        let largest_exact = u64::MAX / 1_000_000;
        assert_eq!(at(Some(largest_exact)), largest_exact * 1_000_000);
        for ms in [largest_exact + 1, i64::MAX as u64, u64::MAX] {
            assert_eq!(at(Some(ms)), u64::MAX, "{ms} ms");
        }
    }
}
