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
#[derive(Debug, Clone)]
pub struct Data {
    /// the name; its backing buffer is the whole Data wire
    name: Name,
    /// offset of the Name TLV (start of the signed portion)
    signed_start: u32,
    /// end of the SignatureInfo TLV (end of the signed portion)
    signed_end: u32,
    content_type: u64,
    /// a ContentType element is present
    has_content_type: bool,
    /// a MetaInfo element is present (possibly empty)
    has_meta_info: bool,
    freshness_ms: Option<u64>,
    /// whole FinalBlockId component TLV (empty: absent)
    final_block: Range<u32>,
    /// Content TLV-VALUE
    content: Range<u32>,
    has_content: bool,
    sig_type: u64,
    /// whole SignatureInfo TLV-VALUE; parsed on first use
    sig_info_value: Range<u32>,
    sig_info: OnceLock<Box<SignatureInfo>>,
    sig_value: Range<u32>,
    digest: OnceLock<Box<[u8; 32]>>,
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
        let outer = tlv::read_element(&wire, 0, wire.len())?;
        if outer.typ != types::DATA {
            return Err(DecodeError::Unexpected {
                expected: types::DATA,
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
        let end = outer.end();
        let mut pos = outer.value.start;
        if pos >= end {
            return Err(DecodeError::Missing { field: "Name" });
        }
        let ne = tlv::read_element(&wire, pos, end)?;
        if ne.typ != types::NAME {
            return Err(DecodeError::Unexpected {
                expected: types::NAME,
                got: ne.typ,
                offset: pos,
            });
        }
        let name_offs = Name::scan(&wire, ne.value.clone())?;
        pos = ne.end();
        let mut content_type = content_type::BLOB;
        let mut has_content_type = false;
        let mut has_meta_info = false;
        let mut freshness_ms = None;
        let mut final_block = 0..0;
        let mut content = None;
        let mut sig_info: Option<(u64, Range<usize>)> = None;
        let mut sig_value = None;
        let mut signed_end = 0;
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
                    has_meta_info = true;
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
                                content_type = tlv::read_nni_at(v, m.value.start)?;
                                has_content_type = true;
                            }
                            2 => freshness_ms = Some(tlv::read_nni_at(v, m.value.start)?),
                            _ => {
                                let c = tlv::read_element(&wire, m.value.start, m.value.end)?;
                                if c.end() != m.value.end {
                                    return Err(DecodeError::BadLength { offset: m.offset });
                                }
                                // validate as a one-component name
                                Name::scan(&wire, m.value.clone())?;
                                final_block = c.offset as u32..c.end() as u32;
                            }
                        }
                    }
                }
                types::CONTENT => content = Some(e.value.start as u32..e.value.end as u32),
                types::SIGNATURE_INFO => {
                    let t = SignatureInfo::validate(&wire, e.value.clone())?;
                    sig_info = Some((t, e.value.clone()));
                    signed_end = e.end() as u32;
                }
                _ => sig_value = Some(e.value.start as u32..e.value.end as u32),
            }
        }
        let (sig_type, sig_info_value) = sig_info.ok_or(DecodeError::Missing {
            field: "SignatureInfo",
        })?;
        let sig_value = sig_value.ok_or(DecodeError::Missing {
            field: "SignatureValue",
        })?;
        Ok(Data {
            signed_start: ne.offset as u32,
            signed_end,
            name: Name::from_backing(wire, ne.value, name_offs),
            content_type,
            has_content_type,
            has_meta_info,
            freshness_ms,
            final_block,
            has_content: content.is_some(),
            content: content.unwrap_or(0..0),
            sig_type,
            sig_info_value: sig_info_value.start as u32..sig_info_value.end as u32,
            sig_info: OnceLock::new(),
            sig_value,
            digest: OnceLock::new(),
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
        let mut content_type = content_type::BLOB;
        let mut has_content_type = false;
        let mut has_meta_info = false;
        let mut freshness_ms = None;
        let mut final_block = 0..0;
        let mut content = None;
        let mut sig_info: Option<(u64, Range<usize>, usize)> = None;
        let mut sig_value = None;
        while pos < end {
            let e = tlv::read_element(&wire, pos, end)?;
            pos = e.end();
            match e.typ {
                types::META_INFO => {
                    has_meta_info = true;
                    for m in tlv::Elements::new(&wire, e.value.clone()) {
                        let m = m?;
                        let v = &wire[m.value.clone()];
                        match m.typ {
                            types::CONTENT_TYPE => {
                                content_type = tlv::read_nni_at(v, m.value.start)?;
                                has_content_type = true;
                            }
                            types::FRESHNESS_PERIOD => {
                                freshness_ms = Some(tlv::read_nni_at(v, m.value.start)?)
                            }
                            types::FINAL_BLOCK_ID => {
                                // rare, and what `final_block_id` hands out: checked as in `decode`
                                let c = tlv::read_element(&wire, m.value.start, m.value.end)?;
                                if c.end() != m.value.end {
                                    return Err(DecodeError::BadLength { offset: m.offset });
                                }
                                Name::scan(&wire, m.value.clone())?;
                                final_block = c.offset as u32..c.end() as u32;
                            }
                            _ => {}
                        }
                    }
                }
                types::CONTENT => content = Some(e.value.start as u32..e.value.end as u32),
                types::SIGNATURE_INFO => {
                    let t = tlv::read_element(&wire, e.value.start, e.value.end)?;
                    if t.typ != types::SIGNATURE_TYPE {
                        return Err(DecodeError::Missing {
                            field: "SignatureType",
                        });
                    }
                    let st = tlv::read_nni_at(&wire[t.value.clone()], t.value.start)?;
                    sig_info = Some((st, e.value.clone(), e.end()));
                }
                types::SIGNATURE_VALUE => {
                    sig_value = Some(e.value.start as u32..e.value.end as u32)
                }
                _ => {}
            }
        }
        let (sig_type, sig_info_value, signed_end) = sig_info.ok_or(DecodeError::Missing {
            field: "SignatureInfo",
        })?;
        let sig_value = sig_value.ok_or(DecodeError::Missing {
            field: "SignatureValue",
        })?;
        Ok(Data {
            signed_start: ne.offset as u32,
            signed_end: signed_end as u32,
            name: Name::from_backing(wire, ne.value, name_offs),
            content_type,
            has_content_type,
            has_meta_info,
            freshness_ms,
            final_block,
            has_content: content.is_some(),
            content: content.unwrap_or(0..0),
            sig_type,
            sig_info_value: sig_info_value.start as u32..sig_info_value.end as u32,
            sig_info: OnceLock::new(),
            sig_value,
            digest: OnceLock::new(),
        })
    }

    /// The name.
    #[inline]
    pub fn name(&self) -> &Name {
        &self.name
    }

    /// ContentType (BLOB when absent).
    #[inline]
    pub fn content_type(&self) -> u64 {
        self.content_type
    }

    /// ContentType as written: `None` when the element is absent.
    pub fn content_type_field(&self) -> Option<u64> {
        self.has_content_type.then_some(self.content_type)
    }

    /// Whether a MetaInfo element is present (possibly with no field).
    pub fn has_meta_info(&self) -> bool {
        self.has_meta_info
    }

    /// A builder holding every field of this Data as written (ContentType only
    /// if present, an empty MetaInfo kept, the same SignatureInfo; unknown
    /// non-critical elements are dropped), to re-encode or re-sign it.
    pub fn to_builder(&self) -> DataBuilder {
        let mut b = DataBuilder::new(self.name.clone())
            .empty_meta_info(self.has_meta_info)
            .signature_info(self.signature_info().clone());
        if let Some(t) = self.content_type_field() {
            b = b.content_type(t);
        }
        if let Some(f) = self.freshness_ms {
            b = b.freshness_ms(f);
        }
        if let Some(c) = self.final_block_id() {
            b = b.final_block_id(c);
        }
        if self.has_content {
            b = b.content(self.content());
        }
        b
    }

    /// FreshnessPeriod, if present.
    #[inline]
    pub fn freshness_period(&self) -> Option<Duration> {
        self.freshness_ms.map(Duration::from_millis)
    }

    /// FinalBlockId component.
    pub fn final_block_id(&self) -> Option<Component<'_>> {
        let r = &self.final_block;
        if r.is_empty() {
            return None;
        }
        let b = self.name.backing().get(r.start as usize..r.end as usize)?;
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
        let r = &self.content;
        self.name.backing().slice(r.start as usize..r.end as usize)
    }

    /// Content TLV-VALUE as a slice (empty if absent).
    #[inline]
    pub fn content_slice(&self) -> &[u8] {
        let r = &self.content;
        self.name
            .backing()
            .get(r.start as usize..r.end as usize)
            .unwrap_or(&[])
    }

    /// Whether a Content element is present.
    pub fn has_content(&self) -> bool {
        self.has_content
    }

    /// SignatureInfo (parsed on first call; validated by `decode`).
    pub fn signature_info(&self) -> &SignatureInfo {
        self.sig_info.get_or_init(|| {
            let r = self.sig_info_value.start as usize..self.sig_info_value.end as usize;
            // cannot fail: `decode` validated the same bytes with the same code
            Box::new(
                SignatureInfo::parse(self.name.backing(), r)
                    .unwrap_or_else(|_| SignatureInfo::new(self.sig_type)),
            )
        })
    }

    /// SignatureType.
    #[inline]
    pub fn signature_type(&self) -> u64 {
        self.sig_type
    }

    /// SignatureValue TLV-VALUE.
    #[inline]
    pub fn signature_value(&self) -> &[u8] {
        &self.name.backing()[self.sig_value.start as usize..self.sig_value.end as usize]
    }

    /// The signed portion: from the Name TLV to the end of SignatureInfo.
    #[inline]
    pub fn signed_portion(&self) -> &[u8] {
        &self.name.backing()[self.signed_start as usize..self.signed_end as usize]
    }

    /// SHA-256 of the whole Data TLV (computed once, then cached).
    pub fn implicit_digest(&self) -> [u8; 32] {
        **self
            .digest
            .get_or_init(|| Box::new(Sha256::digest(self.name.backing()).into()))
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
    /// behind a pointer, and a call that took the view by value first copied all
    /// 200 bytes of it (a `memcpy` call per forwarded Data, measured with callgrind).
    #[inline]
    pub fn into_wire(self) -> Bytes {
        self.name.into_backing()
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Self) -> bool {
        self.wire() == other.wire()
    }
}

impl Eq for Data {}
