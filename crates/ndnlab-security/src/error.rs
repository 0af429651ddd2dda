//! Errors of key handling (generation, import, export).

/// Why a key could not be generated, loaded or encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The bytes are not a supported PKCS#8 / SubjectPublicKeyInfo key.
    #[error("malformed or unsupported key: {0}")]
    Malformed(String),
    /// The key's algorithm or size is not one ndnlab signs with.
    #[error("unsupported key algorithm: {0}")]
    Unsupported(String),
    /// The operation does not apply to this key type (e.g. the public key of an HMAC secret).
    #[error("operation not available for {0} keys")]
    NotApplicable(crate::KeyType),
    /// Generation failed in the crypto backend.
    #[error("key generation failed: {0}")]
    Generate(String),
}
