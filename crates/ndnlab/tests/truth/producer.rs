//! Truth experiment of a producer and the CPU accounts:
//! `experiments/truth/producer.toml` (a consumer, one forwarder, a producer
//! signing every Data with ECDSA P-256 on its one thread, the CS off) under
//! `inproc` and `processes`, where the metrics are measured (`sim` charges
//! no CPU: `runner::UNMEASURED`).
//!
//! No value here is known in advance (signing speed is the machine's), so
//! each metric is checked against relations that hold on any machine,
//! bounded above and below; the bounds are derived where they are asserted.
//! One measurement comes from the test itself: the CPU time of one ECDSA
//! P-256 signature of the same Data, on the test's thread clock (CPU time,
//! not wall time: another process on the machine does not inflate it).

use std::sync::Arc;

use bytes::Bytes;
use ndnlab_security::{KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{Data, Name};

use super::harness::{real_time, truth, within, Truth};

const PRODUCER: &str = "server@r0";
const CONSUMER: &str = "client@r0";
const NODE: &str = "r0";
/// The consumer's window: at most this many Interests of one window end are
/// counted by one side and not the other.
const WINDOW: f64 = 4.0;
/// Histograms keep 2 significant digits: a percentile is within 1% of a
/// sample, so two of them compare within 2%.
const HIST: f64 = 1.02;

/// CPU seconds of one ECDSA P-256 signature of a Data like the producer's
/// (1000 bytes of content, a name of 3 components), on this thread's clock.
fn ecdsa_sign_cpu_s() -> f64 {
    let key = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).expect("ECDSA key"));
    let signer = KeySigner::new(key, Name::from_uri("/lab/r0/KEY/ecdsa-p256").unwrap());
    let content = Bytes::from(vec![7u8; 1000]);
    let sign = |i: u32| {
        let name = Name::from_uri(&format!("/lab/p0/c{i}")).unwrap();
        Data::builder(name)
            .content(content.clone())
            .freshness_ms(10_000)
            .sign(&signer)
            .expect("sign")
    };
    sign(0);
    const N: u32 = 300;
    let t0 = ndnlab_testkit::cpu::thread_time();
    for i in 0..N {
        std::hint::black_box(sign(i));
    }
    (ndnlab_testkit::cpu::thread_time() - t0).as_secs_f64() / f64::from(N)
}

fn cores() -> f64 {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
}

/// The relations every runner that measures them must satisfy; `slack_cores`
/// is the CPU clocks' resolution over the window, in cores.
fn producer_relations(t: &Truth, sign_cpu_s: f64, rate_tolerance: f64, slack_cores: f64) {
    let m = |k: &str| t.get(&format!("{k}.{PRODUCER}"));
    let rate = t.get("data_per_sec");
    // signed = served: every Data is signed for its Interest (CS off, no presign),
    // both counted by the Interest's arrival; the two stamps of one burst may
    // fall on both sides of a window end, at most a window each end
    let needed = m("sign_cores_needed");
    let n = rate * 3.0;
    let edge = 2.0 * WINDOW / n;
    within(
        t,
        &format!("sign_cores.{PRODUCER}"),
        needed * (1.0 - edge - 0.01),
        needed * (1.0 + edge + 0.01),
        "sign_cores_needed: signed = served",
    );
    // sign_cores_needed = sign_mean_us x the producer's Data/s / 10^6, and the
    // producer serves the consumer's Data (one Data per Interest)
    let by_rate = m("sign_mean_us") * rate / 1e6;
    within(
        t,
        &format!("sign_cores_needed.{PRODUCER}"),
        by_rate * (1.0 - rate_tolerance),
        by_rate * (1.0 + rate_tolerance),
        &format!("sign_mean_us x data_per_sec / 1e6, within {rate_tolerance}"),
    );
    // one signing thread is busy signing at most all of the time
    within(
        t,
        &format!("sign_cores.{PRODUCER}"),
        0.0,
        1.01,
        "one signing thread",
    );
    // percentiles in order
    within(
        t,
        &format!("sign_p50_us.{PRODUCER}"),
        0.0,
        m("sign_p99_us") * HIST,
        "p50 <= p99",
    );
    // serving an Interest includes signing its Data, and the consumer's
    // delivery includes the producer's serving: sample by sample, so for the
    // mean and every percentile (within the histograms' 2%)
    for stat in ["mean", "p50", "p99"] {
        let sign = m(&format!("sign_{stat}_us"));
        let serve = m(&format!("serve_{stat}_us"));
        within(
            t,
            &format!("serve_{stat}_us.{PRODUCER}"),
            sign / HIST,
            t.get(&format!("delay_{stat}_us")) * HIST,
            &format!("sign_{stat}_us <= serve_{stat}_us <= delay_{stat}_us"),
        );
        assert!(serve > 0.0, "{stat}: {:?}", t.row);
    }
    // a signature's wall time is at least its CPU time (the test measured the
    // same signature's CPU time: half of it allows for the two measurements'
    // spread), and the median one is not preempted ten times over unless the
    // machine runs ten times more threads than it has cores
    let sign_us = sign_cpu_s * 1e6;
    within(
        t,
        &format!("sign_p50_us.{PRODUCER}"),
        0.5 * sign_us,
        10.0 * sign_us,
        &format!("0.5 to 10 x the CPU time of one signature here ({sign_us:.1} us)"),
    );
    // the producer's CPU: at least the signatures' CPU time, at most the
    // machine's cores
    let signing_cpu = rate * sign_cpu_s;
    within(
        t,
        &format!("cpu_cores.{PRODUCER}"),
        0.5 * signing_cpu - slack_cores,
        cores() + slack_cores,
        &format!(
            "data_per_sec x one signature's CPU ({signing_cpu:.3} cores), halved; <= the cores"
        ),
    );
    for who in [NODE, CONSUMER] {
        within(
            t,
            &format!("cpu_cores.{who}"),
            f64::MIN_POSITIVE,
            cores() + slack_cores,
            "it ran, on at most the machine's cores",
        );
    }
    let accounts: f64 = [NODE, CONSUMER, PRODUCER]
        .iter()
        .map(|w| t.get(&format!("cpu_cores.{w}")))
        .sum();
    assert!(
        accounts <= cores() + 3.0 * slack_cores,
        "{} under {}: the accounts sum to {accounts} cores, more than the machine's {}: {:?}",
        t.file,
        t.runner,
        cores(),
        t.row
    );
    eprintln!(
        "truth producer under {}: data_per_sec {rate:.0}, sign mean/p50/p99 {:.1}/{:.1}/{:.1} us (CPU here {sign_us:.1} us), serve p50 {:.1} us, delay p50 {:.1} us, sign_cores {:.4}, needed {:.4}, cpu server {:.3} client {:.3} r0 {:.3}, sum {accounts:.3}",
        t.runner,
        m("sign_mean_us"),
        m("sign_p50_us"),
        m("sign_p99_us"),
        m("serve_p50_us"),
        t.get("delay_p50_us"),
        m("sign_cores"),
        needed,
        m("cpu_cores"),
        t.get(&format!("cpu_cores.{CONSUMER}")),
        t.get(&format!("cpu_cores.{NODE}")),
    );
}

#[test]
fn truth_producer_under_inproc_keeps_its_relations() {
    let _machine = real_time();
    let sign_cpu_s = ecdsa_sign_cpu_s();
    let t = truth("producer.toml", "inproc", &[]);
    // the producer and the consumer count the same window: they differ by at
    // most a window of Interests at each end (n >= 3000 at >= 1000 Data/s)
    let n = t.get("data_per_sec") * 3.0;
    // thread clocks have nanosecond resolution: no slack
    producer_relations(&t, sign_cpu_s, 2.0 * WINDOW / n + 0.01, 0.0);
    // every thread belongs to one account but the runner's own (its sampling
    // every 100 ms) and no link is emulated: the accounts hold at most the
    // process and nearly all of it
    let process = t.get("cpu_cores");
    let accounts: f64 = [NODE, CONSUMER, PRODUCER]
        .iter()
        .map(|w| t.get(&format!("cpu_cores.{w}")))
        .sum();
    within(
        &t,
        "cpu_cores",
        accounts * 0.99,
        (accounts / 0.8).min(cores() * 1.01),
        &format!("the accounts ({accounts:.3}) within the process, at least 80% of it, and the process on the machine's cores"),
    );
    assert!(process > 0.0);
}

#[test]
fn truth_producer_under_processes_keeps_its_relations() {
    let _machine = real_time();
    let sign_cpu_s = ecdsa_sign_cpu_s();
    let t = truth("producer.toml", "processes", &[]);
    // the producer's 100 ms intervals count when their middle is inside the
    // window, the consumer's too, each on its own clock: their periods differ
    // by at most 50 ms at each end of 3 s, a rate within 100 ms / 3 s = 3.3%
    // of the other's even if it doubled in those 50 ms; 5%
    // /proc/<pid>/stat counts 10 ms clock ticks, read at both ends of the
    // 3 s window: +-20 ms / 3 s = 0.0067 cores per process
    producer_relations(&t, sign_cpu_s, 0.05, 0.0067);
    assert!(
        t.row.get("cpu_cores").is_none_or(|v| v.is_empty()),
        "processes has no single process to measure: cpu_cores {:?}",
        t.row.get("cpu_cores")
    );
}
