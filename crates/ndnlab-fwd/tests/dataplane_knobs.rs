//! The data-plane settings the laboratory varies, on a real in-process forwarder:
//! the Name Dispatch Table's `dispatch_components` spreading Interests of several
//! producer prefixes over two shards, a single shard inline or behind its queue,
//! and `verify_data` dropping a forged Data and counting it.

use std::sync::Arc;
use std::time::Duration;

use ndnlab_app::client::{Client, Outcome, SEND_QUEUE};
use ndnlab_core::DropReason;
use ndnlab_fwd::verify::TrustEntry;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_security::{Certificate, KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{Data, DigestSha256, Interest, Name, Signer};

fn config(threads: usize) -> FwdConfig {
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = threads;
    cfg
}

/// A producer answering every prefix of `prefixes` with Data from `sign`.
async fn produce(
    daemon: &Daemon,
    prefixes: &[&str],
    sign: impl Fn(&Name) -> bytes::Bytes + Send + Sync + 'static,
) {
    let producer = Client::from_link(daemon.app_face("producer").into_link(SEND_QUEUE));
    let sign = Arc::new(sign);
    for p in prefixes {
        let mut reg = producer.register(&p.parse().unwrap()).await.unwrap();
        let sign = sign.clone();
        tokio::spawn(async move {
            while let Some(inc) = reg.recv().await {
                let d = sign(inc.interest.name());
                let _ = reg.client().put_data(d, inc.pit_token.as_ref()).await;
            }
        });
    }
}

fn digest_data(name: &Name) -> bytes::Bytes {
    Data::builder(name.clone())
        .content(&b"x"[..])
        .sign(&DigestSha256)
        .unwrap()
}

async fn fetch(consumer: &Client, uri: &str, lifetime_ms: u64) -> Outcome {
    let i = Interest::builder(uri.parse().unwrap())
        .lifetime(Duration::from_millis(lifetime_ms))
        .build_view()
        .unwrap();
    consumer.express(i).await.unwrap()
}

/// Waits (at most 10 s) until `f` holds of the shards' reports.
async fn until(
    daemon: &Daemon,
    what: &str,
    f: impl Fn(&[ndnlab_fwd::runtime::shard::ShardReport]) -> bool,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = daemon.shared().query_shards().await;
        if f(&r) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}: {r:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_components_spread_four_prefixes_over_both_shards() {
    let mut cfg = config(2);
    cfg.forwarder.dispatch_components = 2;
    let daemon = Daemon::start(cfg).await.unwrap();
    assert!(!daemon.shared().is_inline());
    let prefixes = ["/dp/0", "/dp/1", "/dp/2", "/dp/3"];
    produce(&daemon, &prefixes, digest_data).await;
    let consumer = Client::from_link(daemon.app_face("consumer").into_link(SEND_QUEUE));
    for i in 0..16 {
        let uri = format!("{}/c{i}", prefixes[i % 4]);
        assert!(
            matches!(fetch(&consumer, &uri, 2000).await, Outcome::Data(_)),
            "{uri}"
        );
    }
    let r = daemon.shared().query_shards().await;
    assert_eq!(r.len(), 2);
    let per: Vec<u64> = r.iter().map(|s| s.counters.n_in_interests).collect();
    assert_eq!(per.iter().sum::<u64>(), 16, "{per:?}");
    assert!(per.iter().all(|n| *n > 0), "every shard forwards: {per:?}");
    // With one component every name of the prefix goes to one shard.
    daemon.shutdown().await;
    let daemon = Daemon::start(config(2)).await.unwrap();
    produce(&daemon, &prefixes, digest_data).await;
    let consumer = Client::from_link(daemon.app_face("consumer").into_link(SEND_QUEUE));
    for i in 0..8 {
        let uri = format!("{}/c{i}", prefixes[i % 4]);
        assert!(matches!(
            fetch(&consumer, &uri, 2000).await,
            Outcome::Data(_)
        ));
    }
    let r = daemon.shared().query_shards().await;
    let per: Vec<u64> = r.iter().map(|s| s.counters.n_in_interests).collect();
    assert!(per.contains(&0) && per.contains(&8), "{per:?}");
    daemon.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shard_forwards_inline_and_behind_its_queue() {
    for inline in [true, false] {
        let mut cfg = config(1);
        cfg.forwarder.inline = inline;
        let daemon = Daemon::start(cfg).await.unwrap();
        assert_eq!(daemon.shared().is_inline(), inline);
        produce(&daemon, &["/q"], digest_data).await;
        let consumer = Client::from_link(daemon.app_face("consumer").into_link(SEND_QUEUE));
        for i in 0..4 {
            let uri = format!("/q/{i}");
            assert!(
                matches!(fetch(&consumer, &uri, 2000).await, Outcome::Data(_)),
                "inline = {inline}: {uri}"
            );
        }
        let r = daemon.shared().query_shards().await;
        assert_eq!(r[0].counters.n_in_data, 4, "inline = {inline}");
        daemon.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_verification_drops_a_forged_data_and_counts_it() {
    let key = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
    let forger = Arc::new(PrivateKey::generate(KeyType::EcdsaP256).unwrap());
    let key_name: Name = "/lab/p/KEY/%01".parse().unwrap();
    let signer = KeySigner::new(key.clone(), key_name.clone());
    let cert = Certificate::build(
        &key_name,
        &key.public_key().unwrap(),
        b"lab",
        1,
        ndnlab_security::validity_from(0, Duration::from_secs(1)),
        &signer,
    )
    .unwrap();
    let mut cfg = config(1);
    cfg.forwarder.verify_data = "signature".into();
    cfg.forwarder.trust = vec![TrustEntry {
        certificate: Some(ndnlab_security::base64_encode(cert.wire())),
        ..Default::default()
    }];
    let daemon = Daemon::start(cfg).await.unwrap();
    let forged = KeySigner::new(forger, key_name.clone());
    produce(&daemon, &["/v"], move |name| {
        let s: &dyn Signer = if name.to_string().ends_with("forged") {
            &forged
        } else {
            &signer
        };
        Data::builder(name.clone())
            .content(&b"x"[..])
            .sign(s)
            .unwrap()
    })
    .await;
    let consumer = Client::from_link(daemon.app_face("consumer").into_link(SEND_QUEUE));
    assert!(matches!(
        fetch(&consumer, "/v/good", 2000).await,
        Outcome::Data(_)
    ));
    let c2 = consumer.clone();
    let forged = tokio::spawn(async move { fetch(&c2, "/v/forged", 300).await });
    until(&daemon, "the forged Data counted", |r| {
        r[0].counters.drops.get(DropReason::DataBadSignature) == 1
    })
    .await;
    assert!(!matches!(forged.await.unwrap(), Outcome::Data(_)));
    let r = daemon.shared().query_shards().await;
    assert_eq!(r[0].counters.n_verified_data, 2);
    assert_eq!(r[0].counters.n_in_data, 2);
    assert_eq!(r[0].counters.n_satisfied_interests, 1);
    daemon.shutdown().await;
}
