//! The keychain commands' passphrases and listing (`ndnlab key`, like ndn-cxx's
//! `ndnsec`): where a passphrase comes from, and the keys as a table or JSON.

use std::path::Path;

use anyhow::Context;
use ndnlab_security::{KeyEntry, KeyStorage, Keychain};

/// Where an encrypted key's passphrase is read from when no file is given.
pub const PASSPHRASE_ENV: &str = "NDNLAB_PASSPHRASE";

/// The passphrase: the first line of `file`, else `$NDNLAB_PASSPHRASE`; with
/// `required`, a missing one is an error.
pub fn passphrase(file: Option<&Path>, required: bool) -> anyhow::Result<Option<Vec<u8>>> {
    if let Some(f) = file {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("reading passphrase file {}", f.display()))?;
        let line = text.lines().next().unwrap_or("");
        anyhow::ensure!(!line.is_empty(), "passphrase file {} is empty", f.display());
        return Ok(Some(line.as_bytes().to_vec()));
    }
    match std::env::var(PASSPHRASE_ENV) {
        Ok(p) if !p.is_empty() => Ok(Some(p.into_bytes())),
        _ if required => anyhow::bail!("--encrypt needs the passphrase in ${PASSPHRASE_ENV}"),
        _ => Ok(None),
    }
}

/// How a key is stored, as the listing names it.
pub fn storage_name(s: KeyStorage) -> &'static str {
    match s {
        KeyStorage::Pkcs8 => "pkcs8",
        KeyStorage::EncryptedPkcs8 => "pkcs8-encrypted",
        KeyStorage::HmacSecret => "hmac-secret",
    }
}

/// `ndnlab key list --json`.
pub fn list_json(kc: &Keychain, keys: &[KeyEntry]) -> serde_json::Value {
    let v: Vec<serde_json::Value> = keys
        .iter()
        .map(|k| {
            serde_json::json!({
                "identity": k.key_name.prefix(k.key_name.len() - 2).to_string(),
                "key": k.key_name.to_string(),
                "type": k.key_type.map(|t| t.to_string()),
                "storage": storage_name(k.storage),
                "certificates": k.certs.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "keychain": kc.dir().display().to_string(),
        "keys": v,
    })
}

/// `ndnlab key list`: a line per key, or how to create one.
pub fn list_text(kc: &Keychain, keys: &[KeyEntry]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if keys.is_empty() {
        let _ = writeln!(
            out,
            "keychain {}: no keys (create one with `ndnlab key gen IDENTITY`)",
            kc.dir().display()
        );
        return out;
    }
    let _ = writeln!(out, "keychain {}", kc.dir().display());
    let _ = writeln!(
        out,
        "{:<48} {:<11} {:<16} CERTIFICATES",
        "KEY", "TYPE", "STORAGE"
    );
    for k in keys {
        let t = k
            .key_type
            .map(|t| t.to_string())
            .unwrap_or_else(|| "?".into());
        let certs = if k.certs.is_empty() {
            "-".to_string()
        } else {
            k.certs
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "{:<48} {:<11} {:<16} {certs}",
            k.key_name.to_string(),
            t,
            storage_name(k.storage)
        );
    }
    out
}
