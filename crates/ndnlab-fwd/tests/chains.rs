//! Forwarders chained over UDP and TCP on 127.0.0.1 (each an in-process daemon with
//! its own runtime and sockets), with raw Rust apps on their Unix sockets: a 100 KB
//! Data fragmented over UDP, three hops over TCP, and a producer that dies
//! mid-transfer. (The same scenarios with separate `ndnlab fwd` processes are in
//! crates/ndnlab/tests/fwd_chain.rs.)

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::RawFace;
use common::TestFwd;
use ndnlab_app::client::burst::BurstConn;
use ndnlab_app::client::FaceUri;
use ndnlab_app::load as loadgen;
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_testkit::wait_until;
use ndnlab_wire::{Data, Interest, Name, Packet};

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn with_ip(kind: &str) -> impl FnOnce(&mut ndnlab_fwd::FwdConfig) {
    let kind = kind.to_string();
    move |c| {
        if kind == "udp" {
            c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        } else {
            c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        }
    }
}

/// On `from`, a face toward `to`'s listener and a route for `prefix` through it.
fn link(from: &TestFwd, to: &TestFwd, scheme: &str, prefix: &str) -> u64 {
    let mut c = from.client();
    let r = c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(to.listener(scheme)),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    let face = r.body.unwrap().face_id.unwrap();
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(n(prefix)),
                face_id: Some(face),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    face
}

/// Fetches `prefix/0..count` one at a time; returns the Data received.
fn fetch(c: &mut RawFace, prefix: &str, count: usize, size: usize) -> usize {
    let mut got = 0;
    for i in 0..count {
        let name = n(&format!("{prefix}/{i}"));
        let wire = Interest::builder(name.clone())
            .nonce(i as u32 ^ 0xABCD)
            .lifetime_ms(1000)
            .build();
        c.send_raw(&wire).unwrap();
        match c.recv_data(&name) {
            Ok(d) => {
                assert_eq!(d.content().len(), size);
                got += 1;
            }
            Err(_) => break,
        }
    }
    got
}

#[test]
fn data_of_100kb_is_fragmented_over_udp() {
    // 100 KB Data: beyond NDN's 8800-byte packets
    let big = |c: &mut ndnlab_fwd::FwdConfig| {
        with_ip("udp")(c);
        c.forwarder.max_packet_size = 110_000;
    };
    let a = TestFwd::start("udpA", big);
    let b = TestFwd::start("udpB", big);
    link(&a, &b, "udp4", "/big");
    let prod = common::producer(&b, "/big", 100_000, 20);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/big", 20, 100_000), 20);
    assert_eq!(prod.join().unwrap(), 20);
}

#[test]
fn three_forwarders_over_tcp_and_udp() {
    let a = TestFwd::start("c3A", with_ip("tcp"));
    let b = TestFwd::start("c3B", |c| {
        c.forwarder.threads = 2; // Data come back by PIT token to the right shard
        c.forwarder.dispatch_components = 2;
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let c = TestFwd::start("c3C", with_ip("udp"));
    link(&a, &b, "tcp4", "/chain");
    link(&b, &c, "udp4", "/chain");
    let prod = common::producer(&c, "/chain", 8000, 200);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/chain", 200, 8000), 200);
    assert_eq!(prod.join().unwrap(), 200);
}

#[test]
fn producer_dying_mid_transfer_is_cleaned_up() {
    let a = TestFwd::start("dieA", with_ip("udp"));
    let b = TestFwd::start("dieB", with_ip("udp"));
    link(&a, &b, "udp4", "/die");
    // The producer serves 30 Data, then its connection closes mid-transfer.
    let prod = common::producer(&b, "/die", 1000, 30);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/die", 100, 1000), 30);
    assert_eq!(prod.join().unwrap(), 30);
    // B dropped the dead face's route...
    let mut cb = b.client();
    let gone = wait_until(Duration::from_secs(10), || {
        let rib = ndnlab_proto::mgmt::dataset::decode_records(
            ndnlab_proto::mgmt::dataset::DatasetKind::Rib,
            &cb.dataset("rib", "list").unwrap(),
        )
        .unwrap();
        !rib.iter().any(|r| r.text("name") == Some("/die"))
    });
    assert!(gone, "route of the dead producer still there");
    // ...and a new producer takes over the prefix.
    let prod2 = common::producer(&b, "/die", 1000, 10);
    let mut cons2 = a.client();
    assert_eq!(fetch(&mut cons2, "/die/again", 10, 1000), 10);
    assert_eq!(prod2.join().unwrap(), 10);
}

#[test]
fn local_fields_carry_incoming_face_id() {
    let f = TestFwd::start("lf", |_| {});
    // The producer's face id, from its own registration.
    let mut pc = f.client();
    let reg = pc
        .command(
            "rib",
            "register",
            &P {
                name: Some(n("/lf")),
                ..Default::default()
            },
        )
        .unwrap();
    let producer_face = reg.body.unwrap().face_id.unwrap();
    let content = Bytes::from_static(b"hello");
    let prod = std::thread::spawn(move || loop {
        match pc.recv_packet(Duration::from_secs(5)) {
            Ok(Some(Packet::Lp(lp))) => {
                let Some(i) = lp.fragment().and_then(|x| Interest::decode(x).ok()) else {
                    continue;
                };
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .sign_digest();
                let mut b = ndnlab_wire::LpPacket::builder().fragment(d);
                if let Some(t) = lp.pit_token_bytes() {
                    b = b.pit_token(t);
                }
                pc.send_raw(&b.build()).unwrap();
                return;
            }
            Ok(Some(Packet::Interest(i))) => {
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .sign_digest();
                pc.send_raw(&d).unwrap();
                return;
            }
            _ => return,
        }
    });
    // The consumer turns LocalFields on for its own face.
    let mut c = f.client();
    let r = c
        .command(
            "faces",
            "update",
            &P {
                flags: Some(1),
                mask: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    assert_eq!(r.body.unwrap().flags.unwrap() & 1, 1);
    let name = n("/lf/1");
    c.send_raw(
        &Interest::builder(name.clone())
            .nonce(99)
            .lifetime_ms(2000)
            .build(),
    )
    .unwrap();
    let got = loop {
        match c.recv_packet(Duration::from_secs(5)).unwrap() {
            Some(Packet::Lp(lp)) => break lp,
            Some(_) => continue,
            None => panic!("no Data"),
        }
    };
    assert_eq!(got.incoming_face_id(), Some(producer_face));
    assert!(Data::decode(got.fragment().unwrap()).unwrap().name() == &name);
    prod.join().unwrap();
}

/// The load generator's UDP consumer and producer (`recvmmsg`/`sendmmsg` bursts)
/// exchange real Interests and Data through a forwarder's UDP channel.
#[test]
fn loadgen_udp_bursts_through_a_forwarder() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::Arc;
    let f = TestFwd::start("lg-udp", with_ip("udp"));
    let addr: std::net::SocketAddr = f
        .listener("udp4")
        .trim_start_matches("udp4://")
        .parse()
        .unwrap();
    let prefix = n("/lg/udp");
    let udp = FaceUri::Udp(addr.to_string());
    let mut ps = BurstConn::connect(&udp).unwrap();
    // The producer's first datagram creates its on-demand face; route to it.
    ps.push_raw(&loadgen::interest(&n("/lg/hello"), 0, 0));
    ps.flush().unwrap();
    let remote = format!("udp4://{}", ps.local_udp_addr().unwrap());
    let mut c = f.client();
    let mut id = None;
    wait_until(Duration::from_secs(10), || {
        let faces = ndnlab_proto::mgmt::dataset::decode_records(
            ndnlab_proto::mgmt::dataset::DatasetKind::Faces,
            &c.dataset("faces", "list").unwrap(),
        )
        .unwrap();
        id = faces
            .iter()
            .find(|r| r.text("remote") == Some(remote.as_str()))
            .and_then(|r| r.num("faceId"));
        id.is_some()
    });
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(prefix.clone()),
                face_id: Some(id.expect("producer face")),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(loadgen::LoadCounters::default());
    let content = Bytes::from(vec![7u8; 100]);
    let s1 = stop.clone();
    let producer = std::thread::spawn(move || {
        loadgen::produce(ps, loadgen::Producer::new(content, 0), s1)
            .unwrap()
            .served
    });
    let cs = BurstConn::connect(&udp).unwrap();
    let (s2, c2) = (stop.clone(), counters.clone());
    let consumer = std::thread::spawn(move || loadgen::consume(cs, prefix, 32, 0, c2, s2).unwrap());
    run_until(&counters, 200);
    stop.store(true, Relaxed);
    consumer.join().unwrap();
    let served = producer.join().unwrap();
    let m = totals(&counters);
    assert_eq!(m.nacks, 0);
    assert_whole_data(&m, 100);
    assert!(served >= m.exchanges, "{served} served, {m:?}");
}

/// `--transport inproc`: consumer and producer on their own threads over app faces
/// of an in-process forwarder, with the CPU split per thread.
#[test]
fn loadgen_inproc_reports_exchanges_and_thread_cpu() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut cfg = ndnlab_fwd::FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = 1;
    let (m, cpu) = rt.block_on(async move {
        let d = ndnlab_fwd::Daemon::start(cfg).await.unwrap();
        assert!(d.shared().is_inline(), "one shard runs inline");
        let prod = d.app_face("bench-producer");
        let prefix = Name::from_uri(ndnlab_app::load::INPROC_PREFIX).unwrap();
        d.register_route(&prefix, prod.id(), 0).await;
        let cons = d.app_face("bench-consumer");
        let r = ndnlab_app::load::run_inproc(
            prod,
            cons,
            100,
            64,
            0,
            Duration::from_millis(200),
            Duration::from_millis(500),
        )
        .await;
        d.shutdown().await;
        r
    });
    // `run_inproc` measures a fixed window (it is the benchmark's driver): assert
    // what it reports is consistent, not how fast this machine is.
    assert!(m.exchanges >= 1, "no exchange in the window: {m:?}");
    assert_eq!(m.nacks, 0);
    assert_eq!(
        m.payload_bytes % 100,
        0,
        "a Data of other than 100 bytes: {m:?}"
    );
    assert!((m.payload_bytes / 100).abs_diff(m.exchanges) <= 2, "{m:?}");
    let consumer = cpu.iter().find(|(name, _)| name == "bench-consumer");
    assert!(consumer.is_some_and(|(_, s)| *s >= 0.0), "{cpu:?}");
}

/// Runs the load generator's stream producer (PIT tokens echoed in LpPackets) and
/// consumer (window 64) through `f`'s Unix socket until `exchanges` Data came back.
fn stream_load(
    f: &TestFwd,
    prefix: &str,
    payload: usize,
    pool: usize,
    exchanges: u64,
) -> (
    ndnlab_app::load::Measured,
    ndnlab_app::load::Producer,
    std::sync::Arc<ndnlab_app::load::LoadCounters>,
) {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::Arc;
    let prefix = n(prefix);
    let unix = FaceUri::Unix(f.socket.clone());
    let mut ps = BurstConn::connect(&unix).unwrap();
    ps.register(&prefix, Duration::from_secs(4)).unwrap();
    // The consumer stops (and is joined) before the producer: a producer leaving
    // first takes its route with it, and the consumer's last Interests would come
    // back as Nacks NoRoute.
    let (stop_producer, stop_consumer) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let counters = Arc::new(loadgen::LoadCounters::default());
    let s1 = stop_producer.clone();
    let content = Bytes::from(vec![9u8; payload]);
    let producer = std::thread::spawn(move || {
        loadgen::produce(ps, loadgen::Producer::new(content, pool), s1).unwrap()
    });
    let cs = BurstConn::connect(&unix).unwrap();
    let (s2, c2) = (stop_consumer.clone(), counters.clone());
    let consumer =
        std::thread::spawn(move || loadgen::consume(cs, prefix, 64, pool, c2, s2).unwrap());
    run_until(&counters, exchanges);
    stop_consumer.store(true, Relaxed);
    consumer.join().unwrap();
    stop_producer.store(true, Relaxed);
    (totals(&counters), producer.join().unwrap(), counters)
}

/// 8 KB payloads through a forwarder's Unix socket: every Data comes back whole (the
/// forwarder writes them with `writev`, without a copy).
#[test]
fn loadgen_stream_bursts_through_a_forwarder() {
    let f = TestFwd::start("lg-unix", |_| {});
    let (m, _, _) = stream_load(&f, "/lg/unix", 8192, 0, 200);
    assert_eq!(m.nacks, 0);
    assert_whole_data(&m, 8192);
}

/// With a Data pool the consumer cycles over 128 names and the producer signs each
/// once; Interests are MustBeFresh and Data FreshnessPeriod 0, so the forwarder's CS
/// never answers: every Interest reaches the producer and the CS counts no hit.
#[test]
fn loadgen_data_pool_signs_once_and_bypasses_the_cs() {
    use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
    use std::sync::atomic::Ordering::Relaxed;
    let f = TestFwd::start("lg-pool", |_| {});
    // 512 exchanges: every one of the 128 names asked for several times.
    let (m, p, counters) = stream_load(&f, "/lg/pool", 8192, 128, 512);
    let (sent, got) = (
        counters.interests.load(Relaxed),
        counters.exchanges.load(Relaxed),
    );
    assert_eq!(m.nacks, 0);
    assert_whole_data(&m, 8192);
    // Each of the 128 names was signed once, however often it was asked for.
    assert_eq!(p.signed, 128, "signed {} Data", p.signed);
    // Every Interest reached the producer (at most a window still in flight at the stop).
    assert!(p.served >= got && p.served + 64 >= sent && p.served <= sent);
    let mut c = f.client();
    let info = decode_records(DatasetKind::Cs, &c.dataset("cs", "info").unwrap()).unwrap();
    assert_eq!(info[0].num("nHits"), Some(0), "{info:?}");
    assert!(info[0].num("nMisses").unwrap() >= got, "{info:?}");
}

/// A pool smaller than the window is refused with a message saying why.
#[test]
fn loadgen_data_pool_smaller_than_window_is_an_error() {
    let e = ndnlab_app::load::check_pool(32, 64).unwrap_err();
    assert!(e.contains("smaller than the window"), "{e}");
    assert!(ndnlab_app::load::check_pool(0, 64).is_ok());
    assert!(ndnlab_app::load::check_pool(64, 64).is_ok());
}

/// Waits (up to a generous deadline, not a measured window) until the consumer
/// counted `exchanges` Data.
fn run_until(c: &loadgen::LoadCounters, exchanges: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    let done = wait_until(Duration::from_secs(30), || {
        c.exchanges.load(Relaxed) >= exchanges
    });
    assert!(
        done,
        "only {} of {exchanges} exchanges",
        c.exchanges.load(Relaxed)
    );
}

/// The counters' totals once the consumer stopped (its thread joined).
fn totals(c: &loadgen::LoadCounters) -> loadgen::Measured {
    use std::sync::atomic::Ordering::Relaxed;
    loadgen::Measured {
        exchanges: c.exchanges.load(Relaxed),
        payload_bytes: c.payload_bytes.load(Relaxed),
        nacks: c.nacks.load(Relaxed),
        seconds: 0.0,
    }
}

/// Every Data counted in `m` (the totals of a stopped consumer) carried `size`
/// payload bytes.
fn assert_whole_data(m: &ndnlab_app::load::Measured, size: u64) {
    assert!(m.exchanges >= 1, "no exchange: {m:?}");
    assert_eq!(
        m.payload_bytes,
        m.exchanges * size,
        "a Data of other than {size} bytes: {m:?}"
    );
}
