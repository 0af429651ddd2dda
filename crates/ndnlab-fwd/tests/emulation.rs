//! Emulated links on a real daemon's faces (`emulate = { ... }` on a `[[face]]`,
//! `[[faces.emulation]]` rules for faces created later): delay, random loss, a
//! rate with a tail-drop queue, over UDP and TCP sockets on 127.0.0.1. Timing is
//! only checked from below (a delay is never shorter than configured); "nothing
//! arrived" is checked once a counter shows the packet was lost or timed out.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_fwd::face::uri::FaceUri;
use ndnlab_fwd::face::FaceEntry;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_wire::{Data, Interest, Name, Packet};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};

/// A daemon with a UDP listener on 127.0.0.1, one forwarding thread, and `extra`
/// appended to its configuration.
async fn daemon(tag: &str, extra: &str) -> (Daemon, std::path::PathBuf) {
    let dir = common::temp_dir(tag);
    let text = format!(
        "[faces.unix]\npath = \"{}/nfd.sock\"\n[forwarder]\nthreads = 1\n\
         [faces.udp]\nlisten = [\"127.0.0.1:0\"]\n{extra}",
        dir.display()
    );
    let cfg = FwdConfig::from_toml(&text, std::path::Path::new("test.toml")).unwrap();
    cfg.validate().unwrap();
    (Daemon::start(cfg).await.unwrap(), dir)
}

/// The Interest in a packet from the forwarder (bare, or in an LpPacket with a PIT
/// token), and the token.
fn interest_of(p: Bytes) -> Option<(Interest, Option<Bytes>)> {
    match Packet::decode(p).ok()? {
        Packet::Interest(i) => Some((i, None)),
        Packet::Lp(lp) => {
            let i = Interest::decode(lp.fragment()?).ok()?;
            Some((i, lp.pit_token_bytes()))
        }
        _ => None,
    }
}

/// The Data answering `i`, with the PIT token echoed.
fn answer(i: &Interest, token: Option<Bytes>) -> Bytes {
    let d = Data::builder(i.name().clone())
        .content(Bytes::from_static(b"emulated"))
        .freshness_ms(0)
        .sign_digest();
    match token {
        None => d,
        Some(t) => ndnlab_wire::LpPacket::builder()
            .fragment(d)
            .pit_token(t)
            .build(),
    }
}

/// A producer on a plain UDP socket: answers every Interest it receives to its
/// sender. Returns its address and how many Interests it received.
async fn udp_producer() -> (SocketAddr, Arc<AtomicU64>) {
    let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = s.local_addr().unwrap();
    let got = Arc::new(AtomicU64::new(0));
    let n = got.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 65536];
        while let Ok((len, from)) = s.recv_from(&mut buf).await {
            if let Some((i, token)) = interest_of(Bytes::copy_from_slice(&buf[..len])) {
                n.fetch_add(1, Relaxed);
                let _ = s.send_to(&answer(&i, token), from).await;
            }
        }
    });
    (addr, got)
}

fn interest(name: &str, lifetime_ms: u64) -> Bytes {
    Interest::builder(Name::from_uri(name).unwrap())
        .nonce(rand_nonce(name))
        .lifetime(Duration::from_millis(lifetime_ms))
        .build()
}

fn rand_nonce(name: &str) -> u32 {
    name.bytes().fold(0x811C_9DC5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// Waits for a Data on `c` (panics after 5 s).
async fn data(c: &mut AppFace) -> Data {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let burst = tokio::time::timeout_at(deadline, c.recv_burst())
            .await
            .expect("a Data within 5 s")
            .expect("face open");
        for p in burst {
            if let Ok(Packet::Data(d)) = Packet::decode(p) {
                return d;
            }
        }
    }
}

fn face(d: &Daemon, remote: FaceUri) -> Arc<FaceEntry> {
    d.shared().faces.find_remote(&remote).expect("the face")
}

/// Polls `cond` every 10 ms for up to 5 s.
async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn static_face(uri: &str, emulate: &str, prefix: &str) -> String {
    format!(
        "[[face]]\nuri = \"{uri}\"\nemulate = {{ {emulate} }}\n\
         [[route]]\nprefix = \"{prefix}\"\nface = \"{uri}\"\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delayed_udp_face_makes_the_rtt_at_least_the_delay() {
    let (peer, got) = udp_producer().await;
    let uri = format!("udp4://{peer}");
    let (d, dir) = daemon("emu-delay", &static_face(&uri, "delay_ms = 50.0", "/emu")).await;
    let f = face(&d, FaceUri::Udp(peer));
    assert_eq!(f.emulation().unwrap().params.delay_ns, 50_000_000);
    let mut c = d.app_face("consumer");
    for i in 0..3 {
        let t0 = Instant::now();
        c.send(interest(&format!("/emu/delay/{i}"), 4000));
        let data = data(&mut c).await;
        let rtt = t0.elapsed();
        assert_eq!(data.name().to_string(), format!("/emu/delay/{i}"));
        assert!(rtt >= Duration::from_millis(50), "RTT {rtt:?} < 50 ms");
    }
    assert_eq!(got.load(Relaxed), 3);
    assert_eq!(f.stats.emu_lost.load(Relaxed), 0);
    d.shutdown().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_udp_face_losing_everything_times_every_interest_out() {
    let (peer, got) = udp_producer().await;
    let uri = format!("udp4://{peer}");
    let (d, dir) = daemon("emu-loss", &static_face(&uri, "loss_pct = 100", "/emu")).await;
    let f = face(&d, FaceUri::Udp(peer));
    let mut c = d.app_face("consumer");
    const N: u64 = 20;
    c.send_burst((0..N).map(|i| interest(&format!("/emu/loss/{i}"), 200)));
    eventually("the losses", || f.stats.emu_lost.load(Relaxed) == N).await;
    // Every PIT entry timed out (the forwarder counts each unsatisfied): any Data
    // would have come back before, and none did, nor reached the peer.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let r = d.shared().query_shards().await;
        let unsatisfied: u64 = r.iter().map(|s| s.counters.n_unsatisfied_interests).sum();
        let pit: usize = r.iter().map(|s| s.n_pit).sum();
        if unsatisfied == N && pit == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{unsatisfied} of {N} Interests timed out, {pit} PIT entries left"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    while let Some(burst) = c.try_recv_burst() {
        for p in burst {
            assert!(
                !matches!(Packet::decode(p), Ok(Packet::Data(_))),
                "a Data crossed a link that loses everything"
            );
        }
    }
    assert_eq!(got.load(Relaxed), 0);
    assert_eq!(
        f.stats.out_interests.load(Relaxed),
        N,
        "sent by the face, lost on the link"
    );
    let m = ndnlab_fwd::metrics::render(d.shared()).await;
    let line = format!(
        "ndnlab_face_drops_total{{face=\"{}\",reason=\"emu-lost\"}} {N}",
        f.id
    );
    assert!(m.contains(&line), "{line} not in\n{m}");
    d.shutdown().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_link_with_a_short_queue_drops_a_burst_at_the_tail() {
    let (peer, got) = udp_producer().await;
    let uri = format!("udp4://{peer}");
    // 10 kbit/s: each Interest takes tens of milliseconds to serialize, and at most
    // two wait for the transmitter.
    let (d, dir) = daemon(
        "emu-queue",
        &static_face(&uri, "bandwidth_mbps = 0.01, queue = 2", "/emu"),
    )
    .await;
    let f = face(&d, FaceUri::Udp(peer));
    let mut c = d.app_face("consumer");
    const N: u64 = 30;
    c.send_burst((0..N).map(|i| interest(&format!("/emu/queue/{i}"), 4000)));
    eventually("every Interest delivered or dropped", || {
        got.load(Relaxed) + f.stats.emu_queue_drops.load(Relaxed) == N
    })
    .await;
    let drops = f.stats.emu_queue_drops.load(Relaxed);
    assert!(drops > 0, "no queue drops");
    // the queue (2 frames, the one being serialized included) takes the head
    // of the burst on an idle link: at least those pass
    assert!(got.load(Relaxed) >= 2, "the head of the burst passes");
    assert_eq!(f.stats.emu_lost.load(Relaxed), 0);
    let m = ndnlab_fwd::metrics::render(d.shared()).await;
    let line = format!(
        "ndnlab_face_drops_total{{face=\"{}\",reason=\"emu-queue-full\"}} {drops}",
        f.id
    );
    assert!(m.contains(&line), "{line} not in\n{m}");
    d.shutdown().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_apply_to_on_demand_faces_first_match_wins() {
    // Two consumers on plain UDP sockets of 127.0.0.1: the first matches a rule by
    // its whole URI (a delay), the second only the rule for the whole host (loss).
    let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
    let rules = format!(
        "[[faces.emulation]]\nremote = \"udp4://{a_addr}\"\ndelay_ms = 50\n\
         [[faces.emulation]]\nremote_ip = \"127.0.0.1\"\nloss_pct = 100\n"
    );
    let (d, dir) = daemon("emu-rules", &rules).await;
    let producer = d.app_face("producer");
    d.register_route(&Name::from_uri("/od").unwrap(), producer.id(), 0)
        .await;
    let served = common::spawn_echo_producer(producer, Bytes::from_static(b"on-demand"));
    let listener = common::udp_listener(&d);

    let t0 = Instant::now();
    a.send_to(&interest("/od/a", 4000), listener).await.unwrap();
    let mut buf = vec![0u8; 65536];
    let (n, _) = tokio::time::timeout(Duration::from_secs(5), a.recv_from(&mut buf))
        .await
        .expect("a Data within 5 s")
        .unwrap();
    let rtt = t0.elapsed();
    let data = match Packet::decode(Bytes::copy_from_slice(&buf[..n])).unwrap() {
        Packet::Data(d) => d,
        Packet::Lp(lp) => Data::decode(lp.fragment().unwrap()).unwrap(),
        other => panic!("not a Data: {other:?}"),
    };
    assert_eq!(data.name().to_string(), "/od/a");
    assert!(rtt >= Duration::from_millis(50), "RTT {rtt:?} < 50 ms");
    let fa = face(&d, FaceUri::Udp(a_addr));
    assert_eq!(fa.emulation().unwrap().params.delay_ns, 50_000_000);

    b.send_to(&interest("/od/b", 300), listener).await.unwrap();
    let fb = {
        let mut fb = None;
        eventually("b's on-demand face", || {
            fb = d.shared().faces.find_remote(&FaceUri::Udp(b_addr));
            fb.is_some()
        })
        .await;
        fb.unwrap()
    };
    eventually("b's Data lost", || fb.stats.emu_lost.load(Relaxed) == 1).await;
    assert_eq!(fb.emulation().unwrap().params.loss, 1.0);
    // The one packet b's face sent is the one it lost: nothing is on its way to b.
    let sent = fb.stats.out_interests.load(Relaxed)
        + fb.stats.out_data.load(Relaxed)
        + fb.stats.out_nacks.load(Relaxed);
    assert_eq!(sent, 1, "b's face sent {sent} packets");
    assert!(
        matches!(b.try_recv_from(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "b got an answer across a link that loses everything"
    );
    d.shutdown().await;
    assert_eq!(served.await.unwrap(), 2);
    let _ = std::fs::remove_dir_all(dir);
}

/// A producer on a TCP connection accepted from `l`: answers every Interest; counts
/// the Interests and fails on any byte that is not a whole packet.
async fn tcp_producer(l: TcpListener) -> (Arc<AtomicU64>, tokio::task::JoinHandle<()>) {
    let got = Arc::new(AtomicU64::new(0));
    let n = got.clone();
    let task = tokio::spawn(async move {
        let (mut s, _) = l.accept().await.unwrap();
        let mut buf = BytesMut::with_capacity(65536);
        loop {
            match s.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            while let Some(frame) = ndnlab_proto::framing::next_frame(&mut buf).expect("framing") {
                let (i, token) = interest_of(frame).expect("a whole Interest");
                n.fetch_add(1, Relaxed);
                s.write_all(&answer(&i, token)).await.unwrap();
            }
        }
    });
    (got, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delayed_tcp_face_makes_the_rtt_at_least_the_delay() {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let peer = l.local_addr().unwrap();
    let (got, _task) = tcp_producer(l).await;
    let uri = format!("tcp4://{peer}");
    let (d, dir) = daemon("emu-tcp", &static_face(&uri, "delay_ms = 50.0", "/tcp")).await;
    let mut c = d.app_face("consumer");
    for i in 0..3 {
        let t0 = Instant::now();
        c.send(interest(&format!("/tcp/delay/{i}"), 4000));
        let data = data(&mut c).await;
        let rtt = t0.elapsed();
        assert_eq!(data.name().to_string(), format!("/tcp/delay/{i}"));
        assert!(rtt >= Duration::from_millis(50), "RTT {rtt:?} < 50 ms");
    }
    assert_eq!(got.load(Relaxed), 3);
    d.shutdown().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loss_on_a_tcp_face_drops_whole_packets() {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let peer = l.local_addr().unwrap();
    let (got, _task) = tcp_producer(l).await;
    let uri = format!("tcp4://{peer}");
    let (d, dir) = daemon(
        "emu-tcp-loss",
        &static_face(
            &uri,
            "loss_pct = 50, jitter_ms = 2, delay_ms = 3, seed = 11",
            "/tcp",
        ),
    )
    .await;
    let f = face(&d, FaceUri::Tcp(peer));
    let mut c = d.app_face("consumer");
    const N: u64 = 200;
    c.send_burst((0..N).map(|i| interest(&format!("/tcp/loss/{i}"), 4000)));
    // The producer parses every byte it reads as whole Interests (it panics on
    // anything else): the packets that pass are intact.
    eventually("every Interest delivered or lost", || {
        got.load(Relaxed) + f.stats.emu_lost.load(Relaxed) == N
    })
    .await;
    // Each packet is lost with probability 0.5 on its own: the count is
    // Binomial(200, 0.5), inside its 99.9% interval (77..=123).
    let lost = f.stats.emu_lost.load(Relaxed);
    let (lo, hi) = ndnlab_testkit::binomial_interval(N, 0.5, 0.999);
    assert!(
        (lo..=hi).contains(&lost),
        "{lost} of {N} lost, not in {lo}..={hi}"
    );
    d.shutdown().await;
    let _ = std::fs::remove_dir_all(dir);
}
