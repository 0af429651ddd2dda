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
use std::time::Duration;

use bytes::Bytes;

use ndnlab_app::pipeline::window::{Window, WindowKind, WindowOptions};
use ndnlab_app::tools::traffic::pattern::Arrival;
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::LinkReceiver;
use ndnlab_wire::{Interest, Name, Packet};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{ConsumerStats, Epoch, Names, Nanos, Span, SWEEP};
use crate::experiment::AppSpec;

#[cfg(test)]
mod tests;

/// How many Interests may be in flight.
enum Limit {
    Fixed(usize),
    Adaptive {
        window: Window,
        /// When the window last shrank.
        last_decrease: Nanos,
    },
}

impl Limit {
    fn new(spec: &AppSpec, now: Nanos) -> Limit {
        let kind: WindowKind = spec.cc.parse().unwrap_or(WindowKind::Fixed);
        if kind == WindowKind::Fixed {
            return Limit::Fixed(spec.window.max(1));
        }
        Limit::Adaptive {
            window: Window::new(WindowOptions {
                kind,
                fixed_size: spec.window.max(1),
                max_cwnd: spec.window.max(1) as f64,
                ..Default::default()
            }),
            last_decrease: now,
        }
    }

    fn size(&self) -> usize {
        match self {
            Limit::Fixed(n) => *n,
            Limit::Adaptive { window, .. } => window.size().max(1),
        }
    }

    fn on_data(&mut self, now: Nanos) {
        if let Limit::Adaptive { window, .. } = self {
            window.increase(Duration::from_nanos(now));
        }
    }

    /// A loss or a mark on an Interest sent at `sent`.
    fn on_congestion(&mut self, sent: Nanos, now: Nanos) {
        if let Limit::Adaptive {
            window,
            last_decrease,
        } = self
        {
            if sent > *last_decrease {
                window.decrease(Duration::from_nanos(now));
                *last_decrease = now;
            }
        }
    }
}

/// The decisions of a consumer or a ping, sans-IO: what to send when, what an
/// answer means, when an Interest is given up. Time is nanoseconds since the
/// run's epoch, passed in.
pub struct ConsumerCore {
    rng: StdRng,
    lifetime: Nanos,
    fresh: bool,
    names: Names,
    span: Span,
    link: LinkReceiver,
    /// name -> send times of the Interests in flight for it
    inflight: HashMap<Name, Vec<Nanos>>,
    pending: usize,
    local: ConsumerStats,
    limit: Limit,
    arrival: Option<Arrival>,
    count: Option<u64>,
    sent_total: u64,
    next_send: Nanos,
    last_sweep: Nanos,
    nonce: u32,
    done: bool,
}

impl ConsumerCore {
    /// A consumer of `spec` asking for `names`, seeded with `seed`, starting at
    /// `now` (with a count, it starts when the window opens).
    pub fn new(spec: &AppSpec, names: Names, seed: u64, span: Span, now: Nanos) -> ConsumerCore {
        let mut rng = StdRng::seed_from_u64(seed);
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
        let start = if count.is_some() {
            span.open.max(now)
        } else {
            now
        };
        let nonce = rng.gen();
        ConsumerCore {
            rng,
            lifetime: spec.lifetime_ms * 1_000_000,
            fresh: spec.must_be_fresh || spec.kind == "ping",
            names,
            span,
            link: LinkReceiver::new(),
            inflight: HashMap::new(),
            pending: 0,
            local: ConsumerStats::default(),
            limit: Limit::new(spec, start),
            arrival,
            count,
            sent_total: 0,
            next_send: start,
            last_sweep: start,
            nonce,
            done: false,
        }
    }

    /// Whether the consumer has finished (window closed and last answers in, or
    /// its count done).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// What it saw.
    pub fn stats(&self) -> &ConsumerStats {
        &self.local
    }

    /// Takes what it saw.
    pub fn into_stats(self) -> ConsumerStats {
        self.local
    }

    /// Sends what is due at `now` into `out` (Interest TLVs), gives up
    /// Interests past their lifetime, and decides whether it is done.
    pub fn poll(&mut self, now: Nanos, out: &mut Vec<Bytes>) {
        if self.done {
            return;
        }
        if self.count.is_some() && now < self.span.open {
            return;
        }
        if now.saturating_sub(self.last_sweep) >= SWEEP.as_nanos() as Nanos {
            self.last_sweep = now;
            self.sweep(now);
        }
        let all_sent = self.count.is_some_and(|c| self.sent_total >= c);
        if all_sent && self.pending == 0 {
            self.local.finished_s = Some(now.saturating_sub(self.span.open) as f64 / 1e9);
            self.done = true;
            return;
        }
        if now >= self.span.close {
            // A rate consumer held back (a forwarder that pushes back on its
            // face) may be behind its schedule: what it could not send by
            // the close is not sent.
            self.next_send = self.next_send.max(self.span.close);
        }
        if now >= self.span.close && (self.pending == 0 || now >= self.span.close + self.lifetime) {
            self.done = true;
            return;
        }
        // How many to send now.
        let room = self
            .count
            .map_or(usize::MAX, |c| (c - self.sent_total) as usize);
        let mut n = 0usize;
        if now < self.span.close && room > 0 {
            match &self.arrival {
                None => n = self.limit.size().saturating_sub(self.pending),
                Some(a) => {
                    while self.next_send <= now && n < 4096 {
                        let (k, gap) = a.next(&mut self.rng);
                        n += k as usize;
                        self.next_send += gap.as_nanos() as Nanos;
                    }
                }
            }
            n = n.min(room);
        }
        let lifetime = Duration::from_nanos(self.lifetime);
        for _ in 0..n {
            let name = self.names.pick(&mut self.rng);
            self.nonce = self.nonce.wrapping_add(0x9E37_79B9);
            let mut b = Interest::builder(name.clone())
                .nonce(self.nonce)
                .lifetime(lifetime);
            if self.fresh {
                b = b.must_be_fresh(true);
            }
            out.push(b.build());
            self.inflight.entry(name).or_default().push(now);
        }
        self.pending += n;
        self.sent_total += n as u64;
    }

    /// When [`Self::poll`] is next needed if no frame arrives.
    pub fn next_wakeup(&self) -> Option<Nanos> {
        if self.done {
            return None;
        }
        let sweep = self.last_sweep + SWEEP.as_nanos() as Nanos;
        if self.count.is_some() && self.sent_total == 0 {
            return Some(self.span.open.min(sweep).max(self.span.open));
        }
        let mut t = sweep;
        // a count all sent has nothing more to send: its next sending time
        // stays where it was, in the past
        let room = !self.count.is_some_and(|c| self.sent_total >= c);
        if self.arrival.is_some() && room && self.next_send < self.span.close {
            t = t.min(self.next_send);
        }
        Some(t)
    }

    /// A frame from the forwarder at `now`.
    pub fn on_frame(&mut self, now: Nanos, wire: Bytes) {
        let Ok(Some((fields, pkt))) = self.link.receive(0, wire) else {
            return;
        };
        // Some(content bytes) for a Data, None for a Nack.
        let (name, answer) = match Packet::decode(pkt) {
            Ok(Packet::Data(d)) if fields.nack.is_none() => {
                (d.name().clone(), Some(d.content().len()))
            }
            Ok(Packet::Interest(i)) if fields.nack.is_some() => (i.name().clone(), None),
            _ => return,
        };
        let Some(sent) = self.inflight.remove(&name) else {
            return;
        };
        self.pending -= sent.len();
        let marked = fields.congestion_mark != 0;
        for t in sent {
            match answer {
                Some(_) if marked => self.limit.on_congestion(t, now),
                Some(_) => self.limit.on_data(now),
                None => self.limit.on_congestion(t, now),
            }
            if !self.span.contains(t) {
                continue;
            }
            self.local.interests += 1;
            match answer {
                Some(bytes) => {
                    self.local.marks += u64::from(marked);
                    self.local.record_data(&self.span, t, now, bytes);
                }
                None => self.local.nacks += 1,
            }
        }
    }

    fn sweep(&mut self, now: Nanos) {
        let lifetime = self.lifetime;
        let (pending, limit, local, span) = (
            &mut self.pending,
            &mut self.limit,
            &mut self.local,
            &self.span,
        );
        self.inflight.retain(|_, sent| {
            sent.retain(|&t| {
                let expired = now.saturating_sub(t) > lifetime;
                if expired {
                    *pending -= 1;
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

/// A consumer or a ping over `face` on its thread, until the window closes and
/// its last answers are in: [`ConsumerCore`] on the monotonic clock.
pub async fn consume(
    mut face: AppFace,
    spec: AppSpec,
    names: Names,
    seed: u64,
    (epoch, span): (Epoch, Span),
    stats: Arc<Mutex<ConsumerStats>>,
) {
    let mut core = ConsumerCore::new(&spec, names, seed, span, epoch.now());
    let mut burst = Vec::new();
    loop {
        let now = epoch.now();
        core.poll(now, &mut burst);
        if !burst.is_empty() {
            face.send_burst(std::mem::take(&mut burst));
        }
        let Some(next) = core.next_wakeup() else {
            break;
        };
        let wait = Duration::from_nanos(next.saturating_sub(epoch.now()))
            .clamp(Duration::from_micros(50), SWEEP);
        match tokio::time::timeout(wait, face.recv_burst()).await {
            Ok(Some(got)) => {
                let now = epoch.now();
                for wire in got {
                    core.on_frame(now, wire);
                }
            }
            Ok(None) => break,
            Err(_) => {}
        }
    }
    *stats.lock().unwrap_or_else(|e| e.into_inner()) = core.into_stats();
}
