//! # ndnlab-fwd: the forwarder daemon (`ndnlab fwd`)
//!
//! This crate turns the sans-IO core (`ndnlab-core`) into a forwarder that NDN
//! software (python-ndn, ndn-cxx, another `ndnlab fwd`) uses in place of NFD:
//!
//! * [`config`]: `fwd.toml` (serde, unknown keys rejected, `validate()` names the key);
//! * [`face`]: transports (Unix, TCP v4/v6, UDP unicast v4/v6 and multicast, in-process
//!   app faces) under an NDNLPv2 link service ([`face::lp`]: LpPacket fields in
//!   increasing type order, fragmentation/reassembly on datagram faces, Nack, PitToken,
//!   local fields, CoDel-style congestion marks), per-face counters and bounded queues;
//! * [`runtime`]: tokio I/O tasks feeding forwarding shards, each a thread owning one
//!   core `Forwarder`, by the Name Dispatch Table and PIT tokens, over bounded queues
//!   with counted drops;
//! * [`mgmt`]: the NFD management protocol (commands, RIB with CHILD_INHERIT/CAPTURE,
//!   status datasets, face notifications), served only to local faces;
//! * [`metrics`]: an optional Prometheus text endpoint.
//!
//! NDNLPv2 reliability (TxSequence/Ack, retransmission, NFD's LpReliability) is
//! available on UDP unicast faces ([`face::lp_reliability`]); a WebSocket listener
//! ([`face::websocket`]) serves NDNts-style browser clients. Not implemented:
//! Ethernet faces, prefix announcements (`rib/announce`).
//! UDP uses `recvmmsg`/`sendmmsg` ([`face::mmsg`]); io_uring is not used.

pub mod config;
pub mod face;
pub mod metrics;
pub mod mgmt;
pub mod runtime;

pub use config::FwdConfig;
pub use runtime::Daemon;
