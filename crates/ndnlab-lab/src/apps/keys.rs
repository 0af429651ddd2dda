//! The keys the laboratory's producers sign with, and the forwarders' trust in
//! them (`forwarder.verify_data = "signature"`).
//!
//! A producer on node `n` signing with key type `t` signs as `/lab/<n>` with the
//! key `/lab/<n>/KEY/<t>`, made once per `ndnlab` process and kept (the same key
//! for every run of a campaign, so runs cost the same however they are ordered).
//! Every forwarder of a run trusts the key of every producer of the run
//! (`apps.<name>.trusted`, true by default): [`trust`] gives their certificates
//! (HMAC keys: their secrets) as `ndnlab fwd`'s `[[forwarder.trust]]` entries. A
//! producer with `trusted = false` signs as `/lab/<n>/untrusted` with a key of
//! its own, `/lab/<n>/untrusted/KEY/<t>`, that no forwarder is given: a
//! forwarder verifying signatures refuses its Data (`data-unknown-key`).

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

/// The keys made so far, by (node, key type, trusted).
type Keys = Mutex<BTreeMap<(String, KeyType, bool), Arc<LabKey>>>;

fn cache() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(Default::default)
}

/// The identity a producer on `node` signs as: `/lab/<node>`, or
/// `/lab/<node>/untrusted` for one no forwarder trusts.
fn identity_name(node: &str, trusted: bool) -> String {
    if trusted {
        format!("/lab/{node}")
    } else {
        format!("/lab/{node}/untrusted")
    }
}

/// The key of type `kt` of node `node`, the one the run's forwarders trust or
/// (`trusted` false) the one they do not (made on first use).
fn lab_key(node: &str, kt: KeyType, trusted: bool) -> anyhow::Result<Arc<LabKey>> {
    let mut keys = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = keys.get(&(node.to_string(), kt, trusted)) {
        return Ok(k.clone());
    }
    let key = Arc::new(
        PrivateKey::generate(kt).map_err(|e| anyhow::anyhow!("cannot generate {kt:?} key: {e}"))?,
    );
    let name = key_name(node, kt, trusted)?;
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
    keys.insert((node.to_string(), kt, trusted), k.clone());
    Ok(k)
}

/// The name of the key of type `kt` a producer on `node` signs with
/// (`/lab/<node>/KEY/<type>`, or under `/lab/<node>/untrusted`).
pub fn key_name(node: &str, kt: KeyType, trusted: bool) -> anyhow::Result<Name> {
    let identity = Name::from_uri(&identity_name(node, trusted))?;
    Ok(ndnlab_security::naming::key_name(
        &identity,
        kt.as_str().as_bytes(),
    ))
}

/// What a producer on `node` signs with (`trusted`: its
/// `apps.<name>.trusted`).
pub fn identity(kind: SignKind, node: &str, trusted: bool) -> anyhow::Result<Identity> {
    match kind {
        SignKind::Digest => Ok(Identity {
            signer: Arc::new(DigestSha256) as Arc<dyn Signer>,
            kind,
            certificate: None,
            key_name: None,
        }),
        SignKind::Key(kt) => {
            let k = lab_key(node, kt, trusted)?;
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
/// plan that signs with one and is trusted, once each.
pub fn trust(plan: &RunPlan) -> anyhow::Result<Vec<TrustEntry>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for a in (plan.exp.apps.values()).filter(|a| a.is_producer() && a.trusted) {
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
            let k = lab_key(&node, kt, true)?;
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
/// NAME`): stores its key (the trusted one, or not: `trusted`) in the keychain
/// `dir` and returns the key's name; `None` for a DigestSha256 producer.
pub fn export(
    kind: SignKind,
    node: &str,
    trusted: bool,
    dir: &std::path::Path,
) -> anyhow::Result<Option<Name>> {
    let SignKind::Key(kt) = kind else {
        return Ok(None);
    };
    let k = lab_key(node, kt, trusted)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of 2 forwarders, r0 verifying signatures, and `apps`.
    fn plan(apps: &str) -> Result<RunPlan, String> {
        let text = format!(
            "[experiment]\nduration_s = 1.0\n[topology]\nkind = \"line\"\nn = 2\n\
             [nodes.r0]\nverify_data = \"signature\"\n{apps}"
        );
        let (_, exp) = crate::experiment::parse(&text, "t.toml").map_err(|e| format!("{e:#}"))?;
        Ok(RunPlan::new(0, 1, exp).unwrap())
    }

    const PRODUCERS: &str = "[apps.client]\nkind = \"consumer\"\nprefix = \"/good\"\n\
         [apps.good]\nkind = \"producer\"\nnodes = [\"r1\"]\nprefix = \"/good\"\n\
         signature = \"ed25519\"\n\
         [apps.rogue]\nkind = \"producer\"\nnodes = [\"r1\"]\nprefix = \"/rogue\"\n\
         signature = \"ed25519\"\ntrusted = false\n";

    #[test]
    fn an_untrusted_producer_signs_with_a_key_no_forwarder_is_given() {
        let p = plan(PRODUCERS).unwrap();
        let kt = SignKind::Key(KeyType::Ed25519);
        let good = identity(kt, "r1", true).unwrap();
        let rogue = identity(kt, "r1", false).unwrap();
        let (good, rogue) = (good.key_name.unwrap(), rogue.key_name.unwrap());
        assert!(good.to_string().starts_with("/lab/r1/KEY/"), "{good}");
        assert!(
            rogue.to_string().starts_with("/lab/r1/untrusted/KEY/"),
            "{rogue}"
        );
        // one entry, the trusted producer's certificate
        let cert = |trusted| {
            let k = lab_key("r1", KeyType::Ed25519, trusted).unwrap();
            ndnlab_security::base64_encode(k.certificate.wire()).replace('\n', "")
        };
        assert_ne!(cert(true), cert(false), "the same key");
        let t = trust(&p).unwrap();
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(t[0].certificate, Some(cert(true)));
    }

    #[test]
    fn trusted_false_is_refused_where_no_key_is_trusted_or_not() {
        let e = plan(&PRODUCERS.replace("ed25519\"\ntrusted", "digest\"\ntrusted")).unwrap_err();
        assert!(
            e.contains("apps.rogue.trusted = false") && e.contains("apps.rogue.signature"),
            "{e}"
        );
        let consumer = "[apps.c]\nkind = \"consumer\"\ntrusted = false\n";
        let e = plan(&format!("{PRODUCERS}{consumer}")).unwrap_err();
        assert!(e.contains("apps.c.trusted = false"), "{e}");
        let e = plan(&PRODUCERS.replace("trusted = false", "trustd = false")).unwrap_err();
        assert!(e.contains("trustd"), "{e}");
    }
}
