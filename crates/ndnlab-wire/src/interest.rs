//! [`Interest`]: a checked zero-copy view with in-place rewrite of the hot
//! fields (Nonce, HopLimit, InterestLifetime).

use core::ops::Range;
use core::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use sha2::{Digest, Sha256};

use crate::interest_builder::InterestBuilder;
use crate::name::Name;
use crate::signature::SignatureInfo;
use crate::tlv::{self, types};
use crate::DecodeError;

/// InterestLifetime when the element is absent.
pub const DEFAULT_LIFETIME: Duration = Duration::from_millis(4000);

#[derive(Debug, Clone, PartialEq, Eq)]
struct InterestSig {
    info: SignatureInfo,
    /// whole InterestSignatureInfo TLV
    info_range: Range<u32>,
    /// InterestSignatureValue TLV-VALUE
    value: Range<u32>,
}

/// A decoded Interest: the wire bytes plus offsets recorded by [`Interest::decode`].
/// Accessors never fail.
#[derive(Debug, Clone)]
pub struct Interest {
    /// the name; its backing buffer is the whole Interest wire
    name: Name,
    /// start of the Name TLV-VALUE in `wire`
    name_at: u32,
    /// ForwardingHint and signature, boxed: rare, and the view stays small
    extras: Option<Box<Extras>>,
    can_be_prefix: bool,
    must_be_fresh: bool,
    /// offsets of TLV-VALUEs in `wire`; 0 = absent
    nonce_at: u32,
    lifetime_at: u32,
    lifetime_len: u8,
    hop_at: u32,
    /// start of the ApplicationParameters TLV; 0 = absent
    params_at: u32,
    /// TLV-VALUE length of ApplicationParameters
    params_len: u32,
    /// index of the ParametersSha256DigestComponent
    params_digest_index: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Extras {
    hints: Vec<Name>,
    sig: Option<InterestSig>,
}

/// Position of each known element in the Interest order.
fn order(typ: u64) -> Option<u8> {
    Some(match typ {
        types::CAN_BE_PREFIX => 1,
        types::MUST_BE_FRESH => 2,
        types::FORWARDING_HINT => 3,
        types::NONCE => 4,
        types::INTEREST_LIFETIME => 5,
        types::HOP_LIMIT => 6,
        types::APPLICATION_PARAMETERS => 7,
        types::INTEREST_SIGNATURE_INFO => 8,
        types::INTEREST_SIGNATURE_VALUE => 9,
        _ => return None,
    })
}

impl Interest {
    /// A builder for a new Interest.
    pub fn builder(name: Name) -> InterestBuilder {
        InterestBuilder::new(name)
    }

    /// Validates an Interest TLV (the whole of `wire`) and records its offsets.
    pub fn decode(wire: Bytes) -> Result<Interest, DecodeError> {
        let outer = tlv::read_packet(&wire, types::INTEREST)?;
        let end = outer.end();
        let mut pos = outer.value.start;
        let ne = tlv::read_first_name(&wire, pos, end)?;
        let (offs, digest_idx) = Name::scan_digest(&wire, ne.value.clone())?;
        if offs.is_empty() {
            return Err(DecodeError::EmptyName);
        }
        let mut it = Interest {
            name_at: ne.value.start as u32,
            name: Name::new(),
            extras: None,
            can_be_prefix: false,
            must_be_fresh: false,
            nonce_at: 0,
            lifetime_at: 0,
            lifetime_len: 0,
            hop_at: 0,
            params_at: 0,
            params_len: 0,
            params_digest_index: None,
        };
        pos = ne.end();
        let mut last = 0u8;
        let mut sig_info: Option<(SignatureInfo, Range<usize>)> = None;
        let mut sig_value: Option<Range<usize>> = None;
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
            let bad_len = DecodeError::BadLength { offset: e.offset };
            match e.typ {
                types::CAN_BE_PREFIX => {
                    if !e.is_empty() {
                        return Err(bad_len);
                    }
                    it.can_be_prefix = true;
                }
                types::MUST_BE_FRESH => {
                    if !e.is_empty() {
                        return Err(bad_len);
                    }
                    it.must_be_fresh = true;
                }
                types::FORWARDING_HINT => {
                    for h in tlv::Elements::new(&wire, e.value.clone()) {
                        let h = h?;
                        if h.typ != types::NAME {
                            return Err(DecodeError::Unexpected {
                                expected: types::NAME,
                                got: h.typ,
                                offset: h.offset,
                            });
                        }
                        it.extras
                            .get_or_insert_with(Default::default)
                            .hints
                            .push(Name::parse_at(&wire, h.value)?);
                    }
                }
                types::NONCE => {
                    if e.len() != 4 {
                        return Err(bad_len);
                    }
                    it.nonce_at = e.value.start as u32;
                }
                types::INTEREST_LIFETIME => {
                    tlv::read_nni_at(&wire[e.value.clone()], e.value.start)?;
                    it.lifetime_at = e.value.start as u32;
                    it.lifetime_len = e.len() as u8;
                }
                types::HOP_LIMIT => {
                    if e.len() != 1 {
                        return Err(bad_len);
                    }
                    it.hop_at = e.value.start as u32;
                }
                types::APPLICATION_PARAMETERS => {
                    it.params_at = e.offset as u32;
                    it.params_len = e.len() as u32;
                }
                types::INTEREST_SIGNATURE_INFO => {
                    let si = SignatureInfo::parse(&wire, e.value.clone())?;
                    sig_info = Some((si, e.range()));
                }
                _ => {
                    // INTEREST_SIGNATURE_VALUE
                    sig_value = Some(e.value.clone());
                }
            }
        }
        match (sig_info, sig_value) {
            (Some((info, r)), Some(v)) => {
                if it.params_at == 0 {
                    return Err(DecodeError::Missing {
                        field: "ApplicationParameters",
                    });
                }
                it.extras.get_or_insert_with(Default::default).sig = Some(InterestSig {
                    info,
                    info_range: r.start as u32..r.end as u32,
                    value: v.start as u32..v.end as u32,
                });
            }
            (Some(_), None) => {
                return Err(DecodeError::Missing {
                    field: "InterestSignatureValue",
                })
            }
            (None, Some(_)) => {
                return Err(DecodeError::Missing {
                    field: "InterestSignatureInfo",
                })
            }
            (None, None) => {}
        }
        it.name = Name::from_backing(wire, ne.value, offs);
        // ParametersSha256DigestComponent: exactly one iff ApplicationParameters
        let digest_idx = digest_idx.map_err(|()| DecodeError::ParamsDigestMissing)?;
        if it.params_at != 0 {
            let Some(i) = digest_idx else {
                return Err(DecodeError::ParamsDigestMissing);
            };
            let want = Sha256::digest(&it.name.backing()[it.params_at as usize..end]);
            let have = it.name.get(i as usize).map(|c| c.value).unwrap_or(&[]);
            if want.as_slice() != have {
                return Err(DecodeError::ParamsDigestMismatch);
            }
            it.params_digest_index = Some(i);
        } else if digest_idx.is_some() {
            return Err(DecodeError::ParamsDigestMissing);
        }
        Ok(it)
    }

    fn sig(&self) -> Option<&InterestSig> {
        self.extras.as_ref()?.sig.as_ref()
    }

    /// TLV-VALUE range of ApplicationParameters (empty if absent).
    fn params_value(&self) -> Range<usize> {
        if self.params_at == 0 {
            return 0..0;
        }
        // ApplicationParameters' TLV-TYPE (36) is one byte
        let start = self.params_at as usize + 1 + tlv::varnum_len(self.params_len as u64);
        start..start + self.params_len as usize
    }

    /// The name.
    #[inline]
    pub fn name(&self) -> &Name {
        &self.name
    }

    /// CanBePrefix.
    #[inline]
    pub fn can_be_prefix(&self) -> bool {
        self.can_be_prefix
    }

    /// MustBeFresh.
    #[inline]
    pub fn must_be_fresh(&self) -> bool {
        self.must_be_fresh
    }

    /// ForwardingHint names (empty if absent).
    #[inline]
    pub fn forwarding_hint(&self) -> &[Name] {
        match &self.extras {
            Some(x) => &x.hints,
            None => &[],
        }
    }

    /// Nonce, read big-endian.
    #[inline]
    pub fn nonce(&self) -> Option<u32> {
        if self.nonce_at == 0 {
            return None;
        }
        let b = self
            .name
            .backing()
            .get(self.nonce_at as usize..self.nonce_at as usize + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// InterestLifetime element value in milliseconds, if present.
    #[inline]
    pub fn lifetime_field(&self) -> Option<u64> {
        if self.lifetime_at == 0 {
            return None;
        }
        let r = self.lifetime_at as usize..self.lifetime_at as usize + self.lifetime_len as usize;
        tlv::read_nni(self.name.backing().get(r)?).ok()
    }

    /// InterestLifetime (4 s when absent).
    #[inline]
    pub fn lifetime(&self) -> Duration {
        self.lifetime_field()
            .map_or(DEFAULT_LIFETIME, Duration::from_millis)
    }

    /// InterestLifetime in nanoseconds (4 s when absent), without the `Duration`
    /// round trip (a forwarder computes a deadline from it several times per
    /// Interest). A lifetime longer than `u64::MAX` ns (about 584 years: 2^63-1 ms,
    /// the largest VarNumber) is `u64::MAX`: it clamps, never wraps to a short one.
    #[inline]
    pub fn lifetime_ns(&self) -> u64 {
        match self.lifetime_field() {
            Some(ms) => ms.saturating_mul(1_000_000),
            None => DEFAULT_LIFETIME.as_nanos() as u64,
        }
    }

    /// HopLimit.
    #[inline]
    pub fn hop_limit(&self) -> Option<u8> {
        if self.hop_at == 0 {
            return None;
        }
        self.name.backing().get(self.hop_at as usize).copied()
    }

    /// ApplicationParameters TLV-VALUE (zero-copy).
    pub fn app_params(&self) -> Option<Bytes> {
        if self.params_at == 0 {
            return None;
        }
        Some(self.name.backing().slice(self.params_value()))
    }

    /// The ParametersSha256DigestComponent value (checked at decode).
    pub fn params_digest(&self) -> Option<[u8; 32]> {
        self.name
            .get(self.params_digest_index? as usize)?
            .as_digest()
    }

    /// InterestSignatureInfo of a signed Interest.
    pub fn signature_info(&self) -> Option<&SignatureInfo> {
        self.sig().map(|s| &s.info)
    }

    /// InterestSignatureValue TLV-VALUE of a signed Interest.
    pub fn signature_value(&self) -> Option<&[u8]> {
        let s = self.sig()?;
        self.name
            .backing()
            .get(s.value.start as usize..s.value.end as usize)
    }

    /// The signed portion of a signed Interest in three pieces: name components
    /// before the ParametersSha256DigestComponent, those after it, and
    /// ApplicationParameters through InterestSignatureInfo.
    pub fn signed_portion_parts(&self) -> Option<[&[u8]; 3]> {
        let s = self.sig()?;
        let i = self.params_digest_index? as usize;
        let value = self.name.value_bytes();
        let r = self.name.component_range(i)?;
        Some([
            &value[..r.start],
            &value[r.end..],
            self.name
                .backing()
                .get(self.params_at as usize..s.info_range.end as usize)?,
        ])
    }

    /// The signed portion of a signed Interest, concatenated.
    pub fn signed_portion(&self) -> Option<Vec<u8>> {
        Some(self.signed_portion_parts()?.concat())
    }

    /// Whether this Interest carries InterestSignatureInfo/Value.
    pub fn is_signed(&self) -> bool {
        self.sig().is_some()
    }

    /// The whole Interest TLV.
    #[inline]
    pub fn wire(&self) -> &Bytes {
        self.name.backing()
    }

    /// Consumes the view, returning the wire bytes (inlined and without writes to
    /// the view, like `Data::into_wire`). The boxed extras are dropped here only when
    /// present (their drop glue was a call per Interest).
    #[inline]
    pub fn into_wire(self) -> Bytes {
        let Interest { name, extras, .. } = self;
        if let Some(x) = extras {
            drop(x);
        }
        name.into_backing()
    }

    /// Sets the Nonce: in place when present, else the Interest is re-encoded.
    pub fn set_nonce(&mut self, nonce: u32) {
        if self.nonce_at != 0 {
            let at = self.nonce_at as usize;
            self.write_in_place(at, &nonce.to_be_bytes());
        } else {
            let mut t = [0u8; 6];
            t[0] = types::NONCE as u8;
            t[1] = 4;
            t[2..].copy_from_slice(&nonce.to_be_bytes());
            self.splice(types::NONCE, &t);
        }
    }

    /// Sets the HopLimit: in place when present, else the Interest is re-encoded.
    pub fn set_hop_limit(&mut self, hop_limit: u8) {
        if self.hop_at != 0 {
            let at = self.hop_at as usize;
            self.write_in_place(at, &[hop_limit]);
        } else {
            self.splice(types::HOP_LIMIT, &[types::HOP_LIMIT as u8, 1, hop_limit]);
        }
    }

    /// Sets InterestLifetime: in place when the value fits the present field's
    /// size, else the Interest is re-encoded.
    pub fn set_lifetime(&mut self, lifetime: Duration) {
        self.set_lifetime_ms(lifetime.as_millis().min(u64::MAX as u128) as u64)
    }

    /// [`Interest::set_lifetime`] in milliseconds.
    pub fn set_lifetime_ms(&mut self, ms: u64) {
        let len = self.lifetime_len as usize;
        if self.lifetime_at != 0 && tlv::nni_len(ms) <= len {
            let mut b = [0u8; 8];
            b[8 - len..].copy_from_slice(&ms.to_be_bytes()[8 - len..]);
            let at = self.lifetime_at as usize;
            self.write_in_place(at, &b[8 - len..]);
        } else {
            let mut t = Vec::with_capacity(10);
            tlv::put_nni_tlv(&mut t, types::INTEREST_LIFETIME, ms);
            self.splice(types::INTEREST_LIFETIME, &t);
        }
    }

    /// Overwrites `data` at `at` (same size); copies the buffer first only if
    /// it is shared with another `Bytes`.
    fn write_in_place(&mut self, at: usize, data: &[u8]) {
        // drop our own extra references so that the buffer can be unique
        let hints: &mut [Name] = match &mut self.extras {
            Some(x) => &mut x.hints,
            None => &mut [],
        };
        for h in hints.iter_mut() {
            drop(h.take_backing());
        }
        let wire = self.name.take_backing();
        let mut m = match wire.try_into_mut() {
            Ok(m) => m,
            Err(shared) => BytesMut::from(&shared[..]),
        };
        if let Some(dst) = m.get_mut(at..at + data.len()) {
            dst.copy_from_slice(data);
        }
        let wire = m.freeze();
        for h in hints.iter_mut() {
            h.set_backing(wire.clone());
        }
        self.name.set_backing(wire);
    }

    /// Replaces the element of type `typ` (or inserts it at its place) with
    /// `tlv_bytes`, re-encoding the Interest.
    fn splice(&mut self, typ: u64, tlv_bytes: &[u8]) {
        let Some(my_order) = order(typ) else { return };
        let wire = self.name.backing();
        let mut p = 0;
        let _ = tlv::read_varnum(wire, &mut p);
        let _ = tlv::read_varnum(wire, &mut p);
        let start = self.name_at as usize + self.name.value_bytes().len();
        let end = wire.len();
        let mut cut = end..end;
        for e in tlv::Elements::new(wire, start..end).flatten() {
            match order(e.typ) {
                Some(o) if o == my_order => {
                    cut = e.range();
                    break;
                }
                Some(o) if o > my_order => {
                    cut = e.offset..e.offset;
                    break;
                }
                _ => {}
            }
        }
        let value_len = (end - p) - cut.len() + tlv_bytes.len();
        let mut out = BytesMut::with_capacity(tlv::tlv_len(types::INTEREST, value_len));
        tlv::put_header(&mut out, types::INTEREST, value_len);
        out.put_slice(&wire[p..cut.start]);
        out.put_slice(tlv_bytes);
        out.put_slice(&wire[cut.end..]);
        match Interest::decode(out.freeze()) {
            Ok(i) => *self = i,
            Err(e) => debug_assert!(false, "splice produced an invalid Interest: {e}"),
        }
    }
}

impl PartialEq for Interest {
    fn eq(&self, other: &Self) -> bool {
        self.wire() == other.wire()
    }
}

impl Eq for Interest {}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lifetime_ns` is `lifetime()` in nanoseconds, absent and extreme values
    /// included, clamped to `u64::MAX` beyond it.
    #[test]
    fn lifetime_ns_matches_duration_and_clamps() {
        let name = Name::from_uri("/a/b").expect("uri");
        let mut views = vec![Interest::builder(name.clone()).build_view().expect("valid")];
        let extremes = [0, 1, 4000, 65_535, 1 << 40, u64::MAX / 1_000_000];
        let beyond = [u64::MAX / 1_000_000 + 1, i64::MAX as u64, u64::MAX];
        for ms in extremes.into_iter().chain(beyond) {
            views.push(
                Interest::builder(name.clone())
                    .lifetime_ms(ms)
                    .build_view()
                    .expect("valid"),
            );
        }
        for i in views {
            let ns = u64::try_from(i.lifetime().as_nanos()).unwrap_or(u64::MAX);
            assert_eq!(i.lifetime_ns(), ns, "{:?}", i.lifetime_field());
        }
        for ms in beyond {
            let i = Interest::builder(name.clone()).lifetime_ms(ms).build_view();
            assert_eq!(i.expect("valid").lifetime_ns(), u64::MAX, "{ms} ms");
        }
    }
}
