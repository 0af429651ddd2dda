//! The client side of NFD management: ControlParameters, command Interests
//! (signed Interest v0.3 with a DigestSha256 InterestSignatureInfo carrying
//! SignatureNonce and SignatureTime) and ControlResponse parsing.

use std::time::{SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv::{self, put_nni_tlv, put_tlv, read_nni};
use ndnlab_wire::{DigestSha256, Name, SignError};

/// TLV types of the management protocol.
pub mod tt {
    pub const CONTROL_RESPONSE: u64 = 101;
    pub const STATUS_CODE: u64 = 102;
    pub const STATUS_TEXT: u64 = 103;
    pub const CONTROL_PARAMETERS: u64 = 104;
    pub const FACE_ID: u64 = 105;
    pub const COST: u64 = 106;
    pub const FLAGS: u64 = 108;
    pub const EXPIRATION_PERIOD: u64 = 109;
    pub const ORIGIN: u64 = 111;
}

/// Route origin of applications.
pub const ORIGIN_APP: u64 = 0;
/// Route flag CHILD_INHERIT.
pub const ROUTE_CHILD_INHERIT: u64 = 1;

/// The ControlParameters a client sends for rib register/unregister.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ControlParameters {
    pub name: Option<Name>,
    pub face_id: Option<u64>,
    pub origin: Option<u64>,
    pub cost: Option<u64>,
    pub flags: Option<u64>,
    pub expiration_period: Option<u64>,
}

impl ControlParameters {
    /// Encodes the ControlParameters TLV (ndn-cxx field order).
    pub fn encode(&self) -> Bytes {
        let mut v = Vec::new();
        if let Some(n) = &self.name {
            n.encode(&mut v);
        }
        for (typ, val) in [
            (tt::FACE_ID, self.face_id),
            (tt::ORIGIN, self.origin),
            (tt::COST, self.cost),
            (tt::FLAGS, self.flags),
            (tt::EXPIRATION_PERIOD, self.expiration_period),
        ] {
            if let Some(x) = val {
                put_nni_tlv(&mut v, typ, x);
            }
        }
        let mut out = BytesMut::with_capacity(v.len() + 4);
        put_tlv(&mut out, tt::CONTROL_PARAMETERS, &v);
        out.freeze()
    }

    /// Decodes the fields a response body carries (others are skipped).
    pub fn decode(value: &[u8]) -> Result<ControlParameters, MgmtError> {
        let mut cp = ControlParameters::default();
        for el in tlv::elements(value) {
            let el = el.map_err(|e| MgmtError::Malformed(e.to_string()))?;
            let v = &value[el.value.clone()];
            let nni = || read_nni(v).map_err(|e| MgmtError::Malformed(e.to_string()));
            match el.typ {
                ndnlab_wire::tlv::types::NAME => {
                    cp.name = Some(
                        Name::from_value(Bytes::copy_from_slice(v))
                            .map_err(|e| MgmtError::Malformed(e.to_string()))?,
                    )
                }
                tt::FACE_ID => cp.face_id = Some(nni()?),
                tt::ORIGIN => cp.origin = Some(nni()?),
                tt::COST => cp.cost = Some(nni()?),
                tt::FLAGS => cp.flags = Some(nni()?),
                tt::EXPIRATION_PERIOD => cp.expiration_period = Some(nni()?),
                _ => {}
            }
        }
        Ok(cp)
    }
}

/// A ControlResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlResponse {
    pub code: u64,
    pub text: String,
    pub body: Option<ControlParameters>,
}

impl ControlResponse {
    /// Parses the Content of a command's Data.
    pub fn decode(content: &[u8]) -> Result<ControlResponse, MgmtError> {
        let mut it = tlv::elements(content);
        let outer = it
            .next()
            .ok_or_else(|| MgmtError::Malformed("empty content".into()))?
            .map_err(|e| MgmtError::Malformed(e.to_string()))?;
        if outer.typ != tt::CONTROL_RESPONSE {
            return Err(MgmtError::Malformed(format!(
                "expected ControlResponse, got type {}",
                outer.typ
            )));
        }
        let value = &content[outer.value.clone()];
        let (mut code, mut text, mut body) = (None, String::new(), None);
        for el in tlv::elements(value) {
            let el = el.map_err(|e| MgmtError::Malformed(e.to_string()))?;
            let v = &value[el.value.clone()];
            match el.typ {
                tt::STATUS_CODE => {
                    code = Some(read_nni(v).map_err(|e| MgmtError::Malformed(e.to_string()))?)
                }
                tt::STATUS_TEXT => text = String::from_utf8_lossy(v).into_owned(),
                tt::CONTROL_PARAMETERS => body = Some(ControlParameters::decode(v)?),
                _ => {}
            }
        }
        Ok(ControlResponse {
            code: code.ok_or_else(|| MgmtError::Malformed("no StatusCode".into()))?,
            text,
            body,
        })
    }
}

/// Management failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MgmtError {
    /// The response could not be parsed.
    #[error("malformed ControlResponse: {0}")]
    Malformed(String),
    /// The forwarder refused the command.
    #[error("command refused: {code} {text}")]
    Refused { code: u64, text: String },
    /// Signing the command failed.
    #[error(transparent)]
    Sign(#[from] SignError),
}

/// `/localhost/nfd/<module>/<verb>/<ControlParameters>`, signed (v0.3) with
/// DigestSha256, a random SignatureNonce and the current SignatureTime.
pub fn command_interest(
    module: &str,
    verb: &str,
    params: &ControlParameters,
) -> Result<Bytes, MgmtError> {
    let mut b = Name::builder();
    b.push_generic(b"localhost")
        .push_generic(b"nfd")
        .push_generic(module.as_bytes());
    b.push_generic(verb.as_bytes())
        .push_generic(&params.encode());
    let name = b.build();
    let time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let nonce: [u8; 8] = rand::random();
    Ok(ndnlab_wire::Interest::builder(name)
        .nonce(rand::random())
        .lifetime_ms(4000)
        .signature_nonce(Bytes::copy_from_slice(&nonce))
        .signature_time(time)
        .sign(&DigestSha256)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::{sig_type, Interest};

    #[test]
    fn control_parameters_roundtrip() {
        let cp = ControlParameters {
            name: Some("/a/b".parse().unwrap()),
            origin: Some(0),
            cost: Some(10),
            flags: Some(1),
            ..Default::default()
        };
        let w = cp.encode();
        // 68 len | 07 .. name | 6f 01 00 | 6a 01 0a | 6c 01 01
        assert_eq!(w[0], 104);
        assert_eq!(ControlParameters::decode(&w[2..]).unwrap(), cp);
    }

    #[test]
    fn parses_control_response() {
        // 65 0a | 66 02 00c8 | 67 02 "OK" | 68 00
        let wire = hex::decode("650a6602 00c8 6702 4f4b 6800".replace(' ', "")).unwrap();
        let r = ControlResponse::decode(&wire).unwrap();
        assert_eq!(r.code, 200);
        assert_eq!(r.text, "OK");
        assert_eq!(r.body, Some(ControlParameters::default()));
        assert!(ControlResponse::decode(&[0x66, 0x00]).is_err());
        assert!(ControlResponse::decode(&[0x65, 0x00]).is_err());
    }

    #[test]
    fn command_is_a_signed_interest_v03() {
        let cp = ControlParameters {
            name: Some("/p".parse().unwrap()),
            ..Default::default()
        };
        let w = command_interest("rib", "register", &cp).unwrap();
        let i = Interest::decode(w).unwrap();
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
