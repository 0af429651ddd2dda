//! NFD management, like nfdc: the operations of `ndnlab ctl` on a running
//! forwarder (`ndnlab fwd` or NFD itself), through the blocking client.
//!
//! Each operation takes the connected [`BlockingClient`] and typed arguments,
//! and returns the decoded dataset records or the command's [`Outcome`]; the
//! text in nfdc's style is in [`format`], the JSON in [`json`], and the face
//! options of `face create|update` in nfdc's `key value` syntax in [`face`].
//! Commands are signed with DigestSha256, or with a keychain key (as nfdc signs
//! with its default identity) for a forwarder with `[[management.authorize]]`.

pub mod face;
pub mod format;
pub mod json;

use std::path::Path;

use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind, Record};
use ndnlab_proto::mgmt::params::{ControlParameters, ControlResponse};
use ndnlab_wire::Name;

use crate::client::blocking::BlockingClient;
use crate::client::FaceUri;

pub use face::FaceOptions;

/// Connects to the forwarder at `socket` (a path or unix:///path or
/// tcp://host:port), else `NDN_CLIENT_TRANSPORT` (like python-ndn), else
/// `/run/nfd/nfd.sock`; commands are signed with `key` of `keychain` if given,
/// else with DigestSha256.
pub fn connect(
    socket: Option<&Path>,
    keychain: Option<&Path>,
    key: Option<&Name>,
) -> anyhow::Result<BlockingClient> {
    let transport = FaceUri::resolve(socket)?;
    let signer = super::command_signer(keychain, key)?;
    let c = BlockingClient::connect(&transport)?;
    c.client().set_command_signer(signer);
    Ok(c)
}

/// A status dataset, decoded into records.
pub fn dataset(
    c: &mut BlockingClient,
    module: &str,
    ds: &str,
    kind: DatasetKind,
) -> anyhow::Result<Vec<Record>> {
    let payload = c.dataset(module, ds)?;
    decode_records(kind, &payload).map_err(|e| anyhow::anyhow!("cannot decode {module}/{ds}: {e}"))
}

/// A face id from a number or a remote URI (looked up in faces/list).
pub fn face_id(c: &mut BlockingClient, s: &str) -> anyhow::Result<u64> {
    if let Ok(id) = s.parse() {
        return Ok(id);
    }
    faces(c)?
        .iter()
        .find(|r| r.text("remote") == Some(s))
        .and_then(|r| r.num("faceId"))
        .ok_or_else(|| anyhow::anyhow!("no face with remote URI {s}"))
}

/// The forwarder's status: `status/general`, and ndnlab's resource bounds,
/// drops and counters of `status/limits` (empty from NFD, which lacks it).
#[derive(Debug, Clone, Default)]
pub struct Status {
    pub general: Record,
    /// `key value` pairs, keys prefixed `limit.`, `drop.`, `verify.` or `used.`.
    pub limits: Vec<(String, u64)>,
}

/// The sections of `status/limits`: JSON key, text title, key prefix.
pub const STATUS_SECTIONS: [(&str, &str, &str); 4] = [
    ("limits", "Limits:", "limit."),
    ("drops", "Drops:", "drop."),
    ("verify", "Verify:", "verify."),
    ("used", "Used:", "used."),
];

impl Status {
    /// The limits under `prefix`, the prefix stripped from their keys.
    pub fn section<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, u64)> + 'a {
        self.limits
            .iter()
            .filter_map(move |(k, n)| Some((k.strip_prefix(prefix)?, *n)))
    }
}

/// Fetches `status/general` and, if the forwarder has it, `status/limits`.
pub fn status(c: &mut BlockingClient) -> anyhow::Result<Status> {
    let general = dataset(c, "status", "general", DatasetKind::General)?
        .into_iter()
        .next()
        .unwrap_or_default();
    let limits = c
        .dataset("status", "limits")
        .ok()
        .map(|p| parse_limits(&p))
        .unwrap_or_default();
    Ok(Status { general, limits })
}

/// The `status/limits` dataset (`key value` lines) as pairs; bad lines are skipped.
pub fn parse_limits(payload: &[u8]) -> Vec<(String, u64)> {
    String::from_utf8_lossy(payload)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// faces/list.
pub fn faces(c: &mut BlockingClient) -> anyhow::Result<Vec<Record>> {
    dataset(c, "faces", "list", DatasetKind::Faces)
}

/// rib/list.
pub fn routes(c: &mut BlockingClient) -> anyhow::Result<Vec<Record>> {
    dataset(c, "rib", "list", DatasetKind::Rib)
}

/// fib/list.
pub fn fib(c: &mut BlockingClient) -> anyhow::Result<Vec<Record>> {
    dataset(c, "fib", "list", DatasetKind::Fib)
}

/// strategy-choice/list.
pub fn strategies(c: &mut BlockingClient) -> anyhow::Result<Vec<Record>> {
    dataset(c, "strategy-choice", "list", DatasetKind::Strategy)
}

/// cs/info (an empty record if the forwarder sends none).
pub fn cs_info(c: &mut BlockingClient) -> anyhow::Result<Record> {
    Ok(dataset(c, "cs", "info", DatasetKind::Cs)?
        .into_iter()
        .next()
        .unwrap_or_default())
}

/// A command's response, with what the command did (`face-created`,
/// `route-removed`, ...) and the status codes that mean it succeeded.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub what: &'static str,
    pub response: ControlResponse,
    pub ok: &'static [u64],
}

impl Outcome {
    fn new(what: &'static str, response: ControlResponse, ok: &'static [u64]) -> Outcome {
        Outcome { what, response, ok }
    }

    pub fn succeeded(&self) -> bool {
        self.ok.contains(&self.response.code)
    }

    /// What to print: the response as JSON, else nfdc's line if the command
    /// succeeded.
    pub fn output(&self, json: bool) -> Option<String> {
        if json {
            Some(json::outcome(self))
        } else {
            self.succeeded().then(|| format::outcome(self))
        }
    }

    /// The error of a refused command: `<code> <text> (<parameters>)`.
    pub fn result(&self) -> anyhow::Result<()> {
        if !self.succeeded() {
            anyhow::bail!(
                "{} {} ({})",
                self.response.code,
                self.response.text,
                format::failure(self)
            );
        }
        Ok(())
    }
}

/// faces/create of `remote` with `opts`; on an existing face (409) the options
/// given are applied with faces/update instead, as nfdc does.
pub fn face_create(
    c: &mut BlockingClient,
    remote: &str,
    opts: &FaceOptions,
) -> anyhow::Result<Outcome> {
    if opts.persistency == Some(face::ON_DEMAND) {
        anyhow::bail!("persistency must be persistent or permanent, not 'on-demand'");
    }
    let mut p = ControlParameters {
        uri: Some(remote.to_string()),
        local_uri: opts.local.clone(),
        face_persistency: Some(face::PERSISTENT),
        ..Default::default()
    };
    opts.apply(&mut p);
    let r = c.command_response("faces", "create", &p)?;
    let existing = r
        .body
        .as_ref()
        .and_then(|b| b.face_id)
        .filter(|_| r.code == 409);
    match existing {
        Some(id) if !opts.is_empty() => {
            let mut u = ControlParameters {
                face_id: Some(id),
                ..Default::default()
            };
            opts.apply(&mut u);
            let r = c.command_response("faces", "update", &u)?;
            Ok(Outcome::new("face-updated", r, &[200]))
        }
        _ => Ok(Outcome::new("face-created", r, &[200, 409])),
    }
}

/// faces/update of a face (id or remote URI) with `opts` (`local` refused: it
/// names a face at creation).
pub fn face_update(
    c: &mut BlockingClient,
    face: &str,
    opts: &FaceOptions,
) -> anyhow::Result<Outcome> {
    if opts.local.is_some() {
        anyhow::bail!("'local' names a face at creation; faces/update cannot change it");
    }
    let id = face_id(c, face)?;
    let mut p = ControlParameters {
        face_id: Some(id),
        ..Default::default()
    };
    opts.apply(&mut p);
    let r = c.command_response("faces", "update", &p)?;
    Ok(Outcome::new("face-updated", r, &[200]))
}

/// faces/destroy of a face (id or remote URI).
pub fn face_destroy(c: &mut BlockingClient, face: &str) -> anyhow::Result<Outcome> {
    let id = face_id(c, face)?;
    let p = ControlParameters {
        face_id: Some(id),
        ..Default::default()
    };
    let r = c.command_response("faces", "destroy", &p)?;
    Ok(Outcome::new("face-destroyed", r, &[200]))
}

/// The properties of a route (rib/register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteOptions {
    pub cost: u64,
    pub origin: u64,
    /// Let longer prefixes inherit the route (ChildInherit).
    pub child_inherit: bool,
    /// Stop inheritance of shorter prefixes' routes (Capture).
    pub capture: bool,
    /// Expiration in milliseconds (never without).
    pub expires_ms: Option<u64>,
}

impl Default for RouteOptions {
    fn default() -> RouteOptions {
        RouteOptions {
            cost: 0,
            origin: ORIGIN_STATIC,
            child_inherit: true,
            capture: false,
            expires_ms: None,
        }
    }
}

/// The route origin of nfdc's routes: static.
pub const ORIGIN_STATIC: u64 = 255;

/// rib/register of `prefix` towards `nexthop` (face id or remote URI).
pub fn route_add(
    c: &mut BlockingClient,
    prefix: &str,
    nexthop: &str,
    route: &RouteOptions,
) -> anyhow::Result<Outcome> {
    let id = face_id(c, nexthop)?;
    let flags = (route.child_inherit as u64) | ((route.capture as u64) << 1);
    let p = ControlParameters {
        name: Some(Name::from_uri(prefix)?),
        face_id: Some(id),
        origin: Some(route.origin),
        cost: Some(route.cost),
        flags: Some(flags),
        expiration_period: route.expires_ms,
        ..Default::default()
    };
    let r = c.command_response("rib", "register", &p)?;
    Ok(Outcome::new("route-add-accepted", r, &[200]))
}

/// rib/unregister of `prefix` towards `nexthop` (face id or remote URI).
pub fn route_remove(
    c: &mut BlockingClient,
    prefix: &str,
    nexthop: &str,
    origin: u64,
) -> anyhow::Result<Outcome> {
    let id = face_id(c, nexthop)?;
    let p = ControlParameters {
        name: Some(Name::from_uri(prefix)?),
        face_id: Some(id),
        origin: Some(origin),
        ..Default::default()
    };
    let r = c.command_response("rib", "unregister", &p)?;
    Ok(Outcome::new("route-removed", r, &[200]))
}

/// strategy-choice/set: `strategy` for `prefix`.
pub fn strategy_set(
    c: &mut BlockingClient,
    prefix: &str,
    strategy: &str,
) -> anyhow::Result<Outcome> {
    let p = ControlParameters {
        name: Some(Name::from_uri(prefix)?),
        strategy: Some(Name::from_uri(strategy)?),
        ..Default::default()
    };
    let r = c.command_response("strategy-choice", "set", &p)?;
    Ok(Outcome::new("strategy-set", r, &[200]))
}

/// strategy-choice/unset: removes the strategy choice of `prefix`.
pub fn strategy_unset(c: &mut BlockingClient, prefix: &str) -> anyhow::Result<Outcome> {
    let p = ControlParameters {
        name: Some(Name::from_uri(prefix)?),
        ..Default::default()
    };
    let r = c.command_response("strategy-choice", "unset", &p)?;
    Ok(Outcome::new("strategy-unset", r, &[200]))
}

/// cs/config: the capacity, and admit and serve on or off (unchanged when
/// `None`).
pub fn cs_config(
    c: &mut BlockingClient,
    capacity: Option<u64>,
    admit: Option<bool>,
    serve: Option<bool>,
) -> anyhow::Result<Outcome> {
    let mut flags = 0;
    let mut mask = 0;
    if let Some(a) = admit {
        mask |= CS_ENABLE_ADMIT;
        flags |= a as u64;
    }
    if let Some(s) = serve {
        mask |= CS_ENABLE_SERVE;
        flags |= (s as u64) << 1;
    }
    let p = ControlParameters {
        capacity,
        flags: (mask != 0).then_some(flags),
        mask: (mask != 0).then_some(mask),
        ..Default::default()
    };
    let r = c.command_response("cs", "config", &p)?;
    Ok(Outcome::new("cs-config-updated", r, &[200]))
}

/// The CS flag bits of cs/config and cs/info.
pub const CS_ENABLE_ADMIT: u64 = 1;
pub const CS_ENABLE_SERVE: u64 = 2;

/// cs/erase: cached Data under `prefix`, at most `count` if given.
pub fn cs_erase(
    c: &mut BlockingClient,
    prefix: &str,
    count: Option<u64>,
) -> anyhow::Result<Outcome> {
    let p = ControlParameters {
        name: Some(Name::from_uri(prefix)?),
        count,
        ..Default::default()
    };
    let r = c.command_response("cs", "erase", &p)?;
    Ok(Outcome::new("cs-erased", r, &[200]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_lines_become_sections() {
        let s = Status {
            limits: parse_limits(b"limit.pit 10\ndrop.pit-full 2\nbad line\nlimit.cs x\n"),
            ..Default::default()
        };
        assert_eq!(s.limits.len(), 2);
        assert_eq!(s.section("limit.").collect::<Vec<_>>(), [("pit", 10)]);
        assert_eq!(s.section("used.").count(), 0);
        assert_eq!(
            format::status(&s),
            "General forwarder status:\nLimits:\n                      pit=10\nDrops:\n                 pit-full=2\n"
        );
        let j: serde_json::Value = serde_json::from_str(&json::status(&s)).unwrap();
        assert_eq!(j["limits"]["pit"], 10);
        assert!(j.get("verify").is_none());
    }
}
