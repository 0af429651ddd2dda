//! NFD management from the client's side: the protocol (ControlParameters,
//! responses, command Interests, segmented datasets) is `ndnlab_proto::mgmt`,
//! shared with the forwarder that answers it; this module adds what an endpoint
//! with a clock needs: the signature time and fresh nonces.

pub use ndnlab_proto::mgmt::params::tt;
pub use ndnlab_proto::mgmt::{
    decode_response, ControlParameters, ControlResponse, FetchStep, MgmtError, SegmentFetch,
    SignedForm, ORIGIN_APP, ROUTE_CHILD_INHERIT,
};

use bytes::Bytes;

/// `/localhost/nfd/<module>/<verb>/<ControlParameters>`, signed (v0.3) with
/// DigestSha256, a fresh SignatureNonce and the current SignatureTime.
pub fn command_interest(module: &str, verb: &str, params: &ControlParameters) -> Bytes {
    command_interest_in(SignedForm::V03, module, verb, params)
}

/// [`command_interest`] in either signed form.
pub fn command_interest_in(
    form: SignedForm,
    module: &str,
    verb: &str,
    params: &ControlParameters,
) -> Bytes {
    ndnlab_proto::mgmt::command_interest(module, verb, params, form, unix_now_ms(), rand::random())
}

/// A command Interest (v0.3) signed by `signer`, with a fresh SignatureNonce and
/// the current SignatureTime.
pub fn command_interest_with(
    signer: &dyn ndnlab_wire::Signer,
    module: &str,
    verb: &str,
    params: &ControlParameters,
) -> Result<Bytes, ndnlab_wire::SignError> {
    ndnlab_proto::mgmt::command_interest_signed(
        module,
        verb,
        params,
        SignedForm::V03,
        unix_now_ms(),
        rand::random(),
        signer,
    )
}

/// The signature time of the next command: the wall clock in milliseconds, but
/// always after the previous command's (a forwarder checking command timestamps
/// refuses one that is not later than the last it accepted from the key, and
/// two commands can be built within a millisecond), as ndn-cxx's signer does.
fn unix_now_ms() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut prev = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange_weak(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(p) => prev = p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::{sig_type, DigestSha256, Interest};

    #[test]
    fn parses_control_response() {
        // 65 0a | 66 02 00c8 | 67 02 "OK" | 68 00
        let wire = hex::decode("650a660200c867024f4b6800").unwrap();
        let r = decode_response(&Bytes::from(wire)).unwrap();
        assert_eq!(r.code, 200);
        assert_eq!(r.text, "OK");
        assert_eq!(r.body, Some(ControlParameters::default()));
        for bad in [&[0x66u8, 0x00][..], &[0x65, 0x00]] {
            let e = decode_response(&Bytes::copy_from_slice(bad)).unwrap_err();
            assert!(matches!(e, MgmtError::Malformed(_)), "{e:?}");
        }
    }

    #[test]
    fn command_is_a_signed_interest_v03() {
        let cp = ControlParameters {
            name: Some("/p".parse().unwrap()),
            ..Default::default()
        };
        let i = Interest::decode(command_interest("rib", "register", &cp)).unwrap();
        assert_eq!(i.name().len(), 6, "5 components + params digest");
        assert!(i.name().get(5).unwrap().is_params_digest());
        let info = i.signature_info().unwrap();
        assert_eq!(info.sig_type, sig_type::DIGEST_SHA256);
        assert_eq!(info.nonce.as_ref().map(|n| n.len()), Some(8));
        assert!(info.time.is_some());
        assert!(DigestSha256::verify(
            &i.signed_portion().unwrap(),
            i.signature_value().unwrap()
        ));
        assert_eq!(i.name().get(4).unwrap().value, &cp.encode()[..]);
    }
}
