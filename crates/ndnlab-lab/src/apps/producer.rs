//! Producers: what answers Interests on a node.
//!
//! - `producer`: every Interest under its prefix gets a Data of the declared
//!   payload, freshness and signature, signed when asked for, or once per name
//!   with `presign` (the perf server's pre-signed cache);
//! - `repository`: a fixed catalogue of contents, signed when it starts and
//!   served from memory; names it does not hold get no answer;
//! - `put`: an object of `size` bytes as versioned segments (version 1), signed
//!   when it starts, as `ndnlab put` publishes them.
//!
//! Every answer echoes the Interest's PIT token.
//!
//! On its thread ([`serve`]) a producer records each signature's time and
//! each Data's time from its Interest's arrival to its departure
//! ([`ServeStats`]); with `threads > 1` it signs on `ndnlab perf server`'s
//! signing pool, whose threads hand the Data back to the producer's thread.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ndnlab_app::tools::data_cache::DataCache;
use ndnlab_app::tools::perf::answer::{start_signers, Job, MakeData};
use ndnlab_app::tools::put::{segment, segment_of};
use ndnlab_app::tools::serve::Sink;
use ndnlab_app::tools::serve_stats::{ServeStats, SharedServeStats};
use ndnlab_app::tools::signing::SignKind;
use ndnlab_fwd::cpu_clock::{self, Account};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};
use ndnlab_security::SigningPool;
use ndnlab_wire::{Data, Interest, Name, Signer};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

use super::names::content_name;
use crate::experiment::AppSpec;

/// Names a pre-signing producer keeps at most.
const PRESIGNED: usize = 1 << 20;

/// The version a put publishes.
pub const PUT_VERSION: u64 = 1;

/// The bytes of a put's object under `prefix`: `size` bytes from a generator
/// seeded by the prefix, so a get can check what it fetched.
pub fn object(prefix: &str, size: u64) -> Bytes {
    let seed = u64::from_le_bytes(
        Sha256::digest(prefix.as_bytes())[..8]
            .try_into()
            .expect("8 bytes"),
    );
    let mut v = vec![0u8; size as usize];
    StdRng::seed_from_u64(seed).fill_bytes(&mut v);
    v.into()
}

/// What a producer answers with.
enum Answers {
    /// Sign each Data (once per name if a cache is given), on this thread or
    /// on a signing pool.
    Sign {
        signer: Arc<dyn Signer>,
        content: Bytes,
        cache: Option<Arc<DataCache>>,
        pool: Option<SigningPool<Job>>,
    },
    /// Fixed Data by name.
    Fixed(HashMap<Name, Bytes>),
    /// A put's segments under its versioned name.
    Segments {
        versioned: Name,
        segments: Vec<Bytes>,
    },
}

impl Answers {
    fn new(
        spec: &AppSpec,
        node: &str,
        full_length: bool,
        threaded: Option<&Threaded>,
    ) -> anyhow::Result<Answers> {
        let kind: SignKind = spec.signature.parse().map_err(anyhow::Error::msg)?;
        let identity = super::keys::identity(kind, node, spec.trusted)?;
        let signer: Arc<dyn Signer> = if full_length {
            Arc::new(ndnlab_security::FullLength(identity.signer))
        } else {
            identity.signer
        };
        let freshness = Duration::from_millis(spec.freshness_ms);
        let prefix = Name::from_uri(&spec.prefix_on(node))?;
        let content = Bytes::from(
            (0..spec.payload)
                .map(|i| (i % 251) as u8)
                .collect::<Vec<_>>(),
        );
        Ok(match spec.kind.as_str() {
            "repository" => {
                let mut m = HashMap::with_capacity(spec.catalogue as usize);
                for i in 0..spec.catalogue {
                    let name = content_name(&prefix, spec.name_components, i);
                    let data = Data::builder(name.clone())
                        .content(content.clone())
                        .freshness(freshness)
                        .sign(&*signer)?;
                    m.insert(name, data);
                }
                Answers::Fixed(m)
            }
            "put" => {
                let body = object(&spec.prefix_on(node), spec.size);
                let p = segment(
                    &prefix,
                    PUT_VERSION,
                    &body,
                    spec.payload,
                    freshness,
                    signer,
                    spec.threads,
                )?;
                Answers::Segments {
                    versioned: p.versioned,
                    segments: p.segments,
                }
            }
            _ => {
                let cache = spec.presign.then(|| Arc::new(DataCache::new(PRESIGNED)));
                let pool = match threaded {
                    Some(t) if spec.threads > 1 => {
                        let (signer, content, cpu) =
                            (signer.clone(), content.clone(), t.cpu.clone());
                        let freshness_ms = spec.freshness_ms;
                        let make: Arc<MakeData> = Arc::new(move |name: &Name| {
                            if let Some(a) = &cpu {
                                cpu_clock::claim_once(a);
                            }
                            Data::builder(name.clone())
                                .content(content.clone())
                                .freshness_ms(freshness_ms)
                                .sign(&*signer)
                        });
                        Some(start_signers(
                            spec.threads,
                            t.sink.clone(),
                            make,
                            cache.clone(),
                            t.stats.clone(),
                        )?)
                    }
                    _ => None,
                };
                Answers::Sign {
                    signer,
                    content,
                    cache,
                    pool,
                }
            }
        })
    }

    /// The Data answering `i` now; None when there is none, or when it went
    /// to the signing pool (`token`: the PIT token the pool echoes).
    fn answer(
        &self,
        spec: &AppSpec,
        i: &Interest,
        token: Option<&Bytes>,
        stats: Option<&SharedServeStats>,
    ) -> Option<Bytes> {
        match self {
            Answers::Sign {
                signer,
                content,
                cache,
                pool,
            } => {
                if let Some(d) = cache.as_ref().and_then(|c| c.get(i.name())) {
                    return Some(d);
                }
                if let Some(p) = pool {
                    // a full queue drops the Interest (counted by the pool)
                    p.try_submit((i.name().clone(), token.cloned(), Instant::now()));
                    return None;
                }
                let t0 = stats.map(|_| Instant::now());
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .freshness_ms(spec.freshness_ms)
                    .sign(&**signer)
                    .ok()?;
                if let (Some(s), Some(t0)) = (stats, t0) {
                    lock(s).record_sign(t0, t0.elapsed());
                }
                if let Some(c) = cache {
                    c.insert(i.name(), d.clone());
                }
                Some(d)
            }
            Answers::Fixed(m) => m.get(i.name()).cloned(),
            Answers::Segments {
                versioned,
                segments,
            } => {
                let seg = segment_of(versioned, i.name())?;
                segments.get(usize::try_from(seg).ok()?).cloned()
            }
        }
    }
}

fn lock(s: &SharedServeStats) -> std::sync::MutexGuard<'_, ServeStats> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a producer on a thread of its own adds to the sans-IO core: where its
/// times are recorded, where a signing pool sends its Data, and which account
/// the pool's threads are claimed by.
pub struct Threaded {
    pub stats: SharedServeStats,
    pub sink: Sink,
    pub cpu: Option<Arc<Account>>,
}

/// The decisions of a producer, repository or put, sans-IO: the answer to each
/// frame from the forwarder (echoing its PIT token), at once.
pub struct Responder {
    spec: AppSpec,
    answers: Answers,
    link: LinkReceiver,
    sender: LinkSender,
    stats: Option<SharedServeStats>,
}

impl Responder {
    /// The producer of `spec` on `node` (signs a repository's or a put's
    /// contents now).
    pub fn new(spec: AppSpec, node: &str) -> anyhow::Result<Responder> {
        Responder::build(spec, node, false, None)
    }

    /// As [`Responder::new`], recording its times and signing on a pool of
    /// `threads` when there are more than one (see [`Threaded`]).
    pub fn threaded(spec: AppSpec, node: &str, t: Threaded) -> anyhow::Result<Responder> {
        Responder::build(spec, node, false, Some(t))
    }

    /// As [`Responder::new`], every signature at its key type's full length
    /// ([`ndnlab_security::FullLength`]): what the `sim` runner uses, so
    /// that a run's packet sizes, and so its timing, depend on the seed alone.
    pub fn with_full_length_signatures(spec: AppSpec, node: &str) -> anyhow::Result<Responder> {
        Responder::build(spec, node, true, None)
    }

    fn build(
        spec: AppSpec,
        node: &str,
        full_length: bool,
        threaded: Option<Threaded>,
    ) -> anyhow::Result<Responder> {
        Ok(Responder {
            answers: Answers::new(&spec, node, full_length, threaded.as_ref())?,
            spec,
            link: LinkReceiver::new(),
            sender: LinkSender::new(None, 0),
            stats: threaded.map(|t| t.stats),
        })
    }

    /// Answers the frame `wire`, if it is an Interest it has Data for.
    pub fn on_frame(&mut self, wire: Bytes, out: &mut Vec<Bytes>) {
        let Ok(Some((fields, pkt))) = self.link.receive(0, wire) else {
            return;
        };
        if fields.nack.is_some() {
            return;
        }
        let Ok(i) = Interest::decode(pkt) else {
            return;
        };
        let token = fields.pit_token.as_ref();
        let Some(data) = self
            .answers
            .answer(&self.spec, &i, token, self.stats.as_ref())
        else {
            return;
        };
        if fields.pit_token.is_some() {
            let f = LpFields {
                pit_token: fields.pit_token,
                ..Default::default()
            };
            let mut b = BytesMut::new();
            self.sender.encode_stream(&f, &data, &mut b);
            out.push(b.freeze());
        } else {
            out.push(data);
        }
    }
}

/// A producer, repository or put over `face` (its prefix routed to the face by
/// the caller) until the face closes or `stop` is set: [`Responder`] on a
/// thread, recording into `stats`; `cpu` claims its signing pool's threads.
pub async fn serve(
    mut face: AppFace,
    spec: AppSpec,
    node: String,
    stop: Arc<AtomicBool>,
    stats: SharedServeStats,
    cpu: Option<Arc<Account>>,
) -> anyhow::Result<()> {
    // what the signing pool signed comes back here to be sent
    let (tx, mut signed) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
    let sink: Sink = Arc::new(move |d| tx.send(d).is_ok());
    let t = Threaded {
        stats: stats.clone(),
        sink,
        cpu,
    };
    let mut responder = Responder::threaded(spec, &node, t)?;
    while !stop.load(Relaxed) {
        tokio::select! {
            x = face.recv_burst() => {
                let Some(burst) = x else { return Ok(()) };
                let arrived = Instant::now();
                let mut replies = Vec::with_capacity(burst.len());
                for wire in burst {
                    responder.on_frame(wire, &mut replies);
                }
                if !replies.is_empty() {
                    let n = replies.len() as u64;
                    face.send_burst(replies);
                    lock(&stats).record_serve(arrived, arrived.elapsed(), n);
                }
            }
            Some(d) = signed.recv() => {
                let mut out = vec![d];
                while let Ok(d) = signed.try_recv() {
                    out.push(d);
                }
                face.send_burst(out);
            }
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
    Ok(())
}
