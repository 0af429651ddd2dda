//! The producer-region step of the incoming Interest pipeline (NFD
//! `onIncomingInterest`, "strip forwarding hint if Interest has reached producer
//! region"): in a producer region ([`NetworkRegionTable`](crate::network_region::NetworkRegionTable))
//! the ForwardingHint is removed from the Interest the strategy forwards, and the
//! strategy's FIB lookup goes by name. The PIT entry keeps the Interest as it came.

use bytes::{BufMut, BytesMut};
use ndnlab_wire::tlv::{self, types};
use ndnlab_wire::Interest;

use crate::tables::Tables;

impl Tables {
    /// `interest` without its ForwardingHint in the producer region (the forwarded
    /// bytes no longer carry it); elsewhere unchanged (no copy).
    pub(crate) fn strip_hint_in_producer_region(&self, interest: Interest) -> Interest {
        if !self
            .config
            .network_region
            .is_in_producer_region(interest.forwarding_hint())
        {
            return interest;
        }
        strip_forwarding_hint(&interest).unwrap_or(interest)
    }
}

/// The Interest without its ForwardingHint element (the other elements byte for
/// byte; the signed portion of a signed Interest does not cover the hint).
fn strip_forwarding_hint(interest: &Interest) -> Option<Interest> {
    let wire = interest.wire();
    let outer = tlv::read_element(wire, 0, wire.len()).ok()?;
    let mut body_len = 0;
    for e in tlv::Elements::new(wire, outer.value.clone()) {
        let e = e.ok()?;
        if e.typ != types::FORWARDING_HINT {
            body_len += e.range().len();
        }
    }
    let mut out = BytesMut::with_capacity(tlv::tlv_len(types::INTEREST, body_len));
    tlv::put_header(&mut out, types::INTEREST, body_len);
    for e in tlv::Elements::new(wire, outer.value.clone()) {
        let e = e.ok()?;
        if e.typ != types::FORWARDING_HINT {
            out.put_slice(&wire[e.range()]);
        }
    }
    Interest::decode(out.freeze()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::Name;

    #[test]
    fn strip_forwarding_hint_keeps_every_other_field() {
        let name = Name::from_uri("/a/b").unwrap();
        let i = Interest::builder(name.clone())
            .can_be_prefix(true)
            .forwarding_hint([Name::from_uri("/isp/x").unwrap()])
            .nonce(7)
            .lifetime_ms(1500)
            .hop_limit(9)
            .app_params(bytes::Bytes::from_static(b"p"))
            .build_view()
            .unwrap();
        let s = strip_forwarding_hint(&i).unwrap();
        assert!(s.forwarding_hint().is_empty());
        assert_eq!(s.name(), i.name());
        assert!(s.can_be_prefix());
        assert_eq!(
            (s.nonce(), s.lifetime_field(), s.hop_limit()),
            (Some(7), Some(1500), Some(9))
        );
        assert_eq!(s.app_params(), i.app_params());
        let expected = Interest::builder(name)
            .can_be_prefix(true)
            .nonce(7)
            .lifetime_ms(1500)
            .hop_limit(9)
            .app_params(bytes::Bytes::from_static(b"p"))
            .build();
        assert_eq!(s.wire(), &expected);
    }

    #[test]
    fn stripping_the_hint_keeps_a_signed_interest_valid() {
        use ndnlab_wire::DigestSha256;
        let signed = Interest::builder(Name::from_uri("/a/b").unwrap())
            .forwarding_hint([Name::from_uri("/isp").unwrap()])
            .nonce(1)
            .app_params(bytes::Bytes::from_static(b"x"))
            .sign_view(&DigestSha256)
            .unwrap();
        let s = strip_forwarding_hint(&signed).unwrap();
        assert!(s.forwarding_hint().is_empty() && s.is_signed());
        assert_eq!(s.params_digest(), signed.params_digest());
        assert!(DigestSha256::verify(
            &s.signed_portion().unwrap(),
            s.signature_value().unwrap()
        ));
    }
}
