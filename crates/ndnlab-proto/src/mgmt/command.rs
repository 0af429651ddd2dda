//! Command Interests: `/localhost/nfd/<module>/<verb>/<ControlParameters>`, signed.
//!
//! Both signed forms NFD accepts are built and checked here: the v0.3 signed
//! Interest (SignatureInfo, SignatureNonce, SignatureTime in the Interest), and the
//! older form whose last four name components are a timestamp, a nonce, the
//! SignatureInfo and the SignatureValue. Time and nonces are passed in.
//! [`command_signature`] takes either form apart for a verifier (the forwarder's
//! `[[management.authorize]]` check).

use bytes::Bytes;
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::{DigestSha256, Interest, KeyLocator, Name, SignError, Signer};

use super::params::{ControlParameters, ControlResponse};

/// Route origin of applications.
pub const ORIGIN_APP: u64 = 0;
/// Lifetime of a command Interest.
pub const COMMAND_LIFETIME_MS: u64 = 4000;

/// Management failures seen by a client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MgmtError {
    /// The response could not be parsed.
    #[error("malformed ControlResponse: {0}")]
    Malformed(String),
    /// The forwarder refused the command.
    #[error("command refused: {code} {text}")]
    Refused { code: u64, text: String },
}

/// The signed form of a command Interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignedForm {
    /// Signed Interest v0.3 (what ndn-cxx and python-ndn send today).
    #[default]
    V03,
    /// Timestamp, nonce, SignatureInfo and SignatureValue name components.
    Legacy,
}

/// `/localhost/nfd/<module>/<verb>/<ControlParameters>`.
pub fn command_name(module: &str, verb: &str, params: &ControlParameters) -> Name {
    let mut b = Name::builder();
    b.push_generic(b"localhost")
        .push_generic(b"nfd")
        .push_generic(module.as_bytes())
        .push_generic(verb.as_bytes())
        .push_generic(&params.encode());
    b.build()
}

/// A command Interest signed with DigestSha256. `now_ms` is the signature time
/// (milliseconds since the Unix epoch); `nonce` seeds the Interest's Nonce and the
/// SignatureNonce (or the legacy nonce component).
pub fn command_interest(
    module: &str,
    verb: &str,
    params: &ControlParameters,
    form: SignedForm,
    now_ms: u64,
    nonce: u64,
) -> Bytes {
    command_interest_signed(module, verb, params, form, now_ms, nonce, &DigestSha256)
        .expect("DigestSha256 never fails")
}

/// A command Interest signed by `signer` (a key: what a forwarder with
/// `[[management.authorize]]` needs; NFD's `authorizations`), in either form.
pub fn command_interest_signed(
    module: &str,
    verb: &str,
    params: &ControlParameters,
    form: SignedForm,
    now_ms: u64,
    nonce: u64,
    signer: &dyn Signer,
) -> Result<Bytes, SignError> {
    let name = command_name(module, verb, params);
    match form {
        SignedForm::V03 => Interest::builder(name)
            .lifetime_ms(COMMAND_LIFETIME_MS)
            .nonce(nonce as u32 ^ (nonce >> 32) as u32)
            .app_params(Bytes::new())
            .signature_nonce(Bytes::copy_from_slice(&nonce.to_be_bytes()))
            .signature_time(now_ms)
            .sign(signer),
        SignedForm::Legacy => {
            let mut info = Vec::new();
            signer.signature_info().encode(t::SIGNATURE_INFO, &mut info);
            let unsigned = name
                .append_generic(&now_ms.to_be_bytes())
                .append_generic(&nonce.to_be_bytes())
                .append_generic(&info);
            let sig = signer.sign(unsigned.value_bytes())?;
            let mut value = Vec::new();
            tlv::put_tlv(&mut value, t::SIGNATURE_VALUE, &sig);
            Ok(Interest::builder(unsigned.append_generic(&value))
                .lifetime_ms(COMMAND_LIFETIME_MS)
                .nonce(nonce as u32)
                .build())
        }
    }
}

/// The signature of a command Interest, taken apart (either signed form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSignature {
    pub form: SignedForm,
    pub sig_type: u64,
    pub key_locator: Option<KeyLocator>,
    /// SignatureTime (v0.3) or the timestamp component (older form), in
    /// milliseconds since the Unix epoch.
    pub timestamp_ms: Option<u64>,
    /// The bytes the signature covers.
    pub signed_portion: Vec<u8>,
    pub value: Vec<u8>,
}

/// Takes a command Interest's signature apart. `Err` says why the Interest is
/// not a signed command (no signature, or a malformed signature component).
pub fn command_signature(interest: &Interest) -> Result<CommandSignature, String> {
    if let Some(info) = interest.signature_info() {
        return Ok(CommandSignature {
            form: SignedForm::V03,
            sig_type: info.sig_type,
            key_locator: info.key_locator.clone(),
            timestamp_ms: info.time,
            signed_portion: interest.signed_portion().unwrap_or_default(),
            value: interest.signature_value().unwrap_or_default().to_vec(),
        });
    }
    // Older form: /<prefix>/<params>/<timestamp>/<nonce>/<SignatureInfo>/<SignatureValue>.
    let name = interest.name();
    if name.len() < 9 {
        return Err("command Interest is not signed".into());
    }
    let comp = |back: usize| {
        name.get(name.len() - back)
            .map(|c| c.value)
            .unwrap_or_default()
    };
    let (sig_type, key_locator) =
        parse_signature_info(comp(2)).ok_or("SignatureInfo component is malformed")?;
    let value =
        tlv_value(comp(1), t::SIGNATURE_VALUE).ok_or("SignatureValue component is malformed")?;
    Ok(CommandSignature {
        form: SignedForm::Legacy,
        sig_type,
        key_locator,
        timestamp_ms: tlv::read_nni(comp(4)).ok(),
        signed_portion: name.prefix_bytes(name.len() - 1).to_vec(),
        value: value.to_vec(),
    })
}

/// Parses the Content of a command's Data.
pub fn decode_response(content: &Bytes) -> Result<ControlResponse, MgmtError> {
    ControlResponse::decode(content).map_err(MgmtError::Malformed)
}

/// Checks that a command Interest is signed, in either form, and verifies DigestSha256.
pub fn check_signature(interest: &Interest) -> Result<(), String> {
    let name = interest.name();
    if let Some(info) = interest.signature_info() {
        // Signed Interest v0.3 (the codec checked ParametersSha256Digest).
        if info.sig_type == 0 {
            let value = interest.signature_value().unwrap_or_default();
            let portion = interest.signed_portion().unwrap_or_default();
            if !ndnlab_wire::DigestSha256::verify(&portion, value) {
                return Err("DigestSha256 signature does not verify".into());
            }
        }
        return Ok(());
    }
    // Older form: /<prefix>/<params>/<timestamp>/<nonce>/<SignatureInfo>/<SignatureValue>.
    if name.len() < 9 {
        return Err("command Interest is not signed".into());
    }
    let info = name
        .get(name.len() - 2)
        .map(|c| c.value)
        .unwrap_or_default();
    let value = name
        .get(name.len() - 1)
        .map(|c| c.value)
        .unwrap_or_default();
    let (sig_type, _) = parse_signature_info(info).ok_or("SignatureInfo component is malformed")?;
    let sig_value = tlv_value(value, 23).ok_or("SignatureValue component is malformed")?;
    if sig_type == 0 {
        let portion = name.prefix_bytes(name.len() - 1);
        if !ndnlab_wire::DigestSha256::verify(portion, sig_value) {
            return Err("DigestSha256 signature does not verify".into());
        }
    }
    Ok(())
}

fn tlv_value(buf: &[u8], typ: u64) -> Option<&[u8]> {
    let e = ndnlab_wire::tlv::read_element(buf, 0, buf.len()).ok()?;
    (e.typ == typ && e.end() == buf.len()).then(|| &buf[e.value.clone()])
}

/// SignatureType and KeyLocator of a SignatureInfo TLV (a name component of
/// the older signed form).
fn parse_signature_info(info_tlv: &[u8]) -> Option<(u64, Option<KeyLocator>)> {
    let v = tlv_value(info_tlv, t::SIGNATURE_INFO)?;
    let (mut sig_type, mut locator) = (None, None);
    for e in tlv::elements(v) {
        let e = e.ok()?;
        let inner = &v[e.value.clone()];
        match e.typ {
            t::SIGNATURE_TYPE => sig_type = Some(tlv::read_nni(inner).ok()?),
            t::KEY_LOCATOR => {
                let k = tlv::read_element(inner, 0, inner.len()).ok()?;
                locator = Some(match k.typ {
                    t::NAME => KeyLocator::Name(
                        Name::decode(Bytes::copy_from_slice(&inner[..k.end()])).ok()?,
                    ),
                    _ => KeyLocator::Digest(Bytes::copy_from_slice(&inner[k.value.clone()])),
                });
            }
            _ => {}
        }
    }
    Some((sig_type?, locator))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> ControlParameters {
        ControlParameters {
            name: Some("/p".parse().unwrap()),
            ..Default::default()
        }
    }

    #[test]
    fn both_signed_forms_verify_and_a_tampered_one_does_not() {
        for form in [SignedForm::V03, SignedForm::Legacy] {
            let wire = command_interest("rib", "register", &params(), form, 1_700_000_000_000, 42);
            let i = Interest::decode(wire).unwrap();
            assert_eq!(i.name().prefix(4).to_uri(), "/localhost/nfd/rib/register");
            assert_eq!(i.name().get(4).unwrap().value, &params().encode()[..]);
            check_signature(&i).unwrap_or_else(|e| panic!("{form:?}: {e}"));
        }
        // a legacy command whose SignatureValue is not the digest of the rest
        let wire = command_interest("rib", "register", &params(), SignedForm::Legacy, 1, 2);
        let i = Interest::decode(wire).unwrap();
        let n = i.name().len();
        let mut value = Vec::new();
        tlv::put_tlv(&mut value, t::SIGNATURE_VALUE, &[0u8; 32]);
        let forged = i.name().prefix(n - 1).append_generic(&value);
        let forged = Interest::decode(Interest::builder(forged).nonce(1).build()).unwrap();
        assert!(check_signature(&forged).is_err());
        // an unsigned command
        let bare = command_name("rib", "register", &params());
        let bare = Interest::decode(Interest::builder(bare).nonce(1).build()).unwrap();
        assert!(check_signature(&bare).is_err());
    }

    /// A signer with a KeyLocator (as a key signer has) and a made-up signature.
    struct Keyed;
    impl Signer for Keyed {
        fn signature_info(&self) -> ndnlab_wire::SignatureInfo {
            ndnlab_wire::SignatureInfo::new(3).with_key_name("/admin/KEY/k1".parse().unwrap())
        }
        fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignError> {
            Ok(DigestSha256.sign(portion)?.into_iter().rev().collect())
        }
    }

    #[test]
    fn both_forms_come_apart_with_locator_time_and_portion() {
        for form in [SignedForm::V03, SignedForm::Legacy] {
            let wire =
                command_interest_signed("faces", "destroy", &params(), form, 1_234_567, 9, &Keyed)
                    .unwrap();
            let i = Interest::decode(wire).unwrap();
            let sig = command_signature(&i).unwrap();
            assert_eq!(sig.form, form);
            assert_eq!(sig.sig_type, 3);
            assert_eq!(
                sig.key_locator,
                Some(KeyLocator::Name("/admin/KEY/k1".parse().unwrap())),
                "{form:?}"
            );
            assert_eq!(sig.timestamp_ms, Some(1_234_567), "{form:?}");
            assert_eq!(
                Keyed.sign(&sig.signed_portion).unwrap(),
                sig.value,
                "{form:?}"
            );
        }
        let bare = command_name("rib", "register", &params());
        let bare = Interest::decode(Interest::builder(bare).nonce(1).build()).unwrap();
        assert!(command_signature(&bare).is_err());
    }
}
