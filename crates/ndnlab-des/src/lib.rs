//! Discrete-event primitives: what ndnlab's two engines in virtual time share.
//!
//! The simulator (`ndnlab-sim`: real forwarder cores, links and applications
//! on an event queue) and the stochastic data-plane model (`ndnlab-model`:
//! a forwarder as a network of queueing stations) both stand on this crate
//! and on nothing of each other:
//!
//! - [`events`]: virtual time ([`Nanos`]), the event queue ([`EventQueue`]),
//!   and [`earliest`], the scan of a fixed set of pending times the model's
//!   event loop uses instead;
//! - [`station`]: one server with a bounded queue, packet classes and drop
//!   policies ([`Station`]); [`fifo`]: the FIFO station computed by Lindley's
//!   recursion ([`fifo::Server`], [`fifo::Passage`]), the model's specialised
//!   copy of a tail-drop [`Station`];
//! - [`service`]: a service-time law ([`ServiceDist`]) and its exact sampler
//!   (`ndnlab_analysis::fit::Dist::sampler`); [`tabulated`]: the model's
//!   specialised sampler, a quantile table;
//! - [`rng`]: the seeded random number generators, and how a campaign's runs
//!   get their seeds;
//! - [`cost`]: the cost strings of experiment and model files (`exp:5us`,
//!   `gamma:shape=2,scale=1us`, `model:PATH`) and the service times per class
//!   they resolve to;
//! - [`theory`]: the queueing formulas (M/M/1, M/M/1/K, M/D/1, M/G/1) both
//!   engines are checked against.
//!
//! A specialised copy stays beside the general one only where the benchmark
//! `benches/hot_paths.rs` shows it at least twice as fast on the model's hot
//! path; each is tested against the general one, and its module says why it
//! exists. Nothing here reads the wall clock or starts a thread: the same
//! inputs and seed give the same events in the same order.

pub mod cost;
pub mod events;
pub mod fifo;
pub mod rng;
pub mod service;
pub mod station;
pub mod tabulated;
pub mod theory;

pub use cost::{ClassCostSpec, CostError, CostModel, CostSampler, CostSpec};
pub use events::{earliest, EventQueue, Nanos, IDLE};
pub use service::ServiceDist;
pub use station::{
    Admitted, Class, DropPolicy, DropReason, Dropped, ServiceTime, Station, StationCounters,
};
pub use tabulated::Tabulated;

/// The distributions service times are drawn from (`ndnlab_analysis::fit`).
pub use ndnlab_analysis::fit::Dist;
