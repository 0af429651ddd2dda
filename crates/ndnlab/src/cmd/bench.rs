//! `ndnlab bench`: micro-benchmarks of ndnlab's building blocks.
//! `bench sign`: signed Data per second and Mbit/s of signed payload per
//! signature type, payload size and thread count, plus verification rate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::{Args, Subcommand};
use ndnlab_cputime as cpu;
use ndnlab_security::{verify_data, KeySigner, KeyType, PrivateKey, PublicKey};
use ndnlab_wire::{Data, DigestSha256, Name, Signer};

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

/// One signature algorithm under test.
struct Algo {
    label: String,
    signer: Arc<dyn Signer>,
    key: Option<PublicKey>,
}

fn algos(spec: &str) -> anyhow::Result<Vec<Algo>> {
    let digest = || Algo {
        label: "digest-sha256".into(),
        signer: Arc::new(DigestSha256),
        key: None,
    };
    let keyed = |t: KeyType| -> anyhow::Result<Algo> {
        let key = Arc::new(PrivateKey::generate(t)?);
        let pk = key.public_key()?;
        Ok(Algo {
            label: t.to_string(),
            signer: Arc::new(KeySigner::new(key, "/ndnlab/bench/KEY/k".parse()?)),
            key: Some(pk),
        })
    };
    Ok(match spec {
        "all" => {
            let mut v = vec![digest()];
            for t in [
                KeyType::EcdsaP256,
                KeyType::EcdsaP384,
                KeyType::Ed25519,
                KeyType::Hmac,
                KeyType::Rsa1024,
                KeyType::Rsa2048,
                KeyType::Rsa3072,
                KeyType::Rsa4096,
            ] {
                v.push(keyed(t)?);
            }
            v
        }
        "digest" | "digest-sha256" | "sha256" => vec![digest()],
        t => vec![keyed(t.parse()?)?],
    })
}

/// A measured rate: per wall-clock second (all threads) and per CPU second
/// actually spent by the signing threads (the per-core rate).
struct Rate {
    per_s: f64,
    per_cpu_s: Option<f64>,
}

/// Signs fresh Data (unique names, shared payload) on `threads` threads for
/// `dur`.
fn measure_sign(signer: &Arc<dyn Signer>, payload: &Bytes, threads: usize, dur: Duration) -> Rate {
    let stop = Arc::new(AtomicBool::new(false));
    let prefix: Name = "/ndnlab/bench/sign".parse().expect("static name");
    let start = Instant::now();
    let per_thread: Vec<(u64, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let stop = stop.clone();
                let prefix = prefix.append_segment(t as u64);
                let payload = payload.clone();
                let signer = signer.clone();
                s.spawn(move || {
                    let cpu0 = cpu::thread_time();
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..8 {
                            let w = Data::builder(prefix.append_segment(n))
                                .content(payload.clone())
                                .freshness_ms(0)
                                .sign(signer.as_ref());
                            std::hint::black_box(w.ok());
                            n += 1;
                        }
                    }
                    (n, cpu::thread_time() - cpu0)
                })
            })
            .collect();
        std::thread::sleep(dur);
        stop.store(true, Ordering::Relaxed);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, Duration::ZERO)))
            .collect()
    });
    let wall = start.elapsed().as_secs_f64();
    let total: u64 = per_thread.iter().map(|p| p.0).sum();
    let cpu: Duration = per_thread.iter().map(|p| p.1).sum();
    Rate {
        per_s: total as f64 / wall,
        per_cpu_s: (!cpu.is_zero()).then(|| total as f64 / cpu.as_secs_f64()),
    }
}

fn measure_verify(a: &Algo, payload: &Bytes, dur: Duration) -> anyhow::Result<Rate> {
    let d = Data::builder("/ndnlab/bench/verify".parse()?)
        .content(payload.clone())
        .sign_view(a.signer.as_ref())?;
    verify_data(&d, a.key.as_ref())?;
    let cpu0 = cpu::thread_time();
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < dur {
        for _ in 0..8 {
            std::hint::black_box(verify_data(&d, a.key.as_ref()).is_ok());
            n += 1;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu::thread_time() - cpu0;
    Ok(Rate {
        per_s: n as f64 / wall,
        per_cpu_s: (!cpu.is_zero()).then(|| n as f64 / cpu.as_secs_f64()),
    })
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
