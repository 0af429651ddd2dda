//! Virtual time for ndnlab.
//!
//! ndnlab's forwarder core is sans-IO: it is handed packets and the current time
//! and hands back packets to send and the time of its next timer. This crate
//! drives that very code in virtual time instead of on sockets and a wall clock:
//!
//! - [`des`]: the discrete-event engine, an event queue in virtual nanoseconds
//!   with a deterministic order for simultaneous events.
//!
//! Nothing here reads the wall clock: the same inputs and seed give the same
//! events in the same order, byte for byte.

pub mod des;

pub use des::{EventQueue, Nanos};
