//! Models of the forwarder: fitted latency models, the layer between
//! measured latency samples and the tools that replay them; the stochastic
//! data-plane model that replays them; and its statistical model checking.
//! It stands on `ndnlab-analysis` (the statistics of the fits), `ndnlab-des`
//! (the stations, samplers and generators of the data-plane model) and
//! `ndnlab-smc` (the checker, re-exported as [`smc`]); the simulator and the
//! laboratory read model files through it, and it draws nothing (the
//! laboratory draws its figures).
//!
//! * [`model`]: the model file (TOML): one entry per stage, packet type, Content
//!   Store outcome and factor combination, each with its fitted distribution,
//!   goodness of fit and sample size ([docs/FITTING.md](../../docs/FITTING.md));
//! * [`samples`]: reading latency samples: the forwarder's raw sample CSV
//!   (`seq,type,cs,input_ns,...,total_ns,...`) grouped by type and CS outcome,
//!   plain one-number-per-line files, and labels of factors per file or per column;
//! * [`fitting`]: fitting every group (the statistics are
//!   `ndnlab_analysis::fit`) into model entries;
//! * [`generate`]: sampling from a model entry with a seeded RNG, and the
//!   comparison of generated against measured samples (QQ points, bihistogram,
//!   two-sample Kolmogorov-Smirnov);
//! * [`effects`]: main effects of the factors on a latency statistic across
//!   the labelled samples (`ndnlab_analysis::means`);
//! * [`pipeline`]: `ndnlab model fit` and `sample` end to end: samples to a
//!   model file and its effects; the measured values a generated sample is
//!   compared with;
//! * [`service`]: the service time a `model:PATH` cost string names, for the
//!   simulator's forwarding threads and the data-plane model's stages;
//! * [`dataplane`]: the stochastic model of a forwarder's data plane
//!   (`ndnlab-dataplane/1` files), its runs, observables and properties;
//! * [`smc`]: statistical model checking (`ndnlab-smc`).

pub mod dataplane;
pub mod effects;
pub mod fitting;
pub mod generate;
pub mod model;
pub mod pipeline;
pub mod samples;
pub mod service;

/// Statistical model checking: the methods, the property language, the driver.
pub use ndnlab_smc as smc;

use std::path::PathBuf;

pub use model::{Entry, ModelFile, Selector};
pub use samples::{Group, GroupKey, ReadOptions};

/// Why samples or a model could not be read, fitted or written.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A sample file is malformed at a line.
    #[error("{}:{line}: {message}", path.display())]
    Samples {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A model file is not valid TOML or has a bad entry.
    #[error("{}: {message}", path.display())]
    Model { path: PathBuf, message: String },
    /// An argument is wrong (names what is wrong with it).
    #[error("{0}")]
    Usage(String),
    /// A group of samples could not be fitted.
    #[error("{group}: {message}")]
    Fit { group: String, message: String },
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, ModelError>;
