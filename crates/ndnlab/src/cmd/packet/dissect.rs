//! The TLV dissector behind `ndnlab packet decode`: turns any NDN packet
//! (Interest, Data, LpPacket with Nack or fragment, or a bare TLV) into a tree
//! of [`Node`]s with type names and decoded values, like ndn-tools' ndndissect.
//!
//! TLV-TYPE numbers mean different things in different places (253 is a
//! ValidityPeriod inside SignatureInfo, a 3-byte component type inside a Name),
//! so the walk carries the context of the enclosing element.

use std::fmt::Write as _;

use ndnlab_wire::tlv::{self, types::*, Element};
use ndnlab_wire::{sig_type, Component, DecodeError};
use serde::Serialize;

/// Byte values longer than this are shortened in `value` (the full bytes are in `hex`).
const SHOWN_BYTES: usize = 32;

/// One TLV element of the dissected input.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Node {
    /// Offset of the element's first byte in the whole input.
    pub offset: usize,
    /// TLV-TYPE.
    #[serde(rename = "type")]
    pub typ: u64,
    /// Element name in its context (`Unknown` when the type means nothing there).
    pub name: String,
    /// TLV-LENGTH.
    pub length: usize,
    /// Decoded value for leaves (name URI for Names, integers, enum names, hex, text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The full TLV-VALUE in hex, for leaves holding opaque bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// Sub-elements, for elements that nest TLVs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

/// Where an element sits: decides how its type number is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    Interest,
    Data,
    Name,
    MetaInfo,
    SignatureInfo,
    KeyLocator,
    ForwardingHint,
    ValidityPeriod,
    AdditionalDescription,
    DescriptionEntry,
    Lp,
    Nack,
    CachePolicy,
}

/// How an element's value is rendered.
enum Kind {
    Nested(Ctx),
    Name,
    Component,
    FinalBlockId,
    Nni,
    Millis,
    Flag,
    Hex,
    Bytes,
    Text,
    Fixed64,
    ContentType,
    SignatureType,
    NackReason,
    CachePolicyType,
    Fragment,
    Unknown,
}

/// Dissects every top-level TLV in `buf` (several packets back to back are all dumped).
pub fn dissect(buf: &[u8]) -> Result<Vec<Node>, DecodeError> {
    walk(buf, 0..buf.len(), Ctx::Top)
}

fn walk(buf: &[u8], range: core::ops::Range<usize>, ctx: Ctx) -> Result<Vec<Node>, DecodeError> {
    tlv::Elements::new(buf, range)
        .map(|e| e.and_then(|e| node(buf, &e, ctx)))
        .collect()
}

fn kind_of(ctx: Ctx, typ: u64) -> (&'static str, Kind) {
    use Kind as K;
    let k = match (ctx, typ) {
        (Ctx::Top, INTEREST) => K::Nested(Ctx::Interest),
        (Ctx::Top, DATA) => K::Nested(Ctx::Data),
        (Ctx::Top, LP_PACKET) => K::Nested(Ctx::Lp),
        (Ctx::Top, NAME) => K::Name,
        (Ctx::Interest | Ctx::Data | Ctx::KeyLocator | Ctx::ForwardingHint, NAME) => K::Name,
        (Ctx::Name, _) => K::Component,
        (Ctx::Interest, CAN_BE_PREFIX | MUST_BE_FRESH) => K::Flag,
        (Ctx::Interest, FORWARDING_HINT) => K::Nested(Ctx::ForwardingHint),
        (Ctx::Interest, NONCE) => K::Hex,
        (Ctx::Interest, INTEREST_LIFETIME) => K::Millis,
        (Ctx::Interest, HOP_LIMIT) => K::Nni,
        (Ctx::Interest, APPLICATION_PARAMETERS) => K::Bytes,
        (Ctx::Interest, INTEREST_SIGNATURE_INFO) => K::Nested(Ctx::SignatureInfo),
        (Ctx::Interest, INTEREST_SIGNATURE_VALUE) => K::Hex,
        (Ctx::Data, META_INFO) => K::Nested(Ctx::MetaInfo),
        (Ctx::Data, CONTENT) => K::Bytes,
        (Ctx::Data, SIGNATURE_INFO) => K::Nested(Ctx::SignatureInfo),
        (Ctx::Data, SIGNATURE_VALUE) => K::Hex,
        (Ctx::MetaInfo, CONTENT_TYPE) => K::ContentType,
        (Ctx::MetaInfo, FRESHNESS_PERIOD) => K::Millis,
        (Ctx::MetaInfo, FINAL_BLOCK_ID) => K::FinalBlockId,
        (Ctx::SignatureInfo, SIGNATURE_TYPE) => K::SignatureType,
        (Ctx::SignatureInfo, KEY_LOCATOR) => K::Nested(Ctx::KeyLocator),
        (Ctx::SignatureInfo, SIGNATURE_NONCE) => K::Hex,
        (Ctx::SignatureInfo, SIGNATURE_TIME) => K::Millis,
        (Ctx::SignatureInfo, SIGNATURE_SEQ_NUM) => K::Nni,
        (Ctx::SignatureInfo, VALIDITY_PERIOD) => K::Nested(Ctx::ValidityPeriod),
        (Ctx::SignatureInfo, ADDITIONAL_DESCRIPTION) => K::Nested(Ctx::AdditionalDescription),
        (Ctx::KeyLocator, KEY_DIGEST) => K::Hex,
        (Ctx::ValidityPeriod, NOT_BEFORE | NOT_AFTER) => K::Text,
        (Ctx::AdditionalDescription, DESCRIPTION_ENTRY) => K::Nested(Ctx::DescriptionEntry),
        (Ctx::DescriptionEntry, DESCRIPTION_KEY | DESCRIPTION_VALUE) => K::Text,
        (Ctx::Lp, FRAGMENT) => K::Fragment,
        (Ctx::Lp, SEQUENCE | ACK | TX_SEQUENCE) => K::Fixed64,
        (Ctx::Lp, FRAG_INDEX | FRAG_COUNT) => K::Nni,
        (Ctx::Lp, INCOMING_FACE_ID | NEXT_HOP_FACE_ID | CONGESTION_MARK) => K::Nni,
        (Ctx::Lp, PIT_TOKEN) => K::Hex,
        (Ctx::Lp, NACK) => K::Nested(Ctx::Nack),
        (Ctx::Lp, CACHE_POLICY) => K::Nested(Ctx::CachePolicy),
        (Ctx::Lp, NON_DISCOVERY) => K::Flag,
        (Ctx::Lp, PREFIX_ANNOUNCEMENT) => K::Fragment,
        (Ctx::Nack, NACK_REASON) => K::NackReason,
        (Ctx::CachePolicy, CACHE_POLICY_TYPE) => K::CachePolicyType,
        _ => K::Unknown,
    };
    let name = match (&k, ctx) {
        (Kind::Unknown, _) => "Unknown",
        (Kind::Component, _) => tlv::type_name(typ)
            .filter(|_| matches!(typ, 1 | 2 | 8 | 32 | 50 | 52 | 54 | 56 | 58))
            .unwrap_or("NameComponent"),
        _ => tlv::type_name(typ).unwrap_or("Unknown"),
    };
    (name, k)
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

fn labelled(v: u64, label: impl Fn(u64) -> Option<&'static str>) -> String {
    match label(v) {
        Some(l) => format!("{v} ({l})"),
        None => v.to_string(),
    }
}

/// Name of a ContentType value.
pub fn content_type_name(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "BLOB",
        1 => "LINK",
        2 => "KEY",
        3 => "NACK",
        4 => "Manifest",
        5 => "PrefixAnn",
        1024 => "FLIC",
        _ => return None,
    })
}

/// Name of a SignatureType value (the codec's table).
pub fn signature_type_name(v: u64) -> Option<&'static str> {
    Some(sig_type::name(v)).filter(|n| *n != "Unknown")
}

/// Name of a NackReason value.
pub fn nack_reason_name(v: u64) -> Option<&'static str> {
    Some(match v {
        0 => "None",
        50 => "Congestion",
        100 => "Duplicate",
        150 => "NoRoute",
        _ => return None,
    })
}

fn hex(v: &[u8]) -> String {
    let mut s = String::with_capacity(v.len() * 2);
    for b in v {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn short_hex(v: &[u8]) -> String {
    if v.len() <= SHOWN_BYTES {
        hex(v)
    } else {
        format!("{}... ({} bytes)", hex(&v[..SHOWN_BYTES]), v.len())
    }
}

/// Printable ASCII as a quoted string, anything else as (shortened) hex.
fn bytes_value(v: &[u8]) -> String {
    let printable = |c: &u8| c.is_ascii_graphic() || *c == b' ';
    if !v.is_empty() && v.iter().all(printable) {
        if v.len() <= 2 * SHOWN_BYTES {
            format!("{:?}", String::from_utf8_lossy(v))
        } else {
            let head = String::from_utf8_lossy(&v[..2 * SHOWN_BYTES]);
            format!("{head:?}... ({} bytes)", v.len())
        }
    } else {
        short_hex(v)
    }
}

/// Writes the tree as indented text, one element per line.
pub fn render_text(nodes: &[Node], out: &mut String) {
    fn rec(n: &Node, depth: usize, out: &mut String) {
        let _ = write!(
            out,
            "{:indent$}{} [{}] len={} @{}",
            "",
            n.name,
            n.typ,
            n.length,
            n.offset,
            indent = depth * 2
        );
        if let Some(v) = &n.value {
            let _ = write!(out, " = {v}");
        }
        out.push('\n');
        for c in &n.children {
            rec(c, depth + 1, out);
        }
    }
    for n in nodes {
        rec(n, 0, out);
    }
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
}
