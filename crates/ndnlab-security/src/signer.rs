//! [`KeySigner`]: a key plus its KeyLocator, implementing the wire crate's
//! [`Signer`]; [`InterestSigner`]: adds the per-Interest SignatureNonce,
//! SignatureTime and SignatureSeqNum of signed Interests (v0.3).
//!
//! The SignatureInfo is built once at construction; per packet, `signature_info`
//! clones it (the key name is a reference-counted `Bytes`, no re-encoding or
//! hashing) and `sign` is a single call into the crypto backend.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use ndnlab_wire::{KeyLocator, Name, SignError, SignatureInfo, Signer};

use crate::{KeyError, KeyType, PrivateKey};

/// A private key ready to sign packets, with its KeyLocator.
#[derive(Debug, Clone)]
pub struct KeySigner {
    key: Arc<PrivateKey>,
    info: SignatureInfo,
}

impl KeySigner {
    /// Signs with `key`; the KeyLocator is `locator_name` (a key or certificate name).
    pub fn new(key: Arc<PrivateKey>, locator_name: Name) -> KeySigner {
        Self::with_locator(key, Some(KeyLocator::Name(locator_name)))
    }

    /// Signs with `key`; the KeyLocator is the KeyDigest form (SHA-256 of the
    /// SubjectPublicKeyInfo, or of the secret for HMAC).
    pub fn with_key_digest(key: Arc<PrivateKey>) -> Result<KeySigner, KeyError> {
        let digest = key.public_key()?.digest();
        Ok(Self::with_locator(
            key,
            Some(KeyLocator::Digest(Bytes::copy_from_slice(&digest))),
        ))
    }

    /// Signs with `key` and an explicit (or no) KeyLocator.
    pub fn with_locator(key: Arc<PrivateKey>, locator: Option<KeyLocator>) -> KeySigner {
        let mut info = SignatureInfo::new(key.key_type().sig_type());
        info.key_locator = locator;
        KeySigner { key, info }
    }

    /// The key.
    pub fn key(&self) -> &Arc<PrivateKey> {
        &self.key
    }

    /// The key type.
    pub fn key_type(&self) -> KeyType {
        self.key.key_type()
    }

    /// The SignatureInfo template (type and KeyLocator).
    pub fn info(&self) -> &SignatureInfo {
        &self.info
    }
}

impl Signer for KeySigner {
    fn signature_info(&self) -> SignatureInfo {
        self.info.clone()
    }

    fn sign(&self, signed_portion: &[u8]) -> Result<Vec<u8>, SignError> {
        self.key
            .sign(signed_portion)
            .map_err(|_| SignError::Failed(format!("{} signing failed", self.key.key_type())))
    }

    fn max_signature_len(&self) -> usize {
        self.key.key_type().max_signature_len()
    }
}

/// Wraps a signer so that every signature has the longest length the key
/// gives: ECDSA's DER encoding drops leading zero bytes of `r` and `s`, so a
/// P-256 signature is 70 to 72 bytes depending on its random nonce. This
/// signs again until the value is [`Signer::max_signature_len`] long (about
/// four tries for ECDSA, one for every other key type). Every value is a valid
/// signature; only its length is fixed, so packet sizes, and the time a
/// simulated link takes to carry them, do not depend on the nonce.
pub struct FullLength(pub Arc<dyn Signer>);

impl Signer for FullLength {
    fn signature_info(&self) -> SignatureInfo {
        self.0.signature_info()
    }

    fn sign(&self, signed_portion: &[u8]) -> Result<Vec<u8>, SignError> {
        let want = self.0.max_signature_len();
        let mut value = self.0.sign(signed_portion)?;
        // P(a P-256 signature is shorter than 72 bytes) is 3/4: 256 tries
        // fail with probability 1e-32.
        for _ in 0..256 {
            if value.len() >= want {
                break;
            }
            value = self.0.sign(signed_portion)?;
        }
        Ok(value)
    }

    fn max_signature_len(&self) -> usize {
        self.0.max_signature_len()
    }
}

/// Wraps a signer for signed Interests: each `signature_info` call adds a
/// fresh 8-byte SignatureNonce, the SignatureTime (ms since the Unix epoch,
/// strictly increasing) and the next SignatureSeqNum, as selected.
pub struct InterestSigner {
    inner: Arc<dyn Signer>,
    nonce: bool,
    time: bool,
    seq: Option<AtomicU64>,
    last_time: AtomicU64,
}

impl InterestSigner {
    /// With SignatureNonce and SignatureTime (the NDN defaults).
    pub fn new(inner: impl Signer + 'static) -> Self {
        Self::from_arc(Arc::new(inner))
    }

    /// Wraps a shared signer.
    pub fn from_arc(inner: Arc<dyn Signer>) -> Self {
        InterestSigner {
            inner,
            nonce: true,
            time: true,
            seq: None,
            last_time: AtomicU64::new(0),
        }
    }

    /// Also adds SignatureSeqNum, starting at `first`.
    pub fn with_seq_num(mut self, first: u64) -> Self {
        self.seq = Some(AtomicU64::new(first));
        self
    }

    /// Chooses whether to add SignatureNonce and SignatureTime.
    pub fn fields(mut self, nonce: bool, time: bool) -> Self {
        self.nonce = nonce;
        self.time = time;
        self
    }

    fn next_time(&self) -> u64 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut prev = self.last_time.load(Ordering::Relaxed);
        loop {
            let t = now.max(prev + 1);
            match self.last_time.compare_exchange_weak(
                prev,
                t,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return t,
                Err(p) => prev = p,
            }
        }
    }
}

impl Signer for InterestSigner {
    fn signature_info(&self) -> SignatureInfo {
        let mut info = self.inner.signature_info();
        if self.nonce {
            let mut n = [0u8; 8];
            // the system RNG does not fail on supported platforms; a zero nonce
            // would still be a well-formed packet
            let _ = aws_lc_rs::rand::fill(&mut n);
            info.nonce = Some(Bytes::copy_from_slice(&n));
        }
        if self.time {
            info.time = Some(self.next_time());
        }
        if let Some(seq) = &self.seq {
            info.seq_num = Some(seq.fetch_add(1, Ordering::Relaxed));
        }
        info
    }

    fn sign(&self, signed_portion: &[u8]) -> Result<Vec<u8>, SignError> {
        self.inner.sign(signed_portion)
    }

    fn max_signature_len(&self) -> usize {
        self.inner.max_signature_len()
    }
}

#[cfg(test)]
mod full_length_tests {
    use super::*;
    use crate::{KeyType, PrivateKey};
    use ndnlab_wire::Name;

    #[test]
    fn every_ecdsa_signature_has_the_full_length_and_verifies() {
        for kt in [KeyType::EcdsaP256, KeyType::EcdsaP384, KeyType::Ed25519] {
            let key = Arc::new(PrivateKey::generate(kt).unwrap());
            let name = Name::from_uri("/k/KEY/1").unwrap();
            let plain = KeySigner::new(key.clone(), name.clone());
            let full = FullLength(Arc::new(KeySigner::new(key.clone(), name)));
            let lens: Vec<usize> = (0..64u8)
                .map(|i| full.sign(&[i; 100]).unwrap().len())
                .collect();
            assert!(
                lens.iter().all(|&l| l == kt.max_signature_len()),
                "{kt}: {lens:?}"
            );
            let sig = full.sign(b"signed portion").unwrap();
            let sig_type = full.signature_info().sig_type;
            key.public_key()
                .unwrap()
                .verify(sig_type, b"signed portion", &sig)
                .unwrap();
            if kt == KeyType::EcdsaP256 {
                // Without the wrapper, lengths vary.
                let short = (0..64u8).any(|i| plain.sign(&[i; 100]).unwrap().len() < 72);
                assert!(short, "64 plain P-256 signatures all 72 bytes long");
            }
        }
    }
}
