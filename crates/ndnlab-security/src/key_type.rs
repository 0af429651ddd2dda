//! The kinds of keys ndnlab can generate, load and sign with, and the NDN
//! SignatureType each one produces.

use core::fmt;
use core::str::FromStr;

use ndnlab_wire::sig_type;

/// A key algorithm (and size). Every variant maps to one NDN SignatureType.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyType {
    Rsa1024,
    Rsa2048,
    Rsa3072,
    Rsa4096,
    EcdsaP256,
    EcdsaP384,
    Ed25519,
    /// A shared secret (SignatureHmacWithSha256); 32 random bytes when generated.
    Hmac,
}

impl KeyType {
    /// Every key type, in display order.
    pub const ALL: [KeyType; 8] = [
        KeyType::EcdsaP256,
        KeyType::EcdsaP384,
        KeyType::Ed25519,
        KeyType::Rsa1024,
        KeyType::Rsa2048,
        KeyType::Rsa3072,
        KeyType::Rsa4096,
        KeyType::Hmac,
    ];

    /// The CLI spelling (`ecdsa-p256`, `rsa-2048`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            KeyType::Rsa1024 => "rsa-1024",
            KeyType::Rsa2048 => "rsa-2048",
            KeyType::Rsa3072 => "rsa-3072",
            KeyType::Rsa4096 => "rsa-4096",
            KeyType::EcdsaP256 => "ecdsa-p256",
            KeyType::EcdsaP384 => "ecdsa-p384",
            KeyType::Ed25519 => "ed25519",
            KeyType::Hmac => "hmac",
        }
    }

    /// The NDN SignatureType value this key signs with.
    pub fn sig_type(self) -> u64 {
        match self {
            KeyType::Rsa1024 | KeyType::Rsa2048 | KeyType::Rsa3072 | KeyType::Rsa4096 => {
                sig_type::SHA256_WITH_RSA
            }
            KeyType::EcdsaP256 | KeyType::EcdsaP384 => sig_type::SHA256_WITH_ECDSA,
            KeyType::Ed25519 => sig_type::ED25519,
            KeyType::Hmac => sig_type::HMAC_WITH_SHA256,
        }
    }

    /// RSA modulus size in bits, if RSA.
    pub fn rsa_bits(self) -> Option<usize> {
        match self {
            KeyType::Rsa1024 => Some(1024),
            KeyType::Rsa2048 => Some(2048),
            KeyType::Rsa3072 => Some(3072),
            KeyType::Rsa4096 => Some(4096),
            _ => None,
        }
    }

    /// The RSA key type of a modulus size, if supported.
    pub fn from_rsa_bits(bits: usize) -> Option<KeyType> {
        match bits {
            1024 => Some(KeyType::Rsa1024),
            2048 => Some(KeyType::Rsa2048),
            3072 => Some(KeyType::Rsa3072),
            4096 => Some(KeyType::Rsa4096),
            _ => None,
        }
    }

    /// Whether the key is asymmetric (has a public key and a certificate).
    pub fn is_asymmetric(self) -> bool {
        self != KeyType::Hmac
    }

    /// Upper bound of a SignatureValue's size.
    pub fn max_signature_len(self) -> usize {
        match self {
            KeyType::EcdsaP256 => 72,
            KeyType::EcdsaP384 => 104,
            KeyType::Ed25519 => 64,
            KeyType::Hmac => 32,
            t => t.rsa_bits().unwrap_or(4096) / 8,
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown key type spelling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key type {0:?} (expected one of: ecdsa-p256, ecdsa-p384, ed25519, rsa-1024, rsa-2048, rsa-3072, rsa-4096, hmac)")]
pub struct UnknownKeyType(pub String);

impl FromStr for KeyType {
    type Err = UnknownKeyType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.to_ascii_lowercase().replace('_', "-");
        KeyType::ALL
            .into_iter()
            .find(|t| t.as_str() == norm || t.as_str().replace('-', "") == norm)
            .ok_or_else(|| UnknownKeyType(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_roundtrip() {
        for t in KeyType::ALL {
            assert_eq!(t.as_str().parse::<KeyType>().unwrap(), t);
        }
        assert_eq!("ECDSA_P256".parse::<KeyType>().unwrap(), KeyType::EcdsaP256);
        assert_eq!("rsa2048".parse::<KeyType>().unwrap(), KeyType::Rsa2048);
        assert!("dsa".parse::<KeyType>().is_err());
    }
}
