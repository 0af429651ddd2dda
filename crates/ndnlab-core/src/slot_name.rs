//! [`SlotName`]: the name of a PCCT slot, kept inside the slot when short.
//!
//! Every Interest and Data verifies its PCCT slot by comparing name bytes. When the
//! slot held only a `Bytes` slice of the packet, that compare followed a pointer to
//! another allocation: one more dependent cache miss per packet in a table larger
//! than the cache, and a reference-count update on the packet buffer each time a
//! slot was created, re-pointed at a Data, or freed. Names up to [`INLINE`] bytes
//! (`/ndn/edu/ucla/v=3/seg=12` is 28) now live in the slot's own cache line; longer
//! ones keep sharing the packet buffer through a boxed handle, so that the slot stays
//! 56 bytes (the CS's memory budget is 128 bytes of overhead per entry).

use bytes::Bytes;

/// Longest name TLV-VALUE stored inline (the enum is then 32 bytes, and a slot 56).
pub(crate) const INLINE: usize = 30;

/// A slot's name TLV-VALUE (component TLVs).
#[derive(Clone)]
pub(crate) enum SlotName {
    /// Up to [`INLINE`] bytes, in place.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer name: a slice of a packet buffer (boxed: a `Bytes` is 32 bytes).
    Shared(Box<Bytes>),
}

impl Default for SlotName {
    fn default() -> Self {
        SlotName::Inline {
            len: 0,
            bytes: [0; INLINE],
        }
    }
}

impl SlotName {
    /// The name `value`; `shared()` gives the same bytes as a slice of a packet
    /// buffer, called only for a name too long to store inline (so a short name costs
    /// no reference-count update).
    #[inline]
    pub(crate) fn new(value: &[u8], shared: impl FnOnce() -> Bytes) -> Self {
        if value.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            copy_short(&mut bytes, value);
            SlotName::Inline {
                len: value.len() as u8,
                bytes,
            }
        } else {
            SlotName::Shared(Box::new(shared()))
        }
    }

    /// The name bytes.
    #[inline]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            SlotName::Inline { len, bytes } => &bytes[..*len as usize],
            SlotName::Shared(b) => &b[..],
        }
    }

    /// The name bytes as a `Bytes` (a copy for an inline name).
    pub(crate) fn to_bytes(&self) -> Bytes {
        match self {
            SlotName::Inline { len, bytes } => Bytes::copy_from_slice(&bytes[..*len as usize]),
            SlotName::Shared(b) => Bytes::clone(b),
        }
    }

    /// Whether the name is empty (the root, or a freed slot).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// A shared name re-pointed at `buf()` (equal bytes in another packet, e.g. the
    /// Data that replaces the Interest, so the slot does not keep the Interest's
    /// buffer alive); inline names stay as they are and `buf` is not called.
    #[inline]
    pub(crate) fn repoint(&mut self, buf: impl FnOnce() -> Bytes) {
        if let SlotName::Shared(b) = self {
            let new = buf();
            debug_assert_eq!(&b[..], &new[..]);
            **b = new;
        }
    }

    /// Where the bytes are, for prefetching: `None` when they are in the slot itself.
    #[inline]
    pub(crate) fn external_ptr(&self) -> Option<*const u8> {
        match self {
            SlotName::Inline { .. } => None,
            SlotName::Shared(b) => Some(b.as_ptr()),
        }
    }
}

/// `out[..v.len()] = v` for `v.len() <= INLINE`, as two overlapping fixed-size copies
/// (a variable-length `copy_from_slice` is a `memcpy` call).
#[inline(always)]
fn copy_short(out: &mut [u8; INLINE], v: &[u8]) {
    let n = v.len();
    if n >= 16 {
        out[..16].copy_from_slice(&v[..16]);
        out[n - 16..n].copy_from_slice(&v[n - 16..]);
    } else if n >= 8 {
        out[..8].copy_from_slice(&v[..8]);
        out[n - 8..n].copy_from_slice(&v[n - 8..]);
    } else if n >= 4 {
        out[..4].copy_from_slice(&v[..4]);
        out[n - 4..n].copy_from_slice(&v[n - 4..]);
    } else {
        for (o, b) in out.iter_mut().zip(v) {
            *o = *b;
        }
    }
}

/// `a == b` for name bytes: 8 to 32 bytes as two overlapping fixed-size compares (a
/// slice `==` is a `bcmp` call, and names are short), other lengths with `==`.
#[inline(always)]
pub(crate) fn name_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (16..=32).contains(&n) {
        let w = |s: &[u8], at: usize| u128::from_ne_bytes(s[at..at + 16].try_into().expect("16"));
        return w(a, 0) == w(b, 0) && w(a, n - 16) == w(b, n - 16);
    }
    if (8..16).contains(&n) {
        let w = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("8"));
        return w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8);
    }
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_eq_is_slice_eq() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| i as u8 ^ 0x5a).collect();
            assert!(name_eq(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 1;
                assert!(!name_eq(&a, &b), "length {n}, byte {i}");
            }
            assert!(!name_eq(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }

    #[test]
    fn short_names_inline_long_names_shared() {
        assert_eq!(std::mem::size_of::<SlotName>(), 32);
        assert_eq!(std::mem::size_of::<crate::pcct::Slot>(), 56);
        for n in (0..=INLINE + 1).chain([300]) {
            let buf = Bytes::from((0..n).map(|i| i as u8).collect::<Vec<_>>());
            let s = SlotName::new(&buf, || buf.clone());
            assert_eq!(s.as_bytes(), &buf[..]);
            assert_eq!(s.to_bytes(), buf);
            assert_eq!(s.is_empty(), n == 0);
            assert_eq!(matches!(s, SlotName::Inline { .. }), n <= INLINE);
            assert_eq!(s.external_ptr().is_some(), n > INLINE);
            let mut r = s.clone();
            let other = Bytes::copy_from_slice(&buf);
            r.repoint(|| other.clone());
            assert_eq!(r.as_bytes(), &buf[..]);
            if n > INLINE {
                assert_eq!(r.external_ptr(), Some(other.as_ptr()));
            }
        }
    }
}
