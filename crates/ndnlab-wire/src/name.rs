//! [`Name`]: a cheap-to-clone view of a Name TLV-VALUE plus the offsets of its
//! components, with canonical order, prefix tests and prefix hashing.
//!
//! Component offsets are kept inline (no heap allocation for names of up to
//! 20 components) as `u16`, so a name value is limited to 65535 bytes (NDN
//! packets are at most 8800 bytes on NFD faces).

use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Range;
use core::str::FromStr;

use bytes::{BufMut, Bytes, BytesMut};
use smallvec::SmallVec;

use crate::component::{Component, OwnedComponent};
use crate::tlv::{self, types};
use crate::{DecodeError, UriError};

pub(crate) type Offsets = SmallVec<[u16; 20]>;

/// An NDN name: a shared [`Bytes`] holding the Name TLV-VALUE (often the
/// whole packet the name was decoded from, so that decoding a packet costs no
/// extra reference count) and the component offsets.
///
/// Equality and hashing are bytewise on the TLV-VALUE, which is canonical
/// because decoding enforces shortest var-numbers. `Ord` is the canonical
/// order of the packet spec.
#[derive(Default)]
pub struct Name {
    /// backing buffer; the value is `buf[start..start + vlen]`
    buf: Bytes,
    start: u32,
    vlen: u16,
    offs: Offsets,
}

impl Clone for Name {
    /// A refcount bump plus a block copy of the offsets (`SmallVec`'s own `Clone`
    /// pushes element by element: ~90 instructions per clone, measured with callgrind).
    #[inline]
    fn clone(&self) -> Self {
        Name {
            buf: self.buf.clone(),
            start: self.start,
            vlen: self.vlen,
            offs: Offsets::from_slice(&self.offs),
        }
    }
}

impl Name {
    /// The empty name `/`.
    pub fn new() -> Self {
        Name::default()
    }

    /// A builder that appends components.
    pub fn builder() -> NameBuilder {
        NameBuilder::default()
    }

    /// `value` must hold at most 65535 bytes of valid components at `offs`.
    pub(crate) fn from_parts(value: Bytes, offs: Offsets) -> Self {
        Name {
            vlen: value.len().min(u16::MAX as usize) as u16,
            start: 0,
            buf: value,
            offs,
        }
    }

    /// A name whose value is `buf[value]`, already validated (offsets from [`Name::scan`]).
    pub(crate) fn from_backing(buf: Bytes, value: Range<usize>, offs: Offsets) -> Self {
        Name {
            buf,
            start: value.start as u32,
            vlen: value.len() as u16,
            offs,
        }
    }

    /// The backing buffer (packets built on a name use it as their wire).
    #[inline]
    pub(crate) fn backing(&self) -> &Bytes {
        &self.buf
    }

    /// Takes the backing buffer out (the name reads as empty bytes until
    /// [`Name::set_backing`] puts an identical buffer back).
    pub(crate) fn take_backing(&mut self) -> Bytes {
        core::mem::take(&mut self.buf)
    }

    /// Consumes the name, returning its backing buffer. Moves the buffer out
    /// without writing to the name, so that an inlined caller that owns a packet
    /// view behind a pointer reads the buffer there instead of copying the view.
    #[inline]
    pub(crate) fn into_backing(self) -> Bytes {
        self.buf
    }

    /// Puts back a buffer with the same layout as the one taken.
    pub(crate) fn set_backing(&mut self, b: Bytes) {
        self.buf = b;
    }

    /// Parses an NDN URI (`/a/b/seg=3`).
    pub fn from_uri(uri: &str) -> Result<Name, UriError> {
        crate::uri::parse_name(uri)
    }

    /// Decodes a whole Name TLV (type 7); no bytes may follow it.
    pub fn decode(wire: Bytes) -> Result<Name, DecodeError> {
        let e = tlv::read_element(&wire, 0, wire.len())?;
        if e.typ != types::NAME {
            return Err(DecodeError::Unexpected {
                expected: types::NAME,
                got: e.typ,
                offset: 0,
            });
        }
        if e.end() != wire.len() {
            return Err(DecodeError::TrailingBytes { offset: e.end() });
        }
        Name::parse_at(&wire, e.value)
    }

    /// Validates a Name TLV-VALUE (a sequence of components).
    pub fn from_value(value: Bytes) -> Result<Name, DecodeError> {
        let r = 0..value.len();
        Name::parse_at(&value, r)
    }

    /// Parses the components in `buf[value]`; errors carry offsets in `buf`.
    pub(crate) fn parse_at(buf: &Bytes, value: Range<usize>) -> Result<Name, DecodeError> {
        Ok(Name::parse_at_digest(buf, value)?.0)
    }

    /// [`Name::parse_at`], also returning the index of the single
    /// ParametersSha256DigestComponent (`Err(())` if there are several).
    #[inline]
    pub(crate) fn parse_at_digest(
        buf: &Bytes,
        value: Range<usize>,
    ) -> Result<(Name, Result<Option<u16>, ()>), DecodeError> {
        let (offs, digest) = Name::scan_digest(buf, value.clone())?;
        Ok((Name::from_backing(buf.clone(), value, offs), digest))
    }

    /// The offsets of `buf[value]`'s components, taken from `hint` when `hint`'s
    /// value is byte-for-byte the same (offsets depend only on the bytes, and a
    /// `Name` always holds valid ones), else from [`Name::scan`].
    #[inline]
    pub(crate) fn scan_with_hint(
        buf: &[u8],
        value: Range<usize>,
        hint: Option<&Name>,
    ) -> Result<Offsets, DecodeError> {
        if let Some(h) = hint {
            if buf.get(value.clone()) == Some(h.value_bytes()) {
                return Ok(Offsets::from_slice(&h.offs));
            }
        }
        Name::scan(buf, value)
    }

    /// Validates components in `buf[value]` and returns their offsets.
    #[inline]
    pub(crate) fn scan(buf: &[u8], value: Range<usize>) -> Result<Offsets, DecodeError> {
        Ok(Name::scan_digest(buf, value)?.0)
    }

    #[inline]
    #[allow(clippy::type_complexity)]
    pub(crate) fn scan_digest(
        buf: &[u8],
        value: Range<usize>,
    ) -> Result<(Offsets, Result<Option<u16>, ()>), DecodeError> {
        if value.len() > u16::MAX as usize {
            return Err(DecodeError::BadLength {
                offset: value.start,
            });
        }
        let mut offs = Offsets::new();
        let mut digest = Ok(None);
        let mut pos = value.start;
        while pos < value.end {
            let e = tlv::read_element(buf, pos, value.end)?;
            if e.typ <= types::PARAMETERS_SHA256_DIGEST_COMPONENT {
                if e.len() != 32 {
                    return Err(DecodeError::BadLength { offset: pos });
                }
                if e.typ == types::PARAMETERS_SHA256_DIGEST_COMPONENT {
                    digest = match digest {
                        Ok(None) => Ok(Some(offs.len() as u16)),
                        _ => Err(()),
                    };
                }
            } else if e.typ > 0xFFFF {
                return Err(DecodeError::InvalidType {
                    typ: e.typ,
                    offset: pos,
                });
            }
            offs.push((pos - value.start) as u16);
            pos = e.value.end;
        }
        Ok((offs, digest))
    }

    /// Number of components.
    #[inline]
    pub fn len(&self) -> usize {
        self.offs.len()
    }

    /// Whether this is the empty name.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.offs.is_empty()
    }

    /// End offset (in the value) of the first `n` components.
    #[inline]
    fn end_of(&self, n: usize) -> usize {
        match self.offs.get(n) {
            Some(&o) => o as usize,
            None => self.vlen as usize,
        }
    }

    /// Byte range of component `i`'s TLV inside [`Name::value_bytes`].
    pub fn component_range(&self, i: usize) -> Option<Range<usize>> {
        let start = *self.offs.get(i)? as usize;
        Some(start..self.end_of(i + 1))
    }

    /// Component `i` (negative indexing is not supported; see [`Name::last`]).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Component<'_>> {
        let r = self.component_range(i)?;
        Some(component_at(self.value_bytes().get(r)?))
    }

    /// The last component.
    pub fn last(&self) -> Option<Component<'_>> {
        self.get(self.len().checked_sub(1)?)
    }

    /// Iterates over the components.
    pub fn iter(&self) -> Iter<'_> {
        Iter { name: self, i: 0 }
    }

    /// The first `n` components (the whole name if `n >= len`); shares the bytes.
    pub fn prefix(&self, n: usize) -> Name {
        let n = n.min(self.len());
        Name {
            buf: self.buf.clone(),
            start: self.start,
            vlen: self.end_of(n) as u16,
            offs: self.offs[..n].iter().copied().collect(),
        }
    }

    /// Components `start..end` (clamped) as a new name.
    pub fn sub_name(&self, start: usize, end: usize) -> Name {
        let end = end.min(self.len());
        let start = start.min(end);
        let base = self.end_of(start);
        Name {
            buf: self.buf.clone(),
            start: self.start + base as u32,
            vlen: (self.end_of(end) - base) as u16,
            offs: self.offs[start..end]
                .iter()
                .map(|&o| o - base as u16)
                .collect(),
        }
    }

    /// Whether `self` is a prefix of (or equal to) `other`.
    #[inline]
    pub fn is_prefix_of(&self, other: &Name) -> bool {
        // both are whole-component TLV sequences, so a byte prefix is a component prefix
        other.value_bytes().starts_with(self.value_bytes())
    }

    /// The Name TLV-VALUE (all component TLVs).
    #[inline]
    pub fn value_bytes(&self) -> &[u8] {
        let s = self.start as usize;
        self.buf.get(s..s + self.vlen as usize).unwrap_or(&[])
    }

    /// The Name TLV-VALUE as shared bytes (a cheap slice of the backing buffer).
    #[inline]
    pub fn value(&self) -> Bytes {
        let s = self.start as usize;
        if s + self.vlen as usize > self.buf.len() {
            return Bytes::new();
        }
        self.buf.slice(s..s + self.vlen as usize)
    }

    /// TLVs of the first `n` components: a table key for prefix `n`.
    #[inline]
    pub fn prefix_bytes(&self, n: usize) -> &[u8] {
        let v = self.value_bytes();
        &v[..self.end_of(n).min(v.len())]
    }

    /// Hash of the first `n` components (clamped), equal to
    /// `prefix_hashes(..)[n]`. Deterministic across runs and machines.
    pub fn prefix_hash(&self, n: usize) -> u64 {
        let n = n.min(self.len());
        let (tail, vlen) = self.hash_view();
        let mut h = PREFIX_HASH_SEED;
        for i in 0..n {
            h = hash_component_in(h, tail, self.offs[i] as usize, self.end_of(i + 1), vlen);
        }
        h
    }

    /// Hashes of every prefix, lengths `0..=len`, in one pass: `out[k]` =
    /// `prefix_hash(k)`. Writes `min(out.len(), len + 1)` entries and returns
    /// that count.
    pub fn prefix_hashes(&self, out: &mut [u64]) -> usize {
        let n = out.len().min(self.len() + 1);
        let Some((first, rest)) = out[..n].split_first_mut() else {
            return 0;
        };
        let (tail, vlen) = self.hash_view();
        let mut h = PREFIX_HASH_SEED;
        *first = h;
        // Borrow the offsets once (indexing the `SmallVec` checks its inline/heap tag
        // at every access). Component k spans offs[k]..offs[k + 1] (the last one ends
        // at the value's end): each step loads one new offset and carries the end.
        let offs: &[u16] = &self.offs;
        let Some((&first_off, next_offs)) = offs.split_first() else {
            return n;
        };
        let mut start = first_off as usize;
        // Every component but the last ends where the next starts (zipped: no bounds
        // check per step); the last, if wanted, ends at the value's end.
        let (inner, last) = rest.split_at_mut(rest.len().min(next_offs.len()));
        for (o, &end) in inner.iter_mut().zip(next_offs) {
            h = hash_component_in(h, tail, start, end as usize, vlen);
            *o = h;
            start = end as usize;
        }
        if let Some(o) = last.first_mut() {
            *o = hash_component_in(h, tail, start, vlen, vlen);
        }
        n
    }

    /// What prefix hashing reads: the backing buffer from the value's start (the
    /// value, then whatever follows it in the packet) and the value length (an empty
    /// view when the value is out of range, which `value_bytes` reads as empty).
    #[inline]
    fn hash_view(&self) -> (&[u8], usize) {
        let s = self.start as usize;
        let vlen = self.vlen as usize;
        match self.buf.get(s..) {
            Some(tail) if vlen <= tail.len() => (tail, vlen),
            _ => (&[], 0),
        }
    }

    /// Size of the whole Name TLV.
    #[inline]
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(types::NAME, self.vlen as usize)
    }

    /// Writes the whole Name TLV.
    #[inline]
    pub fn encode(&self, out: &mut impl BufMut) {
        tlv::put_tlv(out, types::NAME, self.value_bytes());
    }

    /// The whole Name TLV as new bytes.
    pub fn to_wire(&self) -> Bytes {
        let mut b = BytesMut::with_capacity(self.encoded_len());
        self.encode(&mut b);
        b.freeze()
    }

    /// A new name with `c` appended.
    pub fn append(&self, c: Component<'_>) -> Name {
        let mut b = NameBuilder::with_capacity(self.vlen as usize + c.encoded_len());
        b.extend_name(self);
        b.push(c);
        b.build()
    }

    /// A new name with a GenericNameComponent appended.
    pub fn append_generic(&self, value: &[u8]) -> Name {
        self.append(Component::generic(value))
    }

    /// A new name with `seg=n` appended.
    pub fn append_segment(&self, n: u64) -> Name {
        self.append(OwnedComponent::segment(n).as_component())
    }

    /// A new name with `v=n` appended.
    pub fn append_version(&self, n: u64) -> Name {
        self.append(OwnedComponent::version(n).as_component())
    }

    /// A new name with all components of `other` appended.
    pub fn concat(&self, other: &Name) -> Name {
        let mut b = NameBuilder::with_capacity(self.vlen as usize + other.vlen as usize);
        b.extend_name(self);
        b.extend_name(other);
        b.build()
    }

    /// Canonical URI (same as `Display`).
    pub fn to_uri(&self) -> String {
        self.to_string()
    }
}

/// Reads the component TLV that `tlv_bytes` holds exactly (validated earlier).
#[inline]
fn component_at(tlv_bytes: &[u8]) -> Component<'_> {
    let mut p = 0;
    let typ = tlv::read_varnum(tlv_bytes, &mut p).unwrap_or(0);
    let _len = tlv::read_varnum(tlv_bytes, &mut p).unwrap_or(0);
    Component {
        typ,
        value: tlv_bytes.get(p..).unwrap_or(&[]),
    }
}

/// `LOW_BYTES[n]`: a mask of the low `n` bytes (a load beats the two shifts by a
/// variable count that computed it).
const LOW_BYTES: [u64; 9] = {
    let mut m = [0u64; 9];
    let mut n = 1;
    while n <= 8 {
        m[n] = u64::MAX >> (64 - 8 * n);
        n += 1;
    }
    m
};

const PREFIX_HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;
const K1: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xD6E8_FEB8_6659_FD93;

#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let r = (a as u128).wrapping_mul(b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Mixes one component TLV into the running prefix hash. A TLV of at most 8 bytes
/// (most components) takes one multiply-fold of its little-endian value: a component
/// TLV is self-delimiting (its type and length come first), so two different ones
/// never load the same zero-padded value and need no length mixed in. Longer ones go
/// 8 bytes per step, then mix in their length.
#[inline]
fn hash_component(mut h: u64, tlv_bytes: &[u8]) -> u64 {
    if tlv_bytes.len() <= 8 {
        return fold_mul(h ^ load_le(tlv_bytes), K1);
    }
    let mut chunks = tlv_bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        h = fold_mul(h ^ u64::from_le_bytes(a), K1);
    }
    let rem = chunks.remainder();
    if !rem.is_empty() {
        h = fold_mul(h ^ load_le(rem), K1);
    }
    fold_mul(h ^ tlv_bytes.len() as u64, K2)
}

/// Mixes component `start..end` of the name value `tail[..vlen]` into the running
/// prefix hash: the same result as `hash_component` on its bytes. A component of at
/// most 8 bytes takes one 8-byte load, masked, when the buffer extends 8 bytes past its
/// start (the rest of the packet usually follows the name), instead of the general
/// chunk loop and tail assembly. (`end <= vlen` holds for a name's own offsets; an
/// empty view fails the load's bounds check and takes the general path.)
#[inline(always)]
fn hash_component_in(h: u64, tail: &[u8], start: usize, end: usize, vlen: usize) -> u64 {
    let len = end.wrapping_sub(start);
    if len <= 8 {
        if let Some(w) = tail.get(start..start + 8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            // `load_le` of 0..=8 bytes is their little-endian value, as is this.
            let x = u64::from_le_bytes(a) & LOW_BYTES[len];
            return fold_mul(h ^ x, K1);
        }
    }
    hash_component_slow(h, tail, start, end, vlen)
}

/// `hash_component_in` for other sizes, or at the end of the buffer (out of line: it
/// would take registers from the fast loop).
#[cold]
#[inline(never)]
fn hash_component_slow(h: u64, tail: &[u8], start: usize, end: usize, vlen: usize) -> u64 {
    let v = tail.get(..vlen).unwrap_or(&[]);
    hash_component(h, v.get(start..end).unwrap_or(&[]))
}

/// Little-endian value of 0..=8 bytes without a variable-length copy
/// (overlapping fixed-size loads).
#[inline(always)]
fn load_le(b: &[u8]) -> u64 {
    let n = b.len();
    if n == 8 {
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    } else if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
        lo | hi << (8 * (n - 4))
    } else if n > 0 {
        b[0] as u64 | (b[n / 2] as u64) << (8 * (n / 2)) | (b[n - 1] as u64) << (8 * (n - 1))
    } else {
        0
    }
}

/// Iterator over a name's components.
#[derive(Clone)]
pub struct Iter<'a> {
    name: &'a Name,
    i: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Component<'a>;
    #[inline]
    fn next(&mut self) -> Option<Component<'a>> {
        let c = self.name.get(self.i)?;
        self.i += 1;
        Some(c)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.name.len().saturating_sub(self.i);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Name {
    type Item = Component<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl PartialEq for Name {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.value_bytes() == other.value_bytes()
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value_bytes().hash(state)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Canonical order: first differing component decides; a proper prefix comes first.
impl Ord for Name {
    fn cmp(&self, other: &Self) -> Ordering {
        let mut a = self.iter();
        let mut b = other.iter();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(x), Some(y)) => match x.cmp(&y) {
                    Ordering::Equal => {}
                    o => return o,
                },
            }
        }
    }
}

/// Canonical NDN URI (`/` for the empty name).
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("/");
        }
        for c in self.iter() {
            f.write_str("/")?;
            fmt::Display::fmt(&c, f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({self})")
    }
}

impl FromStr for Name {
    type Err = UriError;
    fn from_str(s: &str) -> Result<Name, UriError> {
        Name::from_uri(s)
    }
}

impl TryFrom<&str> for Name {
    type Error = UriError;
    fn try_from(s: &str) -> Result<Name, UriError> {
        Name::from_uri(s)
    }
}

/// Builds a [`Name`] component by component into one buffer.
#[derive(Debug, Default, Clone)]
pub struct NameBuilder {
    buf: BytesMut,
    offs: Offsets,
}

impl NameBuilder {
    /// A builder with room for `value_len` bytes of components.
    pub fn with_capacity(value_len: usize) -> Self {
        NameBuilder {
            buf: BytesMut::with_capacity(value_len),
            offs: Offsets::new(),
        }
    }

    /// Appends a component. Components past the 65535-byte name limit are dropped.
    pub fn push(&mut self, c: Component<'_>) -> &mut Self {
        if self.buf.len() + c.encoded_len() <= u16::MAX as usize && c.typ != 0 && c.typ <= 0xFFFF {
            self.offs.push(self.buf.len() as u16);
            c.encode(&mut self.buf);
        }
        self
    }

    /// Appends every component of `name`.
    pub fn extend_name(&mut self, name: &Name) -> &mut Self {
        if self.buf.len() + name.vlen as usize <= u16::MAX as usize {
            let base = self.buf.len() as u16;
            self.offs.extend(name.offs.iter().map(|&o| o + base));
            self.buf.extend_from_slice(name.value_bytes());
        }
        self
    }

    /// Appends a GenericNameComponent.
    pub fn push_generic(&mut self, value: &[u8]) -> &mut Self {
        self.push(Component::generic(value))
    }

    /// Appends an owned component.
    pub fn push_owned(&mut self, c: &OwnedComponent) -> &mut Self {
        self.push(c.as_component())
    }

    /// Appends `seg=n`.
    pub fn push_segment(&mut self, n: u64) -> &mut Self {
        self.push_owned(&OwnedComponent::segment(n))
    }

    /// Appends `v=n`.
    pub fn push_version(&mut self, n: u64) -> &mut Self {
        self.push_owned(&OwnedComponent::version(n))
    }

    /// Appends `t=n`.
    pub fn push_timestamp(&mut self, n: u64) -> &mut Self {
        self.push_owned(&OwnedComponent::timestamp(n))
    }

    /// Appends `seq=n`.
    pub fn push_sequence(&mut self, n: u64) -> &mut Self {
        self.push_owned(&OwnedComponent::sequence(n))
    }

    /// Appends `off=n`.
    pub fn push_byte_offset(&mut self, n: u64) -> &mut Self {
        self.push_owned(&OwnedComponent::byte_offset(n))
    }

    /// The finished name.
    pub fn build(&mut self) -> Name {
        Name::from_parts(
            core::mem::take(&mut self.buf).freeze(),
            core::mem::take(&mut self.offs),
        )
    }
}

impl<'a> FromIterator<Component<'a>> for Name {
    fn from_iter<I: IntoIterator<Item = Component<'a>>>(iter: I) -> Self {
        let mut b = NameBuilder::default();
        for c in iter {
            b.push(c);
        }
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        s.parse().unwrap()
    }

    #[test]
    fn decode_and_print() {
        // 07 0e | 08 03 "ndn" | 08 04 "test" | 32 01 05 (seg=5)
        let wire = hex::decode("070e08036e646e0804746573743201 05".replace(' ', "")).unwrap();
        let name = Name::decode(Bytes::from(wire.clone())).unwrap();
        assert_eq!(name.len(), 3);
        assert_eq!(name.to_string(), "/ndn/test/seg=5");
        assert_eq!(name.get(2).unwrap().as_segment(), Some(5));
        assert_eq!(name.to_wire().as_ref(), &wire[..]);
        assert_eq!(n("/ndn/test/seg=5"), name);
        assert_eq!(Name::new().to_string(), "/");
    }

    #[test]
    fn decode_errors() {
        // component with type 0
        let e = Name::decode(Bytes::from_static(&[7, 2, 0, 0])).unwrap_err();
        assert!(matches!(e, DecodeError::InvalidType { typ: 0, offset: 2 }));
        // component type > 65535
        let e = Name::decode(Bytes::from_static(&[7, 6, 0xfe, 0, 1, 0, 0, 0])).unwrap_err();
        assert!(matches!(e, DecodeError::InvalidType { .. }));
        // implicit digest of 1 byte
        let e = Name::decode(Bytes::from_static(&[7, 3, 1, 1, 0])).unwrap_err();
        assert_eq!(e, DecodeError::BadLength { offset: 2 });
        // component overruns the name
        let e = Name::decode(Bytes::from_static(&[7, 3, 8, 2, 0, 0])).unwrap_err();
        assert_eq!(e, DecodeError::TrailingBytes { offset: 5 });
        let e = Name::decode(Bytes::from_static(&[7, 3, 8, 2, 0])).unwrap_err();
        assert_eq!(e, DecodeError::Truncated { offset: 2 });
    }

    #[test]
    fn prefixes() {
        let a = n("/a/b/c");
        assert!(n("/").is_prefix_of(&a));
        assert!(n("/a/b").is_prefix_of(&a));
        assert!(a.is_prefix_of(&a));
        assert!(!n("/a/bb").is_prefix_of(&a));
        assert!(!n("/a/b/c/d").is_prefix_of(&a));
        assert_eq!(a.prefix(2), n("/a/b"));
        assert_eq!(a.prefix(9), a);
        assert_eq!(a.sub_name(1, 3), n("/b/c"));
        assert_eq!(a.prefix_bytes(1), &[8, 1, b'a']);
        assert_eq!(a.append_segment(1), n("/a/b/c/seg=1"));
        assert_eq!(a.concat(&n("/x")), n("/a/b/c/x"));
    }

    #[test]
    fn prefix_hashes_match_prefix_hash() {
        let a = n("/localhost/nfd/faces/list/v=1/seg=0/a-much-longer-component-value");
        let mut out = [0u64; 16];
        assert_eq!(a.prefix_hashes(&mut out), a.len() + 1);
        for (k, h) in out.iter().enumerate().take(a.len() + 1) {
            assert_eq!(*h, a.prefix_hash(k));
            assert_eq!(*h, a.prefix(k).prefix_hash(99));
        }
        let mut seen = std::collections::HashSet::new();
        assert!(out[..=a.len()].iter().all(|h| seen.insert(*h)));
        assert_ne!(n("/ab").prefix_hash(1), n("/a/b").prefix_hash(2));
        let mut small = [0u64; 2];
        assert_eq!(a.prefix_hashes(&mut small), 2);
    }

    #[test]
    fn fast_component_hashing_matches_the_general_one() {
        // Components of every TLV size from 2 (empty value) to 20 bytes, hashed both
        // inside a longer buffer (fast path) and as a name whose buffer ends with it.
        for vl in 0..18usize {
            let value: Vec<u8> = (0..vl as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
            let name = Name::from_uri("/pre")
                .unwrap()
                .append_generic(&value)
                .append_generic(b"tail-component");
            let mut out = [0u64; 4];
            name.prefix_hashes(&mut out);
            let v = name.value_bytes();
            let mut h = PREFIX_HASH_SEED;
            for (k, expect) in out.iter().enumerate().skip(1) {
                let r = name.offs[k - 1] as usize..name.end_of(k);
                h = hash_component(h, &v[r]);
                assert_eq!(*expect, h, "value length {vl}, prefix {k}");
                assert_eq!(name.prefix_hash(k), h);
            }
        }
    }

    #[test]
    fn canonical_order() {
        let mut v = [
            n("/b"),
            n("/a/b"),
            n("/aa"),
            n("/a"),
            n("/"),
            n("/seg=1"),
            n("/sha256digest=0000000000000000000000000000000000000000000000000000000000000000"),
        ];
        v.sort();
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(
            s,
            [
                "/",
                "/sha256digest=0000000000000000000000000000000000000000000000000000000000000000",
                "/a",
                "/a/b",
                "/b",
                "/aa",
                "/seg=1"
            ]
        );
    }
}
