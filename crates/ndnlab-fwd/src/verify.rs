//! `[forwarder] verify_data`: what the forwarder checks on every Data it receives,
//! before the PIT match (`ndnlab_core::verify`).
//!
//! * `none` (the default): nothing; the core tests one `Option`.
//! * `digest`: the implicit SHA-256 digest of every Data is computed (NDN's full
//!   name, what an Interest with an implicit digest component is matched
//!   against); no Data is refused.
//! * `signature`: every Data's signature is verified. A DigestSha256 Data must
//!   carry the SHA-256 of its signed portion; any other Data must name in its
//!   KeyLocator a key of `[[forwarder.trust]]` (the key name, or a certificate
//!   name of that key) and verify with it. Refused Data is dropped and counted:
//!   `data-bad-signature` (the value does not verify), `data-unknown-key` (no
//!   KeyLocator, a digest KeyLocator, or a key not trusted), `data-signature-type`
//!   (a type unknown or not the key's). There is no trust schema beyond the key
//!   list and no certificate fetching: validity periods and the hierarchical rule
//!   are the applications' business, as they are in NFD, which verifies nothing.
//!
//! A `[[forwarder.trust]]` entry is a certificate (`certificate`: base64 as in a
//! `.cert` file, or `file`: such a file, binary or base64) or a shared HMAC key
//! (`hmac`: the key name, `secret`: the secret in hex).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ndnlab_core::{DataVerifier, DropReason, ImplicitDigest};
use ndnlab_security::{BadSignature, Certificate, PublicKey};
use ndnlab_wire::{sig_type, Data, DigestSha256, KeyLocator, Name};
use serde::Deserialize;

use crate::config::{ConfigError, ForwarderSection};

/// The modes of `[forwarder] verify_data`.
pub const MODES: [&str; 3] = ["none", "digest", "signature"];

/// One `[[forwarder.trust]]` entry.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TrustEntry {
    /// A certificate, base64 (whitespace ignored).
    pub certificate: Option<String>,
    /// A certificate file (binary, or base64 as `ndnlab key export` writes).
    pub file: Option<PathBuf>,
    /// An HMAC key's name (with `secret`).
    pub hmac: Option<String>,
    /// The HMAC secret, hex.
    pub secret: Option<String>,
}

fn invalid(key: String, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key,
        reason: reason.into(),
    }
}

/// The keys of one entry: (names the KeyLocator may carry, key).
fn entry_keys(i: usize, e: &TrustEntry) -> Result<(Vec<Name>, PublicKey), ConfigError> {
    let at = |k: &str| format!("forwarder.trust[{i}].{k}");
    match (&e.certificate, &e.file, &e.hmac) {
        (Some(_), None, None) | (None, Some(_), None) => {
            let (bytes, key) = match (&e.certificate, &e.file) {
                (Some(b64), _) => (b64.as_bytes().to_vec(), at("certificate")),
                (_, Some(path)) => (
                    std::fs::read(path).map_err(|err| {
                        invalid(at("file"), format!("cannot read {}: {err}", path.display()))
                    })?,
                    at("file"),
                ),
                _ => unreachable!("matched above"),
            };
            if e.secret.is_some() {
                return Err(invalid(at("secret"), "a secret goes with `hmac`"));
            }
            let wire = ndnlab_security::decode_cert_file(&bytes)
                .map_err(|err| invalid(key.clone(), err.to_string()))?;
            let cert = Certificate::decode(wire).map_err(|err| invalid(key, err.to_string()))?;
            Ok((
                vec![cert.key_name(), cert.name().clone()],
                cert.public_key().clone(),
            ))
        }
        (None, None, Some(name)) => {
            let name = Name::from_uri(name)
                .map_err(|err| invalid(at("hmac"), format!("'{name}' is not a name: {err}")))?;
            let secret = e
                .secret
                .as_deref()
                .ok_or_else(|| invalid(at("secret"), "an hmac key needs its secret (hex)"))?;
            let secret = ndnlab_security::hex_decode(secret)
                .ok_or_else(|| invalid(at("secret"), "not an even number of hex digits"))?;
            Ok((vec![name], PublicKey::hmac(&secret)))
        }
        _ => Err(invalid(
            format!("forwarder.trust[{i}]"),
            "give exactly one of certificate, file, hmac",
        )),
    }
}

/// The verifier `[forwarder]` asks for (`None` for `none`); the error names the key.
pub fn verifier(f: &ForwarderSection) -> Result<Option<Arc<dyn DataVerifier>>, ConfigError> {
    match f.verify_data.as_str() {
        "none" => {
            if !f.trust.is_empty() {
                return Err(invalid(
                    "forwarder.trust".into(),
                    "trusted keys are used by verify_data = \"signature\" only",
                ));
            }
            Ok(None)
        }
        "digest" => Ok(Some(Arc::new(ImplicitDigest))),
        "signature" => {
            let mut keys = HashMap::new();
            for (i, e) in f.trust.iter().enumerate() {
                let (names, key) = entry_keys(i, e)?;
                for n in names {
                    keys.insert(n, key.clone());
                }
            }
            Ok(Some(Arc::new(TrustedKeys { keys })))
        }
        other => Err(invalid(
            "forwarder.verify_data".into(),
            format!("'{other}' ({})", MODES.join(", ")),
        )),
    }
}

/// (Data verified, Data refused) of a shard's counters.
pub fn counts(c: &ndnlab_core::ForwarderCounters) -> (u64, u64) {
    let refused = DropReason::DATA_VERIFY
        .iter()
        .map(|r| c.drops.get(*r))
        .sum();
    (c.n_verified_data, refused)
}

/// A signature verifier that trusts no key (only DigestSha256 Data passes).
pub fn refuse_all() -> Option<Arc<dyn DataVerifier>> {
    Some(Arc::new(TrustedKeys {
        keys: HashMap::new(),
    }))
}

/// Verifies each Data's signature against a fixed set of keys.
pub struct TrustedKeys {
    /// By key name and by certificate name.
    keys: HashMap<Name, PublicKey>,
}

impl std::fmt::Debug for TrustedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustedKeys")
            .field("names", &self.keys.len())
            .finish()
    }
}

impl TrustedKeys {
    /// The key a KeyLocator name stands for: the name itself, or the key name
    /// (`.../KEY/<id>`) a certificate name starts with.
    fn key(&self, locator: &Name) -> Option<&PublicKey> {
        if let Some(k) = self.keys.get(locator) {
            return Some(k);
        }
        let at = (0..locator.len())
            .rev()
            .find(|&i| locator.get(i).is_some_and(|c| c.value == b"KEY"))?;
        self.keys.get(&locator.prefix(at + 2))
    }
}

impl DataVerifier for TrustedKeys {
    fn verify(&self, data: &Data) -> Result<(), DropReason> {
        let info = data.signature_info();
        if info.sig_type == sig_type::DIGEST_SHA256 {
            return if DigestSha256::verify(data.signed_portion(), data.signature_value()) {
                Ok(())
            } else {
                Err(DropReason::DataBadSignature)
            };
        }
        let Some(KeyLocator::Name(locator)) = &info.key_locator else {
            return Err(DropReason::DataUnknownKey);
        };
        let key = self.key(locator).ok_or(DropReason::DataUnknownKey)?;
        key.verify(info.sig_type, data.signed_portion(), data.signature_value())
            .map_err(|e| match e {
                BadSignature::Invalid => DropReason::DataBadSignature,
                BadSignature::WrongType { .. } => DropReason::DataSignatureType,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_security::{KeySigner, KeyType, PrivateKey};

    fn section(mode: &str, trust: Vec<TrustEntry>) -> ForwarderSection {
        ForwarderSection {
            verify_data: mode.into(),
            trust,
            ..Default::default()
        }
    }

    fn signed(key: &Arc<PrivateKey>, key_name: &str, data: &str) -> Data {
        let signer = KeySigner::new(key.clone(), key_name.parse().unwrap());
        Data::builder(data.parse().unwrap())
            .content(&b"x"[..])
            .sign_view(&signer)
            .unwrap()
    }

    fn cert_b64(key: &Arc<PrivateKey>, key_name: &str) -> String {
        let signer = KeySigner::new(key.clone(), key_name.parse().unwrap());
        let cert = Certificate::build(
            &key_name.parse().unwrap(),
            &key.public_key().unwrap(),
            b"self",
            1,
            ndnlab_security::validity_from(0, std::time::Duration::from_secs(1)),
            &signer,
        )
        .unwrap();
        ndnlab_security::base64_encode(cert.wire())
    }

    #[test]
    fn signature_mode_accepts_trusted_keys_and_counts_each_refusal_by_cause() {
        let k = Arc::new(PrivateKey::generate(KeyType::Ed25519).unwrap());
        let other = Arc::new(PrivateKey::generate(KeyType::Ed25519).unwrap());
        let ec = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
        let hmac = Arc::new(PrivateKey::from_hmac_secret(&[7; 32]));
        let trust = vec![
            TrustEntry {
                certificate: Some(cert_b64(&k, "/lab/p/KEY/%01")),
                ..Default::default()
            },
            TrustEntry {
                hmac: Some("/lab/h/KEY/%02".into()),
                secret: Some("07".repeat(32)),
                ..Default::default()
            },
        ];
        let v = verifier(&section("signature", trust)).unwrap().unwrap();
        assert_eq!(v.verify(&signed(&k, "/lab/p/KEY/%01", "/d/1")), Ok(()));
        assert_eq!(v.verify(&signed(&hmac, "/lab/h/KEY/%02", "/d/2")), Ok(()));
        // A certificate name in the KeyLocator finds its key too.
        assert_eq!(
            v.verify(&signed(&k, "/lab/p/KEY/%01/self/v=1", "/d/3")),
            Ok(())
        );
        // Forged: the trusted key's name, another key's signature.
        assert_eq!(
            v.verify(&signed(&other, "/lab/p/KEY/%01", "/d/4")),
            Err(DropReason::DataBadSignature)
        );
        assert_eq!(
            v.verify(&signed(&other, "/lab/q/KEY/%01", "/d/5")),
            Err(DropReason::DataUnknownKey)
        );
        assert_eq!(
            v.verify(&signed(&ec, "/lab/p/KEY/%01", "/d/6")),
            Err(DropReason::DataSignatureType)
        );
        let digest = Data::decode(
            Data::builder("/d/7".parse().unwrap())
                .content(&b"x"[..])
                .sign_digest(),
        )
        .unwrap();
        assert_eq!(v.verify(&digest), Ok(()));
        // A DigestSha256 Data whose content was changed after signing.
        let mut wire = Data::builder("/d/8".parse().unwrap())
            .content(&b"x"[..])
            .sign_digest()
            .to_vec();
        let at = wire.iter().rposition(|b| *b == b'x').unwrap();
        wire[at] = b'y';
        let tampered = Data::decode(bytes::Bytes::from(wire)).unwrap();
        assert_eq!(v.verify(&tampered), Err(DropReason::DataBadSignature));
    }

    #[test]
    fn modes_and_trust_entries_are_checked_naming_the_key() {
        assert!(verifier(&section("none", vec![])).unwrap().is_none());
        assert!(verifier(&section("digest", vec![])).unwrap().is_some());
        let e = verifier(&section("rsa", vec![])).unwrap_err().to_string();
        assert!(e.contains("forwarder.verify_data"), "{e}");
        let bad = |t: TrustEntry| {
            verifier(&section("signature", vec![t]))
                .unwrap_err()
                .to_string()
        };
        let e = bad(TrustEntry {
            certificate: Some("not base64!".into()),
            ..Default::default()
        });
        assert!(e.contains("forwarder.trust[0].certificate"), "{e}");
        let e = bad(TrustEntry {
            hmac: Some("/k".into()),
            ..Default::default()
        });
        assert!(e.contains("forwarder.trust[0].secret"), "{e}");
        let e = bad(TrustEntry {
            file: Some("/nonexistent/x.cert".into()),
            ..Default::default()
        });
        assert!(e.contains("forwarder.trust[0].file"), "{e}");
        let e = bad(TrustEntry::default());
        assert!(e.contains("forwarder.trust[0]"), "{e}");
        let e = verifier(&section(
            "none",
            vec![TrustEntry {
                hmac: Some("/k".into()),
                secret: Some("00".into()),
                ..Default::default()
            }],
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("forwarder.trust"), "{e}");
    }
}
