//! Name components: a borrowed [`Component`] view and an [`OwnedComponent`]
//! for builders, typed components of the naming conventions (rev3), their
//! canonical order and their URI form.

use core::cmp::Ordering;
use core::fmt;

use bytes::{BufMut, Bytes};

use crate::tlv::{self, types};

/// A name component: its TLV-TYPE and TLV-VALUE, borrowed from a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Component<'a> {
    /// TLV-TYPE (1..=65535).
    pub typ: u64,
    /// TLV-VALUE.
    pub value: &'a [u8],
}

impl<'a> Component<'a> {
    /// A component of type `typ` with value `value`.
    pub const fn new(typ: u64, value: &'a [u8]) -> Self {
        Component { typ, value }
    }

    /// A GenericNameComponent.
    pub const fn generic(value: &'a [u8]) -> Self {
        Component::new(types::GENERIC_NAME_COMPONENT, value)
    }

    /// Whether this is a GenericNameComponent.
    pub fn is_generic(&self) -> bool {
        self.typ == types::GENERIC_NAME_COMPONENT
    }

    /// Whether this is an ImplicitSha256DigestComponent.
    pub fn is_implicit_digest(&self) -> bool {
        self.typ == types::IMPLICIT_SHA256_DIGEST_COMPONENT
    }

    /// Whether this is a ParametersSha256DigestComponent.
    pub fn is_params_digest(&self) -> bool {
        self.typ == types::PARAMETERS_SHA256_DIGEST_COMPONENT
    }

    /// The value as a NonNegativeInteger, whatever the type.
    pub fn as_nni(&self) -> Option<u64> {
        tlv::read_nni(self.value).ok()
    }

    /// The value as a NonNegativeInteger if the type is `typ`.
    pub fn as_number(&self, typ: u64) -> Option<u64> {
        if self.typ == typ {
            self.as_nni()
        } else {
            None
        }
    }

    /// Segment number (`seg=`).
    pub fn as_segment(&self) -> Option<u64> {
        self.as_number(types::SEGMENT_NAME_COMPONENT)
    }

    /// Byte offset (`off=`).
    pub fn as_byte_offset(&self) -> Option<u64> {
        self.as_number(types::BYTE_OFFSET_NAME_COMPONENT)
    }

    /// Version (`v=`).
    pub fn as_version(&self) -> Option<u64> {
        self.as_number(types::VERSION_NAME_COMPONENT)
    }

    /// Timestamp in microseconds since the Unix epoch (`t=`).
    pub fn as_timestamp(&self) -> Option<u64> {
        self.as_number(types::TIMESTAMP_NAME_COMPONENT)
    }

    /// Sequence number (`seq=`).
    pub fn as_sequence_num(&self) -> Option<u64> {
        self.as_number(types::SEQUENCE_NUM_NAME_COMPONENT)
    }

    /// The 32-byte digest of an implicit or parameters digest component.
    pub fn as_digest(&self) -> Option<[u8; 32]> {
        if self.is_implicit_digest() || self.is_params_digest() {
            self.value.try_into().ok()
        } else {
            None
        }
    }

    /// Size of the component TLV.
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(self.typ, self.value.len())
    }

    /// Writes the component TLV.
    pub fn encode(&self, out: &mut impl BufMut) {
        tlv::put_tlv(out, self.typ, self.value);
    }

    /// Copies into an owned component.
    pub fn to_owned_component(&self) -> OwnedComponent {
        OwnedComponent {
            typ: self.typ,
            value: Bytes::copy_from_slice(self.value),
        }
    }

    /// Canonical URI form (same as `Display`).
    pub fn to_uri(&self) -> String {
        self.to_string()
    }
}

impl PartialOrd for Component<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Canonical order: by type, then by length, then bytewise.
impl Ord for Component<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.typ
            .cmp(&other.typ)
            .then(self.value.len().cmp(&other.value.len()))
            .then_with(|| self.value.cmp(other.value))
    }
}

#[inline]
fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

/// Writes a value percent-encoded, with the `...` rule for all-period values.
pub(crate) fn write_escaped(f: &mut impl fmt::Write, value: &[u8]) -> fmt::Result {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    if value.iter().all(|&c| c == b'.') {
        f.write_str("...")?;
    }
    let mut start = 0;
    for (i, &c) in value.iter().enumerate() {
        if !is_unreserved(c) {
            if start < i {
                // unreserved bytes are ASCII
                f.write_str(core::str::from_utf8(&value[start..i]).unwrap_or(""))?;
            }
            let esc = [b'%', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]];
            f.write_str(core::str::from_utf8(&esc).unwrap_or(""))?;
            start = i + 1;
        }
    }
    if start < value.len() {
        f.write_str(core::str::from_utf8(&value[start..]).unwrap_or(""))?;
    }
    Ok(())
}

fn write_hex(f: &mut impl fmt::Write, value: &[u8]) -> fmt::Result {
    for b in value {
        write!(f, "{b:02x}")?;
    }
    Ok(())
}

/// Canonical NDN URI form of the component (naming conventions rev3).
impl fmt::Display for Component<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.typ {
            types::GENERIC_NAME_COMPONENT => return write_escaped(f, self.value),
            types::IMPLICIT_SHA256_DIGEST_COMPONENT if self.value.len() == 32 => {
                f.write_str("sha256digest=")?;
                return write_hex(f, self.value);
            }
            types::PARAMETERS_SHA256_DIGEST_COMPONENT if self.value.len() == 32 => {
                f.write_str("params-sha256=")?;
                return write_hex(f, self.value);
            }
            types::SEGMENT_NAME_COMPONENT => "seg=",
            types::BYTE_OFFSET_NAME_COMPONENT => "off=",
            types::VERSION_NAME_COMPONENT => "v=",
            types::TIMESTAMP_NAME_COMPONENT => "t=",
            types::SEQUENCE_NUM_NAME_COMPONENT => "seq=",
            _ => "",
        };
        if !label.is_empty() {
            // only a shortest-form number prints as `seg=N`: `seg=N` parses to
            // the shortest form, so anything else would not round-trip
            if let Some(n) = self
                .as_nni()
                .filter(|&n| tlv::nni_len(n) == self.value.len())
            {
                return write!(f, "{label}{n}");
            }
        }
        write!(f, "{}=", self.typ)?;
        write_escaped(f, self.value)
    }
}

/// An owned name component, for building names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OwnedComponent {
    typ: u64,
    value: Bytes,
}

impl OwnedComponent {
    /// A component of any type; `None` for a type outside 1..=65535 or a
    /// digest component whose value is not 32 bytes.
    pub fn typed(typ: u64, value: impl Into<Bytes>) -> Option<Self> {
        if typ == 0 || typ > 0xFFFF {
            return None;
        }
        let value = value.into();
        if (typ == types::IMPLICIT_SHA256_DIGEST_COMPONENT
            || typ == types::PARAMETERS_SHA256_DIGEST_COMPONENT)
            && value.len() != 32
        {
            return None;
        }
        Some(OwnedComponent { typ, value })
    }

    /// A GenericNameComponent.
    pub fn generic(value: impl Into<Bytes>) -> Self {
        OwnedComponent {
            typ: types::GENERIC_NAME_COMPONENT,
            value: value.into(),
        }
    }

    /// A KeywordNameComponent.
    pub fn keyword(value: impl Into<Bytes>) -> Self {
        OwnedComponent {
            typ: types::KEYWORD_NAME_COMPONENT,
            value: value.into(),
        }
    }

    fn number(typ: u64, n: u64) -> Self {
        let mut v = Vec::with_capacity(8);
        tlv::put_nni(&mut v, n);
        OwnedComponent {
            typ,
            value: Bytes::from(v),
        }
    }

    /// A SegmentNameComponent (`seg=n`).
    pub fn segment(n: u64) -> Self {
        Self::number(types::SEGMENT_NAME_COMPONENT, n)
    }

    /// A ByteOffsetNameComponent (`off=n`).
    pub fn byte_offset(n: u64) -> Self {
        Self::number(types::BYTE_OFFSET_NAME_COMPONENT, n)
    }

    /// A VersionNameComponent (`v=n`).
    pub fn version(n: u64) -> Self {
        Self::number(types::VERSION_NAME_COMPONENT, n)
    }

    /// A TimestampNameComponent (`t=n`, microseconds since the Unix epoch).
    pub fn timestamp(n: u64) -> Self {
        Self::number(types::TIMESTAMP_NAME_COMPONENT, n)
    }

    /// A SequenceNumNameComponent (`seq=n`).
    pub fn sequence(n: u64) -> Self {
        Self::number(types::SEQUENCE_NUM_NAME_COMPONENT, n)
    }

    /// An ImplicitSha256DigestComponent.
    pub fn implicit_digest(digest: [u8; 32]) -> Self {
        OwnedComponent {
            typ: types::IMPLICIT_SHA256_DIGEST_COMPONENT,
            value: Bytes::copy_from_slice(&digest),
        }
    }

    /// A ParametersSha256DigestComponent.
    pub fn params_digest(digest: [u8; 32]) -> Self {
        OwnedComponent {
            typ: types::PARAMETERS_SHA256_DIGEST_COMPONENT,
            value: Bytes::copy_from_slice(&digest),
        }
    }

    /// Parses one component in URI form (`seg=3`, `a%20b`, `...`).
    pub fn from_uri(s: &str) -> Result<Self, crate::UriError> {
        let mut buf = bytes::BytesMut::with_capacity(s.len() + 8);
        crate::uri::parse_component(s.as_bytes(), 0, &mut buf)?;
        let name_value = buf.freeze();
        // parse_component wrote exactly one valid TLV
        let e = tlv::read_element(&name_value, 0, name_value.len())
            .map_err(|_| crate::UriError::BadType { pos: 0 })?;
        Ok(OwnedComponent {
            typ: e.typ,
            value: name_value.slice(e.value),
        })
    }

    /// TLV-TYPE.
    pub fn typ(&self) -> u64 {
        self.typ
    }

    /// TLV-VALUE.
    pub fn value(&self) -> &Bytes {
        &self.value
    }

    /// Borrowed view.
    pub fn as_component(&self) -> Component<'_> {
        Component {
            typ: self.typ,
            value: &self.value,
        }
    }
}

impl<'a> From<Component<'a>> for OwnedComponent {
    fn from(c: Component<'a>) -> Self {
        c.to_owned_component()
    }
}

impl fmt::Display for OwnedComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_component().fmt(f)
    }
}

impl PartialOrd for OwnedComponent {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OwnedComponent {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_component().cmp(&other.as_component())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_forms() {
        let cases: &[(Component, &str)] = &[
            (Component::generic(b"hello"), "hello"),
            (Component::generic(b""), "..."),
            (Component::generic(b"."), "...."),
            (Component::generic(b"a b/c"), "a%20b%2Fc"),
            (Component::generic(b"A-z_0.9~"), "A-z_0.9~"),
            (Component::generic(b"a=b"), "a%3Db"),
            (Component::new(50, &[0x01, 0x00]), "seg=256"),
            (Component::new(50, &[1, 2, 3]), "50=%01%02%03"),
            // non-minimal number (found by the name_uri fuzz target)
            (Component::new(50, &[0, 0, 0, 0x27]), "50=%00%00%00%27"),
            (Component::new(52, &[7]), "off=7"),
            (Component::new(54, &[7]), "v=7"),
            (Component::new(56, &[7]), "t=7"),
            (Component::new(58, &[7]), "seq=7"),
            (Component::new(32, b"kw"), "32=kw"),
            (Component::new(32, b""), "32=..."),
            (Component::new(300, b"x"), "300=x"),
        ];
        for (c, s) in cases {
            assert_eq!(c.to_string(), *s);
            let o = OwnedComponent::from_uri(s).unwrap();
            assert_eq!(o.as_component(), *c, "{s}");
        }
        let d = [0xabu8; 32];
        let c = Component::new(1, &d);
        assert_eq!(c.to_string(), format!("sha256digest={}", "ab".repeat(32)));
        let c = Component::new(2, &d);
        assert_eq!(c.to_string(), format!("params-sha256={}", "ab".repeat(32)));
    }

    #[test]
    fn canonical_order() {
        let a = Component::new(1, &[9u8; 32]);
        let b = Component::generic(b"zz");
        let c = Component::generic(b"aaa");
        let d = Component::generic(b"aab");
        let e = Component::new(50, &[0]);
        let mut v = vec![e, d, c, b, a];
        v.sort();
        assert_eq!(v, vec![a, b, c, d, e]);
    }

    #[test]
    fn typed_constructors() {
        assert_eq!(OwnedComponent::segment(0).value().as_ref(), &[0]);
        assert_eq!(
            OwnedComponent::version(0x1234).value().as_ref(),
            &[0x12, 0x34]
        );
        assert_eq!(
            OwnedComponent::segment(5).as_component().as_segment(),
            Some(5)
        );
        assert_eq!(
            OwnedComponent::sequence(5).as_component().as_segment(),
            None
        );
        assert!(OwnedComponent::typed(0, &b"x"[..]).is_none());
        assert!(OwnedComponent::typed(1, &b"x"[..]).is_none());
        assert!(OwnedComponent::typed(70000, &b"x"[..]).is_none());
    }
}
