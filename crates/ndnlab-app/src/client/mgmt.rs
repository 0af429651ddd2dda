//! The client side of NFD management. The ControlParameters/ControlResponse codec
//! and the signed command Interest (v0.3, DigestSha256 InterestSignatureInfo with
//! SignatureNonce and SignatureTime) are the forwarder's own
//! (`ndnlab_fwd::mgmt`), so both ends of the protocol share one implementation;
//! this module adds the client's error type.

use bytes::Bytes;

pub use ndnlab_fwd::mgmt::params::{tt, ControlParameters, ControlResponse, ROUTE_CHILD_INHERIT};

/// Route origin of applications.
pub const ORIGIN_APP: u64 = 0;

/// Management failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MgmtError {
    /// The response could not be parsed.
    #[error("malformed ControlResponse: {0}")]
    Malformed(String),
    /// The forwarder refused the command.
    #[error("command refused: {code} {text}")]
    Refused { code: u64, text: String },
}

/// `/localhost/nfd/<module>/<verb>/<ControlParameters>`, signed (v0.3) with
/// DigestSha256, a fresh SignatureNonce and the current SignatureTime.
pub fn command_interest(module: &str, verb: &str, params: &ControlParameters) -> Bytes {
    ndnlab_fwd::mgmt::client::MgmtClient::command_interest(module, verb, params)
}

/// Parses the Content of a command's Data.
pub fn decode_response(content: &Bytes) -> Result<ControlResponse, MgmtError> {
    ControlResponse::decode(content).map_err(MgmtError::Malformed)
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
