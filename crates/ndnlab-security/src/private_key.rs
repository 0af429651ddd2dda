//! Private keys: generated or loaded once, then kept in memory in the
//! backend's parsed form so that signing is a single call into the crypto
//! library (no file access, no re-parsing, no name hashing per signature).
//!
//! Backends (chosen by measurement on the target CPU, see docs/BENCHMARKS.md):
//! aws-lc-rs for ECDSA P-256/P-384, Ed25519, HMAC and RSA >= 2048; RustCrypto
//! `rsa` for RSA-1024, which aws-lc-rs and ring refuse.

use aws_lc_rs::digest;
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, ECDSA_P256_SHA256_ASN1_SIGNING,
    ECDSA_P384_SHA384_ASN1_SIGNING, RSA_PKCS1_SHA256,
};
use pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};

use crate::public_key::PublicKey;
use crate::{KeyError, KeyType};

/// Length of a generated HMAC secret.
pub const HMAC_KEY_LEN: usize = 32;

enum Inner {
    EcdsaP256(EcdsaKeyPair),
    /// A P-384 key signing SHA-256 digests (NDN's SignatureSha256WithEcdsa),
    /// see [`sign_p384_sha256`].
    EcdsaP384(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair),
    RsaSoft(Box<rsa::pkcs1v15::SigningKey<sha2::Sha256>>),
    Hmac(Box<aws_lc_rs::hmac::Key>),
}

/// A private key (or HMAC secret) in memory, ready to sign.
pub struct PrivateKey {
    key_type: KeyType,
    inner: Inner,
    /// PKCS#8 (v1) DER, or the raw secret for HMAC: what the keychain stores.
    encoded: Vec<u8>,
    rng: SystemRandom,
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PrivateKey({})", self.key_type)
    }
}

fn gen_err(e: impl core::fmt::Display) -> KeyError {
    KeyError::Generate(e.to_string())
}

impl PrivateKey {
    /// Generates a fresh key of `key_type` from the system RNG.
    pub fn generate(key_type: KeyType) -> Result<PrivateKey, KeyError> {
        let rng = SystemRandom::new();
        let encoded = match key_type {
            KeyType::EcdsaP256 => {
                EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
                    .map_err(gen_err)?
                    .as_ref()
                    .to_vec()
            }
            KeyType::EcdsaP384 => {
                EcdsaKeyPair::generate_pkcs8(&ECDSA_P384_SHA384_ASN1_SIGNING, &rng)
                    .map_err(gen_err)?
                    .as_ref()
                    .to_vec()
            }
            KeyType::Ed25519 => Ed25519KeyPair::generate_pkcs8v1(&rng)
                .map_err(gen_err)?
                .as_ref()
                .to_vec(),
            KeyType::Rsa2048 | KeyType::Rsa3072 | KeyType::Rsa4096 => {
                let size = match key_type {
                    KeyType::Rsa2048 => aws_lc_rs::rsa::KeySize::Rsa2048,
                    KeyType::Rsa3072 => aws_lc_rs::rsa::KeySize::Rsa3072,
                    _ => aws_lc_rs::rsa::KeySize::Rsa4096,
                };
                let kp = RsaKeyPair::generate(size).map_err(gen_err)?;
                let der: aws_lc_rs::encoding::Pkcs8V1Der = kp.as_der().map_err(gen_err)?;
                der.as_ref().to_vec()
            }
            KeyType::Rsa1024 => {
                let k = rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 1024).map_err(gen_err)?;
                k.to_pkcs8_der().map_err(gen_err)?.as_bytes().to_vec()
            }
            KeyType::Hmac => {
                let mut secret = vec![0u8; HMAC_KEY_LEN];
                aws_lc_rs::rand::fill(&mut secret).map_err(gen_err)?;
                secret
            }
        };
        if key_type == KeyType::Hmac {
            Ok(PrivateKey::from_hmac_secret(&encoded))
        } else {
            PrivateKey::from_pkcs8_der(&encoded)
        }
    }

    /// An HMAC-SHA256 key from its secret bytes (any length).
    pub fn from_hmac_secret(secret: &[u8]) -> PrivateKey {
        PrivateKey {
            key_type: KeyType::Hmac,
            inner: Inner::Hmac(Box::new(aws_lc_rs::hmac::Key::new(
                aws_lc_rs::hmac::HMAC_SHA256,
                secret,
            ))),
            encoded: secret.to_vec(),
            rng: SystemRandom::new(),
        }
    }

    /// Loads an unencrypted PKCS#8 (v1 or v2) private key: RSA (1024 to
    /// 4096 bits), EC P-256 or P-384, or Ed25519. The type is detected.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<PrivateKey, KeyError> {
        let info = pkcs8::PrivateKeyInfo::try_from(der)
            .map_err(|e| KeyError::Malformed(format!("PKCS#8: {e}")))?;
        let oid = info.algorithm.oid;
        let rejected = |e: aws_lc_rs::error::KeyRejected| KeyError::Malformed(e.to_string());
        let (key_type, inner) = if oid == crate::oid::RSA_ENCRYPTION {
            let k = rsa::RsaPrivateKey::from_pkcs8_der(der)
                .map_err(|e| KeyError::Malformed(format!("RSA key: {e}")))?;
            let bits = rsa::traits::PublicKeyParts::size(&k) * 8;
            let key_type = KeyType::from_rsa_bits(bits)
                .ok_or_else(|| KeyError::Unsupported(format!("RSA-{bits}")))?;
            if key_type == KeyType::Rsa1024 {
                let sk = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(k);
                (key_type, Inner::RsaSoft(Box::new(sk)))
            } else {
                (
                    key_type,
                    Inner::Rsa(RsaKeyPair::from_pkcs8(der).map_err(rejected)?),
                )
            }
        } else if oid == crate::oid::EC_PUBLIC_KEY {
            let curve = info
                .algorithm
                .parameters_oid()
                .map_err(|e| KeyError::Malformed(format!("EC curve: {e}")))?;
            if curve == crate::oid::SECP256R1 {
                let kp = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, der)
                    .map_err(rejected)?;
                (KeyType::EcdsaP256, Inner::EcdsaP256(kp))
            } else if curve == crate::oid::SECP384R1 {
                let kp = EcdsaKeyPair::from_pkcs8(&ECDSA_P384_SHA384_ASN1_SIGNING, der)
                    .map_err(rejected)?;
                (KeyType::EcdsaP384, Inner::EcdsaP384(kp))
            } else {
                return Err(KeyError::Unsupported(format!("EC curve {curve}")));
            }
        } else if oid == crate::oid::ED25519 {
            let kp = Ed25519KeyPair::from_pkcs8_maybe_unchecked(der).map_err(rejected)?;
            (KeyType::Ed25519, Inner::Ed25519(kp))
        } else {
            return Err(KeyError::Unsupported(format!("key algorithm {oid}")));
        };
        Ok(PrivateKey {
            key_type,
            inner,
            encoded: der.to_vec(),
            rng: SystemRandom::new(),
        })
    }

    /// The PKCS#8 DER encoding (not for HMAC secrets).
    pub fn to_pkcs8_der(&self) -> Result<&[u8], KeyError> {
        if self.key_type == KeyType::Hmac {
            return Err(KeyError::NotApplicable(KeyType::Hmac));
        }
        Ok(&self.encoded)
    }

    /// The HMAC secret (HMAC keys only).
    pub fn hmac_secret(&self) -> Option<&[u8]> {
        (self.key_type == KeyType::Hmac).then_some(&self.encoded[..])
    }

    /// The key's type.
    pub fn key_type(&self) -> KeyType {
        self.key_type
    }

    /// The public key as SubjectPublicKeyInfo DER (not for HMAC).
    pub fn public_key_der(&self) -> Result<Vec<u8>, KeyError> {
        let e = |e: aws_lc_rs::error::Unspecified| KeyError::Malformed(e.to_string());
        Ok(match &self.inner {
            Inner::EcdsaP256(k) | Inner::EcdsaP384(k) => {
                k.public_key().as_der().map_err(e)?.as_ref().to_vec()
            }
            Inner::Ed25519(k) => k.public_key().as_der().map_err(e)?.as_ref().to_vec(),
            Inner::Rsa(k) => k.public_key().as_der().map_err(e)?.as_ref().to_vec(),
            Inner::RsaSoft(k) => {
                let vk = rsa::pkcs1v15::VerifyingKey::<sha2::Sha256>::from(
                    k.as_ref().as_ref().to_public_key(),
                );
                vk.to_public_key_der()
                    .map_err(|err| KeyError::Malformed(err.to_string()))?
                    .as_bytes()
                    .to_vec()
            }
            Inner::Hmac(_) => return Err(KeyError::NotApplicable(KeyType::Hmac)),
        })
    }

    /// The public key, for verification (for HMAC: the secret itself).
    pub fn public_key(&self) -> Result<PublicKey, KeyError> {
        match self.key_type {
            KeyType::Hmac => Ok(PublicKey::hmac(&self.encoded)),
            _ => PublicKey::from_spki_der(&self.public_key_der()?),
        }
    }

    /// Signs `msg` (SHA-256 included) and returns the NDN SignatureValue:
    /// PKCS#1 v1.5 for RSA, DER-encoded (r, s) for ECDSA, 64 bytes for
    /// Ed25519, the 32-byte tag for HMAC.
    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, aws_lc_rs::error::Unspecified> {
        match &self.inner {
            Inner::EcdsaP256(k) => Ok(k.sign(&self.rng, msg)?.as_ref().to_vec()),
            Inner::EcdsaP384(k) => sign_p384_sha256(k, msg),
            Inner::Ed25519(k) => Ok(k.sign(msg).as_ref().to_vec()),
            Inner::Rsa(k) => {
                let mut sig = vec![0u8; k.public_modulus_len()];
                k.sign(&RSA_PKCS1_SHA256, &self.rng, msg, &mut sig)?;
                Ok(sig)
            }
            Inner::RsaSoft(k) => {
                use rsa::signature::{SignatureEncoding, Signer};
                let s = k.try_sign(msg).map_err(|_| aws_lc_rs::error::Unspecified)?;
                Ok(s.to_vec())
            }
            Inner::Hmac(k) => Ok(aws_lc_rs::hmac::sign(k, msg).as_ref().to_vec()),
        }
    }
}

/// ECDSA P-384 over a SHA-256 digest, which NDN's SignatureSha256WithEcdsa
/// requires and aws-lc-rs has no signing constant for. ECDSA turns the digest
/// into the integer `e` made of its leftmost min(384, hash bits) bits
/// (FIPS 186-4, 6.4); a 48-byte value made of 16 zero bytes followed by the
/// SHA-256 digest has exactly the digest's integer value, so signing it as a
/// "SHA-384 digest" yields a standard P-384/SHA-256 signature (checked in the
/// tests against aws-lc-rs' `ECDSA_P384_SHA256_ASN1` verifier and in the
/// python-ndn interop test).
fn sign_p384_sha256(
    k: &EcdsaKeyPair,
    msg: &[u8],
) -> Result<Vec<u8>, aws_lc_rs::error::Unspecified> {
    let h = digest::digest(&digest::SHA256, msg);
    let mut wide = [0u8; 48];
    wide[16..].copy_from_slice(h.as_ref());
    let d = digest::Digest::import_less_safe(&wide, &digest::SHA384)?;
    Ok(k.sign_digest(&d)?.as_ref().to_vec())
}
