//! `ndnlab bench`: micro-benchmarks of ndnlab's building blocks.
//! `bench sign`: signed Data per second and Mbit/s of signed payload per
//! signature type, payload size and thread count, plus verification rate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::{Args, Subcommand};
use ndnlab_security::{verify_data, KeySigner, KeyType, PrivateKey, PublicKey};
use ndnlab_wire::{Data, DigestSha256, Name, Signer};

/// Micro-benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Signing and verification throughput of fresh Data per signature type.
    Sign(SignArgs),
    /// Forwarder daemon throughput: exchanges/s, goodput, per-hop loss, CPU split.
    Fwd(super::bench_fwd::FwdBenchArgs),
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

/// Signs fresh Data (unique names, shared payload) on `threads` threads for
/// `dur`; returns packets per second.
fn measure_sign(signer: &Arc<dyn Signer>, payload: &Bytes, threads: usize, dur: Duration) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let prefix: Name = "/ndnlab/bench/sign".parse().expect("static name");
    let start = Instant::now();
    let total: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let stop = stop.clone();
                let prefix = prefix.append_segment(t as u64);
                let payload = payload.clone();
                let signer = signer.clone();
                s.spawn(move || {
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
                    n
                })
            })
            .collect();
        std::thread::sleep(dur);
        stop.store(true, Ordering::Relaxed);
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    total as f64 / start.elapsed().as_secs_f64()
}

fn measure_verify(a: &Algo, payload: &Bytes, dur: Duration) -> anyhow::Result<f64> {
    let d = Data::builder("/ndnlab/bench/verify".parse()?)
        .content(payload.clone())
        .sign_view(a.signer.as_ref())?;
    verify_data(&d, a.key.as_ref())?;
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < dur {
        for _ in 0..8 {
            std::hint::black_box(verify_data(&d, a.key.as_ref()).is_ok());
            n += 1;
        }
    }
    Ok(n as f64 / start.elapsed().as_secs_f64())
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
                let mbps = rate * size as f64 * 8.0 / 1e6;
                let row = serde_json::json!({
                    "type": algo.label,
                    "payload_bytes": size,
                    "threads": threads,
                    "signed_per_s": rate.round(),
                    "payload_mbit_per_s": (mbps * 10.0).round() / 10.0,
                    "cores_per_gbit": ((1000.0 / (mbps / threads as f64)) * 100.0).round() / 100.0,
                    "verified_per_s_1_thread": verify.round(),
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
                "results": rows,
            }))?
        );
    }
    Ok(())
}

fn print_row(r: &serde_json::Value, header: bool) {
    if header {
        println!(
            "{:<14} {:>8} {:>7} {:>12} {:>12} {:>11} {:>12}",
            "TYPE", "PAYLOAD", "THREADS", "SIGNED/s", "Mbit/s", "CORES/Gbps", "VERIFIED/s"
        );
    }
    println!(
        "{:<14} {:>8} {:>7} {:>12} {:>12} {:>11} {:>12}",
        r["type"].as_str().unwrap_or("?"),
        r["payload_bytes"],
        r["threads"],
        r["signed_per_s"],
        r["payload_mbit_per_s"],
        r["cores_per_gbit"],
        r["verified_per_s_1_thread"],
    );
}
