//! Verification of every Data on arrival, before the PIT match.
//!
//! The core stays sans-IO and knows no keys: a [`DataVerifier`] is handed to it in
//! [`ForwarderConfig::verify_data`](crate::ForwarderConfig::verify_data). `None`
//! (the default) costs one branch per Data; with a verifier, a Data it refuses is
//! dropped and counted under the [`DropReason`] it returns, before it can satisfy
//! a PIT entry or enter the Content Store. [`ImplicitDigest`] computes the implicit
//! SHA-256 digest of each Data (kept in the Data for a PIT entry that asks for it)
//! and refuses nothing; signature verifiers against configured keys live with the
//! daemon (`ndnlab_fwd::verify`), which has the security crate.

use ndnlab_wire::Data;

use crate::counters::DropReason;

/// Checks a Data before the forwarder uses it.
pub trait DataVerifier: Send + Sync + std::fmt::Debug {
    /// `Ok` lets the Data through; `Err(reason)` drops it, counted under `reason`
    /// (one of [`DropReason::DATA_VERIFY`]).
    fn verify(&self, data: &Data) -> Result<(), DropReason>;
}

/// Computes the implicit SHA-256 digest of every Data (NDN's full name), and
/// refuses none.
#[derive(Debug, Default, Clone, Copy)]
pub struct ImplicitDigest;

impl DataVerifier for ImplicitDigest {
    fn verify(&self, data: &Data) -> Result<(), DropReason> {
        std::hint::black_box(data.implicit_digest());
        Ok(())
    }
}
