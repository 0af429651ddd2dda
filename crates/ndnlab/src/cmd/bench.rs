//! `ndnlab bench`: micro-benchmarks of ndnlab's building blocks.
//! `bench sign`: signed Data per second and Mbit/s of signed payload per
//! signature type, payload size and thread count, plus verification rate
//! (measured by [`ndnlab_lab::security::bench`](mod@ndnlab_lab::security::bench)).

use std::time::Duration;

use bytes::Bytes;
use clap::{Args, Subcommand};
use ndnlab_lab::security::bench::{algos, measure_sign, measure_verify};

/// Micro-benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Signing and verification throughput of fresh Data per signature type.
    Sign(SignArgs),
    /// Forwarder daemon throughput: exchanges/s, goodput, per-hop loss, CPU split.
    Fwd(super::bench_fwd::FwdBenchArgs),
    /// The simulator: handlings per second on a grid, memory per node, an
    /// experiment in virtual time against the wall clock.
    Sim(super::bench_sim::SimBenchArgs),
}

#[derive(Args, Debug)]
pub struct SignArgs {
    /// Signature type: digest, ecdsa-p256, ecdsa-p384, ed25519, rsa-1024,
    /// rsa-2048, rsa-3072, rsa-4096, hmac, or all.
    #[arg(long = "type", short = 't', default_value = "all")]
    pub sig_type: String,
    /// Payload sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1024,8192,32768")]
    pub payload: Vec<usize>,
    /// Signing thread counts (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 1.0)]
    pub duration: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: BenchCmd) -> anyhow::Result<()> {
    match cmd {
        BenchCmd::Sign(a) => run_sign(a),
        BenchCmd::Fwd(a) => super::bench_fwd::run(a),
        BenchCmd::Sim(a) => super::bench_sim::run(a),
    }
}

fn run_sign(a: SignArgs) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("ndnlab: warning: this is a debug build; figures are meaningless (use `cargo run --release`)");
    }
    anyhow::ensure!(a.duration > 0.0, "--duration must be positive");
    anyhow::ensure!(a.threads.iter().all(|&t| t >= 1), "--threads must be >= 1");
    let dur = Duration::from_secs_f64(a.duration);
    let mut rows = Vec::new();
    for algo in algos(&a.sig_type)? {
        for &size in &a.payload {
            let payload = Bytes::from(vec![0x5a; size]);
            let verify = measure_verify(&algo, &payload, dur)?;
            for &threads in &a.threads {
                let rate = measure_sign(&algo.signer, &payload, threads, dur);
                let bits = size as f64 * 8.0;
                // cores for 1 Gbit/s of fresh Data, from the per-CPU-second rate
                // (wall-clock rate per thread when CPU time is unavailable)
                let per_core = rate.per_cpu_s.unwrap_or(rate.per_s / threads as f64);
                let row = serde_json::json!({
                    "type": algo.label,
                    "payload_bytes": size,
                    "threads": threads,
                    "signed_per_s": rate.per_s.round(),
                    "payload_mbit_per_s": (rate.per_s * bits / 1e5).round() / 10.0,
                    "signed_per_cpu_s": rate.per_cpu_s.map(f64::round),
                    "cores_per_gbit": (1e9 / (per_core * bits) * 100.0).round() / 100.0,
                    "verified_per_s": verify.per_s.round(),
                    "verified_per_cpu_s": verify.per_cpu_s.map(f64::round),
                });
                if !a.json {
                    print_row(&row, rows.is_empty());
                }
                rows.push(row);
            }
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "bench": "sign",
                "debug_build": cfg!(debug_assertions),
                "duration_s": a.duration,
                "note": "per_cpu_s rates divide by the CPU time the measuring threads actually got (Linux schedstat)",
                "results": rows,
            }))?
        );
    }
    Ok(())
}

fn print_row(r: &serde_json::Value, header: bool) {
    let num = |k: &str| match r[k].as_f64() {
        _ if r[k].is_u64() => r[k].to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
        None => "-".to_string(),
    };
    if header {
        println!(
            "{:<14} {:>8} {:>7} {:>11} {:>9} {:>11} {:>10} {:>10} {:>12}",
            "TYPE",
            "PAYLOAD",
            "THREADS",
            "SIGNED/s",
            "Mbit/s",
            "SIGNED/cpu-s",
            "CORES/Gbps",
            "VERIFIED/s",
            "VERIFIED/cpu-s"
        );
    }
    println!(
        "{:<14} {:>8} {:>7} {:>11} {:>9} {:>11} {:>10} {:>10} {:>12}",
        r["type"].as_str().unwrap_or("?"),
        num("payload_bytes"),
        num("threads"),
        num("signed_per_s"),
        num("payload_mbit_per_s"),
        num("signed_per_cpu_s"),
        num("cores_per_gbit"),
        num("verified_per_s"),
        num("verified_per_cpu_s"),
    );
}
