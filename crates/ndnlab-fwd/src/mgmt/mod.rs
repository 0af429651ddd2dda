//! NFD management protocol: control commands, status datasets, face notifications.
//!
//! Management Interests (`/localhost/nfd/...`, `/localhop/nfd/...`) are taken out of
//! the data path by the router and answered here, directly on the requesting face:
//!
//! * only local faces are served (others get 403);
//! * signed commands are accepted in both forms (v0.3 signed Interest, and the older
//!   timestamp/nonce/SignatureInfo/SignatureValue components); DigestSha256 is
//!   verified; without `[[management.authorize]]` other signature types are
//!   accepted as NFD's sample `certfile any` does, with no timestamp ordering check
//!   (concurrent apps all succeed); with it, commands must be signed by an
//!   authorized key, with fresh increasing timestamps (see `auth.rs`);
//! * malformed parameters get 400 with a StatusText saying what is wrong, and every
//!   response carries a ControlParameters body (python-ndn needs one even on errors);
//! * the reply is a Data with exactly the Interest's name, sent after the FIB change
//!   was queued to every shard, and after every shard applied a strategy change
//!   (see `strategy.rs`).

pub mod auth;
mod commands;
pub mod internal;
pub use ndnlab_proto::mgmt::{codec, dataset, params};
pub mod rib;
mod status;
mod strategy;

/// Limits the configuration checks share with the commands (`[[route]]` prefixes,
/// `[[face]]` and `[faces.udp]` MTUs).
pub(crate) use commands::{MAX_PREFIX, MTU_RANGE};

use std::sync::Arc;

use bytes::Bytes;
use ndnlab_wire::{DecodeError, Interest, Name};
use tokio::sync::{mpsc, oneshot};

use crate::face::{FaceEntry, OutItem, PktKind};
use crate::runtime::Shared;
use params::{ControlParameters, ControlResponse};

/// Decodes a whole Name TLV.
pub fn decode_name(wire: Bytes) -> Result<Name, String> {
    Name::decode(wire).map_err(|e: DecodeError| e.reason().to_string())
}

/// Messages to the management task.
pub enum MgmtMsg {
    Request {
        face: Arc<FaceEntry>,
        interest: Interest,
    },
    FaceCreated(Arc<FaceEntry>),
    FaceClosed(Arc<FaceEntry>),
    /// A route from the configuration file (origin static).
    StaticRoute {
        prefix: Name,
        face: u64,
        cost: u64,
        done: oneshot::Sender<()>,
    },
    /// A strategy choice from the configuration file, parsed by the loader.
    StaticStrategy {
        prefix: Name,
        instance: ndnlab_core::StrategyInstance,
        done: oneshot::Sender<Result<(), String>>,
    },
    /// A request of a shard's self-learning strategy to the RIB.
    SelfLearning {
        shard: usize,
        request: ndnlab_core::RibRequest,
    },
}

/// The management task's state.
pub struct Manager {
    shared: Arc<Shared>,
    rib: rib::Rib,
    /// The strategy choices every shard has applied (the `strategy-choice/list`
    /// dataset).
    strategies: std::collections::BTreeMap<Name, ndnlab_core::StrategyInstance>,
    status: status::StatusState,
    /// Management's own exchanges (the internal face's counters).
    traffic: internal::MgmtTraffic,
    /// `[[management.authorize]]`, when configured.
    auth: Option<auth::CommandAuth>,
}

impl Manager {
    pub fn new(shared: Arc<Shared>, auth: Option<auth::CommandAuth>) -> Self {
        // The shards' StrategyChoice tables start with best-route at the root.
        let mut strategies = std::collections::BTreeMap::new();
        strategies.insert(Name::new(), ndnlab_core::StrategyInstance::default());
        Manager {
            status: status::StatusState::new(&shared.cfg),
            shared,
            rib: rib::Rib::new(),
            strategies,
            traffic: internal::MgmtTraffic::default(),
            auth,
        }
    }

    /// Runs until the daemon stops.
    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<MgmtMsg>) {
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(500));
        loop {
            tokio::select! {
                m = rx.recv() => match m {
                    Some(m) => self.handle(m).await,
                    None => return,
                },
                _ = tick.tick() => {
                    let now = self.shared.clock();
                    let ops = self.rib.expire(now);
                    self.apply(ops);
                    self.status.expire(now);
                }
            }
        }
    }

    async fn handle(&mut self, m: MgmtMsg) {
        match m {
            MgmtMsg::Request { face, interest } => self.on_request(face, interest).await,
            MgmtMsg::FaceCreated(f) => self.post_event(&f, 1),
            MgmtMsg::FaceClosed(f) => {
                let ops = self.rib.remove_face(f.id);
                self.apply(ops);
                self.status.drop_face(f.id);
                self.post_event(&f, 2);
            }
            MgmtMsg::StaticRoute {
                prefix,
                face,
                cost,
                done,
            } => {
                let ops = self.rib.register(
                    &prefix,
                    rib::Route {
                        face_id: face,
                        origin: 255,
                        cost,
                        flags: params::ROUTE_CHILD_INHERIT,
                        ..Default::default()
                    },
                );
                self.apply(ops);
                let _ = done.send(());
            }
            MgmtMsg::StaticStrategy {
                prefix,
                instance,
                done,
            } => {
                let r = self
                    .set_strategy(&prefix, instance)
                    .await
                    .map(|_| ())
                    .map_err(|(_, text)| text);
                let _ = done.send(r);
            }
            MgmtMsg::SelfLearning { shard, request } => self.self_learning(shard, request),
        }
    }

    /// Applies a self-learning request to the RIB (NFD's `slAnnounce`, `slRenew`,
    /// `slFindAnn`); a FindAnnouncement is answered to the shard that asked.
    fn self_learning(&mut self, shard: usize, request: ndnlab_core::RibRequest) {
        use ndnlab_core::RibRequest as Q;
        let now = self.shared.clock();
        let unix_ms = unix_ms();
        match request {
            Q::Announce {
                announcement,
                face,
                max_lifetime,
            } => {
                // The ingress dropped Data whose announcement does not decode.
                let Ok(pa) = ndnlab_wire::PrefixAnnouncement::decode(announcement) else {
                    return;
                };
                if self.shared.faces.get(face.0).is_none() {
                    return;
                }
                tracing::debug!(prefix = %pa.announced_name(), face = face.0, "self-learning route");
                let ops = self
                    .rib
                    .sl_announce(&pa, face.0, max_lifetime, now, unix_ms);
                self.apply(ops);
            }
            Q::Renew {
                name,
                face,
                max_lifetime,
            } => {
                let ops = self.rib.sl_renew(&name, face.0, max_lifetime, now);
                self.apply(ops);
            }
            Q::FindAnnouncement { name, id } => {
                let announcement = match self.rib.sl_find_announcement(&name, now) {
                    None => None,
                    Some(rib::FoundAnnouncement::Kept(a)) => Some(a),
                    // NFD signs the announcements it makes with its key; this
                    // forwarder has none of its own and uses DigestSha256, as for its
                    // management responses.
                    Some(rib::FoundAnnouncement::Make {
                        prefix,
                        expiration_ms,
                    }) => Some(
                        ndnlab_wire::PrefixAnnouncement::builder(
                            &prefix,
                            expiration_ms,
                            None,
                            unix_ms,
                        )
                        .sign_digest(),
                    ),
                };
                self.shared.send_to_shard(
                    shard,
                    crate::runtime::shard::ShardMsg::Announcement { id, announcement },
                );
            }
        }
    }

    /// Sends FIB operations to every shard.
    fn apply(&self, ops: Vec<rib::FibOp>) {
        if ops.is_empty() {
            return;
        }
        let ops = Arc::new(ops);
        self.shared
            .broadcast(|| crate::runtime::shard::ShardMsg::Fib(ops.clone()));
    }

    fn post_event(&mut self, f: &FaceEntry, kind: u64) {
        let now = self.shared.clock();
        let rec = status::face_status(f, now);
        let payload = rec.encode_event(kind);
        for (face, data) in self.status.post_event(payload, now) {
            if let Some(face) = self.shared.faces.get(face) {
                self.reply(&face, data);
            }
        }
    }

    /// Sends a reply or notification, counted as the internal face's Data.
    fn reply(&mut self, face: &FaceEntry, data: Bytes) {
        self.traffic.reply(data.len());
        send_data(face, data);
    }

    async fn on_request(&mut self, face: Arc<FaceEntry>, interest: Interest) {
        self.traffic.request(interest.wire().len());
        let name = interest.name().clone();
        let comp = |i: usize| name.get(i).map(|c| c.value.to_vec()).unwrap_or_default();
        let module = String::from_utf8_lossy(&comp(2)).into_owned();
        let verb = String::from_utf8_lossy(&comp(3)).into_owned();
        let is_dataset = matches!(
            (module.as_str(), verb.as_str()),
            ("status", "general" | "limits")
                | ("faces", "list" | "channels" | "query" | "events")
                | ("fib", "list")
                | ("rib", "list")
                | ("cs", "info")
                | ("strategy-choice", "list")
                | ("ndnlab", "latency" | "links")
        );
        if is_dataset {
            if !face.local_scope {
                return; // datasets are not served to non-local faces (NFD drops them too)
            }
            let now = self.shared.clock();
            if let Some(data) = self.dataset(&face, &interest, &module, &verb, now).await {
                self.reply(&face, data);
            }
            return;
        }
        let Some(resp) = self.command(&face, &interest, &module, &verb).await else {
            return; // refused without a reply, as NFD does
        };
        tracing::debug!(face = face.id, module, verb, code = resp.code, text = %resp.text, "management command");
        let data = ndnlab_wire::Data::builder(name)
            .content(resp.encode())
            .sign_digest();
        self.reply(&face, data);
    }

    /// Parses and runs a command, producing its response.
    async fn command(
        &mut self,
        face: &Arc<FaceEntry>,
        interest: &Interest,
        module: &str,
        verb: &str,
    ) -> Option<ControlResponse> {
        let empty = ControlParameters::default();
        if !face.local_scope {
            return Some(ControlResponse::error(
                403,
                "management commands are accepted only from local faces",
                empty,
            ));
        }
        if let Some(auth) = &mut self.auth {
            match auth.check(interest, module, unix_ms(), self.shared.clock()) {
                Ok(signer) => {
                    tracing::debug!(module, verb, signer = ?signer, "command authorized")
                }
                Err(why) => {
                    tracing::debug!(
                        face = face.id,
                        module,
                        verb,
                        reason = why.label(),
                        "command refused"
                    );
                    return why
                        .gets_403()
                        .then(|| ControlResponse::error(403, auth::REFUSED_TEXT, empty));
                }
            }
        }
        Some(self.run_command(face, interest, module, verb).await)
    }

    /// Parses and runs an authorized command.
    async fn run_command(
        &mut self,
        face: &Arc<FaceEntry>,
        interest: &Interest,
        module: &str,
        verb: &str,
    ) -> ControlResponse {
        let empty = ControlParameters::default();
        if (module, verb) == ("rib", "announce") {
            return commands::rib_announce(self, face, interest);
        }
        let name = interest.name();
        let Some(pc) = name.get(4) else {
            return ControlResponse::error(400, "missing ControlParameters name component", empty);
        };
        let params = match ControlParameters::decode(&Bytes::copy_from_slice(pc.value)) {
            Ok(p) => p,
            Err(e) => {
                return ControlResponse::error(
                    400,
                    format!("malformed ControlParameters: {e}"),
                    empty,
                )
            }
        };
        if let Err(e) = ndnlab_proto::mgmt::command::check_signature(interest) {
            return ControlResponse::error(403, e, params);
        }
        commands::run(self, face, module, verb, params).await
    }
}

/// Applies a `[[face]]`'s options to the face created for it at startup.
pub fn configure_static_face(
    shared: &Arc<Shared>,
    face: &Arc<FaceEntry>,
    cfg: &crate::config::StaticFace,
) -> anyhow::Result<()> {
    if cfg.reliability {
        crate::face::link::set_reliability(
            face,
            true,
            shared.cfg.faces.lp_reliability.options(),
            &shared.ingress(),
        )
        .map_err(|e| anyhow::anyhow!("face {}: {e}", cfg.uri))?;
    }
    Ok(())
}

/// Unix time in milliseconds (announcement versions and ValidityPeriods).
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Queues a management Data on a face.
fn send_data(face: &FaceEntry, data: Bytes) {
    face.send_batch(vec![OutItem {
        pkt: data,
        fields: Default::default(),
        kind: PktKind::Data,
        sample: None,
    }]);
}
