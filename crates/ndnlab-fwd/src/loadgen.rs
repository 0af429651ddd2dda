//! A minimal load generator for the forwarder: a consumer keeping a window of
//! Interests in flight and a producer answering them, over a Unix socket, UDP, or an
//! in-process app face. Packets move in bursts (one `write` for many Interests or
//! Data; large `read`s), so the generator itself is not the first bottleneck.
//! Every Data is a real packet: name = the Interest's name, DigestSha256 signature.

use std::io::{Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_wire::{Data, Interest, LpPacket, Name, Packet};

use crate::face::framing::next_frame;

/// Counters shared by the consumer and the harness.
#[derive(Debug, Default)]
pub struct LoadCounters {
    pub exchanges: AtomicU64,
    pub payload_bytes: AtomicU64,
    pub nacks: AtomicU64,
    pub interests: AtomicU64,
}

/// Builds the Data answering `wire` (an Interest, possibly in an LpPacket with a PIT token).
pub fn answer(wire: Bytes, content: &Bytes, out: &mut BytesMut) -> bool {
    let (interest, token) = match Packet::decode(wire) {
        Ok(Packet::Interest(i)) => (i, None),
        Ok(Packet::Lp(lp)) if lp.nack().is_none() => {
            let Some(i) = lp.fragment().and_then(|f| Interest::decode(f).ok()) else {
                return false;
            };
            (i, lp.pit_token_bytes())
        }
        _ => return false,
    };
    let data = Data::builder(interest.name().clone())
        .content(content.clone())
        .freshness_ms(0)
        .sign_digest();
    match token {
        None => out.extend_from_slice(&data),
        Some(t) => out.extend_from_slice(&LpPacket::builder().pit_token(t).fragment(data).build()),
    }
    true
}

/// The n-th Interest of a run under `prefix`.
pub fn interest(prefix: &Name, run: u64, n: u64) -> Bytes {
    let mut b = Name::builder();
    b.extend_name(prefix)
        .push_generic(&run.to_be_bytes())
        .push_sequence(n);
    Interest::builder(b.build())
        .nonce((n as u32) ^ (run as u32).rotate_left(16))
        .lifetime_ms(2000)
        .build()
}

fn classify(wire: Bytes, c: &LoadCounters) -> bool {
    match Packet::decode(wire) {
        Ok(Packet::Data(d)) => {
            c.exchanges.fetch_add(1, Relaxed);
            c.payload_bytes
                .fetch_add(d.content_slice().len() as u64, Relaxed);
            true
        }
        Ok(Packet::Lp(lp)) => {
            if lp.nack().is_some() {
                c.nacks.fetch_add(1, Relaxed);
                return true;
            }
            match lp.fragment().map(Data::decode) {
                Some(Ok(d)) => {
                    c.exchanges.fetch_add(1, Relaxed);
                    c.payload_bytes
                        .fetch_add(d.content_slice().len() as u64, Relaxed);
                    true
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Producer on a stream connection until `stop`.
pub fn produce_stream(
    mut s: UnixStream,
    content: Bytes,
    stop: Arc<AtomicBool>,
) -> std::io::Result<u64> {
    s.set_read_timeout(Some(Duration::from_millis(100)))?;
    let mut inb = BytesMut::with_capacity(1 << 20);
    let mut out = BytesMut::with_capacity(1 << 20);
    let mut chunk = vec![0u8; 1 << 20];
    let mut served = 0;
    while !stop.load(Relaxed) {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => inb.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(e) => return Err(e),
        }
        while let Ok(Some(f)) = next_frame(&mut inb) {
            served += answer(f, &content, &mut out) as u64;
        }
        if !out.is_empty() {
            s.write_all(&out)?;
            out.clear();
        }
    }
    Ok(served)
}

/// Consumer on a stream connection: keeps `window` Interests in flight until `stop`.
pub fn consume_stream(
    mut s: UnixStream,
    prefix: Name,
    window: usize,
    c: Arc<LoadCounters>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_millis(200)))?;
    let run = std::process::id() as u64 ^ (Instant::now().elapsed().as_nanos() as u64);
    let mut next = 0u64;
    let mut out = BytesMut::with_capacity(window * 64);
    for _ in 0..window {
        out.extend_from_slice(&interest(&prefix, run, next));
        next += 1;
    }
    s.write_all(&out)?;
    c.interests.fetch_add(window as u64, Relaxed);
    let mut inb = BytesMut::with_capacity(4 << 20);
    let mut chunk = vec![0u8; 4 << 20];
    let mut last_progress = Instant::now();
    while !stop.load(Relaxed) {
        let n = match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                0
            }
            Err(e) => return Err(e),
        };
        inb.extend_from_slice(&chunk[..n]);
        out.clear();
        let mut done = 0;
        while let Ok(Some(f)) = next_frame(&mut inb) {
            done += classify(f, &c) as usize;
        }
        if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
            // Interests were lost (lifetime over): refill the window.
            done = window;
        }
        if done > 0 {
            last_progress = Instant::now();
        }
        for _ in 0..done {
            out.extend_from_slice(&interest(&prefix, run, next));
            next += 1;
        }
        if !out.is_empty() {
            s.write_all(&out)?;
            c.interests.fetch_add(done as u64, Relaxed);
        }
    }
    Ok(())
}

/// Producer on a UDP socket connected to the forwarder.
pub fn produce_udp(s: UdpSocket, content: Bytes, stop: Arc<AtomicBool>) -> std::io::Result<u64> {
    s.set_read_timeout(Some(Duration::from_millis(100)))?;
    let mut buf = vec![0u8; 65536];
    let mut out = BytesMut::with_capacity(65536);
    let mut served = 0;
    while !stop.load(Relaxed) {
        let n = match s.recv(&mut buf) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
            Err(e) => return Err(e),
        };
        out.clear();
        if answer(Bytes::copy_from_slice(&buf[..n]), &content, &mut out) {
            served += 1;
            let _ = s.send(&out);
        }
    }
    Ok(served)
}

/// Consumer on a UDP socket connected to the forwarder.
pub fn consume_udp(
    s: UdpSocket,
    prefix: Name,
    window: usize,
    c: Arc<LoadCounters>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_millis(200)))?;
    let run = std::process::id() as u64 ^ 0x55;
    let mut next = 0u64;
    for _ in 0..window {
        s.send(&interest(&prefix, run, next))?;
        next += 1;
    }
    let mut buf = vec![0u8; 65536];
    let mut last_progress = Instant::now();
    while !stop.load(Relaxed) {
        let done = match s.recv(&mut buf) {
            Ok(n) => classify(Bytes::copy_from_slice(&buf[..n]), &c) as usize,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                0
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => 0,
            Err(e) => return Err(e),
        };
        let refill = if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
            window
        } else {
            done
        };
        if refill > 0 {
            last_progress = Instant::now();
        }
        for _ in 0..refill {
            let _ = s.send(&interest(&prefix, run, next));
            next += 1;
        }
        c.interests.fetch_add(refill as u64, Relaxed);
    }
    Ok(())
}

/// A UDP socket on 127.0.0.1 connected to `fwd`, with large buffers.
pub fn udp_to(fwd: SocketAddr) -> std::io::Result<UdpSocket> {
    let s = UdpSocket::bind("127.0.0.1:0")?;
    let sr = socket2::SockRef::from(&s);
    let _ = sr.set_recv_buffer_size(8 << 20);
    let _ = sr.set_send_buffer_size(8 << 20);
    s.connect(fwd)?;
    Ok(s)
}

/// Result of one measurement.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub exchanges: u64,
    pub payload_bytes: u64,
    pub nacks: u64,
    pub seconds: f64,
}

impl Measured {
    pub fn rate(&self) -> f64 {
        self.exchanges as f64 / self.seconds
    }
    pub fn gbits(&self) -> f64 {
        self.payload_bytes as f64 * 8.0 / self.seconds / 1e9
    }
}

/// Samples the counters over `duration` after `warmup`.
pub fn measure(c: &LoadCounters, warmup: Duration, duration: Duration) -> Measured {
    std::thread::sleep(warmup);
    let (e0, b0, n0) = (
        c.exchanges.load(Relaxed),
        c.payload_bytes.load(Relaxed),
        c.nacks.load(Relaxed),
    );
    let t0 = Instant::now();
    std::thread::sleep(duration);
    let secs = t0.elapsed().as_secs_f64();
    Measured {
        exchanges: c.exchanges.load(Relaxed) - e0,
        payload_bytes: c.payload_bytes.load(Relaxed) - b0,
        nacks: c.nacks.load(Relaxed) - n0,
        seconds: secs,
    }
}

/// In-process run: one forwarder, consumer and producer on app faces (no sockets).
pub async fn run_inproc(
    daemon: &crate::Daemon,
    payload: usize,
    window: usize,
    warmup: Duration,
    duration: Duration,
) -> Measured {
    let prefix = Name::from_uri("/ndnlab/bench").expect("literal");
    let content = Bytes::from(vec![0xA5u8; payload]);
    let mut prod = daemon.app_face("bench-producer");
    daemon.register_route(&prefix, prod.id(), 0).await;
    let mut cons = daemon.app_face("bench-consumer");
    let counters = Arc::new(LoadCounters::default());
    let stop = Arc::new(AtomicBool::new(false));
    let (s1, s2) = (stop.clone(), stop.clone());
    let producer = tokio::spawn(async move {
        let mut out = BytesMut::new();
        while !s1.load(Relaxed) {
            let Some(burst) = prod.recv_burst().await else {
                break;
            };
            let mut replies = Vec::with_capacity(burst.len());
            for p in burst {
                out.clear();
                if answer(p, &content, &mut out) {
                    replies.push(out.split().freeze());
                }
            }
            prod.send_burst(replies);
        }
    });
    let c2 = counters.clone();
    let consumer = tokio::spawn(async move {
        let run = 7u64;
        let mut next = 0u64;
        let first: Vec<Bytes> = (0..window as u64)
            .map(|n| interest(&prefix, run, n))
            .collect();
        next += window as u64;
        cons.send_burst(first);
        while !s2.load(Relaxed) {
            let burst =
                match tokio::time::timeout(Duration::from_millis(2500), cons.recv_burst()).await {
                    Ok(Some(b)) => b,
                    Ok(None) => break,
                    Err(_) => Vec::new(),
                };
            let mut done = burst
                .into_iter()
                .filter(|p| classify(p.clone(), &c2))
                .count();
            if done == 0 {
                done = window; // lost Interests: refill
            }
            let more: Vec<Bytes> = (next..next + done as u64)
                .map(|n| interest(&prefix, run, n))
                .collect();
            next += done as u64;
            cons.send_burst(more);
        }
    });
    let c3 = counters.clone();
    let m = tokio::task::spawn_blocking(move || measure(&c3, warmup, duration))
        .await
        .expect("measure");
    stop.store(true, Relaxed);
    consumer.abort();
    producer.abort();
    m
}

/// CPU time (user + system) of a process, in seconds, from /proc.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some((utime + stime) / hz)
}
