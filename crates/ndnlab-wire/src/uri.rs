//! NDN URI parsing (packet spec "NDN URI Scheme" + naming conventions rev3).
//!
//! `ndn:` scheme prefix optional; `/` separates components; a trailing `/` is
//! ignored; generic components are percent-decoded; a component made of three
//! or more periods stands for the value with three periods removed; `seg=`,
//! `off=`, `v=`, `t=`, `seq=`, `sha256digest=`, `params-sha256=` and `N=value`
//! give typed components. A `=` after anything else is part of a generic value.

use bytes::{BufMut, BytesMut};
use smallvec::SmallVec;

use crate::name::{Name, Offsets};
use crate::tlv::{self, types};
use crate::UriError;

#[inline]
fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn parse_decimal(s: &[u8], pos: usize) -> Result<u64, UriError> {
    if s.is_empty() || s.len() > 20 {
        return Err(UriError::BadNumber { pos });
    }
    let mut n: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return Err(UriError::BadNumber { pos });
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add((c - b'0') as u64))
            .ok_or(UriError::BadNumber { pos })?;
    }
    Ok(n)
}

fn put_number(out: &mut BytesMut, typ: u64, val: &[u8], pos: usize) -> Result<(), UriError> {
    let n = parse_decimal(val, pos)?;
    tlv::put_nni_tlv(out, typ, n);
    Ok(())
}

fn put_digest(out: &mut BytesMut, typ: u64, val: &[u8], pos: usize) -> Result<(), UriError> {
    if val.len() != 64 {
        return Err(UriError::BadDigest { pos });
    }
    tlv::put_header(out, typ, 32);
    for pair in val.chunks_exact(2) {
        match (hex_val(pair[0]), hex_val(pair[1])) {
            (Some(h), Some(l)) => out.put_u8(h << 4 | l),
            _ => return Err(UriError::BadDigest { pos }),
        }
    }
    Ok(())
}

/// Writes a component of type `typ` whose value is URI-escaped text.
fn put_escaped(out: &mut BytesMut, typ: u64, val: &[u8], pos: usize) -> Result<(), UriError> {
    if val.iter().all(|&c| c == b'.') {
        if val.len() < 3 {
            return Err(UriError::DotComponent { pos });
        }
        tlv::put_tlv(out, typ, &val[3..]);
        return Ok(());
    }
    let pct = val.iter().filter(|&&c| c == b'%').count();
    let len = val
        .len()
        .checked_sub(2 * pct)
        .ok_or(UriError::BadPercent { pos })?;
    tlv::put_header(out, typ, len);
    if pct == 0 {
        out.put_slice(val);
        return Ok(());
    }
    let mut i = 0;
    while i < val.len() {
        let c = val[i];
        if c == b'%' {
            let h = val.get(i + 1).copied().and_then(hex_val);
            let l = val.get(i + 2).copied().and_then(hex_val);
            match (h, l) {
                (Some(h), Some(l)) => out.put_u8(h << 4 | l),
                _ => return Err(UriError::BadPercent { pos: pos + i }),
            }
            i += 3;
        } else {
            out.put_u8(c);
            i += 1;
        }
    }
    Ok(())
}

/// Parses one component's URI text (no `/`), appending its TLV to `out`.
/// `pos` is the text's position in the whole URI, for error messages.
pub(crate) fn parse_component(text: &[u8], pos: usize, out: &mut BytesMut) -> Result<(), UriError> {
    if text.is_empty() {
        return Err(UriError::EmptyComponent { pos });
    }
    if let Some(eq) = text.iter().position(|&c| c == b'=') {
        let (label, val) = (&text[..eq], &text[eq + 1..]);
        let vpos = pos + eq + 1;
        match label {
            b"seg" => return put_number(out, types::SEGMENT_NAME_COMPONENT, val, vpos),
            b"off" => return put_number(out, types::BYTE_OFFSET_NAME_COMPONENT, val, vpos),
            b"v" => return put_number(out, types::VERSION_NAME_COMPONENT, val, vpos),
            b"t" => return put_number(out, types::TIMESTAMP_NAME_COMPONENT, val, vpos),
            b"seq" => return put_number(out, types::SEQUENCE_NUM_NAME_COMPONENT, val, vpos),
            b"sha256digest" => {
                return put_digest(out, types::IMPLICIT_SHA256_DIGEST_COMPONENT, val, vpos)
            }
            b"params-sha256" => {
                return put_digest(out, types::PARAMETERS_SHA256_DIGEST_COMPONENT, val, vpos)
            }
            _ if !label.is_empty() && label.iter().all(u8::is_ascii_digit) => {
                let typ = parse_decimal(label, pos).map_err(|_| UriError::BadType { pos })?;
                if typ == 0 || typ > 0xFFFF {
                    return Err(UriError::BadType { pos });
                }
                let before = out.len();
                put_escaped(out, typ, val, vpos)?;
                if (typ == types::IMPLICIT_SHA256_DIGEST_COMPONENT
                    || typ == types::PARAMETERS_SHA256_DIGEST_COMPONENT)
                    && out.len() - before != 2 + 32
                {
                    return Err(UriError::BadDigest { pos: vpos });
                }
                return Ok(());
            }
            _ => {}
        }
    }
    put_escaped(out, types::GENERIC_NAME_COMPONENT, text, pos)
}

/// Parses a whole name URI.
pub(crate) fn parse_name(s: &str) -> Result<Name, UriError> {
    let bytes = s.as_bytes();
    let mut start = 0;
    if bytes.len() >= 4 && bytes[..4].eq_ignore_ascii_case(b"ndn:") {
        start = 4;
    }
    let rest = &bytes[start..];
    if rest.is_empty() {
        return Ok(Name::new());
    }
    if rest[0] != b'/' {
        return Err(UriError::NoLeadingSlash);
    }
    // value size <= text size, plus at most 3 header bytes per component (+ digest headers)
    let ncomp = rest.iter().filter(|&&c| c == b'/').count();
    let mut out = BytesMut::with_capacity(rest.len() + 4 * ncomp + 8);
    let mut offs: Offsets = SmallVec::new();
    let mut pos = start + 1;
    let end = bytes.len();
    while pos < end {
        let next = bytes[pos..]
            .iter()
            .position(|&c| c == b'/')
            .map_or(end, |i| pos + i);
        if out.len() > u16::MAX as usize {
            return Err(UriError::BadType { pos });
        }
        offs.push(out.len() as u16);
        parse_component(&bytes[pos..next], pos, &mut out)?;
        pos = next + 1;
    }
    if out.len() > u16::MAX as usize {
        return Err(UriError::BadType { pos: 0 });
    }
    Ok(Name::from_parts(out.freeze(), offs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(uri: &str) -> String {
        hex::encode(parse_name(uri).unwrap().value_bytes())
    }

    #[test]
    fn parse_examples() {
        assert_eq!(hex_of("/"), "");
        assert_eq!(hex_of(""), "");
        assert_eq!(hex_of("ndn:/a"), "080161");
        assert_eq!(hex_of("/a/"), "080161");
        // generic "a", segment 0, version 256, "%00" decodes to one zero byte
        assert_eq!(
            hex_of("/a/seg=0/v=256/%00"),
            "080161 320100 36020100 080100".replace(' ', "")
        );
        assert_eq!(hex_of("/..."), "0800");
        assert_eq!(hex_of("/...."), "08012e");
        assert_eq!(hex_of("/32=x"), "200178");
        assert_eq!(hex_of("/300=x"), "fd012c0178");
        assert_eq!(hex_of("/a=b"), "0803613d62");
        assert_eq!(hex_of("/8=a"), "080161");
        assert_eq!(
            hex_of("/t=1/seq=2/off=3"),
            "380101 3a0102 340103".replace(' ', "")
        );
    }

    #[test]
    fn parse_errors() {
        assert_eq!(parse_name("a"), Err(UriError::NoLeadingSlash));
        assert!(matches!(
            parse_name("/a//b"),
            Err(UriError::EmptyComponent { .. })
        ));
        assert!(matches!(
            parse_name("/."),
            Err(UriError::DotComponent { .. })
        ));
        assert!(matches!(
            parse_name("/.."),
            Err(UriError::DotComponent { .. })
        ));
        assert!(matches!(
            parse_name("/%4"),
            Err(UriError::BadPercent { .. })
        ));
        assert!(matches!(
            parse_name("/%zz"),
            Err(UriError::BadPercent { .. })
        ));
        assert!(matches!(
            parse_name("/seg=x"),
            Err(UriError::BadNumber { .. })
        ));
        assert!(matches!(
            parse_name("/seg="),
            Err(UriError::BadNumber { .. })
        ));
        assert!(matches!(
            parse_name("/seg=99999999999999999999"),
            Err(UriError::BadNumber { .. })
        ));
        assert!(matches!(parse_name("/0=a"), Err(UriError::BadType { .. })));
        assert!(matches!(
            parse_name("/65536=a"),
            Err(UriError::BadType { .. })
        ));
        assert!(matches!(
            parse_name("/sha256digest=ab"),
            Err(UriError::BadDigest { .. })
        ));
        assert!(matches!(
            parse_name("/1=ab"),
            Err(UriError::BadDigest { .. })
        ));
    }
}
