//! How the dissector writes leaf values: hex, shortened bytes, and the names
//! of ContentType, SignatureType and NackReason numbers.

use std::fmt::Write as _;

use crate::sig_type;

/// Byte values longer than this are shortened in `value` (the full bytes are in `hex`).
const SHOWN_BYTES: usize = 32;

/// `v`, followed by its name in parentheses when `label` knows one.
pub(super) fn labelled(v: u64, label: impl Fn(u64) -> Option<&'static str>) -> String {
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

/// Lowercase hex of all of `v`.
pub(super) fn hex(v: &[u8]) -> String {
    let mut s = String::with_capacity(v.len() * 2);
    for b in v {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Hex of `v`, shortened past [`SHOWN_BYTES`] with the full length noted.
pub(super) fn short_hex(v: &[u8]) -> String {
    if v.len() <= SHOWN_BYTES {
        hex(v)
    } else {
        format!("{}... ({} bytes)", hex(&v[..SHOWN_BYTES]), v.len())
    }
}

/// Printable ASCII as a quoted string, anything else as (shortened) hex.
pub(super) fn bytes_value(v: &[u8]) -> String {
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
