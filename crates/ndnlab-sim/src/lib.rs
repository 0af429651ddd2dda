//! Virtual time for ndnlab.
//!
//! ndnlab's forwarder core is sans-IO: it is handed packets and the current time
//! and hands back packets to send and the time of its next timer. This crate
//! drives that very code in virtual time instead of on sockets and a wall clock:
//!
//! - the discrete-event primitives come from `ndnlab-des` (re-exported here):
//!   the event queue in virtual nanoseconds with a deterministic order for
//!   simultaneous events, a forwarding thread as a queueing station (a server
//!   with a bounded input queue, a drop policy and counters), the service time
//!   of each packet class (zero, constant, a distribution, or a model file
//!   fitted by `ndnlab model fit`, resolved by `ndnlab-model`) and its
//!   experiment-file spec, and the queueing formulas the station is checked
//!   against;
//! - [`node`]: a node, `ndnlab fwd`'s forwarder: its shards (real
//!   `ndnlab_core::Forwarder`s) behind the Name Dispatch Table, its faces;
//! - [`link`]: one direction of a link: NDNLPv2 framing and fragmentation, then
//!   the emulated link (delay, jitter, loss, rate, bounded queue, MTU);
//! - [`app`]: what an application in virtual time implements;
//! - [`net`]: the network, nodes, links and apps on one event queue;
//! - [`stats`]: losses by cause and work done.
//!
//! Nothing here reads the wall clock: the same inputs and seed give the same
//! events in the same order, byte for byte.

pub mod app;
pub mod link;
pub mod net;
pub mod node;
pub mod stats;

pub use app::App;
pub use ndnlab_des::{
    cost, Class, ClassCostSpec, CostError, CostModel, CostSampler, CostSpec, DropPolicy,
    DropReason, EventQueue, Nanos, ServiceDist, Station, StationCounters,
};
pub use net::Network;
pub use node::NodeSpec;
pub use stats::Drops;
