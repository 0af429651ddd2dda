//! A minimal load generator for the forwarder: a consumer keeping a window of
//! Interests in flight and a producer answering them, over a Unix socket, UDP, or an
//! in-process app face. Packets move in bursts (one `write` for many Interests or
//! Data; large `read`s), so the generator itself is not the first bottleneck.
//! Every Data is a real packet: name = the Interest's name, DigestSha256 signature.

use std::io::Write;
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_wire::{Data, Interest, LpPacket, Name, Packet};

use crate::face::framing::next_frame;
use crate::face::mmsg;

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
    let Some((data, token)) = answer_data(wire, content) else {
        return false;
    };
    match token {
        None => out.extend_from_slice(&data),
        Some(t) => out.extend_from_slice(&LpPacket::builder().pit_token(t).fragment(data).build()),
    }
    true
}

/// Like [`answer`], but appends the reply to `out` as buffers for `writev`: the
/// signed Data is not copied again; an LpPacket header carrying the PIT token, if
/// one is needed, is written into `hdr` and goes in front of it.
pub fn answer_segments(
    wire: Bytes,
    content: &Bytes,
    hdr: &mut BytesMut,
    out: &mut Vec<Bytes>,
) -> bool {
    let Some((data, token)) = answer_data(wire, content) else {
        return false;
    };
    if let Some(t) = token {
        use ndnlab_wire::tlv::{self, types as ty};
        let inner = tlv::tlv_len(ty::PIT_TOKEN, t.len()) + tlv::tlv_len(ty::FRAGMENT, data.len());
        tlv::put_header(hdr, ty::LP_PACKET, inner);
        tlv::put_tlv(hdr, ty::PIT_TOKEN, &t);
        tlv::put_header(hdr, ty::FRAGMENT, data.len());
        out.push(hdr.split().freeze());
    }
    out.push(data);
    true
}

/// The signed Data for an Interest (bare or in an LpPacket), and the PIT token to echo.
fn answer_data(wire: Bytes, content: &Bytes) -> Option<(Bytes, Option<Bytes>)> {
    let (interest, token) = match Packet::decode(wire) {
        Ok(Packet::Interest(i)) => (i, None),
        Ok(Packet::Lp(lp)) if lp.nack().is_none() => {
            let i = lp.fragment().and_then(|f| Interest::decode(f).ok())?;
            (i, lp.pit_token_bytes())
        }
        _ => return None,
    };
    let data = Data::builder(interest.name().clone())
        .content(content.clone())
        .freshness_ms(0)
        .sign_digest();
    Some((data, token))
}

/// Reads what the stream has into the spare capacity of `buf` (at least `min`
/// bytes of room), without zeroing or copying: one `read(2)`.
fn read_into(s: &UnixStream, buf: &mut BytesMut, min: usize) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    buf.reserve(min);
    let spare = buf.spare_capacity_mut();
    // SAFETY: the kernel writes at most `spare.len()` bytes into the buffer's spare
    // capacity, which stays allocated (and unaliased) for the call.
    let n = unsafe { libc::read(s.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let n = n as usize;
    // SAFETY: the first `n` bytes of the spare capacity were just written by read(2).
    unsafe { buf.set_len(buf.len() + n) };
    Ok(n)
}

/// Writes every buffer with `writev`, resuming after short writes.
fn write_all_segments(s: &mut UnixStream, segs: &mut Vec<Bytes>) -> std::io::Result<()> {
    let mut first = 0;
    while first < segs.len() {
        let slices: Vec<std::io::IoSlice<'_>> = segs[first..]
            .iter()
            .take(512)
            .map(|b| std::io::IoSlice::new(b))
            .collect();
        let r = s.write_vectored(&slices);
        drop(slices);
        let mut n = match r {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) => return Err(e),
        };
        while n > 0 {
            let len = segs[first].len();
            if n >= len {
                n -= len;
                first += 1;
            } else {
                bytes::Buf::advance(&mut segs[first], n);
                n = 0;
            }
        }
    }
    segs.clear();
    Ok(())
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
    let mut hdr = BytesMut::with_capacity(64 << 10);
    let mut out: Vec<Bytes> = Vec::with_capacity(1024);
    let mut served = 0;
    while !stop.load(Relaxed) {
        match read_into(&s, &mut inb, 256 << 10) {
            Ok(0) => break,
            Ok(_) => {}
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
            if hdr.capacity() - hdr.len() < 128 {
                hdr = BytesMut::with_capacity(64 << 10);
            }
            served += answer_segments(f, &content, &mut hdr, &mut out) as u64;
        }
        write_all_segments(&mut s, &mut out)?;
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
    let mut last_progress = Instant::now();
    while !stop.load(Relaxed) {
        match read_into(&s, &mut inb, 1 << 20) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
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

/// Waits until a UDP socket has datagrams (or `timeout` passes); one received
/// burst of up to [`mmsg::BATCH`] datagrams, copied out as `Bytes`.
fn recv_udp_burst(
    s: &UdpSocket,
    bufs: &mut mmsg::RecvBufs,
    got: &mut Vec<(usize, SocketAddr)>,
    timeout: Duration,
    out: &mut Vec<Bytes>,
) -> std::io::Result<()> {
    out.clear();
    if !mmsg::wait(s, libc::POLLIN, timeout)? {
        return Ok(());
    }
    match mmsg::recv_batch(s, bufs, got) {
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Ok(())
        }
        Err(e) => return Err(e),
    }
    out.extend(
        got.iter()
            .enumerate()
            .flat_map(|(i, &(n, _))| bufs.datagrams(i, n).map(Bytes::copy_from_slice)),
    );
    Ok(())
}

/// Sends every datagram of `dgrams` (`sendmmsg`, and GSO for runs of equal-size
/// ones), waiting when the socket buffer is full (a refused datagram is dropped:
/// the forwarder is not up yet).
fn send_udp_all(s: &UdpSocket, to: SocketAddr, dgrams: &[Bytes]) -> std::io::Result<()> {
    static GSO: AtomicBool = AtomicBool::new(true);
    let mut off = 0;
    while off < dgrams.len() {
        match mmsg::send_some(s, to, &dgrams[off..], &GSO) {
            Ok(k) => off += k.max(1),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                mmsg::wait(s, libc::POLLOUT, Duration::from_millis(100))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => off += 1,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Producer on a UDP socket connected to the forwarder: `recvmmsg` a burst of
/// Interests, `sendmmsg` the burst of Data.
pub fn produce_udp(s: UdpSocket, content: Bytes, stop: Arc<AtomicBool>) -> std::io::Result<u64> {
    s.set_nonblocking(true)?;
    let fwd = s.peer_addr()?;
    let mut bufs = mmsg::RecvBufs::new(mmsg::BATCH, 65536);
    let mut got = Vec::with_capacity(mmsg::BATCH);
    let mut inb = Vec::with_capacity(mmsg::BATCH);
    let mut replies = Vec::with_capacity(mmsg::BATCH);
    let mut out = BytesMut::with_capacity(1 << 20);
    let mut served = 0;
    while !stop.load(Relaxed) {
        recv_udp_burst(
            &s,
            &mut bufs,
            &mut got,
            Duration::from_millis(100),
            &mut inb,
        )?;
        replies.clear();
        for p in inb.drain(..) {
            if answer(p, &content, &mut out) {
                served += 1;
                replies.push(out.split().freeze());
            }
        }
        send_udp_all(&s, fwd, &replies)?;
    }
    Ok(served)
}

/// Consumer on a UDP socket connected to the forwarder: keeps `window` Interests in
/// flight, receiving and sending bursts with `recvmmsg`/`sendmmsg`.
pub fn consume_udp(
    s: UdpSocket,
    prefix: Name,
    window: usize,
    c: Arc<LoadCounters>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    s.set_nonblocking(true)?;
    let fwd = s.peer_addr()?;
    let run = std::process::id() as u64 ^ 0x55;
    let mut next = 0u64;
    let mut out: Vec<Bytes> = (0..window as u64)
        .map(|n| interest(&prefix, run, n))
        .collect();
    next += window as u64;
    send_udp_all(&s, fwd, &out)?;
    c.interests.fetch_add(window as u64, Relaxed);
    let mut bufs = mmsg::RecvBufs::new(mmsg::BATCH, 65536);
    let mut got = Vec::with_capacity(mmsg::BATCH);
    let mut inb = Vec::with_capacity(mmsg::BATCH);
    let mut last_progress = Instant::now();
    while !stop.load(Relaxed) {
        recv_udp_burst(
            &s,
            &mut bufs,
            &mut got,
            Duration::from_millis(200),
            &mut inb,
        )?;
        let done = inb
            .drain(..)
            .map(|p| classify(p, &c))
            .filter(|ok| *ok)
            .count();
        let refill = if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
            window
        } else {
            done
        };
        if refill == 0 {
            continue;
        }
        last_progress = Instant::now();
        out.clear();
        out.extend((next..next + refill as u64).map(|n| interest(&prefix, run, n)));
        next += refill as u64;
        send_udp_all(&s, fwd, &out)?;
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
    mmsg::enable_gro(&s);
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

/// Runs `f` on a dedicated thread with its own single-threaded tokio runtime (for
/// the app faces' async receive), so the load generator's consumer and producer
/// do not share the forwarder's I/O threads.
fn dedicated<F, Fut>(name: &str, f: F) -> std::thread::JoinHandle<()>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
            {
                Ok(rt) => rt.block_on(f()),
                Err(e) => tracing::error!(error = %e, "load generator thread: no runtime"),
            }
        })
        .expect("spawn a load generator thread")
}

/// In-process run: one forwarder, consumer and producer on app faces (no sockets),
/// each on its own thread. With one forwarding shard running inline, the consumer's
/// thread runs the Interests through the forwarder and the producer's thread the
/// Data: this is the forwarder's own ceiling, without socket I/O.
pub async fn run_inproc(
    daemon: &crate::Daemon,
    payload: usize,
    window: usize,
    warmup: Duration,
    duration: Duration,
) -> (Measured, Vec<(String, f64)>) {
    let prefix = Name::from_uri("/ndnlab/bench").expect("literal");
    let content = Bytes::from(vec![0xA5u8; payload]);
    let mut prod = daemon.app_face("bench-producer");
    daemon.register_route(&prefix, prod.id(), 0).await;
    let mut cons = daemon.app_face("bench-consumer");
    let counters = Arc::new(LoadCounters::default());
    let stop = Arc::new(AtomicBool::new(false));
    let (s1, s2) = (stop.clone(), stop.clone());
    let tick = Duration::from_millis(100);
    let producer = dedicated("bench-producer", move || async move {
        let mut out = BytesMut::new();
        while !s1.load(Relaxed) {
            let burst = match tokio::time::timeout(tick, prod.recv_burst()).await {
                Ok(Some(b)) => b,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut replies = Vec::with_capacity(burst.len());
            for p in burst {
                if answer(p, &content, &mut out) {
                    replies.push(out.split().freeze());
                }
            }
            prod.send_burst(replies);
        }
    });
    let c2 = counters.clone();
    let consumer = dedicated("bench-consumer", move || async move {
        let run = 7u64;
        let mut next = 0u64;
        let first: Vec<Bytes> = (0..window as u64)
            .map(|n| interest(&prefix, run, n))
            .collect();
        next += window as u64;
        cons.send_burst(first);
        let mut last_progress = Instant::now();
        while !s2.load(Relaxed) {
            let burst = match tokio::time::timeout(tick, cons.recv_burst()).await {
                Ok(Some(b)) => b,
                Ok(None) => break,
                Err(_) => Vec::new(),
            };
            let mut done = burst
                .into_iter()
                .map(|p| classify(p, &c2))
                .filter(|ok| *ok)
                .count();
            if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
                done = window; // lost Interests: refill
            }
            if done == 0 {
                continue;
            }
            last_progress = Instant::now();
            let more: Vec<Bytes> = (next..next + done as u64)
                .map(|n| interest(&prefix, run, n))
                .collect();
            next += done as u64;
            c2.interests.fetch_add(done as u64, Relaxed);
            cons.send_burst(more);
        }
    });
    let c3 = counters.clone();
    // CPU seconds per thread name over the measured interval.
    let (m, cpu) = tokio::task::spawn_blocking(move || {
        std::thread::sleep(warmup);
        let t0 = thread_cpu_seconds();
        let m = measure(&c3, Duration::ZERO, duration);
        let t1 = thread_cpu_seconds();
        let cpu = t1
            .into_iter()
            .map(|(name, c1)| {
                let c0 = t0.iter().find(|(n, _)| *n == name).map_or(0.0, |(_, c)| *c);
                (name, c1 - c0)
            })
            .collect::<Vec<_>>();
        (m, cpu)
    })
    .await
    .expect("measure");
    stop.store(true, Relaxed);
    let _ = tokio::task::spawn_blocking(move || {
        let _ = consumer.join();
        let _ = producer.join();
    })
    .await;
    (m, cpu)
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

/// CPU time (user + system, seconds) of every thread of this process, summed by
/// thread name, from /proc/self/task (for the in-process CPU split).
pub fn thread_cpu_seconds() -> Vec<(String, f64)> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut by_name: Vec<(String, f64)> = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return by_name;
    };
    for t in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let f: Vec<&str> = stat[close + 2..].split_whitespace().collect();
        let cpu = match (
            f.get(11).and_then(|x| x.parse::<f64>().ok()),
            f.get(12).and_then(|x| x.parse::<f64>().ok()),
        ) {
            (Some(u), Some(s)) => (u + s) / hz,
            _ => continue,
        };
        match by_name.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += cpu,
            None => by_name.push((name, cpu)),
        }
    }
    by_name.sort_by(|a, b| a.0.cmp(&b.0));
    by_name
}
