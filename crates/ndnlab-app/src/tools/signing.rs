//! Choosing a signer from the command line (`--sign digest|rsa-2048|...`).

use std::sync::Arc;

use ndnlab_security::{KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{DigestSha256, Name, Signer};

/// The signature a producer puts on its Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignKind {
    Digest,
    Key(KeyType),
}

impl std::str::FromStr for SignKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "digest" || s == "sha256" {
            return Ok(SignKind::Digest);
        }
        s.parse::<KeyType>().map(SignKind::Key).map_err(|_| {
            format!(
                "unknown signature `{s}` (expected digest, rsa-1024, rsa-2048, rsa-3072, rsa-4096, ecdsa-p256, ecdsa-p384, ed25519 or hmac)"
            )
        })
    }
}

impl std::fmt::Display for SignKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignKind::Digest => f.write_str("digest"),
            SignKind::Key(k) => f.write_str(k.as_str()),
        }
    }
}

/// A signer plus, for key signatures, the self-signed certificate that
/// verifiers can fetch (its name is the KeyLocator's key name + issuer + version).
pub struct Identity {
    pub signer: Arc<dyn Signer>,
    pub kind: SignKind,
    /// Certificate Data to serve, if the signature uses a key.
    pub certificate: Option<bytes::Bytes>,
    /// The key name in KeyLocator.
    pub key_name: Option<Name>,
}

/// Generates a fresh in-memory key for `identity` (NDN key naming
/// `/<identity>/KEY/<key-id>`), with a self-signed certificate.
pub fn make_identity(kind: SignKind, identity: &Name) -> anyhow::Result<Identity> {
    match kind {
        SignKind::Digest => Ok(Identity {
            signer: Arc::new(DigestSha256),
            kind,
            certificate: None,
            key_name: None,
        }),
        SignKind::Key(kt) => {
            let key = Arc::new(
                PrivateKey::generate(kt)
                    .map_err(|e| anyhow::anyhow!("cannot generate {kt:?} key: {e}"))?,
            );
            let key_id: [u8; 8] = rand::random();
            let key_name = ndnlab_security::naming::key_name(identity, &key_id);
            let signer = KeySigner::new(key.clone(), key_name.clone());
            let certificate = make_certificate(&key, &key_name, &signer).ok();
            Ok(Identity {
                signer: Arc::new(signer),
                kind,
                certificate,
                key_name: Some(key_name),
            })
        }
    }
}

fn make_certificate(
    key: &PrivateKey,
    key_name: &Name,
    signer: &KeySigner,
) -> anyhow::Result<bytes::Bytes> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let validity = ndnlab_security::validity_from(now, std::time::Duration::from_secs(365 * 86400));
    let public = key.public_key().map_err(|e| anyhow::anyhow!("{e}"))?;
    let cert = ndnlab_security::Certificate::build(
        key_name,
        &public,
        b"self",
        now * 1000,
        validity,
        signer,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(cert.wire().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kinds() {
        assert_eq!("digest".parse(), Ok(SignKind::Digest));
        assert_eq!("ecdsa-p256".parse(), Ok(SignKind::Key(KeyType::EcdsaP256)));
        assert!("dsa".parse::<SignKind>().is_err());
    }

    #[test]
    fn key_identity_signs_and_has_certificate() {
        let id = make_identity(SignKind::Key(KeyType::Ed25519), &"/id".parse().unwrap()).unwrap();
        let cert = ndnlab_security::Certificate::decode(id.certificate.clone().unwrap()).unwrap();
        assert_eq!(Some(cert.key_name()), id.key_name);
        let d = ndnlab_wire::Data::builder("/id/x".parse().unwrap())
            .sign_view(id.signer.as_ref())
            .unwrap();
        ndnlab_security::verify_data(&d, Some(cert.public_key())).unwrap();
    }
}
