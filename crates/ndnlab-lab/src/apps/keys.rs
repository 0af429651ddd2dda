//! The keys the laboratory's producers sign with, and the forwarders' trust in
//! them (`forwarder.verify_data = "signature"`).
//!
//! A producer on node `n` signing with key type `t` signs as `/lab/<n>` with the
//! key `/lab/<n>/KEY/<t>`, made once per `ndnlab` process and kept (the same key
//! for every run of a campaign, so runs cost the same however they are ordered).
//! Every forwarder of a run trusts the key of every producer of the run:
//! [`trust`] gives their certificates (HMAC keys: their secrets) as `ndnlab fwd`'s
//! `[[forwarder.trust]]` entries.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use ndnlab_app::tools::signing::{Identity, SignKind};
use ndnlab_fwd::verify::TrustEntry;
use ndnlab_security::{Certificate, KeySigner, KeyType, PrivateKey};
use ndnlab_wire::{DigestSha256, Name, Signer};

use crate::runner::RunPlan;

/// A producer's key and its self-signed certificate.
struct LabKey {
    key: Arc<PrivateKey>,
    name: Name,
    certificate: Certificate,
}

/// The keys made so far, by (node, key type).
type Keys = Mutex<BTreeMap<(String, KeyType), Arc<LabKey>>>;

fn cache() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(Default::default)
}

/// The key of type `kt` of node `node` (made on first use).
fn lab_key(node: &str, kt: KeyType) -> anyhow::Result<Arc<LabKey>> {
    let mut keys = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = keys.get(&(node.to_string(), kt)) {
        return Ok(k.clone());
    }
    let key = Arc::new(
        PrivateKey::generate(kt).map_err(|e| anyhow::anyhow!("cannot generate {kt:?} key: {e}"))?,
    );
    let identity = Name::from_uri(&format!("/lab/{node}"))?;
    let name = ndnlab_security::naming::key_name(&identity, kt.as_str().as_bytes());
    let signer = KeySigner::new(key.clone(), name.clone());
    let public = key.public_key().map_err(|e| anyhow::anyhow!("{e}"))?;
    let validity =
        ndnlab_security::validity_from(0, std::time::Duration::from_secs(100 * 365 * 86400));
    let certificate = Certificate::build(&name, &public, b"lab", 1, validity, &signer)
        .map_err(|e| anyhow::anyhow!("certificate of {name}: {e}"))?;
    let k = Arc::new(LabKey {
        key,
        name,
        certificate,
    });
    keys.insert((node.to_string(), kt), k.clone());
    Ok(k)
}

/// What a producer on `node` signs with.
pub fn identity(kind: SignKind, node: &str) -> anyhow::Result<Identity> {
    match kind {
        SignKind::Digest => Ok(Identity {
            signer: Arc::new(DigestSha256) as Arc<dyn Signer>,
            kind,
            certificate: None,
            key_name: None,
        }),
        SignKind::Key(kt) => {
            let k = lab_key(node, kt)?;
            Ok(Identity {
                signer: Arc::new(KeySigner::new(k.key.clone(), k.name.clone())),
                kind,
                certificate: Some(k.certificate.wire().clone()),
                key_name: Some(k.name.clone()),
            })
        }
    }
}

/// The `[[forwarder.trust]]` entries of a run: the key of every producer of the
/// plan that signs with one, once each.
pub fn trust(plan: &RunPlan) -> anyhow::Result<Vec<TrustEntry>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for a in plan.exp.apps.values().filter(|a| a.is_producer()) {
        let SignKind::Key(kt) = a
            .signature
            .parse::<SignKind>()
            .map_err(anyhow::Error::msg)?
        else {
            continue;
        };
        for node in plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)? {
            if !seen.insert((node.clone(), kt)) {
                continue;
            }
            let k = lab_key(&node, kt)?;
            out.push(match k.key.hmac_secret() {
                Some(secret) => TrustEntry {
                    hmac: Some(k.name.to_string()),
                    secret: Some(secret.iter().map(|b| format!("{b:02x}")).collect()),
                    ..Default::default()
                },
                None => TrustEntry {
                    certificate: Some(
                        ndnlab_security::base64_encode(k.certificate.wire()).replace('\n', ""),
                    ),
                    ..Default::default()
                },
            });
        }
    }
    Ok(out)
}

/// The trust entries of a forwarder `f` given those of its run: all of them when
/// it verifies signatures, none otherwise.
pub fn trust_of(f: &crate::experiment::ForwarderSpec, run: &[TrustEntry]) -> Vec<TrustEntry> {
    if f.verify_data == "signature" {
        run.to_vec()
    } else {
        Vec::new()
    }
}

/// Whether some forwarder of the plan verifies signatures.
pub fn verifies(plan: &RunPlan) -> bool {
    plan.topology
        .nodes
        .iter()
        .any(|n| plan.exp.forwarder_of(n).verify_data == "signature")
}

/// For a producer process on `node` (`ndnlab perf server --keychain DIR --key
/// NAME`): stores its key in the keychain `dir` and returns the key's name;
/// `None` for a DigestSha256 producer.
pub fn export(kind: SignKind, node: &str, dir: &std::path::Path) -> anyhow::Result<Option<Name>> {
    let SignKind::Key(kt) = kind else {
        return Ok(None);
    };
    let k = lab_key(node, kt)?;
    let kc = ndnlab_security::Keychain::open(dir)
        .map_err(|e| anyhow::anyhow!("keychain {}: {e}", dir.display()))?;
    match kc.store_key(&k.name, &k.key, None) {
        Ok(()) | Err(ndnlab_security::KeychainError::AlreadyExists(_)) => {}
        Err(e) => anyhow::bail!("storing {} in {}: {e}", k.name, dir.display()),
    }
    Ok(Some(k.name.clone()))
}

/// The `[[forwarder.trust]]` tables of an `ndnlab fwd` configuration file.
pub fn trust_toml(entries: &[TrustEntry]) -> String {
    let mut t = String::new();
    for e in entries {
        t += "[[forwarder.trust]]\n";
        if let Some(c) = &e.certificate {
            t += &format!("certificate = \"{c}\"\n");
        }
        if let (Some(h), Some(s)) = (&e.hmac, &e.secret) {
            t += &format!("hmac = \"{h}\"\nsecret = \"{s}\"\n");
        }
    }
    t
}
