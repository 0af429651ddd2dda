//! A minimal load generator for the forwarder: a consumer keeping a window of
//! Interests in flight and a producer answering them, over the client library's
//! batched connection ([`BurstConn`]: Unix, TCP or UDP) or an in-process app face.
//! Packets move in bursts so the generator itself is not the first bottleneck: one
//! `writev` for many Interests or Data and large `read`s on streams;
//! `recvmmsg`/`sendmmsg` (and GSO/GRO for runs of equal-size datagrams) on UDP;
//! dedicated threads for the in-process consumer and producer. Every Data is a
//! real packet: name = the Interest's name, FreshnessPeriod 0, DigestSha256
//! signature; Interests carry MustBeFresh, so no forwarder's CS can answer them.
//! With a Data pool the consumer cycles over a fixed set of names and the producer
//! signs each name once (see [`Producer`]): the generator then measures forwarding,
//! not its own SHA-256.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_wire::{Data, Interest, Name, Packet};

use ndnlab_proto::link::BurstFace;
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};

use crate::client::burst::BurstConn;

/// Counters shared by the consumer and the harness.
#[derive(Debug, Default)]
pub struct LoadCounters {
    pub exchanges: AtomicU64,
    pub payload_bytes: AtomicU64,
    pub nacks: AtomicU64,
    pub interests: AtomicU64,
}

/// The smallest Data pool for a window: a pool smaller than the window would put
/// the same name in flight twice (the forwarder would aggregate them in its PIT).
pub fn check_pool(pool: usize, window: usize) -> Result<(), String> {
    if pool != 0 && pool < window {
        return Err(format!(
            "data pool of {pool} names is smaller than the window of {window} Interests \
             (the same name would be in flight twice); use a pool >= the window, or 0 for none"
        ));
    }
    Ok(())
}

/// The producer's side: answers each Interest with a real Data (name = the
/// Interest's name, FreshnessPeriod 0, DigestSha256 signature). With a pool of `n`
/// entries (the consumer cycles its sequence numbers modulo `n`), each distinct
/// name is signed once and later Interests for it are answered from the pool (a
/// `Vec` indexed by sequence number, no re-signing); with `n = 0` every Data is
/// built and signed afresh.
#[derive(Debug)]
pub struct Producer {
    content: Bytes,
    pool: Vec<Option<Data>>,
    /// Data built and signed so far.
    pub signed: u64,
    /// Interests answered so far.
    pub served: u64,
}

impl Producer {
    pub fn new(content: Bytes, pool: usize) -> Producer {
        Producer {
            content,
            pool: vec![None; pool],
            signed: 0,
            served: 0,
        }
    }

    /// Appends the Data answering `wire` (an Interest, possibly in an LpPacket with
    /// a PIT token, which is echoed) to `out`; false if `wire` is not an Interest.
    pub fn answer(&mut self, wire: Bytes, out: &mut BytesMut) -> bool {
        match self.answer_parts(wire, out) {
            Some(data) => {
                out.extend_from_slice(&data);
                true
            }
            None => false,
        }
    }

    /// Like [`answer`](Self::answer), but only the LpPacket header echoing the PIT
    /// token (if any) is appended to `header`; the Data itself is returned (shared
    /// with the pool, not copied) for the caller to write right after the header.
    pub fn answer_parts(&mut self, wire: Bytes, header: &mut BytesMut) -> Option<Bytes> {
        let (interest, token) = match Packet::decode(wire) {
            Ok(Packet::Interest(i)) => (i, None),
            Ok(Packet::Lp(lp)) if lp.nack().is_none() => {
                let i = lp.fragment().and_then(|f| Interest::decode(f).ok())?;
                (i, lp.pit_token_bytes())
            }
            _ => return None,
        };
        let data = self.data(&interest);
        if token.is_some() {
            let fields = LpFields {
                pit_token: token,
                ..Default::default()
            };
            LinkSender::new(None, 0).encode_stream_header(&fields, data.len(), header);
        }
        Some(data)
    }

    /// The Data answering `interest` (from the pool when it holds the name), counted
    /// as served.
    pub fn data(&mut self, interest: &Interest) -> Bytes {
        self.served += 1;
        self.data_for(interest)
    }

    fn data_for(&mut self, interest: &Interest) -> Bytes {
        let name = interest.name();
        let slot = name
            .last()
            .and_then(|c| c.as_sequence_num())
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < self.pool.len());
        if let Some(Some(d)) = slot.map(|n| &self.pool[n]) {
            // Same slot, same name (another run's consumer gets its own Data).
            if d.name() == name {
                return d.wire().clone();
            }
        }
        let wire = Data::builder(name.clone())
            .content(self.content.clone())
            .freshness_ms(0)
            .sign_digest();
        self.signed += 1;
        if let Some(n) = slot {
            self.pool[n] = Data::decode(wire.clone()).ok();
        }
        wire
    }
}

/// The n-th Interest of a run under `prefix` (MustBeFresh, so a forwarder's CS,
/// which holds the Data with FreshnessPeriod 0, can never answer it).
pub fn interest(prefix: &Name, run: u64, n: u64) -> Bytes {
    interest_seq(prefix, run, n, (n as u32) ^ (run as u32).rotate_left(16))
}

fn interest_seq(prefix: &Name, run: u64, seq: u64, nonce: u32) -> Bytes {
    let mut b = Name::builder();
    b.extend_name(prefix)
        .push_generic(&run.to_be_bytes())
        .push_sequence(seq);
    Interest::builder(b.build())
        .must_be_fresh(true)
        .nonce(nonce)
        .lifetime_ms(2000)
        .build()
}

/// The consumer's Interest names: sequence numbers counting up, modulo `cycle`
/// when a Data pool is used (0 = never wrap); the nonce follows the unwrapped count.
#[derive(Debug, Clone)]
pub struct Sequence {
    prefix: Name,
    run: u64,
    next: u64,
    cycle: u64,
}

impl Sequence {
    pub fn new(prefix: Name, run: u64, cycle: usize) -> Sequence {
        Sequence {
            prefix,
            run,
            next: 0,
            cycle: cycle as u64,
        }
    }

    /// The next Interest.
    pub fn next_interest(&mut self) -> Bytes {
        let n = self.next;
        self.next += 1;
        let seq = if self.cycle == 0 { n } else { n % self.cycle };
        interest_seq(
            &self.prefix,
            self.run,
            seq,
            (n as u32) ^ (self.run as u32).rotate_left(16),
        )
    }
}

/// Counts one packet the consumer received; true when it ends an exchange (a
/// Data, or a Nack).
fn classify(fields: &LpFields, pkt: Bytes, c: &LoadCounters) -> bool {
    if fields.nack.is_some() {
        c.nacks.fetch_add(1, Relaxed);
        return true;
    }
    match Data::decode(pkt) {
        Ok(d) => {
            c.exchanges.fetch_add(1, Relaxed);
            c.payload_bytes
                .fetch_add(d.content_slice().len() as u64, Relaxed);
            true
        }
        Err(_) => false,
    }
}

/// A packet through the in-process consumer's link service, then counted.
fn classify_wire(link: &mut LinkReceiver, wire: Bytes, c: &LoadCounters) -> bool {
    match link.receive(0, wire) {
        Ok(Some((fields, pkt))) => classify(&fields, pkt, c),
        _ => false,
    }
}

fn bad_pool(pool: usize, window: usize) -> std::io::Result<()> {
    check_pool(pool, window).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

/// Producer on a batched connection (its prefix registered toward it, or a route
/// set to its face) until `stop`: each read's Interests answered with one write.
pub fn produce(
    mut conn: BurstConn,
    mut producer: Producer,
    stop: Arc<AtomicBool>,
) -> std::io::Result<Producer> {
    let mut answers: Vec<(Option<Bytes>, Bytes)> = Vec::with_capacity(1024);
    while !stop.load(Relaxed) {
        conn.poll(Duration::from_millis(100), |fields, pkt| {
            if fields.nack.is_some() {
                return;
            }
            if let Ok(i) = Interest::decode(pkt) {
                answers.push((fields.pit_token, producer.data(&i)));
            }
        })?;
        for (token, data) in answers.drain(..) {
            conn.push_with_token(&data, token.as_deref());
        }
        conn.flush()?;
    }
    Ok(producer)
}

/// Consumer on a batched connection: keeps `window` Interests in flight until
/// `stop`, sending a fresh one for each Data or Nack of a read with one write.
pub fn consume(
    mut conn: BurstConn,
    prefix: Name,
    window: usize,
    pool: usize,
    c: Arc<LoadCounters>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    bad_pool(pool, window)?;
    let mut seq = Sequence::new(prefix, std::process::id() as u64, pool);
    for _ in 0..window {
        conn.push_raw(&seq.next_interest());
    }
    conn.flush()?;
    c.interests.fetch_add(window as u64, Relaxed);
    let mut last_progress = Instant::now();
    while !stop.load(Relaxed) {
        let mut done = 0;
        conn.poll(Duration::from_millis(200), |fields, pkt| {
            done += classify(&fields, pkt, &c) as usize;
        })?;
        if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
            // Interests were lost (lifetime over): refill the window.
            done = window;
        }
        if done == 0 {
            continue;
        }
        last_progress = Instant::now();
        for _ in 0..done {
            conn.push_raw(&seq.next_interest());
        }
        conn.flush()?;
        c.interests.fetch_add(done as u64, Relaxed);
    }
    Ok(())
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

/// The prefix [`run_inproc`] requests; route it to the producer's face first.
pub const INPROC_PREFIX: &str = "/ndnlab/bench";

/// In-process run: one forwarder, consumer and producer on app faces (no sockets),
/// each on its own thread. With one forwarding shard running inline, the consumer's
/// thread runs the Interests through the forwarder and the producer's thread the
/// Data: this is the forwarder's own ceiling, without socket I/O.
pub async fn run_inproc<F: BurstFace>(
    mut prod: F,
    mut cons: F,
    payload: usize,
    window: usize,
    pool: usize,
    warmup: Duration,
    duration: Duration,
) -> (Measured, Vec<(String, f64)>) {
    let prefix = Name::from_uri(INPROC_PREFIX).expect("literal");
    let content = Bytes::from(vec![0xA5u8; payload]);
    // The pool must cover the window (checked by the caller too).
    let pool = if pool == 0 { 0 } else { pool.max(window) };
    let counters = Arc::new(LoadCounters::default());
    let stop = Arc::new(AtomicBool::new(false));
    let (s1, s2) = (stop.clone(), stop.clone());
    let tick = Duration::from_millis(100);
    let producer = dedicated("bench-producer", move || async move {
        let mut producer = Producer::new(content, pool);
        let mut out = BytesMut::new();
        while !s1.load(Relaxed) {
            let burst = match tokio::time::timeout(tick, prod.recv_burst()).await {
                Ok(Some(b)) => b,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut replies = Vec::with_capacity(burst.len());
            for p in burst {
                if producer.answer(p, &mut out) {
                    replies.push(out.split().freeze());
                }
            }
            prod.send_burst(replies);
        }
    });
    let c2 = counters.clone();
    let consumer = dedicated("bench-consumer", move || async move {
        let mut seq = Sequence::new(prefix, 7, pool);
        let mut link = LinkReceiver::new();
        let first: Vec<Bytes> = (0..window).map(|_| seq.next_interest()).collect();
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
                .map(|p| classify_wire(&mut link, p, &c2))
                .filter(|ok| *ok)
                .count();
            if done == 0 && last_progress.elapsed() > Duration::from_millis(2500) {
                done = window; // lost Interests: refill
            }
            if done == 0 {
                continue;
            }
            last_progress = Instant::now();
            let more: Vec<Bytes> = (0..done).map(|_| seq.next_interest()).collect();
            c2.interests.fetch_add(done as u64, Relaxed);
            cons.send_burst(more);
        }
    });
    let c3 = counters.clone();
    // CPU seconds per thread name over the measured interval.
    let (m, cpu) = tokio::task::spawn_blocking(move || {
        std::thread::sleep(warmup);
        let t0 = ndnlab_cputime::seconds_by_thread_name();
        let m = measure(&c3, Duration::ZERO, duration);
        let t1 = ndnlab_cputime::seconds_by_thread_name();
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

#[cfg(test)]
mod tests {
    use super::*;
    use ndnlab_wire::DigestSha256;

    fn data_of(out: &mut BytesMut) -> Data {
        Data::decode(out.split().freeze()).unwrap()
    }

    #[test]
    fn pool_signs_each_name_once_and_checks_the_name() {
        let prefix = Name::from_uri("/p").unwrap();
        let mut p = Producer::new(Bytes::from_static(b"hello"), 4);
        let mut seq = Sequence::new(prefix.clone(), 1, 4);
        let mut out = BytesMut::new();
        let mut first = Vec::new();
        for _ in 0..4 {
            assert!(p.answer(seq.next_interest(), &mut out));
            first.push(data_of(&mut out));
        }
        // The second cycle: same names, new nonces, the same Data bytes.
        for d in &first {
            let i = seq.next_interest();
            let int = Interest::decode(i.clone()).unwrap();
            assert!(int.must_be_fresh());
            assert_eq!(int.name(), d.name());
            assert!(p.answer(i, &mut out));
            assert_eq!(data_of(&mut out).wire(), d.wire());
        }
        assert_eq!((p.signed, p.served), (4, 8));
        let d = &first[0];
        assert_eq!(d.freshness_period(), Some(Duration::ZERO));
        assert!(DigestSha256::verify(
            d.signed_portion(),
            d.signature_value()
        ));
        // Another run's name in the same slot gets its own Data.
        let other = Sequence::new(prefix, 2, 4).next_interest();
        assert!(p.answer(other.clone(), &mut out));
        assert_eq!(
            data_of(&mut out).name(),
            Interest::decode(other).unwrap().name()
        );
        assert_eq!(p.signed, 5);
    }

    #[test]
    fn without_pool_every_data_is_signed() {
        let mut p = Producer::new(Bytes::from_static(b"x"), 0);
        let i = interest(&Name::from_uri("/p").unwrap(), 1, 0);
        let mut out = BytesMut::new();
        assert!(p.answer(i.clone(), &mut out));
        assert!(p.answer(i, &mut out));
        assert_eq!(p.signed, 2);
        assert!(!p.answer(Bytes::from_static(b"\x06\x00"), &mut out));
    }
}
