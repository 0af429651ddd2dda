//! The stochastic model of a forwarder's data plane, and the properties
//! checked on it statistically.
//!
//! This is the model of NDN-DPDK by Khoussi, Nouri, Shi, Filliben, Benmohamed,
//! Battou and Bensalem (ATVA 2019; seed 004, `docs/REPRODUCTIONS.md`,
//! "References"), and of `ndnlab fwd` itself: a consumer, input threads, the
//! Name Dispatch Table to N forwarding threads with bounded queues, output
//! threads and a producer, each a queueing station whose service times are
//! drawn from fitted distributions (`ndnlab model fit`'s model files). Its
//! stations, samplers and generators are `ndnlab_des`'s; its properties are
//! checked with [`crate::smc`].
//!
//! - [`spec`]: the model file (`ndnlab-dataplane/1`) and its parameters;
//! - [`engine`]: one bounded run in virtual time, seeded;
//! - [`observe`]: the observables of a run and its trace;
//! - [`runs`]: many seeded runs over threads, summarised, timed;
//! - [`check`]: properties checked statistically, importance splitting for a
//!   rare queue overflow, and a property checked at one point of a grid with
//!   the means of the observables over the same runs.

pub mod check;
pub mod engine;
pub mod observe;
pub mod runs;
pub mod spec;

use std::path::PathBuf;

/// Durations as model files and options write them (`700ns`, `2us`).
pub use ndnlab_des::cost::parse_duration_ns;

pub use engine::{simulate, Sim};
pub use observe::{Observables, Trace, NAMES};
pub use spec::{ModelSpec, Resolved};

/// Why a model could not be read, resolved or run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A model file is unreadable or invalid.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    /// A key has a bad value.
    #[error("{key}: {message}")]
    Spec { key: String, message: String },
    /// An argument is wrong.
    #[error("{0}")]
    Usage(String),
}

/// Results of the data-plane model.
pub type Result<T> = std::result::Result<T, Error>;
