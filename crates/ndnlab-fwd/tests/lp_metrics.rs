//! The NDNLPv2 reliability counters in the Prometheus metrics: two forwarders with
//! a reliable UDP face toward each other exchange Data; the metrics of the reliable
//! face carry the link's counters, other faces have none, and turning reliability
//! off removes them.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_fwd::face::uri::FaceUri;
use ndnlab_fwd::face::{FaceEntry, Persistency};
use ndnlab_fwd::runtime::listeners::create_face;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_proto::lp::reliability::ReliabilityCounters;
use ndnlab_wire::{Interest, Name, Packet};

const NAMES: [&str; 11] = [
    "frames_sent_total",
    "acknowledged_total",
    "retransmitted_total",
    "retx_exhausted_total",
    "lost_by_gap_total",
    "lost_by_timeout_total",
    "duplicate_sequence_total",
    "acks_sent_total",
    "acks_piggybacked_total",
    "idle_ack_packets_total",
    "unknown_acks_total",
];

fn value(c: &ReliabilityCounters, name: &str) -> u64 {
    match name {
        "frames_sent_total" => c.frames_sent,
        "acknowledged_total" => c.acknowledged,
        "retransmitted_total" => c.retransmitted,
        "retx_exhausted_total" => c.retx_exhausted,
        "lost_by_gap_total" => c.lost_by_gap,
        "lost_by_timeout_total" => c.lost_by_timeout,
        "duplicate_sequence_total" => c.duplicates,
        "acks_sent_total" => c.acks_sent,
        "acks_piggybacked_total" => c.acks_piggybacked,
        "idle_ack_packets_total" => c.idle_ack_packets,
        "unknown_acks_total" => c.unknown_acks,
        other => panic!("unknown counter {other}"),
    }
}

fn config(dir: &std::path::Path, tag: &str) -> FwdConfig {
    let text = format!(
        "[faces.unix]\npath = \"{}/{tag}.sock\"\n[forwarder]\nthreads = 1\n\
         [faces.udp]\nlisten = [\"127.0.0.1:0\"]\n",
        dir.display()
    );
    let cfg = FwdConfig::from_toml(&text, std::path::Path::new("test.toml")).unwrap();
    cfg.validate().unwrap();
    cfg
}

/// A UDP face from `d` toward `to`, with LP reliability on.
async fn reliable_face(d: &Daemon, to: SocketAddr) -> Arc<FaceEntry> {
    let sh = d.shared();
    let face = create_face(sh, &FaceUri::Udp(to), None, Persistency::Persistent, None)
        .await
        .unwrap();
    ndnlab_fwd::face::link::set_reliability(
        &face,
        true,
        sh.cfg.faces.lp_reliability.options(),
        &sh.ingress(),
    )
    .unwrap();
    face
}

/// The `ndnlab_face_lp_*` samples: (metric name after the prefix, face) -> value.
fn lp_samples(text: &str) -> HashMap<(String, u64), u64> {
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| l.starts_with("ndnlab_face_lp_")) {
        let (metric, v) = line.rsplit_once(' ').expect("sample value");
        let (name, labels) = metric.split_once('{').expect("labels");
        let face = labels
            .strip_prefix("face=\"")
            .and_then(|l| l.strip_suffix("\"}"))
            .expect("face label only");
        let key = (
            name.trim_start_matches("ndnlab_face_lp_").to_string(),
            face.parse().unwrap(),
        );
        assert!(
            out.insert(key, v.parse().unwrap()).is_none(),
            "{line} twice"
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reliable_faces_export_their_lp_counters() {
    let dir = std::env::temp_dir().join(format!("ndnlab-fwd-lpmetrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = Daemon::start(config(&dir, "a")).await.unwrap();
    let b = Daemon::start(config(&dir, "b")).await.unwrap();

    // No reliable face yet: no LP metrics at all.
    let text = ndnlab_fwd::metrics::render(a.shared()).await;
    assert!(!text.contains("ndnlab_face_lp_"), "{text}");

    // A and B each have a reliable face toward the other's UDP channel (datagrams
    // leave from the channel's socket, so each side's face is the one the peer's
    // datagrams arrive on).
    let ab = reliable_face(&a, common::udp_listener(&b)).await;
    let ba = reliable_face(&b, common::udp_listener(&a)).await;

    let producer = b.app_face("producer");
    b.register_route(&Name::from_uri("/m").unwrap(), producer.id(), 0)
        .await;
    a.register_route(&Name::from_uri("/m").unwrap(), ab.id, 0)
        .await;
    let content = Bytes::from(vec![0x42; 2000]); // 2 frames at the 1452-byte MTU
    common::spawn_echo_producer(producer, content);

    let mut consumer = a.app_face("consumer");
    const N: usize = 20;
    let interests: Vec<Bytes> = (0..N)
        .map(|i| {
            Interest::builder(Name::from_uri(&format!("/m/{i}")).unwrap())
                .nonce(0xAB00 + i as u32)
                .lifetime(Duration::from_secs(10))
                .build()
        })
        .collect();
    consumer.send_burst(interests);
    let mut got = std::collections::HashSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while got.len() < N {
        let burst = tokio::time::timeout_at(deadline, consumer.recv_burst())
            .await
            .expect("every Data within 10 s")
            .expect("face open");
        for p in burst {
            if let Ok(Packet::Data(d)) = Packet::decode(p) {
                got.insert(d.name().to_string());
            }
        }
    }
    // Let the last acks come back.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while ab.link.reliability.unacked() + ba.link.reliability.unacked() != 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "frames still unacknowledged after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let before = ab.link.reliability.counters().expect("reliability on");
    let text = ndnlab_fwd::metrics::render(a.shared()).await;
    let after = ab.link.reliability.counters().expect("reliability on");
    let samples = lp_samples(&text);
    for name in NAMES {
        let v = samples[&(name.to_string(), ab.id)];
        assert!(
            value(&before, name) <= v && v <= value(&after, name),
            "{name} = {v}, counters {before:?} .. {after:?}"
        );
        assert_eq!(
            text.matches(&format!("# TYPE ndnlab_face_lp_{name} counter\n"))
                .count(),
            1,
            "{text}"
        );
    }
    assert!(samples.contains_key(&("unacked_frames".to_string(), ab.id)));
    assert!(text.contains("# TYPE ndnlab_face_lp_unacked_frames gauge\n"));
    // The Interests went out as frames and were acknowledged.
    assert!(samples[&("frames_sent_total".to_string(), ab.id)] >= N as u64);
    assert!(samples[&("acknowledged_total".to_string(), ab.id)] > 0);
    // Only the reliable face has LP samples (not the app faces).
    assert!(samples.keys().all(|(_, face)| *face == ab.id), "{text}");
    assert_eq!(samples.len(), NAMES.len() + 1);

    // B exports its own reliable face's counters: it received A's frames and acked them.
    let text_b = ndnlab_fwd::metrics::render(b.shared()).await;
    let samples_b = lp_samples(&text_b);
    assert!(
        samples_b[&("acks_sent_total".to_string(), ba.id)] > 0,
        "{text_b}"
    );
    assert!(samples_b.keys().all(|(_, face)| *face == ba.id));

    // Reliability off: the face's LP metrics are gone.
    ndnlab_fwd::face::link::set_reliability(
        &ab,
        false,
        a.shared().cfg.faces.lp_reliability.options(),
        &a.shared().ingress(),
    )
    .unwrap();
    let text = ndnlab_fwd::metrics::render(a.shared()).await;
    assert!(!text.contains("ndnlab_face_lp_"), "{text}");

    a.shutdown().await;
    b.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
