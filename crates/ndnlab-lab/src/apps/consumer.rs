//! The catalogue consumer and ndnping.
//!
//! A window consumer keeps `window` Interests in flight; with `cc = "aimd"` or
//! `"cubic"` the app crate's congestion window ([`Window`]) sets that number
//! instead, growing on Data and shrinking on a timeout, a Nack or a congestion
//! mark, at most once per round trip (an answer counts only if its Interest
//! left after the last decrease, as ndn-tools' conservative window adaptation).
//! Rate consumers send on the traffic generator's arrival processes
//! ([`Arrival`]): Poisson, constant or bursts. A ping is a constant-rate
//! consumer of fresh, unique names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ndnlab_app::pipeline::window::{Window, WindowKind, WindowOptions};
use ndnlab_app::tools::traffic::pattern::Arrival;
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::LinkReceiver;
use ndnlab_wire::{Interest, Name, Packet};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{ConsumerStats, Names, Span, SWEEP};
use crate::experiment::AppSpec;

/// How many Interests may be in flight.
enum Limit {
    Fixed(usize),
    Adaptive {
        window: Window,
        t0: Instant,
        /// When the window last shrank.
        last_decrease: Instant,
    },
}

impl Limit {
    fn new(spec: &AppSpec) -> Limit {
        let kind: WindowKind = spec.cc.parse().unwrap_or(WindowKind::Fixed);
        if kind == WindowKind::Fixed {
            return Limit::Fixed(spec.window.max(1));
        }
        let now = Instant::now();
        Limit::Adaptive {
            window: Window::new(WindowOptions {
                kind,
                fixed_size: spec.window.max(1),
                max_cwnd: spec.window.max(1) as f64,
                ..Default::default()
            }),
            t0: now,
            last_decrease: now,
        }
    }

    fn size(&self) -> usize {
        match self {
            Limit::Fixed(n) => *n,
            Limit::Adaptive { window, .. } => window.size().max(1),
        }
    }

    fn on_data(&mut self, now: Instant) {
        if let Limit::Adaptive { window, t0, .. } = self {
            window.increase(now.duration_since(*t0));
        }
    }

    /// A loss or a mark on an Interest sent at `sent`.
    fn on_congestion(&mut self, sent: Instant, now: Instant) {
        if let Limit::Adaptive {
            window,
            t0,
            last_decrease,
        } = self
        {
            if sent > *last_decrease {
                window.decrease(now.duration_since(*t0));
                *last_decrease = now;
            }
        }
    }
}

/// A consumer or a ping over `face` until the window closes and its last
/// answers are in. `names` says what it asks for.
pub async fn consume(
    mut face: AppFace,
    spec: AppSpec,
    mut names: Names,
    seed: u64,
    span: Span,
    stats: Arc<Mutex<ConsumerStats>>,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let lifetime = Duration::from_millis(spec.lifetime_ms);
    let fresh = spec.must_be_fresh || spec.kind == "ping";
    let mut link = LinkReceiver::new();
    // name -> send times of the Interests in flight for it
    let mut inflight: HashMap<Name, Vec<Instant>> = HashMap::new();
    let mut pending = 0usize;
    let mut local = ConsumerStats::default();
    let mut limit = Limit::new(&spec);
    let arrival = match (spec.kind.as_str(), spec.pattern.as_str()) {
        ("ping", _) | (_, "constant") => Some(Arrival::Constant { rate: spec.rate }),
        (_, "poisson") => Some(Arrival::Poisson { rate: spec.rate }),
        (_, "burst") => Some(Arrival::Burst {
            rate: spec.rate,
            size: spec.burst,
        }),
        _ => None,
    };
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
        // How many to send now.
        let room = count.map_or(usize::MAX, |c| (c - sent_total) as usize);
        let mut n = 0usize;
        if now < span.close && room > 0 {
            match &arrival {
                None => n = limit.size().saturating_sub(pending),
                Some(a) => {
                    while next_send <= now && n < 4096 {
                        let (k, gap) = a.next(&mut rng);
                        n += k as usize;
                        next_send += gap;
                    }
                }
            }
            n = n.min(room);
        }
        if n > 0 {
            let mut burst = Vec::with_capacity(n);
            for _ in 0..n {
                let name = names.pick(&mut rng);
                nonce = nonce.wrapping_add(0x9E37_79B9);
                let mut b = Interest::builder(name.clone())
                    .nonce(nonce)
                    .lifetime(lifetime);
                if fresh {
                    b = b.must_be_fresh(true);
                }
                burst.push(b.build());
                inflight.entry(name).or_default().push(now);
            }
            pending += n;
            sent_total += n as u64;
            face.send_burst(burst);
        }
        let wait = match &arrival {
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
            let marked = fields.congestion_mark != 0;
            for t in sent {
                match answer {
                    Some(_) if marked => limit.on_congestion(t, now),
                    Some(_) => limit.on_data(now),
                    None => limit.on_congestion(t, now),
                }
                if !span.contains(t) {
                    continue;
                }
                local.interests += 1;
                match answer {
                    Some(bytes) => {
                        local.marks += u64::from(marked);
                        local.record_data(&span, t, now, bytes);
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
                        limit.on_congestion(t, now);
                        if span.contains(t) {
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
