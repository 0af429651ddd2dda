//! The client library over an in-process app face of a real forwarder (no
//! sockets): prefix registration through NFD management, Data, and a NoRoute Nack.

use std::time::Duration;

use ndnlab_app::client::{Client, Outcome, SEND_QUEUE};
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_wire::{Data, DigestSha256, Interest};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_and_fetch_through_in_process_forwarder() {
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = 1;
    let daemon = Daemon::start(cfg).await.unwrap();
    let producer = Client::from_link(daemon.app_face("producer").into_link(SEND_QUEUE));
    let consumer = Client::from_link(daemon.app_face("consumer").into_link(SEND_QUEUE));
    let mut p = producer
        .register(&"/inproc".parse().unwrap())
        .await
        .unwrap();
    tokio::spawn(async move {
        while let Some(inc) = p.recv().await {
            let d = Data::builder(inc.interest.name().clone())
                .content(&b"in-process"[..])
                .sign(&DigestSha256)
                .unwrap();
            p.client()
                .put_data(d, inc.pit_token.as_ref())
                .await
                .unwrap();
        }
    });
    let i = Interest::builder("/inproc/x".parse().unwrap())
        .lifetime(Duration::from_secs(2))
        .build_view()
        .unwrap();
    match consumer.express(i).await.unwrap() {
        Outcome::Data(r) => assert_eq!(r.data.content_slice(), b"in-process"),
        o => panic!("{o:?}"),
    }
    // unregistered prefix: the forwarder answers NoRoute
    let i = Interest::builder("/elsewhere".parse().unwrap())
        .build_view()
        .unwrap();
    assert!(matches!(
        consumer.express(i).await.unwrap(),
        Outcome::Nack(_)
    ));
    producer
        .unregister(&"/inproc".parse().unwrap())
        .await
        .unwrap();
    daemon.shutdown().await;
}

/// Two forwarders in one process joined by peer faces (non-local, 1500-byte MTU,
/// bridged here by moving bursts across): an 8 KB Data crosses as NDNLPv2
/// fragments and is reassembled by the consumer's forwarder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_faces_join_two_forwarders_and_fragment() {
    let start = || async {
        let mut cfg = FwdConfig::default();
        cfg.faces.unix.enabled = false;
        cfg.forwarder.threads = 1;
        Daemon::start(cfg).await.unwrap()
    };
    let (r1, r2) = (start().await, start().await);
    let mut a = r1.peer_face("r1-r2", Some(1500));
    let mut b = r2.peer_face("r2-r1", Some(1500));
    r1.register_route(&"/far".parse().unwrap(), a.id(), 0).await;
    let frames = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = frames.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                x = a.recv_burst() => match x {
                    Some(pkts) => b.send_burst(pkts),
                    None => return,
                },
                x = b.recv_burst() => match x {
                    Some(pkts) => {
                        assert!(pkts.iter().all(|p| p.len() <= 1500));
                        seen.fetch_add(pkts.len(), std::sync::atomic::Ordering::Relaxed);
                        a.send_burst(pkts)
                    }
                    None => return,
                },
            }
        }
    });
    let producer = Client::from_link(r2.app_face("producer").into_link(SEND_QUEUE));
    let consumer = Client::from_link(r1.app_face("consumer").into_link(SEND_QUEUE));
    let mut p = producer.register(&"/far".parse().unwrap()).await.unwrap();
    tokio::spawn(async move {
        while let Some(inc) = p.recv().await {
            let d = Data::builder(inc.interest.name().clone())
                .content(vec![7u8; 8000])
                .sign(&DigestSha256)
                .unwrap();
            p.client()
                .put_data(d, inc.pit_token.as_ref())
                .await
                .unwrap();
        }
    });
    let i = Interest::builder("/far/x".parse().unwrap())
        .lifetime(Duration::from_secs(2))
        .build_view()
        .unwrap();
    match consumer.express(i).await.unwrap() {
        Outcome::Data(r) => assert_eq!(r.data.content_slice(), &[7u8; 8000][..]),
        o => panic!("{o:?}"),
    }
    assert!(
        frames.load(std::sync::atomic::Ordering::Relaxed) >= 6,
        "the Data crossed in fragments"
    );
    let faces = r1.shared().faces.list();
    let peer = faces.iter().find(|f| f.remote.to_string() == "app://r1-r2");
    assert!(peer.is_some_and(|f| !f.local_scope));
    r1.shutdown().await;
    r2.shutdown().await;
}
