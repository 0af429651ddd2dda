//! get: one object, segment by segment, through the app crate's sans-IO
//! segment pipeline ([`Fetcher`]: fixed, AIMD or CUBIC window, RFC 6298
//! retransmission timer, congestion marks), as `ndnlab get` fetches. It starts
//! when the measurement window opens, asks for version 1 of its prefix (what a
//! put publishes), and checks the SHA-256 of what it put together against the
//! object the put published.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use ndnlab_app::pipeline::{DataVerdict, FetchOptions, Fetcher, WindowKind, WindowOptions};
use ndnlab_app::tools::perf::client::nack_kind;
use ndnlab_app::tools::put::segment_of;
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::LinkReceiver;
use ndnlab_wire::{Interest, NackReason, Name, Packet};
use sha2::{Digest, Sha256};

use super::producer::{object, PUT_VERSION};
use super::{ConsumerStats, Epoch, Nanos, Span, SWEEP};
use crate::experiment::AppSpec;

/// The decisions of a get, sans-IO: [`Fetcher`] with the names, the timing of
/// the Interests it sends and the check of what came back. Time is nanoseconds
/// since the run's epoch; the get starts when the window opens.
pub struct GetCore {
    spec: AppSpec,
    size: u64,
    span: Span,
    versioned: Name,
    fetcher: Fetcher,
    lifetime: Duration,
    link: LinkReceiver,
    sent_at: HashMap<u64, Nanos>,
    parts: BTreeMap<u64, Bytes>,
    nonce: u32,
    local: ConsumerStats,
    done: bool,
}

impl GetCore {
    pub fn new(spec: &AppSpec, size: u64, span: Span) -> GetCore {
        let kind: WindowKind = spec.cc.parse().unwrap_or(WindowKind::Fixed);
        GetCore {
            versioned: Name::from_uri(&spec.prefix)
                .expect("validated prefix")
                .append_version(PUT_VERSION),
            fetcher: Fetcher::new(
                FetchOptions {
                    window: WindowOptions {
                        kind,
                        fixed_size: spec.window.max(1),
                        ..Default::default()
                    },
                    ..Default::default()
                },
                0,
            ),
            lifetime: Duration::from_millis(spec.lifetime_ms),
            spec: spec.clone(),
            size,
            span,
            link: LinkReceiver::new(),
            sent_at: HashMap::new(),
            parts: BTreeMap::new(),
            nonce: 0x5EED_0000,
            local: ConsumerStats::default(),
            done: false,
        }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    pub fn stats(&self) -> &ConsumerStats {
        &self.local
    }

    pub fn into_stats(self) -> ConsumerStats {
        self.local
    }

    fn elapsed(&self, now: Nanos) -> Duration {
        Duration::from_nanos(now.saturating_sub(self.span.open))
    }

    fn deadline(&self) -> Nanos {
        self.span.close + self.lifetime.as_nanos() as Nanos
    }

    fn fail(&mut self, why: String) {
        self.local.error = Some(format!("get {}: {why}", self.spec.prefix));
        self.done = true;
    }

    /// Timers due and Interests to send at `now` (into `out`).
    pub fn poll(&mut self, now: Nanos, out: &mut Vec<Bytes>) {
        if self.done || now < self.span.open {
            return;
        }
        if self.fetcher.is_done() {
            return self.finish(now);
        }
        if now >= self.deadline() {
            let n = self.parts.len();
            return self.fail(format!("{n} of its segments by the end of the run"));
        }
        let elapsed = self.elapsed(now);
        if self.fetcher.poll_timeout().is_some_and(|t| elapsed >= t) {
            if let Err(e) = self.fetcher.handle_timeout(elapsed) {
                return self.fail(e.to_string());
            }
        }
        while let Some(req) = self.fetcher.poll_request(elapsed) {
            self.nonce = self.nonce.wrapping_add(0x9E37_79B9);
            let interest = Interest::builder(self.versioned.append_segment(req.seg))
                .nonce(self.nonce)
                .lifetime(self.lifetime)
                .build();
            self.sent_at.insert(req.seg, now);
            out.push(interest);
        }
    }

    /// When [`Self::poll`] is next needed if no frame arrives.
    pub fn next_wakeup(&self) -> Option<Nanos> {
        if self.done {
            return None;
        }
        if self.fetcher.is_done() || self.sent_at.is_empty() {
            // done (to report it), or not started: at the window's opening
            return Some(self.span.open);
        }
        let t = self
            .fetcher
            .poll_timeout()
            .map_or(self.deadline(), |t| self.span.open + t.as_nanos() as Nanos);
        Some(t.min(self.deadline()).max(self.span.open))
    }

    /// A frame from the forwarder at `now`.
    pub fn on_frame(&mut self, now: Nanos, wire: Bytes) {
        if self.done {
            return;
        }
        let elapsed = self.elapsed(now);
        let Ok(Some((fields, pkt))) = self.link.receive(0, wire) else {
            return;
        };
        match Packet::decode(pkt) {
            Ok(Packet::Data(d)) if fields.nack.is_none() => {
                let Some(seg) = segment_of(&self.versioned, d.name()) else {
                    return;
                };
                if let Some(last) = d.final_block_id().and_then(|c| c.as_segment()) {
                    self.fetcher.set_final(last);
                }
                let marked = fields.congestion_mark != 0;
                if let DataVerdict::New { .. } = self.fetcher.on_data(elapsed, seg, marked) {
                    if let Some(t) = self.sent_at.get(&seg) {
                        self.local
                            .record_data(&self.span, *t, now, d.content().len());
                    }
                    self.parts.insert(seg, d.content());
                }
            }
            Ok(Packet::Interest(i)) if fields.nack.is_some() => {
                let Some(seg) = segment_of(&self.versioned, i.name()) else {
                    return;
                };
                let reason = NackReason::from_code(fields.nack.unwrap_or(0));
                if let Err(e) = self.fetcher.on_nack(elapsed, seg, nack_kind(reason)) {
                    self.fail(e.to_string());
                }
            }
            _ => {}
        }
        if self.fetcher.is_done() {
            self.finish(now);
        }
    }

    fn finish(&mut self, now: Nanos) {
        self.done = true;
        let local = &mut self.local;
        local.finished_s = Some(now.saturating_sub(self.span.open) as f64 / 1e9);
        let st = *self.fetcher.stats();
        local.interests = st.sent - st.retransmissions;
        local.retransmissions = st.retransmissions;
        local.timeouts = st.timeouts;
        local.nacks = st.nacks;
        local.marks = st.marks;
        let mut hash = Sha256::new();
        for p in self.parts.values() {
            hash.update(p);
        }
        let got: [u8; 32] = hash.finalize().into();
        let want: [u8; 32] = Sha256::digest(object(&self.spec.prefix, self.size)).into();
        if got != want {
            local.error = Some(format!(
                "get {}: the object's SHA-256 does not match what the put published",
                self.spec.prefix
            ));
        }
    }
}

/// Fetches the object of `size` bytes the put under `spec.prefix` publishes:
/// [`GetCore`] on a thread.
pub async fn fetch(
    mut face: AppFace,
    spec: AppSpec,
    size: u64,
    (epoch, span): (Epoch, Span),
    stats: Arc<Mutex<ConsumerStats>>,
) {
    let mut core = GetCore::new(&spec, size, span);
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
            Ok(None) => {
                core.fail("the forwarder closed the face".into());
                break;
            }
            Err(_) => {}
        }
    }
    *stats.lock().unwrap_or_else(|e| e.into_inner()) = core.into_stats();
}
