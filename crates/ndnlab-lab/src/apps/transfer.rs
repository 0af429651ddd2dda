//! get: one object, segment by segment, through the app crate's sans-IO
//! segment pipeline ([`Fetcher`]: fixed, AIMD or CUBIC window, RFC 6298
//! retransmission timer, congestion marks), as `ndnlab get` fetches. It starts
//! when the measurement window opens, asks for version 1 of its prefix (what a
//! put publishes), and checks the SHA-256 of what it put together against the
//! object the put published.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_app::pipeline::{DataVerdict, FetchOptions, Fetcher, WindowKind, WindowOptions};
use ndnlab_app::tools::perf::client::nack_kind;
use ndnlab_app::tools::put::segment_of;
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::LinkReceiver;
use ndnlab_wire::{Interest, NackReason, Name, Packet};
use sha2::{Digest, Sha256};

use super::producer::{object, PUT_VERSION};
use super::{ConsumerStats, Span, SWEEP};
use crate::experiment::AppSpec;

/// Fetches the object of `size` bytes the put under `spec.prefix` publishes.
pub async fn fetch(
    mut face: AppFace,
    spec: AppSpec,
    size: u64,
    span: Span,
    stats: Arc<Mutex<ConsumerStats>>,
) {
    tokio::time::sleep_until(span.open.into()).await;
    let local = run(&mut face, &spec, size, span).await;
    *stats.lock().unwrap_or_else(|e| e.into_inner()) = local;
}

async fn run(face: &mut AppFace, spec: &AppSpec, size: u64, span: Span) -> ConsumerStats {
    let mut local = ConsumerStats::default();
    let versioned = Name::from_uri(&spec.prefix)
        .expect("validated prefix")
        .append_version(PUT_VERSION);
    let kind: WindowKind = spec.cc.parse().unwrap_or(WindowKind::Fixed);
    let mut fetcher = Fetcher::new(
        FetchOptions {
            window: WindowOptions {
                kind,
                fixed_size: spec.window.max(1),
                ..Default::default()
            },
            ..Default::default()
        },
        0,
    );
    let lifetime = Duration::from_millis(spec.lifetime_ms);
    let t0 = Instant::now();
    let mut link = LinkReceiver::new();
    let mut sent_at: HashMap<u64, Instant> = HashMap::new();
    let mut parts: BTreeMap<u64, Bytes> = BTreeMap::new();
    let mut nonce: u32 = 0x5EED_0000;
    let deadline = span.close + lifetime;
    while !fetcher.is_done() {
        let now = Instant::now();
        if now >= deadline {
            local.error = Some(format!(
                "get {}: {} of its segments by the end of the run",
                spec.prefix,
                parts.len()
            ));
            return local;
        }
        let elapsed = now.duration_since(t0);
        let mut burst = Vec::new();
        while let Some(req) = fetcher.poll_request(elapsed) {
            nonce = nonce.wrapping_add(0x9E37_79B9);
            let interest = Interest::builder(versioned.append_segment(req.seg))
                .nonce(nonce)
                .lifetime(lifetime)
                .build();
            sent_at.insert(req.seg, now);
            burst.push(interest);
        }
        if !burst.is_empty() {
            face.send_burst(burst);
        }
        let wait = fetcher
            .poll_timeout()
            .map_or(SWEEP, |t| t.saturating_sub(elapsed))
            .clamp(Duration::from_micros(50), SWEEP);
        let got = match tokio::time::timeout(wait, face.recv_burst()).await {
            Ok(Some(b)) => b,
            Ok(None) => {
                local.error = Some(format!(
                    "get {}: the forwarder closed the face",
                    spec.prefix
                ));
                return local;
            }
            Err(_) => Vec::new(),
        };
        let now = Instant::now();
        let elapsed = now.duration_since(t0);
        for wire in got {
            let Ok(Some((fields, pkt))) = link.receive(0, wire) else {
                continue;
            };
            match Packet::decode(pkt) {
                Ok(Packet::Data(d)) if fields.nack.is_none() => {
                    let Some(seg) = segment_of(&versioned, d.name()) else {
                        continue;
                    };
                    if let Some(last) = d.final_block_id().and_then(|c| c.as_segment()) {
                        fetcher.set_final(last);
                    }
                    let marked = fields.congestion_mark != 0;
                    if let DataVerdict::New { .. } = fetcher.on_data(elapsed, seg, marked) {
                        if let Some(t) = sent_at.get(&seg) {
                            local.record_data(&span, *t, now, d.content().len());
                        }
                        parts.insert(seg, d.content());
                    }
                }
                Ok(Packet::Interest(i)) if fields.nack.is_some() => {
                    let Some(seg) = segment_of(&versioned, i.name()) else {
                        continue;
                    };
                    let reason = NackReason::from_code(fields.nack.unwrap_or(0));
                    if let Err(e) = fetcher.on_nack(elapsed, seg, nack_kind(reason)) {
                        local.error = Some(format!("get {}: {e}", spec.prefix));
                        return local;
                    }
                }
                _ => {}
            }
        }
        if fetcher.poll_timeout().is_some_and(|t| elapsed >= t) {
            if let Err(e) = fetcher.handle_timeout(elapsed) {
                local.error = Some(format!("get {}: {e}", spec.prefix));
                return local;
            }
        }
    }
    local.finished_s = Some(Instant::now().duration_since(span.open).as_secs_f64());
    let st = *fetcher.stats();
    local.interests = st.sent - st.retransmissions;
    local.retransmissions = st.retransmissions;
    local.timeouts = st.timeouts;
    local.nacks = st.nacks;
    local.marks = st.marks;
    let mut hash = Sha256::new();
    for p in parts.values() {
        hash.update(p);
    }
    let got: [u8; 32] = hash.finalize().into();
    let want: [u8; 32] = Sha256::digest(object(&spec.prefix, size)).into();
    if got != want {
        local.error = Some(format!(
            "get {}: the object's SHA-256 does not match what the put published",
            spec.prefix
        ));
    }
    local
}
