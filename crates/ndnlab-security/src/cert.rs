//! NDN certificates (format v2): a Data packet named
//! `/<identity>/KEY/<key-id>/<issuer-id>/<version>`, ContentType KEY, the
//! SubjectPublicKeyInfo DER as content and a ValidityPeriod in its
//! SignatureInfo.

use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{content_type, Data, IsoTime, Name, Signer, ValidityPeriod};

use crate::naming::{self, is_cert_name};
use crate::verify::{verify_data, Rejection};
use crate::{KeyError, PublicKey};

/// FreshnessPeriod of generated certificates (ndn-cxx's default).
pub const CERT_FRESHNESS: Duration = Duration::from_secs(3600);

/// Why a packet is not a usable certificate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CertError {
    #[error("malformed packet: {0}")]
    Decode(String),
    #[error("name {0} is not a certificate name (/<identity>/KEY/<key-id>/<issuer-id>/<version>)")]
    NotCertName(String),
    #[error("ContentType is {0}, a certificate has KEY (2)")]
    WrongContentType(u64),
    #[error("certificate has no ValidityPeriod")]
    MissingValidity,
    #[error("certificate public key: {0}")]
    Key(KeyError),
    #[error("signing the certificate failed: {0}")]
    Sign(String),
}

impl From<KeyError> for CertError {
    fn from(e: KeyError) -> Self {
        CertError::Key(e)
    }
}

/// A parsed certificate: the Data and its public key, ready to verify.
#[derive(Debug, Clone)]
pub struct Certificate {
    data: Data,
    key: PublicKey,
    validity: ValidityPeriod,
}

/// A ValidityPeriod from `now` (Unix seconds) for `dur`.
pub fn validity_from(now_unix: u64, dur: Duration) -> ValidityPeriod {
    ValidityPeriod {
        not_before: IsoTime::from_unix(now_unix),
        not_after: IsoTime::from_unix(now_unix.saturating_add(dur.as_secs())),
    }
}

impl Certificate {
    /// Decodes and checks a certificate.
    pub fn decode(wire: Bytes) -> Result<Certificate, CertError> {
        let data = Data::decode(wire).map_err(|e| CertError::Decode(e.to_string()))?;
        Certificate::from_data(data)
    }

    /// Checks that `data` is a certificate (name form, ContentType KEY,
    /// SubjectPublicKeyInfo content, ValidityPeriod). Does not check the signature.
    pub fn from_data(data: Data) -> Result<Certificate, CertError> {
        if !is_cert_name(data.name()) {
            return Err(CertError::NotCertName(data.name().to_string()));
        }
        if data.content_type() != content_type::KEY {
            return Err(CertError::WrongContentType(data.content_type()));
        }
        let validity = data
            .signature_info()
            .validity
            .ok_or(CertError::MissingValidity)?;
        let key = PublicKey::from_spki_der(data.content_slice())?;
        Ok(Certificate {
            data,
            key,
            validity,
        })
    }

    /// Builds and signs a certificate for `public_key` named
    /// `<key_name>/<issuer_id>/v=<version>`.
    pub fn build(
        key_name: &Name,
        public_key: &PublicKey,
        issuer_id: &[u8],
        version: u64,
        validity: ValidityPeriod,
        signer: &dyn Signer,
    ) -> Result<Certificate, CertError> {
        if !naming::is_key_name(key_name) {
            return Err(CertError::NotCertName(key_name.to_string()));
        }
        if !public_key.key_type().is_asymmetric() {
            return Err(CertError::Key(KeyError::NotApplicable(
                public_key.key_type(),
            )));
        }
        let mut info = signer.signature_info();
        info.validity = Some(validity);
        let wire = Data::builder(naming::cert_name(key_name, issuer_id, version))
            .content_type(content_type::KEY)
            .freshness(CERT_FRESHNESS)
            .content(Bytes::copy_from_slice(public_key.der()))
            .signature_info(info)
            .sign(signer)
            .map_err(|e| CertError::Sign(e.to_string()))?;
        Certificate::decode(wire)
    }

    /// The certificate Data.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The encoded certificate.
    pub fn wire(&self) -> &Bytes {
        self.data.wire()
    }

    /// The certificate name.
    pub fn name(&self) -> &Name {
        self.data.name()
    }

    /// `/<identity>/KEY/<key-id>`.
    pub fn key_name(&self) -> Name {
        self.name().prefix(self.name().len() - 2)
    }

    /// `/<identity>`.
    pub fn identity(&self) -> Name {
        self.name().prefix(self.name().len() - 4)
    }

    /// The issuer-id component's value.
    pub fn issuer_id(&self) -> &[u8] {
        self.name()
            .get(self.name().len() - 2)
            .map(|c| c.value)
            .unwrap_or_default()
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// The ValidityPeriod.
    pub fn validity(&self) -> ValidityPeriod {
        self.validity
    }

    /// Whether the certificate is valid at `unix_secs`.
    pub fn is_valid_at(&self, unix_secs: u64) -> bool {
        self.validity.contains(unix_secs)
    }

    /// Whether the KeyLocator names this certificate's own key (or itself).
    pub fn is_self_signed(&self) -> bool {
        match self
            .data
            .signature_info()
            .key_locator
            .as_ref()
            .and_then(|k| k.name())
        {
            Some(n) => naming::to_key_name(n).as_ref() == Some(&self.key_name()),
            None => false,
        }
    }

    /// Verifies a self-signed certificate's signature with its own key.
    pub fn verify_self_signature(&self) -> Result<(), Rejection> {
        verify_data(&self.data, Some(&self.key))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{KeySigner, KeyType, PrivateKey};

    #[test]
    fn self_signed_and_issued() {
        let now = 1_700_000_000;
        let root = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
        let root_key_name = naming::key_name(&"/root".parse().unwrap(), b"r");
        let root_signer = KeySigner::new(root.clone(), root_key_name.clone());
        let root_cert = Certificate::build(
            &root_key_name,
            &root.public_key().unwrap(),
            naming::SELF_ISSUER,
            1,
            validity_from(now, Duration::from_secs(86400)),
            &root_signer,
        )
        .unwrap();
        assert!(root_cert.is_self_signed());
        root_cert.verify_self_signature().unwrap();
        assert_eq!(root_cert.identity().to_string(), "/root");
        assert_eq!(root_cert.issuer_id(), b"self");
        assert!(root_cert.is_valid_at(now + 10) && !root_cert.is_valid_at(now + 86401));

        let alice = PrivateKey::generate(KeyType::Ed25519).unwrap();
        let alice_key_name = naming::key_name(&"/root/alice".parse().unwrap(), b"a");
        let cert = Certificate::build(
            &alice_key_name,
            &alice.public_key().unwrap(),
            b"root",
            2,
            validity_from(now, Duration::from_secs(3600)),
            &root_signer,
        )
        .unwrap();
        assert!(!cert.is_self_signed());
        verify_data(cert.data(), Some(root_cert.public_key())).unwrap();
        assert_eq!(cert.public_key().key_type(), KeyType::Ed25519);
        // the decoded form equals the built one
        let again = Certificate::decode(cert.wire().clone()).unwrap();
        assert_eq!(again.name(), cert.name());
    }

    #[test]
    fn not_a_certificate() {
        let wire = Data::builder("/a/b".parse().unwrap())
            .content(&b"x"[..])
            .sign_digest();
        assert!(matches!(
            Certificate::decode(wire),
            Err(CertError::NotCertName(_))
        ));
        let wire = Data::builder("/a/KEY/k/self/v=1".parse().unwrap())
            .content(&b"x"[..])
            .sign_digest();
        assert!(matches!(
            Certificate::decode(wire),
            Err(CertError::WrongContentType(0))
        ));
        assert!(matches!(
            Certificate::decode(Bytes::from_static(b"\x06\x05abc")),
            Err(CertError::Decode(_))
        ));
    }
}
