//! The applications of the `inproc` runner: consumers and producers that move
//! whole bursts of packets straight over their forwarder's app face, each on a
//! thread of its own (as `ndnlab bench fwd --transport inproc` does, rather than
//! one client-library task per Interest), so the laboratory's own cost stays
//! small next to the forwarders it measures.
//!
//! A consumer requests names `<prefix>/<pad...>/c<i>` (padded to the declared
//! number of name components), `i` drawn uniformly or by Zipf popularity over the
//! catalogue, either keeping a window of Interests in flight or at a Poisson or
//! constant rate. It records, for the Interests sent inside the measurement
//! window, what came back (Data, Nack, nothing within the lifetime) and how long
//! it took. A producer answers every Interest under its prefix with Data of the
//! declared payload, freshness and signature, echoing the PIT token.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use hdrhistogram::Histogram;
use ndnlab_app::tools::signing::{make_identity, SignKind};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};
use ndnlab_wire::{Data, Interest, Name, Packet};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Zipf};

use crate::experiment::AppSpec;

/// Most delivery-time samples a consumer keeps as raw samples per run.
pub const MAX_SAMPLES: usize = 50_000;

/// What a consumer saw inside the measurement window.
#[derive(Debug)]
pub struct ConsumerStats {
    pub interests: u64,
    pub data: u64,
    pub nacks: u64,
    pub timeouts: u64,
    /// Content bytes of the Data received.
    pub bytes: u64,
    /// Delivery times in microseconds.
    pub delay_us: Histogram<u64>,
    /// (seconds since the window opened, delivery time in µs), up to
    /// [`MAX_SAMPLES`].
    pub samples: Vec<(f64, u64)>,
    /// With a count: seconds from the window's opening to the last answer.
    pub finished_s: Option<f64>,
}

impl Default for ConsumerStats {
    fn default() -> Self {
        ConsumerStats {
            interests: 0,
            data: 0,
            nacks: 0,
            timeouts: 0,
            bytes: 0,
            delay_us: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
            samples: Vec::new(),
            finished_s: None,
        }
    }
}

/// The names a consumer asks for.
pub struct Names {
    prefix: Name,
    pad: usize,
    zipf: Option<Zipf<f64>>,
    catalogue: u64,
}

impl Names {
    pub fn new(spec: &AppSpec) -> Names {
        let prefix = Name::from_uri(&spec.prefix).expect("validated prefix");
        let pad = spec.name_components.saturating_sub(prefix.len() + 1);
        let zipf = (spec.zipf > 0.0)
            .then(|| Zipf::new(spec.catalogue, spec.zipf).expect("validated catalogue and s"));
        Names {
            prefix,
            pad,
            zipf,
            catalogue: spec.catalogue,
        }
    }

    pub fn pick(&self, rng: &mut StdRng) -> Name {
        let i = match &self.zipf {
            Some(z) => z.sample(rng) as u64 - 1,
            None => rng.gen_range(0..self.catalogue),
        };
        let mut b = Name::builder();
        b.extend_name(&self.prefix);
        for k in 0..self.pad {
            b.push_generic(format!("p{k}").as_bytes());
        }
        b.push_generic(format!("c{i}").as_bytes());
        b.build()
    }
}

/// How often a consumer looks for Interests past their lifetime.
const SWEEP: Duration = Duration::from_millis(50);

/// The measurement window on the monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub open: Instant,
    pub close: Instant,
}

/// Runs `f` on a thread of its own with a single-threaded runtime.
pub fn dedicated<F, Fut>(name: &str, f: F) -> std::thread::JoinHandle<()>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a single-threaded runtime");
            rt.block_on(f())
        })
        .expect("spawn an application thread")
}

/// A consumer over `face` until the window closes and its last answers are in.
pub async fn consume(
    mut face: AppFace,
    spec: AppSpec,
    seed: u64,
    span: Span,
    stats: Arc<Mutex<ConsumerStats>>,
) {
    let names = Names::new(&spec);
    let mut rng = StdRng::seed_from_u64(seed);
    let lifetime = Duration::from_millis(spec.lifetime_ms);
    let mut link = LinkReceiver::new();
    // name TLV -> send times of the Interests in flight for it
    let mut inflight: HashMap<Name, Vec<Instant>> = HashMap::new();
    let mut pending = 0usize;
    let mut local = ConsumerStats::default();
    let window = spec.window.max(1);
    let rate = (spec.pattern != "window").then(|| (spec.pattern.clone(), spec.rate));
    let exp = Exp::new(spec.rate.max(1e-9)).expect("positive rate");
    // With a count, the consumer starts when the window opens and stops after
    // `count` Interests (seed 001's content download time).
    let count = (spec.count > 0).then_some(spec.count);
    if count.is_some() {
        tokio::time::sleep_until(span.open.into()).await;
    }
    let mut sent_total = 0u64;
    let mut next_send = Instant::now();
    let mut last_sweep = Instant::now();
    let mut nonce: u32 = rng.gen();
    let mut express = |n: usize, inflight: &mut HashMap<Name, Vec<Instant>>, rng: &mut StdRng| {
        let now = Instant::now();
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let name = names.pick(rng);
            let key = name.clone();
            nonce = nonce.wrapping_add(0x9E37_79B9);
            let mut b = Interest::builder(name.clone())
                .nonce(nonce)
                .lifetime(lifetime);
            if spec.must_be_fresh {
                b = b.must_be_fresh(true);
            }
            out.push(b.build());
            inflight.entry(key).or_default().push(now);
        }
        out
    };
    loop {
        let now = Instant::now();
        let all_sent = count.is_some_and(|c| sent_total >= c);
        if all_sent && pending == 0 {
            local.finished_s = Some(now.duration_since(span.open).as_secs_f64());
            break;
        }
        if now >= span.close && (pending == 0 || now >= span.close + lifetime) {
            break;
        }
        // What to send now.
        let mut burst = Vec::new();
        let room = count.map_or(usize::MAX, |c| (c - sent_total) as usize);
        if now < span.close && room > 0 {
            match &rate {
                None => {
                    if pending < window {
                        let n = (window - pending).min(room);
                        burst = express(n, &mut inflight, &mut rng);
                    }
                }
                Some((pattern, r)) => {
                    let mut n = 0;
                    while next_send <= now && n < 4096 {
                        n += 1;
                        let gap = if pattern == "poisson" {
                            exp.sample(&mut rng)
                        } else {
                            1.0 / r
                        };
                        next_send += Duration::from_secs_f64(gap);
                    }
                    if n > 0 {
                        burst = express(n.min(room), &mut inflight, &mut rng);
                    }
                }
            }
        }
        if !burst.is_empty() {
            pending += burst.len();
            sent_total += burst.len() as u64;
            face.send_burst(burst);
        }
        let wait = match &rate {
            Some(_) if now < span.close => next_send.saturating_duration_since(Instant::now()),
            _ => SWEEP,
        }
        .min(SWEEP);
        let got = match tokio::time::timeout(wait.max(Duration::from_micros(50)), face.recv_burst())
            .await
        {
            Ok(Some(b)) => b,
            Ok(None) => break,
            Err(_) => Vec::new(),
        };
        let now = Instant::now();
        for wire in got {
            let Ok(Some((fields, pkt))) = link.receive(0, wire) else {
                continue;
            };
            // Some(content bytes) for a Data, None for a Nack.
            let (name, answer) = match Packet::decode(pkt) {
                Ok(Packet::Data(d)) if fields.nack.is_none() => {
                    (d.name().clone(), Some(d.content().len()))
                }
                Ok(Packet::Interest(i)) if fields.nack.is_some() => (i.name().clone(), None),
                _ => continue,
            };
            let Some(sent) = inflight.remove(&name) else {
                continue;
            };
            pending -= sent.len();
            for t in sent {
                if !(t >= span.open && t < span.close) {
                    continue;
                }
                local.interests += 1;
                match answer {
                    Some(bytes) => {
                        local.data += 1;
                        local.bytes += bytes as u64;
                        let us = (now.duration_since(t).as_micros() as u64).max(1);
                        let _ = local.delay_us.record(us);
                        if local.samples.len() < MAX_SAMPLES {
                            local
                                .samples
                                .push((t.duration_since(span.open).as_secs_f64(), us));
                        }
                    }
                    None => local.nacks += 1,
                }
            }
        }
        if now.duration_since(last_sweep) >= SWEEP {
            last_sweep = now;
            inflight.retain(|_, sent| {
                sent.retain(|&t| {
                    let expired = now.duration_since(t) > lifetime;
                    if expired {
                        pending -= 1;
                        if t >= span.open && t < span.close {
                            local.interests += 1;
                            local.timeouts += 1;
                        }
                    }
                    !expired
                });
                !sent.is_empty()
            });
        }
    }
    *stats.lock().unwrap_or_else(|e| e.into_inner()) = local;
}

/// A producer over `face` (its prefix routed to the face by the caller) until the
/// face closes or `stop` is set: every Interest gets a Data of the declared
/// payload, freshness and signature, the PIT token echoed.
pub async fn serve(mut face: AppFace, spec: AppSpec, node: String, stop: Arc<AtomicBool>) {
    let Ok(kind) = spec.signature.parse::<SignKind>() else {
        return;
    };
    let Ok(id_name) = Name::from_uri(&format!("/lab/{node}")) else {
        return;
    };
    let Ok(identity) = make_identity(kind, &id_name) else {
        return;
    };
    let content = Bytes::from(
        (0..spec.payload)
            .map(|i| (i % 251) as u8)
            .collect::<Vec<_>>(),
    );
    let mut link = LinkReceiver::new();
    let mut sender = LinkSender::new(None, 0);
    while !stop.load(Relaxed) {
        let burst = match tokio::time::timeout(Duration::from_millis(100), face.recv_burst()).await
        {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(_) => continue,
        };
        let mut replies = Vec::with_capacity(burst.len());
        for wire in burst {
            let Ok(Some((fields, pkt))) = link.receive(0, wire) else {
                continue;
            };
            if fields.nack.is_some() {
                continue;
            }
            let Ok(i) = Interest::decode(pkt) else {
                continue;
            };
            let Ok(data) = Data::builder(i.name().clone())
                .content(content.clone())
                .freshness_ms(spec.freshness_ms)
                .sign(&*identity.signer)
            else {
                continue;
            };
            if fields.pit_token.is_some() {
                let f = LpFields {
                    pit_token: fields.pit_token,
                    ..Default::default()
                };
                let mut b = BytesMut::new();
                sender.encode_stream(&f, &data, &mut b);
                replies.push(b.freeze());
            } else {
                replies.push(data);
            }
        }
        if !replies.is_empty() {
            face.send_burst(replies);
        }
    }
}
