//! Command authorization: NFD's `CommandAuthenticator`, configured by
//! `[[management.authorize]]` (NFD's `authorizations` section).
//!
//! Without that section every command from a local face is accepted (the
//! signature is only checked when it is a DigestSha256). With it, a command for
//! module M is accepted only if an entry granting M says `certfile = "any"`, or
//! the command is signed by the key of a certificate an entry granting M lists.
//! What is refused, and how (NFD's replies, from ndn-cxx's Dispatcher and NFD's
//! CommandAuthenticator):
//!
//! | the command | reply | counter |
//! |---|---|---|
//! | unsigned, or a malformed signature component | none (dropped) | `command-unsigned` |
//! | no KeyLocator name (e.g. DigestSha256) | none (dropped) | `command-bad-key-locator` |
//! | no timestamp, or one outside the grace period | 403 | `command-bad-timestamp` |
//! | a timestamp not after the key's last accepted one (replay) | 403 | `command-replayed` |
//! | a key no entry lists | 403 | `command-unknown-key` |
//! | a listed key without the module's privilege | 403 | `command-unauthorized` |
//! | a signature that does not verify | 403 | `command-bad-signature` |
//!
//! 403 replies carry NFD's text, `authorization rejected`. The timestamp checks
//! are ndn-cxx's command Interest policy: within `command_grace_period_s` of the
//! forwarder's clock, strictly increasing per key, the last one kept for an hour
//! for at most 1000 keys. A refused command changes nothing.

use std::collections::{HashMap, HashSet};

use ndnlab_proto::mgmt::command::command_signature;
use ndnlab_security::{decode_cert_file, naming::to_key_name, Certificate, PublicKey};
use ndnlab_wire::{Interest, KeyLocator, Name};

use crate::config::{ConfigError, ManagementSection};

/// How long the last timestamp of a key is kept (ndn-cxx's record lifetime).
const RECORD_LIFETIME_NS: u64 = 3600 * 1_000_000_000;
/// Most keys whose last timestamp is kept (ndn-cxx's maximum records).
const MAX_RECORDS: usize = 1000;

/// Why a command was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    Unsigned,
    BadKeyLocator,
    BadTimestamp,
    Replayed,
    UnknownKey,
    Unauthorized,
    BadSignature,
}

impl Refusal {
    pub const ALL: [Refusal; 7] = [
        Refusal::Unsigned,
        Refusal::BadKeyLocator,
        Refusal::BadTimestamp,
        Refusal::Replayed,
        Refusal::UnknownKey,
        Refusal::Unauthorized,
        Refusal::BadSignature,
    ];

    /// The counter's name in the `status/limits` dataset (after `drop.`).
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Unsigned => "command-unsigned",
            Refusal::BadKeyLocator => "command-bad-key-locator",
            Refusal::BadTimestamp => "command-bad-timestamp",
            Refusal::Replayed => "command-replayed",
            Refusal::UnknownKey => "command-unknown-key",
            Refusal::Unauthorized => "command-unauthorized",
            Refusal::BadSignature => "command-bad-signature",
        }
    }

    /// NFD answers these with 403; the others are dropped without a reply.
    pub fn gets_403(self) -> bool {
        !matches!(self, Refusal::Unsigned | Refusal::BadKeyLocator)
    }
}

/// NFD's reply text for a refused command.
pub const REFUSED_TEXT: &str = "authorization rejected";

/// Who may command one module.
#[derive(Debug, Default)]
struct Grant {
    any: bool,
    keys: HashSet<Name>,
}

/// The authorizations and the per-key timestamps.
pub struct CommandAuth {
    grants: HashMap<String, Grant>,
    /// Every listed key, by key name.
    keys: HashMap<Name, PublicKey>,
    grace_ms: u64,
    /// Last accepted timestamp per key, and when it was accepted (forwarder clock).
    last: HashMap<Name, (u64, u64)>,
    refused: HashMap<Refusal, u64>,
}

impl CommandAuth {
    /// Loads the certificates of `[[management.authorize]]`; `None` when the
    /// section is absent. A file that cannot be read or is not a certificate is
    /// an error naming its key.
    pub fn load(m: &ManagementSection) -> Result<Option<CommandAuth>, ConfigError> {
        let Some(entries) = &m.authorize else {
            return Ok(None);
        };
        let mut auth = CommandAuth {
            grants: HashMap::new(),
            keys: HashMap::new(),
            grace_ms: m.command_grace_period_s * 1000,
            last: HashMap::new(),
            refused: HashMap::new(),
        };
        for (i, e) in entries.iter().enumerate() {
            let key = format!("management.authorize[{i}].certfile");
            let bad = |reason: String| ConfigError::Invalid {
                key: key.clone(),
                reason,
            };
            let signer = if e.is_any() {
                tracing::warn!(
                    "{key}: 'any' accepts every command, signed or not (NFD's demo setting)"
                );
                None
            } else {
                let bytes = std::fs::read(&e.certfile)
                    .map_err(|err| bad(format!("cannot read {}: {err}", e.certfile)))?;
                let cert = decode_cert_file(&bytes)
                    .map_err(|err| err.to_string())
                    .and_then(|wire| Certificate::decode(wire).map_err(|err| err.to_string()))
                    .map_err(|err| bad(format!("{}: not an NDN certificate: {err}", e.certfile)))?;
                let name = cert.key_name();
                auth.keys.insert(name.clone(), cert.public_key().clone());
                Some(name)
            };
            for module in &e.privileges {
                let g = auth.grants.entry(module.clone()).or_default();
                match &signer {
                    None => g.any = true,
                    Some(k) => {
                        g.keys.insert(k.clone());
                    }
                }
                tracing::info!(module, signer = %signer.as_ref().map_or("any".into(), |k| k.to_string()), "authorize");
            }
        }
        Ok(Some(auth))
    }

    /// Decides on a command for `module`. `now_unix_ms` is the wall clock the
    /// timestamps are compared with; `now_ns` the forwarder's clock (record ages).
    /// `Ok` carries the signer's key name (`None` under `certfile any`).
    pub fn check(
        &mut self,
        interest: &Interest,
        module: &str,
        now_unix_ms: u64,
        now_ns: u64,
    ) -> Result<Option<Name>, Refusal> {
        let r = self.decide(interest, module, now_unix_ms, now_ns);
        if let Err(why) = r {
            *self.refused.entry(why).or_default() += 1;
        }
        r
    }

    fn decide(
        &mut self,
        interest: &Interest,
        module: &str,
        now_unix_ms: u64,
        now_ns: u64,
    ) -> Result<Option<Name>, Refusal> {
        let grant = self.grants.get(module);
        if grant.is_some_and(|g| g.any) {
            return Ok(None);
        }
        let sig = command_signature(interest).map_err(|_| Refusal::Unsigned)?;
        let Some(KeyLocator::Name(locator)) = &sig.key_locator else {
            return Err(Refusal::BadKeyLocator);
        };
        let key = to_key_name(locator).ok_or(Refusal::BadKeyLocator)?;
        // ndn-cxx checks the timestamp before looking for the key.
        let ts = sig.timestamp_ms.ok_or(Refusal::BadTimestamp)?;
        if ts.abs_diff(now_unix_ms) > self.grace_ms {
            return Err(Refusal::BadTimestamp);
        }
        self.last
            .retain(|_, (_, at)| now_ns.saturating_sub(*at) <= RECORD_LIFETIME_NS);
        if self.last.get(&key).is_some_and(|(last, _)| ts <= *last) {
            return Err(Refusal::Replayed);
        }
        let public = self.keys.get(&key).ok_or(Refusal::UnknownKey)?;
        if !grant.is_some_and(|g| g.keys.contains(&key)) {
            return Err(Refusal::Unauthorized);
        }
        public
            .verify(sig.sig_type, &sig.signed_portion, &sig.value)
            .map_err(|_| Refusal::BadSignature)?;
        if self.last.len() >= MAX_RECORDS && !self.last.contains_key(&key) {
            if let Some(oldest) = self
                .last
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(k, _)| k.clone())
            {
                self.last.remove(&oldest);
            }
        }
        self.last.insert(key.clone(), (ts, now_ns));
        Ok(Some(key))
    }

    /// Refused commands by reason, every reason listed.
    pub fn refused(&self) -> Vec<(&'static str, u64)> {
        Refusal::ALL
            .iter()
            .map(|r| (r.label(), self.refused.get(r).copied().unwrap_or(0)))
            .collect()
    }
}
