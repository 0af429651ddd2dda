//! Status datasets (segmented, versioned) and the faces/events notification stream.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, Name};

use super::codec::{fields, TlvWriter};
use super::dataset::{self, CsInfoRecord, FaceStatus, ForwarderStatus};
use super::internal::{management_routes, reserved_faces, FACEID_INTERNAL, MAX_NDN_PACKET_SIZE};
use super::Manager;
use crate::face::FaceEntry;
use crate::runtime::shard::ShardReport;

/// How long a generated dataset version stays available to segment fetchers.
const DATASET_TTL: u64 = 10_000_000_000;
/// Most cached dataset versions.
const MAX_CACHED: usize = 64;
/// Notifications kept for subscribers that lag behind.
const EVENT_RING: usize = 64;
/// Most subscribers held waiting.
const MAX_SUBSCRIBERS: usize = 1024;

struct Cached {
    version: u64,
    segments: Vec<Bytes>,
    created: u64,
}

struct Subscriber {
    face: u64,
    name: Name,
    want: Option<u64>,
    expires: u64,
}

/// Management-side status state.
pub struct StatusState {
    cache: HashMap<Name, Cached>,
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    subscribers: Vec<Subscriber>,
    last_version: u64,
    /// CS (capacity, admit, serve) as configured.
    pub cs_config: std::sync::Mutex<(u64, bool, bool)>,
}

impl StatusState {
    pub fn new(cfg: &crate::config::FwdConfig) -> Self {
        StatusState {
            cache: HashMap::new(),
            events: VecDeque::new(),
            next_seq: 1,
            subscribers: Vec::new(),
            last_version: 0,
            cs_config: std::sync::Mutex::new((cfg.cs.capacity as u64, cfg.cs.admit, cfg.cs.serve)),
        }
    }

    pub fn expire(&mut self, now: u64) {
        self.cache
            .retain(|_, c| now.saturating_sub(c.created) < DATASET_TTL);
        self.subscribers.retain(|s| s.expires > now);
    }

    pub fn drop_face(&mut self, face: u64) {
        self.subscribers.retain(|s| s.face != face);
    }

    /// Records a notification; returns the Data for each waiting subscriber.
    pub fn post_event(&mut self, payload: Bytes, now: u64) -> Vec<(u64, Bytes)> {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.events.push_back((seq, payload.clone()));
        if self.events.len() > EVENT_RING {
            self.events.pop_front();
        }
        let mut out = Vec::new();
        self.subscribers.retain(|s| {
            if s.expires <= now {
                return false;
            }
            if s.want.is_none_or(|w| w == seq) {
                out.push((s.face, event_data(&s.name, seq, &payload)));
                false
            } else {
                true
            }
        });
        out
    }
}

fn event_data(request: &Name, seq: u64, payload: &Bytes) -> Bytes {
    let base = request.prefix(4.min(request.len()));
    let mut b = Name::builder();
    b.extend_name(&base).push_sequence(seq);
    Data::builder(b.build())
        .content(payload.clone())
        .freshness(Duration::from_secs(1))
        .sign_digest()
}

/// The FaceStatus of a face at `now`.
pub fn face_status(f: &FaceEntry, now: u64) -> FaceStatus {
    let s = &f.stats;
    FaceStatus {
        face_id: f.id,
        uri: f.remote.to_string(),
        local_uri: f.local.to_string(),
        expiration_period: f.expires_in(now).map(|ns| ns / 1_000_000),
        scope: f.local_scope as u64,
        persistency: f.persistency.get() as u64,
        link_type: f.multi_access as u64,
        base_congestion_marking_interval: Some(f.marking_limits().congestion_interval_ns),
        default_congestion_threshold: Some(f.marking_limits().congestion_threshold as u64),
        mtu: Some(reported_mtu(f)),
        n_in_interests: s.in_interests.load(Relaxed),
        n_in_data: s.in_data.load(Relaxed),
        n_in_nacks: s.in_nacks.load(Relaxed),
        n_out_interests: s.out_interests.load(Relaxed),
        n_out_data: s.out_data.load(Relaxed),
        n_out_nacks: s.out_nacks.load(Relaxed),
        n_in_bytes: s.in_bytes.load(Relaxed),
        n_out_bytes: s.out_bytes.load(Relaxed),
        flags: f.flags(),
    }
}

/// The MTU management reports for a face (NFD): the link's MTU (an override
/// included), and [`MAX_NDN_PACKET_SIZE`] for faces without a limit (streams,
/// in-process apps); never more than that.
pub fn reported_mtu(f: &FaceEntry) -> u64 {
    f.link
        .mtu_override()
        .or(f.mtu)
        .map_or(MAX_NDN_PACKET_SIZE, |m| (m as u64).min(MAX_NDN_PACKET_SIZE))
}

/// Whether a face matches a FaceQueryFilter value.
fn matches_filter(f: &FaceStatus, filter: &Bytes) -> Result<bool, String> {
    let scheme = |u: &str| u.split("://").next().unwrap_or("").to_string();
    for fl in fields(filter)? {
        let ok = match fl.typ {
            105 => fl.nni()? == f.face_id,
            131 => fl.string()? == scheme(&f.uri) || fl.string()? == scheme(&f.local_uri),
            114 => fl.string()? == f.uri,
            129 => fl.string()? == f.local_uri,
            132 => fl.nni()? == f.scope,
            133 => fl.nni()? == f.persistency,
            134 => fl.nni()? == f.link_type,
            _ => true,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Manager {
    /// Answers a dataset or notification Interest (`None`: nothing to send now).
    pub(super) async fn dataset(
        &mut self,
        face: &Arc<FaceEntry>,
        interest: &Interest,
        module: &str,
        verb: &str,
        now: u64,
    ) -> Option<Bytes> {
        let name = interest.name();
        if (module, verb) == ("faces", "events") {
            let want = name.get(4).and_then(|c| c.as_sequence_num());
            if let Some(w) = want {
                if let Some((_, p)) = self.status.events.iter().find(|(s, _)| *s == w) {
                    return Some(event_data(name, w, p));
                }
                if w < self.status.next_seq {
                    return None; // gone from the ring
                }
            }
            if self.status.subscribers.len() < MAX_SUBSCRIBERS {
                self.status.subscribers.push(Subscriber {
                    face: face.id,
                    name: name.clone(),
                    want,
                    expires: now.saturating_add(interest.lifetime_ns()),
                });
            }
            return None;
        }
        // /localhost/nfd/<module>/<verb>[/<filter>][/<anything, e.g. a params digest>]
        // names a new version, published as <that name>/v=X/seg=N (as ndn-cxx's
        // dispatcher does, which python-ndn's signed dataset requests rely on);
        // <base>/v=X/seg=N fetches a segment of a version already published.
        let mut filter = None;
        if (module, verb) == ("faces", "query") {
            if let Some(c) = name.get(4) {
                if c.as_version().is_none() && c.as_segment().is_none() {
                    let wire = Bytes::copy_from_slice(c.value);
                    let f = fields(&wire).ok()?;
                    let [outer] = f.as_slice() else { return None };
                    if outer.typ != dataset::tt::FACE_QUERY_FILTER {
                        return None;
                    }
                    filter = Some(outer.value.clone());
                }
            }
        }
        let len = name.len();
        let last = name.get(len - 1)?;
        let before_last = name.get(len.wrapping_sub(2));
        if let (Some(seg), Some(v)) = (last.as_segment(), before_last.and_then(|c| c.as_version()))
        {
            let c = self.status.cache.get(&name.prefix(len - 2))?;
            if c.version != v {
                return None;
            }
            return c.segments.get(seg as usize).cloned();
        }
        let base = if last.as_version().is_some() || last.as_segment().is_some() {
            name.prefix(len - 1)
        } else {
            name.clone()
        };
        let payload = self
            .dataset_payload(module, verb, filter.as_ref(), now)
            .await?;
        let v = (self.shared.start_unix_ms + now / 1_000_000).max(self.status.last_version + 1);
        self.status.last_version = v;
        let segments = segment_payload(&base, v, &payload, &self.shared.cfg.management);
        let first = segments.first().cloned();
        if self.status.cache.len() >= MAX_CACHED {
            self.status.expire(now);
            if self.status.cache.len() >= MAX_CACHED {
                self.status.cache.clear();
            }
        }
        self.status.cache.insert(
            base,
            Cached {
                version: v,
                segments,
                created: now,
            },
        );
        first
    }

    async fn dataset_payload(
        &mut self,
        module: &str,
        verb: &str,
        filter: Option<&Bytes>,
        now: u64,
    ) -> Option<Bytes> {
        let mut w = TlvWriter::new();
        match (module, verb) {
            ("status", "general") => {
                let reports = self.shared.query_shards().await;
                let mut st = ForwarderStatus {
                    version: concat!("ndnlab ", env!("CARGO_PKG_VERSION")).into(),
                    start_ms: self.shared.start_unix_ms,
                    current_ms: self.shared.start_unix_ms + now / 1_000_000,
                    n_fib: self.rib.fib_len() as u64 + management_routes().len() as u64,
                    ..Default::default()
                };
                // Management's exchanges pass through NFD's forwarder: in from the
                // requester, out to the internal face, and back.
                let t = self.traffic;
                st.n_in_interests += t.interests;
                st.n_out_interests += t.interests;
                st.n_in_data += t.data;
                st.n_out_data += t.data;
                st.n_satisfied += t.data;
                for r in &reports {
                    let c = &r.counters;
                    st.n_pit += r.n_pit as u64;
                    st.n_cs += r.cs.n_entries as u64;
                    st.n_in_interests += c.n_in_interests;
                    st.n_in_data += c.n_in_data;
                    st.n_in_nacks += c.n_in_nacks;
                    st.n_out_interests += c.n_out_interests;
                    st.n_out_data += c.n_out_data;
                    st.n_out_nacks += c.n_out_nacks;
                    st.n_satisfied += c.n_satisfied_interests;
                    st.n_unsatisfied += c.n_unsatisfied_interests;
                }
                st.n_name_tree = st.n_fib + st.n_pit;
                st.encode(&mut w);
            }
            ("status", "limits") => {
                // ndnlab's extension (NFD has no such dataset): the configured resource
                // bounds and the drops of the forwarder by reason, one `key value`
                // line each (UTF-8 text).
                let reports = self.shared.query_shards().await;
                let mut text = limits_text(&self.shared.cfg, &reports);
                // The faces' send queue bounds, summed over the faces.
                let (full, bytes) = self.shared.faces.list().iter().fold((0, 0), |(a, b), f| {
                    let st = &f.stats;
                    (
                        a + st.queue_drops.load(Relaxed),
                        b + st.queue_byte_drops.load(Relaxed),
                    )
                });
                text.push_str(&format!(
                    "drop.send-queue-full {full}\ndrop.send-queue-bytes {bytes}\n"
                ));
                // Packets over `[forwarder] max_packet_size`.
                text.push_str(&format!(
                    "limit.max_packet_size {}\ndrop.packet-too-large {}\n",
                    self.shared.cfg.forwarder.max_packet_size,
                    self.shared.counters.oversize_drops.load(Relaxed)
                ));
                // Commands refused by `[[management.authorize]]`, when configured.
                for (reason, n) in self.auth.iter().flat_map(|a| a.refused()) {
                    text.push_str(&format!("drop.{reason} {n}\n"));
                }
                w.raw(text.as_bytes());
            }
            ("faces", "list" | "query") => {
                let faces = self.shared.faces.list();
                let live = faces.iter().map(|f| face_status(f, now));
                for f in reserved_faces(&self.traffic).into_iter().chain(live) {
                    if filter.is_none_or(|fl| matches_filter(&f, fl).unwrap_or(false)) {
                        f.encode(&mut w);
                    }
                }
            }
            ("faces", "channels") => {
                for c in self
                    .shared
                    .channels
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                {
                    dataset::encode_channel(&mut w, c);
                }
            }
            ("fib", "list") => {
                for name in management_routes() {
                    dataset::encode_fib_entry(&mut w, &name, [(FACEID_INTERNAL, 0)].into_iter());
                }
                for (name, hops) in self.rib.fib() {
                    dataset::encode_fib_entry(&mut w, name, hops.iter().map(|(f, c)| (*f, *c)));
                }
            }
            ("rib", "list") => {
                for (name, routes) in self.rib.routes() {
                    let records = routes.iter().map(|r| dataset::RouteRecord {
                        face_id: r.face_id,
                        origin: r.origin,
                        cost: r.cost,
                        flags: r.flags,
                        expiration_period_ms: r.remaining_ms(now),
                    });
                    dataset::encode_rib_entry(&mut w, name, records);
                }
            }
            ("cs", "info") => {
                let reports = self.shared.query_shards().await;
                let (cap, admit, serve) = *self
                    .status
                    .cs_config
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let mut rec = CsInfoRecord {
                    capacity: cap,
                    flags: admit as u64 | ((serve as u64) << 1),
                    ..Default::default()
                };
                for r in &reports {
                    rec.n_entries += r.cs.n_entries as u64;
                    rec.n_hits += r.cs.n_hits;
                    rec.n_misses += r.cs.n_misses;
                }
                rec.encode(&mut w);
            }
            ("ndnlab", "latency") => {
                // Reading the histograms also writes out the raw log so far.
                if let Some(l) = self.shared.latency.clone() {
                    let _ = tokio::task::spawn_blocking(move || l.flush_log()).await;
                }
                let report =
                    crate::latency::dataset::LatencyReport::of(self.shared.latency.as_deref());
                w.raw(&report.encode());
            }
            ("ndnlab", "links") => {
                // ndnlab's extension: each face's emulated link, one line each.
                let mut text = String::new();
                for f in self.shared.faces.list() {
                    if let Some(r) = f.stats.emu_link.record(f.id, f.remote.to_string()) {
                        text += &r.to_line();
                        text.push('\n');
                    }
                }
                w.raw(text.as_bytes());
            }
            ("strategy-choice", "list") => {
                for (name, s) in &self.strategies {
                    dataset::encode_strategy_choice(&mut w, name, s.name());
                }
            }
            _ => return None,
        }
        Some(w.finish())
    }
}

/// Cuts a payload into segments named `<base>/v=<version>/seg=<i>`.
fn segment_payload(
    base: &Name,
    version: u64,
    payload: &Bytes,
    cfg: &crate::config::ManagementSection,
) -> Vec<Bytes> {
    let size = cfg.dataset_segment_size;
    let n = payload.len().div_ceil(size).max(1);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let chunk =
            payload.slice((i * size).min(payload.len())..((i + 1) * size).min(payload.len()));
        let mut b = Name::builder();
        b.extend_name(base)
            .push_version(version)
            .push_segment(i as u64);
        let last = ndnlab_wire::OwnedComponent::segment((n - 1) as u64);
        let data = Data::builder(b.build())
            .content(chunk)
            .freshness(Duration::from_millis(cfg.dataset_freshness_ms))
            .final_block_id(last.as_component())
            .sign_digest();
        out.push(data);
    }
    out
}

/// The `status/limits` dataset: `limit.<key> <value>` for each configured bound,
/// then `drop.<reason> <count>` for each drop reason of the forwarder (summed over
/// the shards), then `verify.data` and `verify.refused`, the Data its
/// `verify_data` checked and refused ([`crate::verify::counts`], 0 with it off),
/// then `used.<table> <value>` for what the bounded tables hold, one per line.
pub fn limits_text(cfg: &crate::config::FwdConfig, reports: &[ShardReport]) -> String {
    use std::fmt::Write as _;
    let l = &cfg.limits;
    let mut s = String::new();
    for (k, v) in [
        ("pit_max_entries", l.pit_max_entries as u64),
        (
            "pit_max_entries_per_face",
            l.pit_max_entries_per_face as u64,
        ),
        ("interest_rate_per_face", l.interest_rate_per_face),
        ("interest_burst_per_face", l.interest_burst_per_face),
        ("reassembly_max_partials", l.reassembly_max_partials as u64),
        ("reassembly_max_bytes", l.reassembly_max_bytes as u64),
        ("dead_nonce_max_entries", l.dead_nonce_max_entries as u64),
        ("cs_capacity", cfg.cs.capacity as u64),
        ("cs_capacity_bytes", cfg.cs.capacity_bytes as u64),
        ("shard_queue_capacity", cfg.forwarder.queue_capacity as u64),
        ("face_queue_capacity", cfg.faces.queue_capacity as u64),
        (
            "face_queue_capacity_bytes",
            cfg.faces.queue_capacity_bytes as u64,
        ),
    ] {
        let _ = writeln!(s, "limit.{k} {v}");
    }
    for reason in ndnlab_core::DropReason::ALL {
        let v: u64 = reports.iter().map(|r| r.counters.drops.get(reason)).sum();
        let _ = writeln!(s, "drop.{reason} {v}");
    }
    let (verified, refused) = reports
        .iter()
        .map(|r| crate::verify::counts(&r.counters))
        .fold((0, 0), |(v, r), (a, b)| (v + a, r + b));
    let _ = writeln!(s, "verify.data {verified}\nverify.refused {refused}");
    // The CS bounds bite by evicting, not by dropping.
    let ev: u64 = reports.iter().map(|r| r.cs.n_evictions).sum();
    let _ = writeln!(s, "drop.cs-evictions {ev}");
    let dnl: u64 = reports.iter().map(|r| r.dead_nonce_overflows).sum();
    let _ = writeln!(s, "drop.dead-nonce-overflow {dnl}");
    // What the bounded tables hold now.
    let used = |f: fn(&ShardReport) -> usize| -> usize { reports.iter().map(f).sum() };
    for (k, v) in [
        ("pit_entries", used(|r| r.n_pit)),
        ("cs_entries", used(|r| r.cs.n_entries)),
        ("cs_bytes", used(|r| r.cs.n_bytes)),
        ("dead_nonce_entries", used(|r| r.n_dead_nonces)),
    ] {
        let _ = writeln!(s, "used.{k} {v}");
    }
    s
}
