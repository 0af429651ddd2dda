//! ndnlab-app: the application layer of ndnlab. It stands beside the forwarder
//! daemon (`ndnlab-fwd`), on the same protocol layer (`ndnlab-proto`), and below
//! the `ndnlab` binary; it does not depend on the daemon.
//!
//! - [`client`]: the NDN client library (Unix/TCP/UDP/in-process transports,
//!   Interest/Data/Nack, prefix registration through NFD management; async on
//!   tokio plus a blocking layer).
//! - [`pipeline`]: consumer pipelines (fixed, AIMD, CUBIC windows, RFC 6298 RTO),
//!   sans-IO and unit-tested with a fake clock.
//! - [`stats`]: latency histograms and CPU accounting for the tools.
//! - [`load`]: the saturating load generator (windowed consumer and answering
//!   producer moving bursts of packets per system call), used by `ndnlab bench fwd`.
//! - [`tools`]: `perf` (NDNperf-style), `put`/`get` (ndnputchunks /
//!   ndncatchunks with RDR version discovery), `ping` (ndnping naming),
//!   `traffic` (Poisson/constant/burst request generator), the producer
//!   side (signing pool, pre-signed cache), and `ctl` (NFD management, like
//!   nfdc).

pub mod client;
pub mod load;
pub mod pipeline;
pub mod stats;
pub mod tools;
