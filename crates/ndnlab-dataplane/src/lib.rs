//! A stochastic model of a forwarder's data plane: the model itself, the
//! properties checked on it statistically, design-space exploration over its
//! parameters, and its validation against the forwarder it describes.
//!
//! This is the model of NDN-DPDK by Khoussi, Nouri, Shi, Filliben, Benmohamed,
//! Battou and Bensalem (ATVA 2019; seed 004, `docs/REPRODUCTIONS.md`,
//! "References"), and of `ndnlab fwd` itself: a consumer, input threads, the
//! Name Dispatch Table to N forwarding threads with bounded queues, output
//! threads and a producer, each a queueing station
//! whose service times are drawn from fitted distributions
//! (`ndnlab model fit`'s model files). It sits above the simulator
//! (`ndnlab_sim`'s stations and cost strings) and the model checker
//! (`ndnlab_smc`).
//!
//! - [`spec`]: the model file (`ndnlab-dataplane/1`) and its parameters;
//! - [`check`]: properties checked statistically (`ndnlab_smc`), and
//!   importance splitting for a rare queue overflow;
//! - [`draw`]: a stage's service time, prepared for drawing;
//! - [`engine`]: one bounded run in virtual time, seeded;
//! - [`queue`]: the stations: FIFO by Lindley's recursion, or Data first;
//! - [`observe`]: the observables of a run and its trace;
//! - [`trace_plot`]: the figure of a run's queues and PIT over time;
//! - [`runs`]: many seeded runs over threads, summarised, timed.

pub mod check;
pub mod draw;
pub mod engine;
pub mod explore;
pub mod observe;
pub mod queue;
pub mod runs;
pub mod spec;
pub mod trace_plot;

use std::path::PathBuf;

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

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
