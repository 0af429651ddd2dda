//! # ndnlab-lab: declared experiments over topologies of forwarders
//!
//! The laboratory sits on top of the forwarder daemon (`ndnlab-fwd`) and the
//! applications (`ndnlab-app`). An experiment file ([`experiment`]) declares
//! forwarders, the links between them (a face type and an emulated link layer:
//! delay, jitter, loss, bandwidth with a queue limit, MTU), routes, applications,
//! factors and a design. From it the laboratory:
//!
//! * builds the topology ([`topology`]: generators, routes over shortest paths;
//!   [`import`]: Mini-NDN and ndnSIM files; [`shape`]: degrees and diameter;
//!   [`dot`]: Graphviz);
//! * expands the design into runs ([`design`]: full factorial, 2^k, 2^(k-p),
//!   sweeps, repetitions with distinct seeds, optional random order);
//! * runs each run on a [`runner`] (`inproc`: every forwarder in this process, links
//!   in memory through `ndnlab_proto::emu`);
//! * writes the output directory ([`results`]): `experiment.toml`, `machine.json`,
//!   `results.csv` and `results.json` (one row per run: run id, factor levels,
//!   replicate, seed, status, metrics), `samples/` and `logs/`, which the analysis
//!   and report crates read.
//!
//! [`campaign`] ties these together for `ndnlab run`, on the one campaign
//! engine ([`campaign::engine`]: jobs with stable ids, shards, a worker pool
//! that stops at the first error, resume against a manifest, merge);
//! [`merge`] joins the output directories of a sharded campaign; [`validate`]
//! sets a data-plane model (`ndnlab_model::dataplane`) beside the forwarder it
//! describes; [`explore`] checks a property of the model over a grid of its
//! parameters; both run on the same engine. [`analyze`] reads and analyses
//! the CSV tables of `ndnlab analyze`; [`plots`] draws the models' figures;
//! [`reproduce`] runs the seed papers' directories for `ndnlab reproduce`.
//!
//! The `ndnlab` binary depends on this crate alone: the layers below it are
//! re-exported under their short names ([`fwd`], [`app`], [`sim`], [`report`], ...),
//! so that the binary's commands reach the daemon, the tools and the reports
//! through the laboratory, as the house's arrows say (docs/ARCHITECTURE.md).

pub mod analyze;
pub mod apps;
pub mod campaign;
pub mod cleanup;
pub mod design;
pub mod dot;
pub mod experiment;
pub mod explore;
#[doc(hidden)]
pub mod fuzz;
pub mod fwdbench;
pub mod import;
pub mod latency;
pub mod merge;
pub mod plots;
pub mod reproduce;
pub mod results;
pub mod runner;
pub mod shape;
pub mod simbench;
pub mod submit;
pub mod topofile;
pub mod topology;
pub mod validate;

pub use ndnlab_analysis as analysis;
pub use ndnlab_app as app;
pub use ndnlab_cputime as cputime;
pub use ndnlab_fwd as fwd;
pub use ndnlab_model as model;
pub use ndnlab_proto as proto;
pub use ndnlab_report as report;
pub use ndnlab_security as security;
pub use ndnlab_sim as sim;
pub use ndnlab_wire as wire;

/// Errors in experiment files, named by file, line and key.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// TOML syntax or a value of the wrong type.
    #[error("{file}{}: {msg}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Syntax {
        file: String,
        line: Option<usize>,
        msg: String,
    },
    /// A value out of range or inconsistent with another.
    #[error("{file}: {msg}")]
    Invalid { file: String, msg: String },
    /// The file could not be read.
    #[error("cannot read {path}: {err}")]
    Io { path: String, err: String },
}
