//! Consumer pipelines: how many Interests to keep outstanding and when to
//! retransmit. Pure logic with time passed in, unit-tested with a fake clock.
//!
//! - [`rtt`]: RFC 6298 RTO estimation.
//! - [`window`]: fixed, AIMD and CUBIC congestion windows.
//! - [`fetcher`]: the request engine using both.

pub mod fetcher;
pub mod rtt;
pub mod window;

pub use fetcher::{DataVerdict, FetchError, FetchOptions, FetchStats, Fetcher, NackKind, Request};
pub use rtt::{RttEstimator, RttOptions};
pub use window::{Window, WindowKind, WindowOptions};
