//! Signing and verification throughput: how many fresh Data a [`Signer`]
//! signs per second on N threads, and how many a [`PublicKey`] verifies per
//! second, both per wall-clock second and per CPU second the measuring threads
//! actually got (from `ndnlab-cputime`).
//!
//! [`algos`] turns a signature-type spelling (`digest`, `ed25519`, ...,
//! `all`) into signers with freshly generated keys; [`measure_sign`] and
//! [`measure_verify`] time one of them for a given duration.
//!
//! ```
//! use std::time::Duration;
//! use bytes::Bytes;
//! use ndnlab_security::bench;
//!
//! let algo = bench::algos("digest").unwrap().remove(0);
//! let payload = Bytes::from(vec![0x5a; 64]);
//! let rate = bench::measure_sign(&algo.signer, &payload, 1, Duration::from_millis(10));
//! assert!(rate.per_s > 0.0);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_cputime as cpu;
use ndnlab_wire::{Data, DigestSha256, Name, SignError, Signer};

use crate::{
    verify_data, KeyError, KeySigner, KeyType, PrivateKey, PublicKey, Rejection, UnknownKeyType,
};

/// Why a benchmark could not be set up or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The signature-type spelling is not one of [`algos`]'s.
    #[error(transparent)]
    UnknownType(#[from] UnknownKeyType),
    /// A key could not be generated.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The Data to verify could not be signed.
    #[error(transparent)]
    Sign(#[from] SignError),
    /// The freshly signed Data did not verify.
    #[error(transparent)]
    Verify(#[from] Rejection),
}

/// One signature algorithm under test.
pub struct Algo {
    /// What the tables call it: `digest-sha256` or the key type (`ed25519`).
    pub label: String,
    /// Signs with a freshly generated key (or DigestSha256).
    pub signer: Arc<dyn Signer>,
    /// The key that verifies `signer`'s signatures (`None` for DigestSha256 and HMAC).
    pub key: Option<PublicKey>,
}

/// The algorithms named by `spec`: `digest` (also `digest-sha256`, `sha256`),
/// a key type (`ecdsa-p256`, `rsa-2048`, `hmac`, ...), or `all` (DigestSha256
/// then every key type).
pub fn algos(spec: &str) -> Result<Vec<Algo>, BenchError> {
    let digest = || Algo {
        label: "digest-sha256".into(),
        signer: Arc::new(DigestSha256),
        key: None,
    };
    let keyed = |t: KeyType| -> Result<Algo, BenchError> {
        let key = Arc::new(PrivateKey::generate(t)?);
        let pk = key.public_key()?;
        let locator: Name = "/ndnlab/bench/KEY/k".parse().expect("static name");
        Ok(Algo {
            label: t.to_string(),
            signer: Arc::new(KeySigner::new(key, locator)),
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
/// actually spent by the measuring threads (the per-core rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Operations per wall-clock second, all threads together.
    pub per_s: f64,
    /// Operations per CPU second of the measuring threads (`None` when no CPU
    /// time was recorded).
    pub per_cpu_s: Option<f64>,
}

impl Rate {
    fn new(count: u64, wall: f64, cpu: Duration) -> Self {
        Rate {
            per_s: count as f64 / wall,
            per_cpu_s: (!cpu.is_zero()).then(|| count as f64 / cpu.as_secs_f64()),
        }
    }
}

/// Signs fresh Data (unique names, shared payload) on `threads` threads for
/// `dur`.
pub fn measure_sign(
    signer: &Arc<dyn Signer>,
    payload: &Bytes,
    threads: usize,
    dur: Duration,
) -> Rate {
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
    Rate::new(total, wall, cpu)
}

/// Verifies one Data signed by `a` (with a payload of `payload`) over and
/// over on the calling thread for `dur`.
pub fn measure_verify(a: &Algo, payload: &Bytes, dur: Duration) -> Result<Rate, BenchError> {
    let name: Name = "/ndnlab/bench/verify".parse().expect("static name");
    let d = Data::builder(name)
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
    Ok(Rate::new(n, wall, cpu::thread_time() - cpu0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(20);

    #[test]
    fn specs_name_the_algorithms() {
        let labels =
            |spec| -> Vec<String> { algos(spec).unwrap().into_iter().map(|a| a.label).collect() };
        for spec in ["digest", "digest-sha256", "sha256"] {
            assert_eq!(labels(spec), ["digest-sha256"]);
        }
        assert_eq!(labels("ed25519"), ["ed25519"]);
        assert_eq!(labels("ecdsa-p256"), ["ecdsa-p256"]);
    }

    #[test]
    fn an_unknown_spec_is_the_key_type_error() {
        let err = algos("dsa").err().unwrap();
        assert!(matches!(err, BenchError::UnknownType(_)));
        assert_eq!(err.to_string(), UnknownKeyType("dsa".into()).to_string());
    }

    #[test]
    fn signing_and_verification_are_counted() {
        let payload = Bytes::from(vec![0x5a; 256]);
        for a in algos("digest")
            .unwrap()
            .into_iter()
            .chain(algos("ed25519").unwrap())
        {
            let sign = measure_sign(&a.signer, &payload, 2, SHORT);
            assert!(sign.per_s > 0.0, "{}: {sign:?}", a.label);
            assert!(
                sign.per_cpu_s.is_some_and(|r| r > 0.0),
                "{}: {sign:?}",
                a.label
            );
            let verify = measure_verify(&a, &payload, SHORT).unwrap();
            assert!(verify.per_s > 0.0, "{}: {verify:?}", a.label);
        }
    }
}
