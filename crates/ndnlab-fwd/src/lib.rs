//! # ndnlab-fwd: the forwarder daemon (`ndnlab fwd`)
//!
//! This crate turns the sans-IO core (`ndnlab-core`) and the sans-IO protocol layer
//! (`ndnlab-proto`) into a forwarder that NDN software (python-ndn, ndn-cxx, another
//! `ndnlab fwd`) uses in place of NFD. It owns the sockets, threads and clocks; the
//! protocols themselves (NDNLPv2, stream framing, the NFD management encodings) are
//! `ndnlab-proto`'s, shared with the client library.
//!
//! * [`config`]: `fwd.toml` (serde, unknown keys rejected, `validate()` names the key);
//! * [`face`]: transports (Unix, TCP v4/v6, UDP unicast v4/v6 and multicast, WebSocket,
//!   in-process app faces), each running the protocol layer's link service with the
//!   face's shared state ([`face::link`]: run-time MTU and congestion parameters,
//!   NDNLPv2 reliability on UDP unicast faces), per-face counters (drops by reason)
//!   and bounded queues; UDP moves bursts through `ndnlab-udp` (`recvmmsg`/`sendmmsg`,
//!   GSO/GRO);
//! * [`runtime`]: tokio I/O tasks feeding forwarding shards, each a thread owning one
//!   core `Forwarder`, by the Name Dispatch Table and PIT tokens, over bounded queues
//!   with counted drops;
//! * [`mgmt`]: the NFD management server (commands, `rib/announce`, RIB with
//!   CHILD_INHERIT/CAPTURE and prefix-announcement routes, self-learning's RIB requests,
//!   status datasets, face notifications), served only to local faces; a change is
//!   answered once every shard has applied it;
//! * [`latency`]: sampled per-stage latency of packets (input, queue, forwarding,
//!   output) into HDR histograms, a management dataset and a raw CSV log;
//! * [`metrics`]: an optional Prometheus text endpoint;
//! * [`process`]: the forwarder as a process (`ndnlab fwd`): the allocator and its
//!   tuning, the tracing log, the I/O runtime, the ready handshake on stdout,
//!   signals.

pub mod config;
pub mod cpu_clock;
pub mod face;
pub mod latency;
pub mod metrics;
pub mod mgmt;
pub mod process;
pub mod runtime;
pub mod verify;

pub use config::FwdConfig;
pub use runtime::Daemon;
