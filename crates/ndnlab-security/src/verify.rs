//! Signature checks of single packets against a known key: the building
//! block of the [`Validator`](crate::Validator).

use ndnlab_wire::{sig_type, Data, DigestSha256, Interest, SignatureInfo};

use crate::{BadSignature, KeyType, PublicKey};

/// Why a packet was rejected. `reason()` is a short stable label.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// The packet does not decode (e.g. truncated).
    #[error("malformed packet: {0}")]
    Malformed(String),
    /// An Interest without InterestSignatureInfo.
    #[error("packet is not signed")]
    Unsigned,
    /// The signature value does not verify (forged or corrupted).
    #[error("signature does not verify")]
    BadSignature,
    /// The signature type does not match the key's type, or is unknown.
    #[error("signature type {sig_type} does not match key type {key_type}")]
    WrongSignatureType { sig_type: u64, key_type: KeyType },
    /// A signature type the validator does not accept here (e.g. DigestSha256
    /// where a key signature is required).
    #[error("signature type {0} not accepted")]
    TypeNotAccepted(u64),
    /// A key signature without a KeyLocator.
    #[error("missing KeyLocator")]
    MissingKeyLocator,
    /// The KeyLocator does not name a key we can find (or has the digest form
    /// and no known key has that digest).
    #[error("unknown key {0}")]
    UnknownKey(String),
    /// The key is not allowed to sign this name (hierarchical rule).
    #[error("key {key} may not sign {name}")]
    NotAuthorized { key: String, name: String },
    /// A certificate outside its ValidityPeriod.
    #[error("certificate {cert} is not valid now ({not_before} .. {not_after})")]
    Expired {
        cert: String,
        not_before: String,
        not_after: String,
    },
    /// A fetched packet is not a valid certificate.
    #[error("invalid certificate {name}: {why}")]
    BadCertificate { name: String, why: String },
    /// The chain does not end in a trust anchor within the depth limit.
    #[error("no trust anchor reached: {0}")]
    NoTrustAnchor(String),
    /// The certificate fetcher failed.
    #[error("certificate fetch failed for {name}: {why}")]
    FetchFailed { name: String, why: String },
}

impl Rejection {
    /// A short label for counters and logs.
    pub fn reason(&self) -> &'static str {
        match self {
            Rejection::Malformed(_) => "malformed",
            Rejection::Unsigned => "unsigned",
            Rejection::BadSignature => "bad-signature",
            Rejection::WrongSignatureType { .. } => "wrong-signature-type",
            Rejection::TypeNotAccepted(_) => "type-not-accepted",
            Rejection::MissingKeyLocator => "missing-key-locator",
            Rejection::UnknownKey(_) => "unknown-key",
            Rejection::NotAuthorized { .. } => "not-authorized",
            Rejection::Expired { .. } => "expired",
            Rejection::BadCertificate { .. } => "bad-certificate",
            Rejection::NoTrustAnchor(_) => "no-trust-anchor",
            Rejection::FetchFailed { .. } => "fetch-failed",
        }
    }
}

impl From<BadSignature> for Rejection {
    fn from(b: BadSignature) -> Self {
        match b {
            BadSignature::Invalid => Rejection::BadSignature,
            BadSignature::WrongType { sig_type, key_type } => {
                Rejection::WrongSignatureType { sig_type, key_type }
            }
        }
    }
}

/// Checks `value` over `signed_portion` with `key`; for a DigestSha256
/// signature (`key` ignored) checks the digest.
pub fn verify_signature(
    info: &SignatureInfo,
    signed_portion: &[u8],
    value: &[u8],
    key: Option<&PublicKey>,
) -> Result<(), Rejection> {
    if info.sig_type == sig_type::DIGEST_SHA256 {
        return if DigestSha256::verify(signed_portion, value) {
            Ok(())
        } else {
            Err(Rejection::BadSignature)
        };
    }
    let key = key.ok_or(Rejection::MissingKeyLocator)?;
    Ok(key.verify(info.sig_type, signed_portion, value)?)
}

/// Verifies a Data packet's signature with `key` (or its DigestSha256).
pub fn verify_data(data: &Data, key: Option<&PublicKey>) -> Result<(), Rejection> {
    verify_signature(
        data.signature_info(),
        data.signed_portion(),
        data.signature_value(),
        key,
    )
}

/// Verifies a signed Interest's signature with `key` (or its DigestSha256).
pub fn verify_interest(interest: &Interest, key: Option<&PublicKey>) -> Result<(), Rejection> {
    let (Some(info), Some(value), Some(portion)) = (
        interest.signature_info(),
        interest.signature_value(),
        interest.signed_portion(),
    ) else {
        return Err(Rejection::Unsigned);
    };
    verify_signature(info, &portion, value, key)
}
