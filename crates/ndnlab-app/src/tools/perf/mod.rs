//! `ndnlab perf`: NDNperf/iperf-style throughput measurement.
//!
//! The client requests `/<prefix>/seq=<n>` (MustBeFresh, so caches with
//! FreshnessPeriod 0 do not answer, unless `--no-fresh`; `n` in turn, or drawn
//! by `--zipf` among `--names`) through one windowed pipeline per flow;
//! the server answers each name with `--payload` bytes of signed Data.
//! Both report per interval and say what limits them.

pub mod answer;
mod batched;
pub mod client;
pub mod server;
mod window;

/// Default prefix of both sides.
pub const DEFAULT_PREFIX: &str = "/ndnlab/perf";

/// Share of an interval a resource must be busy to count as saturated.
pub const SATURATED: f64 = 0.90;
