//! The latency instrumentation on a real forwarder driven through in-process app
//! faces, one exchange at a time (deterministic packet order): stage times add up
//! to the total, 1-in-N sampling, skip/keep windows, CS hit/miss classes, the
//! management dataset and the Prometheus histograms, in both shard modes.

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_app::client::{Client, SEND_QUEUE};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_fwd::latency::dataset::LatencyReport;
use ndnlab_fwd::latency::log::HEADER;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_wire::{Data, Interest, Name};

/// A forwarder with `[latency] sample = every`, `skip`, `keep`, a raw log in a temp
/// dir, and `threads` shards (1: inline, 2: shard threads).
async fn start(
    tag: &str,
    threads: usize,
    every: u64,
    skip: u64,
    keep: u64,
) -> (Daemon, std::path::PathBuf) {
    let log = ndnlab_testkit::temp_dir(tag).join("latency.csv");
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = threads;
    cfg.latency.sample = every;
    cfg.latency.skip = skip;
    cfg.latency.keep = keep;
    cfg.latency.log = Some(log.clone());
    cfg.validate().unwrap();
    (Daemon::start(cfg).await.unwrap(), log)
}

async fn recv(face: &mut AppFace) -> Vec<Bytes> {
    tokio::time::timeout(Duration::from_secs(5), face.recv_burst())
        .await
        .expect("a packet within 5 s")
        .expect("face open")
}

/// `k` exchanges of /p/<i> (i from `first`), one at a time: Interest from the
/// consumer, Data back from the producer unless the CS answers (`cached`).
async fn exchanges(c: &mut AppFace, p: &mut AppFace, first: usize, k: usize, cached: bool) {
    for i in first..first + k {
        let name = Name::from_uri(&format!("/p/{i}")).unwrap();
        c.send(Interest::builder(name.clone()).nonce(i as u32 + 1).build());
        if !cached {
            assert_eq!(recv(p).await.len(), 1);
            p.send(Data::builder(name).content(&b"x"[..]).sign_digest());
        }
        assert_eq!(recv(c).await.len(), 1);
    }
}

/// The raw log's rows (header checked), after the daemon stopped (flushed).
fn rows(log: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER));
    lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn num(row: &[String], col: usize) -> u64 {
    row[col].parse().unwrap()
}

async fn scenario(threads: usize) {
    let tag = format!("latency-{threads}");
    let (d, log) = start(&tag, threads, 1, 0, 0).await;
    let mut c = d.app_face("consumer");
    let mut p = d.app_face("producer");
    d.register_route(&Name::from_uri("/p").unwrap(), p.id(), 0)
        .await;
    exchanges(&mut c, &mut p, 0, 10, false).await;
    // The same names again: CS hits, answered by the forwarder.
    exchanges(&mut c, &mut p, 0, 10, true).await;
    let lat = d.shared().latency.clone().unwrap();
    assert_eq!(lat.seen(), 30);
    assert_eq!(lat.recorded.load(std::sync::atomic::Ordering::Relaxed), 30);

    // The dataset through management, as `ndnlab ctl latency` reads it.
    let client = Client::from_link(d.app_face("ctl").into_link(SEND_QUEUE));
    let payload = client.dataset("ndnlab", "latency").await.unwrap();
    let report = LatencyReport::decode(&payload).unwrap();
    assert!(report.enabled);
    assert_eq!(report.sample_every, 1);
    let count = |stage: &str, class: &str| {
        report
            .entries
            .iter()
            .find(|e| e.stage_name() == stage && e.class_name() == class)
            .map_or(0, |e| e.count)
    };
    assert_eq!(count("total", "interest-miss"), 10);
    assert_eq!(count("total", "interest-hit"), 10);
    assert_eq!(count("total", "data"), 10);
    assert_eq!(count("output", "data"), 10);
    for e in &report.entries {
        assert!(e.min_ns <= e.p50_ns && e.p50_ns <= e.p99_ns && e.p99_ns <= e.max_ns);
    }
    let prom = ndnlab_fwd::metrics::render(d.shared()).await;
    assert!(prom.contains("ndnlab_latency_seconds_count{stage=\"fwd\",class=\"interest-hit\"} 10"));
    d.shutdown().await;

    let rows = rows(&log);
    assert_eq!(rows.len(), 30);
    for r in &rows {
        // input + queue + fwd + output = total, exactly (one clock, differences).
        let sum: u64 = (3..=6).map(|c| num(r, c)).sum();
        assert_eq!(sum, num(r, 7), "{r:?}");
        assert!(["interest", "data", "nack"].contains(&r[1].as_str()));
        assert!(["hit", "miss", "-"].contains(&r[2].as_str()));
        // Every packet here caused a transmission.
        assert!(num(r, 6) > 0, "{r:?}");
    }
    let kinds: Vec<(String, String)> = rows.iter().map(|r| (r[1].clone(), r[2].clone())).collect();
    let n = |t: &str, cs: &str| kinds.iter().filter(|k| k.0 == t && k.1 == cs).count();
    assert_eq!(
        (n("interest", "miss"), n("data", "-"), n("interest", "hit")),
        (10, 10, 10)
    );
    let mut seqs: Vec<u64> = rows.iter().map(|r| num(r, 0)).collect();
    seqs.sort();
    assert_eq!(seqs, (0..30).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stages_add_up_inline_shard() {
    scenario(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stages_add_up_shard_threads() {
    scenario(2).await;
}

/// Bursts with several timed packets (one in 2 of a burst of 16 Interests, then
/// of the producer's burst of 16 Data): the burst goes through the core whole, and
/// every timed packet still gets its own stages, adding up to its total, with the
/// output stage of its own transmission.
async fn timed_bursts(threads: usize) {
    let tag = format!("latency-burst-{threads}");
    let (d, log) = start(&tag, threads, 2, 0, 0).await;
    let mut c = d.app_face("consumer");
    let mut p = d.app_face("producer");
    d.register_route(&Name::from_uri("/b").unwrap(), p.id(), 0)
        .await;
    let names: Vec<Name> = (0..16)
        .map(|i| Name::from_uri(&format!("/b/{i}")).unwrap())
        .collect();
    c.send_burst(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| Interest::builder(n.clone()).nonce(i as u32 + 1).build()),
    );
    let mut got = 0;
    while got < 16 {
        got += recv(&mut p).await.len();
    }
    p.send_burst(
        names
            .iter()
            .map(|n| Data::builder(n.clone()).content(&b"x"[..]).sign_digest()),
    );
    let mut got = 0;
    while got < 16 {
        got += recv(&mut c).await.len();
    }
    d.shutdown().await;
    let rows = rows(&log);
    assert_eq!(rows.len(), 16, "one packet in 2 of 32");
    for r in &rows {
        let sum: u64 = (3..=6).map(|c| num(r, c)).sum();
        assert_eq!(sum, num(r, 7), "{r:?}");
        assert!(num(r, 6) > 0, "every packet was forwarded: {r:?}");
    }
    let interests = rows.iter().filter(|r| r[1] == "interest").count();
    assert_eq!(interests, 8, "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r[1] == "data" || (r[1] == "interest" && r[2] == "miss")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_bursts_inline_shard() {
    timed_bursts(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_bursts_shard_threads() {
    timed_bursts(2).await;
}

/// Samples recorded for 40 exchanges (80 packets) at one in `every`.
async fn sampled(tag: &str, every: u64, skip: u64, keep: u64) -> Vec<u64> {
    let (d, log) = start(tag, 1, every, skip, keep).await;
    let mut c = d.app_face("consumer");
    let mut p = d.app_face("producer");
    d.register_route(&Name::from_uri("/p").unwrap(), p.id(), 0)
        .await;
    exchanges(&mut c, &mut p, 0, 40, false).await;
    d.shutdown().await;
    let mut seqs: Vec<u64> = rows(&log).iter().map(|r| num(r, 0)).collect();
    seqs.sort();
    seqs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_in_n_gives_n_times_fewer_samples() {
    let all = sampled("latency-n1", 1, 0, 0).await;
    let quarter = sampled("latency-n4", 4, 0, 0).await;
    assert_eq!(all.len(), 80);
    assert_eq!(quarter.len(), 80 / 4);
    assert!(quarter.iter().all(|s| s % 4 == 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skip_and_keep_windows() {
    // Samples 10..30 of one in one; then samples 3..8 of one in two (packets 6..16).
    assert_eq!(
        sampled("latency-w1", 1, 10, 20).await,
        (10..30).collect::<Vec<_>>()
    );
    assert_eq!(
        sampled("latency-w2", 2, 3, 5).await,
        (3..8).map(|k| k * 2).collect::<Vec<_>>()
    );
}

/// Off: no instrumentation, and the dataset is empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_by_default_and_the_dataset_says_so() {
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = 1;
    let d = Daemon::start(cfg).await.unwrap();
    assert!(d.shared().latency.is_none());
    let client = Client::from_link(d.app_face("ctl").into_link(SEND_QUEUE));
    let payload = client.dataset("ndnlab", "latency").await.unwrap();
    assert_eq!(
        LatencyReport::decode(&payload).unwrap(),
        LatencyReport::default()
    );
    assert!(!ndnlab_fwd::metrics::render(d.shared())
        .await
        .contains("ndnlab_latency"));
    d.shutdown().await;
}
