//! Signing and verification of whole Data packets (encoding and SHA-256
//! included) per signature type, and the crypto backends alone.
//!
//! `cargo bench -p ndnlab-security --bench sign -- --warm-up-time 1 --measurement-time 3`

use std::sync::Arc;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndnlab_security::{verify_data, KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{Data, DigestSha256, Name, Signer};

const TYPES: [KeyType; 6] = [
    KeyType::EcdsaP256,
    KeyType::EcdsaP384,
    KeyType::Ed25519,
    KeyType::Rsa1024,
    KeyType::Rsa2048,
    KeyType::Hmac,
];

fn signer(t: Option<KeyType>) -> (String, Arc<dyn Signer>, Option<ndnlab_security::PublicKey>) {
    match t {
        None => ("digest-sha256".into(), Arc::new(DigestSha256), None),
        Some(t) => {
            let key = Arc::new(PrivateKey::generate(t).unwrap());
            let pk = key.public_key().unwrap();
            let s = KeySigner::new(key, "/bench/KEY/k".parse().unwrap());
            (t.to_string(), Arc::new(s), Some(pk))
        }
    }
}

fn sign_data(c: &mut Criterion) {
    let prefix: Name = "/bench/sign".parse().unwrap();
    for payload in [1024usize, 8192] {
        let content = Bytes::from(vec![0x5a; payload]);
        let mut g = c.benchmark_group(format!("sign_data_{}B", payload));
        g.throughput(Throughput::Elements(1));
        for t in std::iter::once(None).chain(TYPES.into_iter().map(Some)) {
            let (label, s, _) = signer(t);
            let mut seq = 0u64;
            g.bench_function(BenchmarkId::from_parameter(&label), |b| {
                b.iter(|| {
                    seq += 1;
                    Data::builder(prefix.append_segment(seq))
                        .content(content.clone())
                        .sign(s.as_ref())
                        .unwrap()
                })
            });
        }
        g.finish();
    }
}

fn verify(c: &mut Criterion) {
    let content = Bytes::from(vec![0x5a; 1024]);
    let mut g = c.benchmark_group("verify_data_1024B");
    g.throughput(Throughput::Elements(1));
    for t in std::iter::once(None).chain(TYPES.into_iter().map(Some)) {
        let (label, s, pk) = signer(t);
        let d = Data::builder("/bench/verify".parse().unwrap())
            .content(content.clone())
            .sign_view(s.as_ref())
            .unwrap();
        g.bench_function(BenchmarkId::from_parameter(&label), |b| {
            b.iter(|| verify_data(&d, pk.as_ref()).unwrap())
        });
    }
    g.finish();
}

fn backends(c: &mut Criterion) {
    let msg = vec![0x5au8; 8192];
    let mut g = c.benchmark_group("sha256_8KiB");
    g.throughput(Throughput::Bytes(msg.len() as u64));
    g.bench_function("aws-lc-rs", |b| {
        b.iter(|| aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &msg))
    });
    g.bench_function("sha2", |b| {
        b.iter(|| <sha2::Sha256 as sha2::Digest>::digest(&msg))
    });
    g.finish();
}

criterion_group!(benches, sign_data, verify, backends);
criterion_main!(benches);
