//! `ndnlab traffic client|server`: an open-loop request generator
//! (Poisson, constant rate or bursts across several Interest patterns) with
//! per-pattern statistics, and the server answering it.

pub mod client;
pub mod pattern;
pub mod server;

/// Default prefix of both sides.
pub const DEFAULT_PREFIX: &str = "/ndnlab/traffic";
