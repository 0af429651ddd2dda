//! The daemon survives hostile bytes and counts them: random bytes on Unix, TCP,
//! UDP and WebSocket faces, truncated TLVs, TLVs claiming lengths up to 2^64 - 1,
//! NDNLPv2 fragment storms (bad indices, reassemblies that never complete), and a
//! flood of random management Interests. After each, a normal consumer on the Unix
//! socket still gets Data from a producer, and the drop counters moved.
//!
//! The management flood sends `NDNLAB_HOSTILE_MGMT` Interests (default 5,000 here);
//! `hostile_management_100k` (ignored by default) sends 100,000.

mod common;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::RawFace;
use ndnlab_fwd::face::FaceEntry;
use ndnlab_fwd::runtime::Shared;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_proto::lp::LpDrop;
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::{Data, Interest, Name, Packet};
use rand::{Rng, SeedableRng};

/// A daemon on its own thread, with its shared state for the counters.
struct Fwd {
    dir: PathBuf,
    socket: PathBuf,
    listening: Vec<String>,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Fwd {
    fn start() -> Fwd {
        let dir = common::temp_dir("hostile");
        let socket = dir.join("nfd.sock");
        let mut cfg = FwdConfig::default();
        cfg.faces.unix.path = socket.clone();
        cfg.forwarder.threads = 1;
        cfg.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        cfg.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        cfg.faces.websocket.listen = vec!["127.0.0.1:0".parse().unwrap()];
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let d = Daemon::start(cfg).await.expect("daemon starts");
                ready_tx
                    .send((d.listening.clone(), d.shared().clone()))
                    .unwrap();
                let _ = stop_rx.await;
                d.shutdown().await;
            });
        });
        let (listening, shared) = ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("daemon start");
        Fwd {
            dir,
            socket,
            listening,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    fn unix(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    fn addr(&self, scheme: &str) -> String {
        let l = ndnlab_testkit::listener(&self.listening, scheme);
        l.split_once("://")
            .unwrap()
            .1
            .trim_end_matches('/')
            .to_string()
    }

    fn face_ids(&self) -> HashSet<u64> {
        self.shared.faces.list().iter().map(|f| f.id).collect()
    }

    /// The face that appears after `before` (waits for it up to 5 s).
    fn new_face(&self, before: &HashSet<u64>) -> Arc<FaceEntry> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(f) = self
                .shared
                .faces
                .list()
                .into_iter()
                .find(|f| !before.contains(&f.id))
            {
                return f;
            }
            assert!(Instant::now() < deadline, "no new face");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn decode_drops(&self) -> u64 {
        self.shared.counters.decode_drops.load(Relaxed)
    }
}

impl Drop for Fwd {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A producer of `/ok` on the Unix socket, answering until its face closes.
fn producer(fwd: &Fwd) -> std::thread::JoinHandle<()> {
    let mut c = RawFace::connect(&fwd.unix());
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(Name::from_uri("/ok").unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200);
    std::thread::spawn(move || loop {
        let (i, token) = match c.recv_packet(Duration::from_secs(60)) {
            Ok(Some(Packet::Interest(i))) => (i, None),
            Ok(Some(Packet::Lp(lp))) => match lp.fragment().map(Interest::decode) {
                Some(Ok(i)) => (i, lp.pit_token_bytes()),
                _ => continue,
            },
            Ok(Some(_)) => continue,
            _ => return,
        };
        let d = Data::builder(i.name().clone())
            .content(Bytes::from_static(b"still here"))
            .freshness_ms(0)
            .sign_digest();
        let mut b = ndnlab_wire::LpPacket::builder().fragment(d);
        if let Some(t) = token {
            b = b.pit_token(t);
        }
        if c.send_raw(&b.build()).is_err() {
            return;
        }
    })
}

/// A normal consumer on a fresh Unix connection gets `/ok/<what>`.
fn still_serves(fwd: &Fwd, what: &str) {
    let mut c = RawFace::connect(&fwd.unix());
    let name = Name::from_uri(&format!("/ok/{what}")).unwrap();
    let i = Interest::builder(name.clone())
        .nonce(rand::random())
        .lifetime(Duration::from_secs(4))
        .build();
    c.send_raw(&i).unwrap();
    let d = c
        .recv_data(&name)
        .unwrap_or_else(|e| panic!("after {what}: {e}"));
    assert_eq!(d.content().as_ref(), b"still here");
}

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

fn random_bytes(r: &mut impl Rng, max: usize) -> Vec<u8> {
    let n = r.gen_range(1..=max);
    (0..n).map(|_| r.gen()).collect()
}

/// Well-framed TLVs with random types and values: the face stays open and counts
/// each as a drop (unknown type, or a packet that does not decode).
fn framed_garbage(r: &mut impl Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let typ = [5u64, 6, 100, 7, 200, 0xfd][r.gen_range(0..6)];
            let v = random_bytes(r, 40);
            let mut out = Vec::new();
            tlv::put_tlv(&mut out, typ, &v);
            out
        })
        .collect()
}

/// The LpDrop-and-decode counter of a face, plus the runtime's decode drops.
fn drops(fwd: &Fwd, face: &FaceEntry) -> u64 {
    face.stats.in_drops.load(Relaxed) + fwd.decode_drops()
}

/// Writes until the daemon closes the connection (or `limit` bytes went), then
/// checks it did close it.
fn write_until_closed(mut s: impl Read + Write, r: &mut impl Rng, limit: usize) {
    let mut sent = 0;
    while sent < limit {
        let b = random_bytes(r, 512);
        if s.write_all(&b).is_err() {
            return;
        }
        sent += b.len();
    }
    // a framing error closes the face: the read side sees EOF or a reset
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[test]
fn stream_faces_survive_random_bytes() {
    let fwd = Fwd::start();
    let _p = producer(&fwd);
    still_serves(&fwd, "start");
    let mut r = rng(1);

    // Unix: framed garbage is counted on the open face, then raw garbage closes it.
    let before = fwd.face_ids();
    let mut s = UnixStream::connect(&fwd.socket).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let face = fwd.new_face(&before);
    let d0 = drops(&fwd, &face);
    for f in framed_garbage(&mut r, 500) {
        s.write_all(&f).unwrap();
    }
    wait_for(|| drops(&fwd, &face) >= d0 + 500, "500 Unix drops counted");
    write_until_closed(s, &mut r, 1 << 20);
    still_serves(&fwd, "unix-garbage");

    // TCP: the same.
    let before = fwd.face_ids();
    let mut s = TcpStream::connect(fwd.addr("tcp4://")).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let face = fwd.new_face(&before);
    let d0 = drops(&fwd, &face);
    for f in framed_garbage(&mut r, 500) {
        s.write_all(&f).unwrap();
    }
    wait_for(|| drops(&fwd, &face) >= d0 + 500, "500 TCP drops counted");
    write_until_closed(s, &mut r, 1 << 20);
    still_serves(&fwd, "tcp-garbage");

    // WebSocket: random binary messages, then bytes that are not WebSocket frames.
    let before = fwd.face_ids();
    let mut ws = ws_connect(&fwd.addr("ws://"));
    let face = fwd.new_face(&before);
    let d0 = drops(&fwd, &face);
    for _ in 0..300 {
        ws_send(&mut ws, &random_bytes(&mut r, 200));
    }
    for f in framed_garbage(&mut r, 200) {
        ws_send(&mut ws, &f);
    }
    wait_for(|| drops(&fwd, &face) >= d0 + 200, "WebSocket drops counted");
    write_until_closed(ws, &mut r, 1 << 16);
    still_serves(&fwd, "websocket-garbage");
}

#[test]
fn truncated_and_huge_tlvs() {
    let fwd = Fwd::start();
    let _p = producer(&fwd);
    let valid = Interest::builder(Name::from_uri("/ok/t/x/y").unwrap())
        .nonce(7)
        .lifetime(Duration::from_secs(1))
        .app_params(Bytes::from_static(b"params"))
        .build();

    // Truncated TLVs over a stream face: the outer length says the cut length, the
    // inner elements run past it. Each one is counted, the face stays open.
    let before = fwd.face_ids();
    let mut s = UnixStream::connect(&fwd.socket).unwrap();
    let face = fwd.new_face(&before);
    let d0 = drops(&fwd, &face);
    let mut sent = 0;
    for cut in 3..valid.len() - 1 {
        let mut hdr_len = 0;
        let _ = tlv::read_varnum(&valid, &mut hdr_len);
        let _ = tlv::read_varnum(&valid, &mut hdr_len);
        let inner = &valid[hdr_len..cut.max(hdr_len)];
        let mut out = Vec::new();
        tlv::put_tlv(&mut out, t::INTEREST, inner);
        s.write_all(&out).unwrap();
        sent += 1;
    }
    wait_for(|| drops(&fwd, &face) >= d0 + sent, "truncated TLVs counted");
    still_serves(&fwd, "truncated-stream");

    // Over UDP: datagrams cut at every length (the outer length claims more).
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = fwd.addr("udp4://");
    let before = fwd.face_ids();
    udp.send_to(&valid[..2], &target).unwrap();
    let uface = fwd.new_face(&before);
    let d0 = drops(&fwd, &uface);
    for cut in 1..valid.len() {
        udp.send_to(&valid[..cut], &target).unwrap();
    }
    wait_for(
        || drops(&fwd, &uface) >= d0 + valid.len() as u64 - 1 - 1,
        "truncated datagrams counted",
    );

    // Lengths up to 2^64 - 1 in every varnum width.
    let huge: Vec<(u64, Vec<u8>)> = [
        0xfdu64 + 1,
        0xffff,
        0x1_0000,
        u32::MAX as u64,
        1 << 40,
        u64::MAX,
    ]
    .iter()
    .flat_map(|&len| {
        [t::INTEREST, t::DATA, t::LP_PACKET].map(|typ| {
            let mut b = Vec::new();
            tlv::put_varnum(&mut b, typ);
            tlv::put_varnum(&mut b, len);
            b.extend_from_slice(&[0x07, 0x03, 0x08, 0x01, b'a']);
            (len, b)
        })
    })
    .collect();
    let d0 = drops(&fwd, &uface);
    for (_, h) in &huge {
        udp.send_to(h, &target).unwrap();
    }
    wait_for(
        || drops(&fwd, &uface) >= d0 + huge.len() as u64,
        "huge lengths counted on UDP",
    );
    // On a stream a length past the 1 MiB frame limit closes the connection (a
    // shorter one waits for its bytes).
    for (_, h) in huge.iter().filter(|(len, _)| *len > 1 << 20) {
        let before = fwd.face_ids();
        let mut s = UnixStream::connect(&fwd.socket).unwrap();
        let face = fwd.new_face(&before);
        s.write_all(h).unwrap();
        wait_for(
            || face.stats.in_drops.load(Relaxed) >= 1,
            "framing drop counted",
        );
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 64];
        assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)), "closed");
    }
    still_serves(&fwd, "huge-lengths");
}

/// One NDNLPv2 fragment (Sequence, FragIndex, FragCount, Fragment).
fn fragment(seq: u64, index: u64, count: u64, payload: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    tlv::put_tlv(&mut inner, t::SEQUENCE, &seq.to_be_bytes());
    tlv::put_nni_tlv(&mut inner, t::FRAG_INDEX, index);
    tlv::put_nni_tlv(&mut inner, t::FRAG_COUNT, count);
    tlv::put_tlv(&mut inner, t::FRAGMENT, payload);
    let mut out = Vec::new();
    tlv::put_tlv(&mut out, t::LP_PACKET, &inner);
    out
}

#[test]
fn fragment_storms_are_bounded_and_time_out() {
    let fwd = Fwd::start();
    let _p = producer(&fwd);
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = fwd.addr("udp4://");
    let before = fwd.face_ids();
    udp.send_to(&[0x64, 0x00], &target).unwrap(); // an idle LpPacket creates the face
    let face = fwd.new_face(&before);
    let lp = |d: LpDrop| face.stats.lp_drops[d.index()].load(Relaxed);

    // Bad indices: index >= count, count 0, count over the limit.
    let bad = [(5, 3), (0, 0), (1, 1), (0, 1 << 20), (u64::MAX, 2)];
    for (k, (index, count)) in bad.iter().enumerate() {
        udp.send_to(&fragment(k as u64 * 10, *index, *count, b"xx"), &target)
            .unwrap();
    }
    wait_for(
        || lp(LpDrop::BadFragment) >= bad.len() as u64,
        "bad fragments counted",
    );

    // Reassemblies that never complete: 400 packets, first fragment of 4 only.
    let payload = vec![0xAB; 1000];
    for k in 0..400u64 {
        udp.send_to(&fragment(1_000 + k * 4, 0, 4, &payload), &target)
            .unwrap();
    }
    wait_for(
        || lp(LpDrop::ReassemblyFull) >= 400 - 256,
        "partials beyond the bound refused",
    );
    assert_eq!(lp(LpDrop::ReassemblyFull), 400 - 256, "at most 256 held");
    // After the 500 ms reassembly timeout, any frame drops all of them.
    std::thread::sleep(Duration::from_millis(600));
    udp.send_to(&[0x64, 0x00], &target).unwrap();
    wait_for(
        || face.stats.reassembly_timeouts.load(Relaxed) >= 256,
        "256 partial packets timed out",
    );
    // The link holds nothing now: 256 new partials fit again.
    let full = lp(LpDrop::ReassemblyFull);
    for k in 0..256u64 {
        udp.send_to(&fragment(100_000 + k * 4, 0, 4, &payload), &target)
            .unwrap();
    }
    // An Interest after them on the same face: its Data proves the daemon read
    // every fragment before it (one reader, datagrams in order).
    udp_fetch(&udp, &target, "/ok/after-partials");
    assert_eq!(
        lp(LpDrop::ReassemblyFull),
        full,
        "room again after the timeout"
    );
    still_serves(&fwd, "fragment-storm");
}

/// Sends an Interest for `name` from `udp` and waits (up to 5 s) for its Data.
fn udp_fetch(udp: &UdpSocket, target: &str, name: &str) {
    let name = Name::from_uri(name).unwrap();
    let i = Interest::builder(name.clone())
        .nonce(rand::random())
        .lifetime(Duration::from_secs(4))
        .build();
    udp.send_to(&i, target).unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = vec![0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let Ok(n) = udp.recv(&mut buf) else { continue };
        let data = match Packet::decode(Bytes::copy_from_slice(&buf[..n])) {
            Ok(Packet::Data(d)) => d,
            Ok(Packet::Lp(lp)) => match lp.fragment().map(Data::decode) {
                Some(Ok(d)) => d,
                _ => continue,
            },
            _ => continue,
        };
        if data.name() == &name {
            return;
        }
    }
    panic!("no Data for {name} on the UDP face within 5 s");
}

/// Random management Interests: `/localhost/nfd/<module>/<verb>/<random>` with
/// random parameters, signed-looking or not.
fn management_flood(n: usize) {
    let fwd = Fwd::start();
    let _p = producer(&fwd);
    let mut r = rng(3);
    let mut s = UnixStream::connect(&fwd.socket).unwrap();
    // the answers are not read: the face's bounded send queue drops what does not fit
    let modules = [
        "faces",
        "fib",
        "rib",
        "cs",
        "strategy-choice",
        "status",
        "x",
    ];
    let verbs = [
        "create",
        "update",
        "destroy",
        "add-nexthop",
        "register",
        "set",
        "list",
        "config",
        "erase",
        "unset",
        "query",
        "general",
        "y",
    ];
    let start = Instant::now();
    let mut buf = Vec::with_capacity(1 << 16);
    for k in 0..n {
        let mut name = Name::from_uri("/localhost/nfd").unwrap();
        name = name.append_generic(modules[r.gen_range(0..modules.len())].as_bytes());
        name = name.append_generic(verbs[r.gen_range(0..verbs.len())].as_bytes());
        for _ in 0..r.gen_range(0..4) {
            name = name.append_generic(&random_bytes(&mut r, 24));
        }
        let i = Interest::builder(name)
            .nonce(k as u32)
            .lifetime(Duration::from_millis(100))
            .build();
        buf.extend_from_slice(&i);
        if buf.len() > 60_000 {
            s.write_all(&buf).unwrap();
            buf.clear();
        }
    }
    s.write_all(&buf).unwrap();
    drop(s);
    still_serves(&fwd, "management-flood");
    eprintln!(
        "{n} random management Interests sent in {:.2} s; the forwarder still serves",
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn random_management_interests() {
    let n = std::env::var("NDNLAB_HOSTILE_MGMT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    management_flood(n);
}

/// The full figure of docs/RELIABILITY.md (`cargo test --release -p ndnlab-fwd
/// --test hostile_input -- --ignored`).
#[test]
#[ignore]
fn hostile_management_100k() {
    management_flood(100_000);
}

fn wait_for(mut ok: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A minimal WebSocket client over a std socket: the handshake, masked binary frames.
fn ws_connect(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut resp = Vec::new();
    let mut b = [0u8; 1];
    while !resp.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut b).expect("handshake response");
        resp.push(b[0]);
    }
    let text = String::from_utf8_lossy(&resp);
    assert!(text.starts_with("HTTP/1.1 101"), "{text}");
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    s
}

fn ws_send(s: &mut TcpStream, payload: &[u8]) {
    let mut f = vec![0x82u8];
    let n = payload.len();
    if n < 126 {
        f.push(0x80 | n as u8);
    } else {
        f.push(0x80 | 126);
        f.extend_from_slice(&(n as u16).to_be_bytes());
    }
    let mask = [0x12, 0x34, 0x56, 0x78];
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&f).unwrap();
}
