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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use ndnlab_app::tools::data_cache::DataCache;
use ndnlab_app::tools::put::{segment, segment_of};
use ndnlab_app::tools::signing::{make_identity, SignKind};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};
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
    /// Sign each Data (once per name if a cache is given).
    Sign {
        signer: Arc<dyn Signer>,
        content: Bytes,
        cache: Option<DataCache>,
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
    fn new(spec: &AppSpec, node: &str, full_length: bool) -> anyhow::Result<Answers> {
        let kind: SignKind = spec.signature.parse().map_err(anyhow::Error::msg)?;
        let identity = make_identity(kind, &Name::from_uri(&format!("/lab/{node}"))?)?;
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
            _ => Answers::Sign {
                signer,
                content,
                cache: spec.presign.then(|| DataCache::new(PRESIGNED)),
            },
        })
    }

    fn answer(&self, spec: &AppSpec, i: &Interest) -> Option<Bytes> {
        match self {
            Answers::Sign {
                signer,
                content,
                cache,
            } => {
                if let Some(d) = cache.as_ref().and_then(|c| c.get(i.name())) {
                    return Some(d);
                }
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .freshness_ms(spec.freshness_ms)
                    .sign(&**signer)
                    .ok()?;
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

/// The decisions of a producer, repository or put, sans-IO: the answer to each
/// frame from the forwarder (echoing its PIT token), at once.
pub struct Responder {
    spec: AppSpec,
    answers: Answers,
    link: LinkReceiver,
    sender: LinkSender,
}

impl Responder {
    /// The producer of `spec` on `node` (signs a repository's or a put's
    /// contents now).
    pub fn new(spec: AppSpec, node: &str) -> anyhow::Result<Responder> {
        Responder::build(spec, node, false)
    }

    /// As [`Responder::new`], every signature at its key type's full length
    /// ([`ndnlab_security::FullLength`]): what the `sim` runner uses, so
    /// that a run's packet sizes, and so its timing, depend on the seed alone.
    pub fn with_full_length_signatures(spec: AppSpec, node: &str) -> anyhow::Result<Responder> {
        Responder::build(spec, node, true)
    }

    fn build(spec: AppSpec, node: &str, full_length: bool) -> anyhow::Result<Responder> {
        Ok(Responder {
            answers: Answers::new(&spec, node, full_length)?,
            spec,
            link: LinkReceiver::new(),
            sender: LinkSender::new(None, 0),
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
        let Some(data) = self.answers.answer(&self.spec, &i) else {
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
/// the caller) until the face closes or `stop` is set: [`Responder`] on a thread.
pub async fn serve(
    mut face: AppFace,
    spec: AppSpec,
    node: String,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<()> {
    let mut responder = Responder::new(spec, &node)?;
    while !stop.load(Relaxed) {
        let burst = match tokio::time::timeout(Duration::from_millis(100), face.recv_burst()).await
        {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(()),
            Err(_) => continue,
        };
        let mut replies = Vec::with_capacity(burst.len());
        for wire in burst {
            responder.on_frame(wire, &mut replies);
        }
        if !replies.is_empty() {
            face.send_burst(replies);
        }
    }
    Ok(())
}
