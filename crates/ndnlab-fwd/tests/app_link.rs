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
