//! The applications of the `inproc` runner: consumers and producers that move
//! whole bursts of packets straight over their forwarder's app face, each on a
//! thread of its own (as `ndnlab bench fwd --transport inproc` does, rather than
//! one client-library task per Interest), so the laboratory's own cost stays
//! small next to the forwarders it measures.
//!
//! - [`consumer`]: the catalogue consumer (a window, fixed or adapted by AIMD or
//!   CUBIC; Poisson, constant or burst arrivals) and ndnping;
//! - [`producer`]: the producer (signing each Data, or once per name), the
//!   repository of fixed contents, and put's segmented object;
//! - [`transfer`]: get, fetching a put's object through the app crate's
//!   segment pipeline and checking its SHA-256;
//! - [`names`]: what consumers ask for;
//! - [`data_size`]: the largest Data the producers send, which sizes the
//!   forwarders' packet limit.
//!
//! Consumers record, for the Interests sent inside the measurement window, what
//! came back (Data, Nack, nothing within the lifetime) and how long it took.
//!
//! Every application's decisions are a sans-IO core with the time passed in
//! (nanoseconds since the run's epoch): [`ConsumerCore`], [`Responder`],
//! [`GetCore`]. The threads here drive them on the monotonic clock (the
//! `inproc` runner); the simulator drives the same cores in virtual time (the
//! `sim` runner).

pub mod consumer;
pub mod data_size;
pub mod keys;
pub mod names;
pub mod placement;
pub mod producer;
pub mod transfer;

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

pub use consumer::{consume, ConsumerCore};
pub use names::Names;
pub use producer::{serve, Responder, Threaded};
pub use transfer::{fetch, GetCore};

/// Nanoseconds since a run's epoch (the monotonic clock's or the simulator's).
pub type Nanos = u64;

/// Most delivery-time samples a consumer keeps as raw samples per run.
pub const MAX_SAMPLES: usize = 50_000;

/// How often a consumer looks for Interests past their lifetime.
const SWEEP: Duration = Duration::from_millis(50);

/// What a consumer saw inside the measurement window.
#[derive(Debug)]
pub struct ConsumerStats {
    pub interests: u64,
    pub data: u64,
    pub nacks: u64,
    pub timeouts: u64,
    /// Content bytes of the Data received.
    pub bytes: u64,
    /// Delivery times in microseconds.
    pub delay_us: Histogram<u64>,
    /// (seconds since the window opened, delivery time in µs), up to
    /// [`MAX_SAMPLES`].
    pub samples: Vec<(f64, u64)>,
    /// With a count, or for a get: seconds from the window's opening to the
    /// last answer.
    pub finished_s: Option<f64>,
    /// Retransmissions (a get's).
    pub retransmissions: u64,
    /// Congestion marks seen on Data.
    pub marks: u64,
    /// Why the app failed (a get whose object did not match), if it did.
    pub error: Option<String>,
}

impl Default for ConsumerStats {
    fn default() -> Self {
        ConsumerStats {
            interests: 0,
            data: 0,
            nacks: 0,
            timeouts: 0,
            bytes: 0,
            delay_us: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
            samples: Vec::new(),
            finished_s: None,
            retransmissions: 0,
            marks: 0,
            error: None,
        }
    }
}

impl ConsumerStats {
    /// Records one Data answering an Interest sent at `sent`, answered at `now`.
    fn record_data(&mut self, span: &Span, sent: Nanos, now: Nanos, bytes: usize) {
        self.data += 1;
        self.bytes += bytes as u64;
        let us = (now.saturating_sub(sent) / 1000).max(1);
        let _ = self.delay_us.record(us);
        if self.samples.len() < MAX_SAMPLES {
            self.samples
                .push((sent.saturating_sub(span.open) as f64 / 1e9, us));
        }
    }
}

/// The measurement window, in nanoseconds since the run's epoch.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub open: Nanos,
    pub close: Nanos,
}

impl Span {
    fn contains(&self, t: Nanos) -> bool {
        t >= self.open && t < self.close
    }
}

/// A run's epoch on the monotonic clock, for the threaded drivers.
#[derive(Debug, Clone, Copy)]
pub struct Epoch(pub Instant);

impl Epoch {
    /// Nanoseconds since the epoch.
    pub fn now(&self) -> Nanos {
        self.0.elapsed().as_nanos() as Nanos
    }

    /// The instant `t` nanoseconds after the epoch.
    pub fn at(&self, t: Nanos) -> Instant {
        self.0 + Duration::from_nanos(t)
    }
}

/// Runs `f` on a thread of its own with a single-threaded runtime; the
/// thread's CPU is `owner`'s ([`ndnlab_fwd::cpu_clock`]), if given.
pub fn dedicated<F, Fut>(
    name: &str,
    owner: Option<std::sync::Arc<ndnlab_fwd::cpu_clock::Account>>,
    f: F,
) -> std::thread::JoinHandle<()>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            if let Some(a) = owner {
                a.claim_current();
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a single-threaded runtime");
            rt.block_on(f())
        })
        .expect("spawn an application thread")
}
