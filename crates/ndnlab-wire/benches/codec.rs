//! Codec benchmarks (issue 2 targets, release build, median):
//! decode Interest 4-comp <= 80 ns, 16-comp <= 200 ns; decode 8 KB Data <= 100 ns;
//! encode Interest <= 100 ns; URI parse of a 4-component name <= 150 ns;
//! plus mixed-stream decode throughput, prefix hashing, SHA-256 and receive copies.
//!
//! `cargo bench -p ndnlab-wire --bench codec`
//!
//! Times are the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not
//! wall time: on the shared 2-core machine other builds preempt the benchmark,
//! which inflates wall-clock medians but not the CPU time the code uses. Set
//! `NDNLAB_BENCH_WALL=1` to measure wall time instead.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput};
use ndnlab_wire::{Data, DigestSha256, Interest, LpPacket, Nack, NackReason, Name, Packet};

fn name_of(n: usize) -> Name {
    let uri: String = (0..n).map(|i| format!("/comp{i}")).collect();
    uri.parse().unwrap()
}

fn interest(n: usize) -> Bytes {
    Interest::builder(name_of(n))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .nonce(0x12345678)
        .lifetime_ms(4000)
        .hop_limit(32)
        .build()
}

fn data(name: Name, size: usize) -> Bytes {
    Data::builder(name)
        .freshness_ms(10_000)
        .content(vec![0x5a; size])
        .sign(&DigestSha256)
        .unwrap()
}

/// Thread CPU time in nanoseconds.
struct CpuTime;

fn thread_cpu_ns() -> u64 {
    ndnlab_testkit::cpu::thread_time().as_nanos() as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e3, "µs")
        } else {
            (1e6, "ms")
        };
        values.iter_mut().for_each(|v| *v /= div);
        unit
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let (n, unit, div) = match *t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                (n as f64, "MiB/s", 1024.0 * 1024.0)
            }
            Throughput::Elements(n) => (n as f64, "Melem/s", 1e6),
        };
        values.iter_mut().for_each(|v| *v = n * 1e9 / *v / div);
        unit
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn decode<M: Measurement>(c: &mut Criterion<M>) {
    let i4 = interest(4);
    let i16 = interest(16);
    let d8k = data("/ndn/edu/ucla/video/v=1/seg=7".parse().unwrap(), 8192);
    let mut g = c.benchmark_group("decode");
    g.bench_function("interest_4_components", |b| {
        b.iter(|| Interest::decode(black_box(&i4).clone()).unwrap())
    });
    g.bench_function("interest_16_components", |b| {
        b.iter(|| Interest::decode(black_box(&i16).clone()).unwrap())
    });
    g.bench_function("data_8k", |b| {
        b.iter(|| Data::decode(black_box(&d8k).clone()).unwrap())
    });
    g.bench_function("packet_data_8k", |b| {
        b.iter(|| Packet::decode(black_box(&d8k).clone()).unwrap())
    });
    g.finish();
}

fn encode<M: Measurement>(c: &mut Criterion<M>) {
    let name = name_of(4);
    let mut g = c.benchmark_group("encode");
    g.bench_function("interest_4_components", |b| {
        b.iter(|| {
            Interest::builder(black_box(&name).clone())
                .must_be_fresh(true)
                .nonce(0x12345678)
                .lifetime_ms(4000)
                .hop_limit(32)
                .build()
        })
    });
    let content = Bytes::from(vec![1u8; 8192]);
    g.bench_function("data_8k_digest_sha256", |b| {
        b.iter(|| {
            Data::builder(black_box(&name).clone())
                .content(content.clone())
                .sign(&DigestSha256)
                .unwrap()
        })
    });
    g.finish();
}

fn names<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("name");
    g.bench_function("uri_parse_4_components", |b| {
        b.iter(|| black_box("/ndn/edu/ucla/video").parse::<Name>().unwrap())
    });
    g.bench_function("uri_parse_typed_6", |b| {
        b.iter(|| {
            black_box("/ndn/edu/ucla/video/v=1700000000000/seg=42")
                .parse::<Name>()
                .unwrap()
        })
    });
    let n8 = name_of(8);
    g.bench_function("to_uri_8_components", |b| {
        b.iter(|| black_box(&n8).to_string())
    });
    g.bench_function("prefix_hashes_8_components", |b| {
        let mut out = [0u64; 9];
        b.iter(|| black_box(&n8).prefix_hashes(&mut out))
    });
    g.finish();
}

fn rewrite<M: Measurement>(c: &mut Criterion<M>) {
    let mut i = Interest::decode(interest(4)).unwrap();
    let mut g = c.benchmark_group("rewrite");
    g.bench_function("set_hop_limit_unique", |b| {
        b.iter(|| i.set_hop_limit(black_box(7)))
    });
    g.finish();
}

/// What a receive copy costs: `packet_bytes` (count inline, the UDP face's copy) against
/// `Bytes::copy_from_slice` (count in a header allocated on the first clone), each
/// cloned once as a forwarder keeps a packet.
fn buffer<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("buffer");
    for size in [64, 200, 1500, 4000] {
        let src = vec![0x5a; size];
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("packet_bytes_{size}"), |b| {
            b.iter(|| {
                let p = ndnlab_wire::packet_bytes(black_box(&src));
                drop(black_box(p.clone()));
                p
            })
        });
        g.bench_function(format!("copy_from_slice_{size}"), |b| {
            b.iter(|| {
                let p = Bytes::copy_from_slice(black_box(&src));
                drop(black_box(p.clone()));
                p
            })
        });
    }
    g.finish();
}

fn digest<M: Measurement>(c: &mut Criterion<M>) {
    let d = Data::decode(data(name_of(4), 8192)).unwrap();
    let mut g = c.benchmark_group("sha256");
    g.throughput(Throughput::Bytes(d.wire().len() as u64));
    g.bench_function("implicit_digest_8k", |b| {
        b.iter(|| {
            // a fresh view each time: the digest is cached per view
            let v = Data::decode(black_box(d.wire()).clone()).unwrap();
            v.implicit_digest()
        })
    });
    g.finish();
}

/// A stream like a forwarder sees: bare Interests, Data of varied sizes,
/// LpPackets carrying Interests/Data with PIT tokens, and Nacks.
fn mixed_stream() -> Vec<Bytes> {
    let mut v = Vec::new();
    for k in 0..64usize {
        let name: Name = format!("/ndn/site{}/app/obj{k}/v=3/seg={}", k % 5, k % 11)
            .parse()
            .unwrap();
        let i = Interest::builder(name.clone())
            .nonce(k as u32)
            .lifetime_ms(2000)
            .hop_limit(64)
            .build();
        let d = data(name, [100, 1200, 4000, 8000][k % 4]);
        match k % 4 {
            0 => v.push(i),
            1 => v.push(d),
            2 => v.push(
                LpPacket::builder()
                    .pit_token(vec![k as u8; 8])
                    .fragment(if k % 8 == 2 { i } else { d })
                    .build(),
            ),
            _ => {
                let nack = Nack::new(Interest::decode(i).unwrap(), NackReason::NoRoute);
                v.push(nack.encode())
            }
        }
    }
    v
}

fn stream<M: Measurement>(c: &mut Criterion<M>) {
    let pkts = mixed_stream();
    let mut g = c.benchmark_group("stream");
    g.throughput(Throughput::Elements(pkts.len() as u64));
    g.bench_function("mixed_decode_64", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for p in black_box(&pkts) {
                match Packet::decode(p.clone()).unwrap() {
                    Packet::Lp(lp) => {
                        // a forwarder decodes the fragment too
                        if let Some(f) = lp.fragment() {
                            n += Packet::decode(f).is_ok() as usize;
                        }
                    }
                    _ => n += 1,
                }
            }
            n
        })
    });
    g.finish();
}

fn run<M: Measurement>(mut c: Criterion<M>) {
    decode(&mut c);
    encode(&mut c);
    names(&mut c);
    rewrite(&mut c);
    buffer(&mut c);
    digest(&mut c);
    stream(&mut c);
    c.final_summary();
}

fn main() {
    let base = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    if std::env::var_os("NDNLAB_BENCH_WALL").is_some() {
        run(base.with_measurement(WallTime));
    } else {
        run(base.with_measurement(CpuTime));
    }
}
