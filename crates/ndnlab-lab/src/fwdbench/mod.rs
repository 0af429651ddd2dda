//! `ndnlab bench fwd`: forwarder daemon throughput with the in-repo load
//! generator. The logic is here; the binary parses options and prints.
//!
//! [`run`] starts `hops` `ndnlab fwd` processes chained over TCP or UDP on
//! 127.0.0.1, a producer on the last and a consumer on the first (over their Unix
//! sockets, or over UDP faces with `transport = "udp"`), and reports
//! exchanges/s, payload goodput, and the CPU time each process used.
//! `transport = "inproc"` runs one forwarder inside this process with app faces
//! (no sockets): the forwarder's own ceiling on this machine.

mod chain;
mod inproc;

use std::path::Path;
use std::time::Duration;

use ndnlab_app::load::{self as loadgen, Measured};

/// What to measure.
#[derive(Debug, Clone)]
pub struct FwdBench {
    /// `unix`, `udp` (consumer/producer faces), or `inproc` (one in-process
    /// forwarder, app faces).
    pub transport: String,
    /// Content bytes per Data.
    pub payload: usize,
    /// Forwarders in the chain (1 = one forwarder).
    pub hops: usize,
    /// Link between chained forwarders: `tcp` or `udp`.
    pub link: String,
    /// Interests in flight; `None`: 4096 below 1 KB payloads, 256 from 1 KB.
    pub window: Option<usize>,
    /// Forwarding threads per forwarder.
    pub threads: usize,
    /// Names the consumer cycles over, each signed once by the producer (0: every
    /// Data signed afresh); `None`: 64 MiB / payload, clamped to window..=8192.
    pub data_pool: Option<usize>,
    /// Seconds measured (after 1 s of warm-up).
    pub duration: f64,
    /// Time one packet in N in every forwarder (0 = off).
    pub latency_sample: u64,
}

impl FwdBench {
    /// The window in effect.
    pub fn window(&self) -> usize {
        match self.window {
            Some(w) => w,
            None if self.payload < 1024 => 4096,
            None => 256,
        }
    }

    /// The Data pool size in effect (0 = none).
    pub fn pool(&self) -> usize {
        match self.data_pool {
            Some(n) => n,
            None => {
                ((64 << 20) / self.payload.max(1)).clamp(self.window(), 8192.max(self.window()))
            }
        }
    }
}

/// What one run measured: the exchanges, and the CPU seconds of each process
/// (or, in process, of each thread) over the measured window.
#[derive(Debug, Clone)]
pub struct FwdBenchResult {
    pub measured: Measured,
    pub cpu: Vec<(String, f64)>,
}

/// Runs `b`; the forwarder processes are `binary fwd …`.
pub fn run(b: &FwdBench, binary: &Path) -> anyhow::Result<FwdBenchResult> {
    loadgen::check_pool(b.pool(), b.window()).map_err(|e| anyhow::anyhow!("--data-pool: {e}"))?;
    let warmup = Duration::from_secs(1);
    let duration = Duration::from_secs_f64(b.duration);
    let (measured, cpu) = match b.transport.as_str() {
        "inproc" => inproc::run(b, warmup, duration)?,
        "unix" | "udp" => chain::run(b, binary, warmup, duration)?,
        other => anyhow::bail!("unknown transport '{other}' (unix, udp, inproc)"),
    };
    Ok(FwdBenchResult { measured, cpu })
}

impl FwdBenchResult {
    /// The JSON object `bench fwd --json` prints.
    pub fn to_json(&self, b: &FwdBench) -> serde_json::Value {
        let m = &self.measured;
        let cpu_json: Vec<_> = self
            .cpu
            .iter()
            .map(|(who, s)| {
                serde_json::json!({"process": who, "cpu_seconds": s, "cores": s / m.seconds,
                "cpu_us_per_exchange": 1e6 * s / (m.exchanges.max(1) as f64)})
            })
            .collect();
        serde_json::json!({
            "transport": b.transport, "payload": b.payload, "hops": b.hops, "link": b.link,
            "window": b.window(), "threads": b.threads, "data_pool": b.pool(), "seconds": m.seconds,
            "exchanges": m.exchanges, "exchanges_per_s": m.rate(), "goodput_gbps": m.gbits(),
            "nacks": m.nacks, "cpu": cpu_json,
        })
    }

    /// The human table `bench fwd` prints.
    pub fn table(&self, b: &FwdBench) -> String {
        use std::fmt::Write;
        let m = &self.measured;
        let total_cpu: f64 = self.cpu.iter().map(|(_, s)| s).sum();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "transport={} payload={}B hops={} link={} window={} threads={} data-pool={}",
            b.transport,
            b.payload,
            b.hops,
            b.link,
            b.window(),
            b.threads,
            match b.pool() {
                0 => "off (every Data signed afresh)".to_string(),
                n => format!("{n} names (each signed once)"),
            }
        );
        let _ = writeln!(
            out,
            "  {:.0} exchanges/s   {:.3} Gbit/s goodput   {} nacks   ({} exchanges in {:.2} s)",
            m.rate(),
            m.gbits(),
            m.nacks,
            m.exchanges,
            m.seconds
        );
        for (who, s) in &self.cpu {
            let _ = writeln!(
                out,
                "  cpu {who:<14} {:.2} cores ({:.0}% of the CPU used, {:.2} us per exchange)",
                s / m.seconds,
                100.0 * s / total_cpu.max(1e-9),
                1e6 * s / (m.exchanges.max(1) as f64)
            );
        }
        out
    }
}
