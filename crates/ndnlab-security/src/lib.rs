//! ndnlab-security: the security layer above the wire codec.
//!
//! * every NDN v0.3 signature type: DigestSha256 (from `ndnlab-wire`),
//!   SignatureSha256WithRsa (RSA 1024 to 4096, PKCS#1 v1.5),
//!   SignatureSha256WithEcdsa (P-256, P-384; DER signatures),
//!   SignatureHmacWithSha256 and SignatureEd25519;
//! * [`PrivateKey`] / [`PublicKey`]: keys parsed once and kept in memory,
//!   [`KeySigner`] implementing the wire crate's [`Signer`] with the
//!   KeyLocator pre-built, [`InterestSigner`] for signed Interests v0.3;
//! * [`Certificate`]: NDN certificates v2;
//! * [`Keychain`]: a directory of PKCS#8 keys and certificates;
//! * [`Validator`]: trust anchors, the hierarchical rule, certificate
//!   fetching through a caller-provided [`CertFetcher`];
//! * [`SigningPool`]: N signing threads with bounded queues, counted drops,
//!   per-worker signed counts and busy time; whole batches in input order;
//! * [`bench`](mod@bench): signing and verification throughput per
//!   signature type, per wall-clock and per CPU second.
//!
//! The crypto backend is aws-lc-rs (the fastest measured on the target CPU,
//! SHA-NI included), with RustCrypto `rsa` for RSA-1024 keys which
//! aws-lc-rs refuses. No tokio here: the validator's fetch callback returns
//! a boxed future that any executor can drive.
//!
//! ```
//! use std::sync::Arc;
//! use ndnlab_security::{verify_data, KeySigner, KeyType, PrivateKey, Rejection};
//! use ndnlab_wire::Data;
//!
//! let key = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
//! let public = key.public_key().unwrap();
//! let signer = KeySigner::new(key, "/example/KEY/k1".parse().unwrap());
//! let data = Data::builder("/example/data".parse().unwrap())
//!     .content(&b"hello"[..])
//!     .sign_view(&signer)
//!     .unwrap();
//! verify_data(&data, Some(&public)).unwrap();
//!
//! let other = PrivateKey::generate(KeyType::EcdsaP256).unwrap().public_key().unwrap();
//! assert_eq!(verify_data(&data, Some(&other)), Err(Rejection::BadSignature));
//! ```

pub mod bench;
mod cert;
mod error;
#[doc(hidden)]
pub mod fuzz;
mod key_type;
mod keychain;
pub mod naming;
mod oid;
mod pool;
mod private_key;
mod public_key;
mod signer;
mod validator;
mod verify;

pub use cert::{validity_from, CertError, Certificate, CERT_FRESHNESS};
pub use error::KeyError;
pub use key_type::{KeyType, UnknownKeyType};
pub use keychain::hex_decode;
pub use keychain::{
    base64_encode, decode_cert_file, KeyEntry, KeyStorage, Keychain, KeychainError,
    DEFAULT_VALIDITY, KEYCHAIN_ENV,
};
pub use pool::{PoolError, PoolTotals, SigningPool, WorkerStats, MAX_THREADS};
pub use private_key::{PrivateKey, HMAC_KEY_LEN};
pub use public_key::{BadSignature, PublicKey};
pub use signer::{FullLength, InterestSigner, KeySigner};
pub use validator::{block_on, BoxFuture, CertFetcher, NoFetch, StaticFetcher, Validator};
pub use verify::{verify_data, verify_interest, verify_signature, Rejection};

pub use ndnlab_wire::{DigestSha256, SignError, Signer};
