//! `ndnlab bench fwd`: forwarder daemon throughput with the in-repo load
//! generator (`ndnlab_lab::fwdbench`); this module parses options and prints.

use clap::Args;
use ndnlab_lab::fwdbench::{self, FwdBench};

/// Forwarder daemon throughput (exchanges/s, goodput, per-hop loss, CPU split).
#[derive(Args, Debug)]
pub struct FwdBenchArgs {
    /// unix, udp (consumer/producer faces), or inproc (one in-process forwarder, app faces).
    #[arg(long, default_value = "unix")]
    pub transport: String,
    /// Content bytes per Data.
    #[arg(long, default_value_t = 100)]
    pub payload: usize,
    /// Forwarders in the chain (1 = one forwarder).
    #[arg(long, default_value_t = 1)]
    pub hops: usize,
    /// Link between chained forwarders: tcp or udp.
    #[arg(long, default_value = "tcp")]
    pub link: String,
    /// Interests in flight. Default: 4096 below 1 KB payloads (many small packets per
    /// read and write, as a saturating load needs), 256 from 1 KB.
    #[arg(long)]
    pub window: Option<usize>,
    /// Forwarding threads per forwarder.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Data pool: the consumer cycles over N names (N >= window) and the producer
    /// signs each once, then answers from its cache; 0 = every Data signed afresh.
    /// Default: N = 64 MiB / payload, clamped to window..=8192, so that the producer's
    /// SHA-256 does not take the forwarder's cores. Interests are MustBeFresh and
    /// Data FreshnessPeriod 0 either way, so forwarders' caches never answer.
    #[arg(long)]
    pub data_pool: Option<usize>,
    /// Seconds measured (after 1 s of warm-up).
    #[arg(long, default_value_t = 5.0)]
    pub duration: f64,
    /// Time one packet in N in every forwarder (`ndnlab fwd --latency-sample N`;
    /// 0 = off), to measure what the instrumentation costs.
    #[arg(long, default_value_t = 0)]
    pub latency_sample: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl FwdBenchArgs {
    fn bench(&self) -> FwdBench {
        FwdBench {
            transport: self.transport.clone(),
            payload: self.payload,
            hops: self.hops,
            link: self.link.clone(),
            window: self.window,
            threads: self.threads,
            data_pool: self.data_pool,
            duration: self.duration,
            latency_sample: self.latency_sample,
        }
    }
}

pub fn run(a: FwdBenchArgs) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build; figures are meaningless (use --release)");
    }
    let b = a.bench();
    let r = fwdbench::run(&b, &std::env::current_exe()?)?;
    if a.json {
        println!("{}", r.to_json(&b));
    } else {
        print!("{}", r.table(&b));
    }
    Ok(())
}
