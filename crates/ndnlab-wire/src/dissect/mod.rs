//! A TLV dissector, like ndn-tools' ndndissect: turns any NDN packet
//! (Interest, Data, LpPacket with Nack or fragment, or a bare TLV) into a tree
//! of [`Node`]s with type names and decoded values.
//!
//! TLV-TYPE numbers mean different things in different places (253 is a
//! ValidityPeriod inside SignatureInfo, a 3-byte component type inside a Name),
//! so the walk carries the context of the enclosing element.
//!
//! * [`dissect`] walks every top-level TLV of a buffer; [`render_text`] writes
//!   the tree one element per line; with the `serde` feature a [`Node`]
//!   serializes (`type`, `name`, `offset`, `length`, `value`, `hex`, `children`).
//! * [`validate_all`] checks each top-level packet with the codec, so a
//!   malformed packet is reported with the codec's reason and its byte offset
//!   in the whole input ([`LocatedError`]); [`dissect_validated`] does both.
//! * [`parse_hex`] and [`looks_like_hex`] read packets written as hex text.
//!
//! ```
//! use ndnlab_wire::dissect;
//! let buf = dissect::parse_hex("0703 080161").unwrap();
//! let tree = dissect::dissect_validated(&buf).unwrap();
//! let mut text = String::new();
//! dissect::render_text(&tree, &mut text);
//! assert_eq!(text, "Name [7] len=3 @0 = /a\n  GenericNameComponent [8] len=1 @2 = a\n");
//! ```

mod context;
mod input;
mod text;
mod value;

pub use input::{looks_like_hex, parse_hex, validate_all, HexError, LocatedError};
pub use text::render_text;
pub use value::{content_type_name, nack_reason_name, signature_type_name};

use crate::tlv::{self, types::*, Element};
use crate::{Component, DecodeError};
use context::{kind_of, Ctx, Kind};
use value::{bytes_value, hex, labelled, short_hex};

/// One TLV element of the dissected input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Node {
    /// Offset of the element's first byte in the whole input.
    pub offset: usize,
    /// TLV-TYPE.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub typ: u64,
    /// Element name in its context (`Unknown` when the type means nothing there).
    pub name: String,
    /// TLV-LENGTH.
    pub length: usize,
    /// Decoded value for leaves (name URI for Names, integers, enum names, hex, text).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub value: Option<String>,
    /// The full TLV-VALUE in hex, for leaves holding opaque bytes.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub hex: Option<String>,
    /// Sub-elements, for elements that nest TLVs.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub children: Vec<Node>,
}

/// Dissects every top-level TLV in `buf` (several packets back to back are all dumped).
pub fn dissect(buf: &[u8]) -> Result<Vec<Node>, DecodeError> {
    walk(buf, 0..buf.len(), Ctx::Top)
}

/// [`validate_all`], then [`dissect`]: errors name the failing element and
/// its absolute offset.
pub fn dissect_validated(buf: &[u8]) -> Result<Vec<Node>, LocatedError> {
    validate_all(buf)?;
    dissect(buf).map_err(|e| LocatedError::new(e, 0, "TLV"))
}

fn walk(buf: &[u8], range: core::ops::Range<usize>, ctx: Ctx) -> Result<Vec<Node>, DecodeError> {
    tlv::Elements::new(buf, range)
        .map(|e| e.and_then(|e| node(buf, &e, ctx)))
        .collect()
}

fn node(buf: &[u8], e: &Element, ctx: Ctx) -> Result<Node, DecodeError> {
    let value = &buf[e.value.clone()];
    let (name, kind) = kind_of(ctx, e.typ);
    let mut n = Node {
        offset: e.offset,
        typ: e.typ,
        name: name.to_string(),
        length: e.len(),
        value: None,
        hex: None,
        children: Vec::new(),
    };
    let nni = || tlv::read_nni_at(value, e.value.start);
    match kind {
        Kind::Nested(Ctx::Lp) => {
            n.children = walk(buf, e.value.clone(), Ctx::Lp)?;
            n.value = Some(lp_summary(&n.children));
        }
        Kind::Nested(inner) => n.children = walk(buf, e.value.clone(), inner)?,
        Kind::Name => {
            n.children = walk(buf, e.value.clone(), Ctx::Name)?;
            n.value = Some(name_uri(&n.children));
        }
        Kind::Component => {
            n.value = Some(Component::new(e.typ, value).to_string());
        }
        Kind::FinalBlockId => {
            n.children = walk(buf, e.value.clone(), Ctx::Name)?;
            n.value = n.children.first().and_then(|c| c.value.clone());
        }
        Kind::Nni => n.value = Some(nni()?.to_string()),
        Kind::Millis => n.value = Some(format!("{} ms", nni()?)),
        Kind::Flag => {
            n.value = Some(if value.is_empty() {
                "yes".into()
            } else {
                hex(value)
            })
        }
        Kind::Hex => {
            n.value = Some(short_hex(value));
            n.hex = Some(hex(value));
        }
        Kind::Bytes => {
            n.value = Some(bytes_value(value));
            n.hex = Some(hex(value));
        }
        Kind::Text => n.value = Some(String::from_utf8_lossy(value).into_owned()),
        Kind::Fixed64 => {
            let v = <[u8; 8]>::try_from(value)
                .map_err(|_| DecodeError::BadLength { offset: e.offset })?;
            n.value = Some(u64::from_be_bytes(v).to_string());
        }
        Kind::ContentType => n.value = Some(labelled(nni()?, content_type_name)),
        Kind::SignatureType => n.value = Some(labelled(nni()?, signature_type_name)),
        Kind::NackReason => n.value = Some(labelled(nni()?, nack_reason_name)),
        Kind::CachePolicyType => {
            n.value = Some(labelled(nni()?, |v| (v == 1).then_some("NoCache")))
        }
        Kind::Fragment => match whole_packet(buf, e) {
            Some(children) => n.children = children,
            None => {
                n.value = Some(bytes_value(value));
                n.hex = Some(hex(value));
            }
        },
        Kind::Unknown => {
            let critical = tlv::is_critical(e.typ);
            n.name = format!(
                "Unknown({})",
                if critical { "critical" } else { "non-critical" }
            );
            n.value = Some(short_hex(value));
            n.hex = Some(hex(value));
        }
    }
    Ok(n)
}

/// The packet carried by a Fragment or PrefixAnnouncement when it is one whole
/// Interest or Data (not a piece of a fragmented packet).
fn whole_packet(buf: &[u8], e: &Element) -> Option<Vec<Node>> {
    let inner = tlv::read_element(buf, e.value.start, e.value.end).ok()?;
    if inner.end() != e.value.end || !matches!(inner.typ, INTEREST | DATA) {
        return None;
    }
    walk(buf, inner.range(), Ctx::Top).ok()
}

/// One-line summary of an LpPacket: what it carries.
fn lp_summary(fields: &[Node]) -> String {
    let field = |t: u64| fields.iter().find(|f| f.typ == t);
    let frag = field(FRAGMENT);
    let count = field(FRAG_COUNT).and_then(|f| f.value.as_deref()?.parse::<u64>().ok());
    let index = field(FRAG_INDEX).and_then(|f| f.value.as_deref()?.parse::<u64>().ok());
    let inner = frag
        .and_then(|f| f.children.first())
        .map(|p| p.name.as_str());
    let mut s = match (frag, count) {
        (None, _) => "idle (no fragment)".to_string(),
        (Some(_), Some(c)) if c > 1 => format!("fragment {} of {c}", index.unwrap_or(0) + 1),
        (Some(_), _) => inner.unwrap_or("fragment").to_string(),
    };
    if let Some(nack) = field(NACK) {
        let reason = nack.children.first().and_then(|r| r.value.as_deref());
        // "150 (NoRoute)" -> "NoRoute"; an unnamed code stays a number.
        let label = reason.map(|v| match v.split_once(" (") {
            Some((_, l)) => l.trim_end_matches(')'),
            None => v,
        });
        s = format!("Nack {} of {s}", label.unwrap_or("(no reason)"));
    }
    s
}

fn name_uri(components: &[Node]) -> String {
    if components.is_empty() {
        return "/".into();
    }
    let mut s = String::new();
    for c in components {
        s.push('/');
        s.push_str(c.value.as_deref().unwrap_or(""));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(hex: &str) -> Vec<Node> {
        dissect(&hex::decode(hex).unwrap()).unwrap()
    }

    #[test]
    fn type_numbers_are_read_in_context() {
        // Name /a/253=y: 253 is a component type here, not a ValidityPeriod.
        let t = tree("0708080161fd00fd0179");
        assert_eq!(t[0].value.as_deref(), Some("/a/253=y"));
        assert_eq!(t[0].children[1].name, "NameComponent");
        assert_eq!(t[0].children[1].offset, 5);
    }

    #[test]
    fn unknown_elements_are_shown_with_their_criticality() {
        // Interest /a with a non-critical element 200 (0xC8) and value 0xFF.
        let t = tree("05080703080161c801ff");
        let unknown = &t[0].children[1];
        assert_eq!(unknown.name, "Unknown(non-critical)");
        assert_eq!((unknown.typ, unknown.offset), (200, 7));
        assert_eq!(unknown.hex.as_deref(), Some("ff"));
    }

    #[test]
    fn fragments_of_a_larger_packet_stay_opaque() {
        // FragIndex 1, FragCount 2, Fragment = the first bytes of an Interest.
        let t = tree("640c52010153010250040507 0703".replace(' ', "").as_str());
        assert_eq!(t[0].value.as_deref(), Some("fragment 2 of 2"));
        let frag = &t[0].children[2];
        assert!(frag.children.is_empty());
        assert_eq!(frag.hex.as_deref(), Some("05070703"));
    }

    #[test]
    fn malformed_nested_values_are_errors_not_panics() {
        // A NonNegativeInteger of 3 bytes inside MetaInfo.
        let err = dissect(&hex::decode("06071405190301020300").unwrap());
        assert!(err.is_err());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_keeps_the_field_names_and_skips_empty_ones() {
        let t = tree("0703080161");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"[{"offset":0,"type":7,"name":"Name","length":3,"value":"/a","children":[{"offset":2,"type":8,"name":"GenericNameComponent","length":1,"value":"a"}]}]"#
        );
    }
}
