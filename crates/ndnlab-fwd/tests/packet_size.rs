//! `[forwarder] max_packet_size`: a packet above the limit is dropped on
//! receive and counted (`oversize_drops`, on the runtime and the face), never
//! forwarded; a forwarder whose limit is raised carries 64 KiB Data.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use ndnlab_app::client::{Client, Outcome, SEND_QUEUE};
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_wire::{Data, DigestSha256, Interest};

async fn daemon(max: usize) -> Daemon {
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = 1;
    cfg.forwarder.max_packet_size = max;
    cfg.check().unwrap();
    Daemon::start(cfg).await.unwrap()
}

/// A producer of `payload`-byte Data under `/big`, and a consumer, on `d`.
async fn fetch(d: &Daemon, payload: usize) -> Outcome {
    let producer = Client::from_link(d.app_face("producer").into_link(SEND_QUEUE));
    let consumer = Client::from_link(d.app_face("consumer").into_link(SEND_QUEUE));
    let mut p = producer.register(&"/big".parse().unwrap()).await.unwrap();
    tokio::spawn(async move {
        let _keep = producer;
        while let Some(inc) = p.recv().await {
            let d = Data::builder(inc.interest.name().clone())
                .content(vec![5u8; payload])
                .sign(&DigestSha256)
                .unwrap();
            let _ = p.client().put_data(d, inc.pit_token.as_ref()).await;
        }
    });
    let i = Interest::builder("/big/x".parse().unwrap())
        .lifetime(Duration::from_millis(300))
        .build_view()
        .unwrap();
    consumer.express(i).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_over_the_limit_is_dropped_and_counted() {
    let d = daemon(8800).await;
    match fetch(&d, 20_000).await {
        Outcome::Timeout => {}
        o => panic!("a 20 kB Data crossed an 8800-byte forwarder: {o:?}"),
    }
    assert_eq!(d.shared().counters.oversize_drops.load(Relaxed), 1);
    let faces = d.shared().faces.list();
    let producer = faces
        .iter()
        .find(|f| f.remote.to_string() == "app://producer")
        .unwrap();
    assert_eq!(producer.stats.oversize_drops.load(Relaxed), 1);
    assert_eq!(producer.stats.in_data.load(Relaxed), 0);
    d.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raised_limit_carries_64_kib_data() {
    let d = daemon(70_000).await;
    match fetch(&d, 65_536).await {
        Outcome::Data(r) => assert_eq!(r.data.content_slice(), &[5u8; 65_536][..]),
        o => panic!("{o:?}"),
    }
    assert_eq!(d.shared().counters.oversize_drops.load(Relaxed), 0);
    d.shutdown().await;
}
