//! A file keychain: one directory holding private keys (PKCS#8 DER,
//! optionally passphrase-encrypted PKCS#8, or raw HMAC secrets) and
//! certificates (the certificate Data's wire encoding).
//!
//! Layout: `keys/<hex>.p8` (PKCS#8), `keys/<hex>.p8e` (encrypted PKCS#8,
//! PBES2 scrypt + AES-256-CBC), `keys/<hex>.hmac` (secret), and
//! `certs/<hex>.cert`, where `<hex>` is the lowercase hex of the key or
//! certificate Name TLV-VALUE, so every file is self-describing and a plain
//! directory listing enumerates the keychain (no index to keep consistent).
//! Every write goes to a temporary file in the same directory that is
//! fsynced and then renamed over the target: a crash or error never leaves a
//! partially written key.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use ndnlab_wire::Name;

use crate::naming::{self, is_cert_name, is_key_name};
use crate::{validity_from, CertError, Certificate, KeyError, KeySigner, KeyType, PrivateKey};

/// Environment variable overriding the keychain directory.
pub const KEYCHAIN_ENV: &str = "NDNLAB_KEYCHAIN";
/// Default validity of self-signed certificates made by [`Keychain::generate`].
pub const DEFAULT_VALIDITY: Duration = Duration::from_secs(20 * 365 * 86400);
/// Longest Name TLV-VALUE that fits a file name (as hex, with extension).
pub const MAX_NAME_LEN: usize = 120;

/// Errors of the keychain.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeychainError {
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("unknown identity {0} (no key in the keychain; see `ndnlab key list`)")]
    UnknownIdentity(String),
    #[error("unknown key or certificate {0}")]
    UnknownName(String),
    #[error("wrong passphrase for key {0}")]
    WrongPassphrase(String),
    #[error("key {0} is encrypted: a passphrase is required")]
    PassphraseRequired(String),
    #[error("corrupt keychain file {path}: {why}")]
    Corrupt { path: PathBuf, why: String },
    #[error("{0} already exists")]
    AlreadyExists(String),
    #[error("name {0} is too long for the file keychain (max {MAX_NAME_LEN} bytes encoded)")]
    NameTooLong(String),
    #[error("the private key does not match the certificate's public key")]
    KeyMismatch,
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Cert(#[from] CertError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> KeychainError + '_ {
    move |cause| KeychainError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// How a private key is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStorage {
    Pkcs8,
    EncryptedPkcs8,
    HmacSecret,
}

impl KeyStorage {
    fn ext(self) -> &'static str {
        match self {
            KeyStorage::Pkcs8 => "p8",
            KeyStorage::EncryptedPkcs8 => "p8e",
            KeyStorage::HmacSecret => "hmac",
        }
    }

    fn from_ext(e: &str) -> Option<Self> {
        match e {
            "p8" => Some(KeyStorage::Pkcs8),
            "p8e" => Some(KeyStorage::EncryptedPkcs8),
            "hmac" => Some(KeyStorage::HmacSecret),
            _ => None,
        }
    }
}

/// One key of the keychain, as listed.
#[derive(Debug, Clone)]
pub struct KeyEntry {
    pub key_name: Name,
    pub storage: KeyStorage,
    /// The key type, from its certificate (or `Hmac`); `None` if encrypted and no certificate.
    pub key_type: Option<KeyType>,
    /// Certificate names of this key, sorted.
    pub certs: Vec<Name>,
    path: PathBuf,
    modified: SystemTime,
}

/// A keychain directory.
#[derive(Debug, Clone)]
pub struct Keychain {
    dir: PathBuf,
}

impl Keychain {
    /// The directory to use: `flag`, else `$NDNLAB_KEYCHAIN`, else
    /// `$XDG_CONFIG_HOME/ndnlab/keychain`, else `~/.config/ndnlab/keychain`.
    pub fn resolve_dir(flag: Option<&Path>) -> PathBuf {
        if let Some(p) = flag {
            return p.to_path_buf();
        }
        if let Some(p) = std::env::var_os(KEYCHAIN_ENV).filter(|v| !v.is_empty()) {
            return PathBuf::from(p);
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
            .unwrap_or_else(|| PathBuf::from("."));
        config.join("ndnlab").join("keychain")
    }

    /// Opens (creating if needed) the keychain at `dir`.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Keychain, KeychainError> {
        let dir = dir.into();
        for sub in ["keys", "certs"] {
            let p = dir.join(sub);
            fs::create_dir_all(&p).map_err(io_err(&p))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = fs::set_permissions(&p, fs::Permissions::from_mode(0o700));
            }
        }
        Ok(Keychain { dir })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file_for(&self, sub: &str, name: &Name, ext: &str) -> Result<PathBuf, KeychainError> {
        if name.value_bytes().len() > MAX_NAME_LEN {
            return Err(KeychainError::NameTooLong(name.to_string()));
        }
        Ok(self
            .dir
            .join(sub)
            .join(format!("{}.{ext}", hex_encode(name.value_bytes()))))
    }

    /// Generates a key for `identity` with a random key id, stores it
    /// (encrypted if `passphrase` is given) and, for asymmetric keys, a
    /// self-signed certificate valid for `validity`. Returns the key name.
    pub fn generate(
        &self,
        identity: &Name,
        key_type: KeyType,
        passphrase: Option<&[u8]>,
        validity: Duration,
    ) -> Result<Name, KeychainError> {
        let key = PrivateKey::generate(key_type)?;
        let mut id = [0u8; 8];
        aws_lc_rs::rand::fill(&mut id).map_err(|e| KeyError::Generate(e.to_string()))?;
        let key_name = naming::key_name(identity, &id);
        self.store_key(&key_name, &key, passphrase)?;
        if key_type.is_asymmetric() {
            let now = unix_now();
            let signer = KeySigner::new(Arc::new(key), key_name.clone());
            let public = signer.key().public_key()?;
            let cert = Certificate::build(
                &key_name,
                &public,
                naming::SELF_ISSUER,
                now * 1000,
                validity_from(now, validity),
                &signer,
            );
            match cert {
                Ok(c) => self.add_certificate(&c)?,
                Err(e) => {
                    let _ = self.delete(&key_name);
                    return Err(e.into());
                }
            }
        }
        Ok(key_name)
    }

    /// Stores `key` under `key_name` (refuses to overwrite).
    pub fn store_key(
        &self,
        key_name: &Name,
        key: &PrivateKey,
        passphrase: Option<&[u8]>,
    ) -> Result<(), KeychainError> {
        if !is_key_name(key_name) {
            return Err(KeychainError::Key(KeyError::Malformed(format!(
                "{key_name} is not a key name (/<identity>/KEY/<key-id>)"
            ))));
        }
        if self.find_key_file(key_name)?.is_some() {
            return Err(KeychainError::AlreadyExists(key_name.to_string()));
        }
        let (storage, bytes) = match (key.hmac_secret(), passphrase) {
            (Some(secret), None) => (KeyStorage::HmacSecret, secret.to_vec()),
            (Some(_), Some(_)) => {
                return Err(KeychainError::Key(KeyError::Unsupported(
                    "passphrase encryption of HMAC secrets".into(),
                )))
            }
            (None, None) => (KeyStorage::Pkcs8, key.to_pkcs8_der()?.to_vec()),
            (None, Some(pass)) => {
                let info = pkcs8::PrivateKeyInfo::try_from(key.to_pkcs8_der()?)
                    .map_err(|e| KeyError::Malformed(e.to_string()))?;
                let doc = info
                    .encrypt(rand::rngs::OsRng, pass)
                    .map_err(|e| KeyError::Generate(format!("PKCS#8 encryption: {e}")))?;
                (KeyStorage::EncryptedPkcs8, doc.as_bytes().to_vec())
            }
        };
        let path = self.file_for("keys", key_name, storage.ext())?;
        write_atomic(&path, &bytes, true)
    }

    /// Stores (or replaces) a certificate.
    pub fn add_certificate(&self, cert: &Certificate) -> Result<(), KeychainError> {
        let path = self.file_for("certs", cert.name(), "cert")?;
        write_atomic(&path, cert.wire(), false)
    }

    fn find_key_file(
        &self,
        key_name: &Name,
    ) -> Result<Option<(PathBuf, KeyStorage)>, KeychainError> {
        for s in [
            KeyStorage::Pkcs8,
            KeyStorage::EncryptedPkcs8,
            KeyStorage::HmacSecret,
        ] {
            let p = self.file_for("keys", key_name, s.ext())?;
            if p.exists() {
                return Ok(Some((p, s)));
            }
        }
        Ok(None)
    }

    /// Loads a private key by key name (decrypting with `passphrase` if it is encrypted).
    pub fn load_key(
        &self,
        key_name: &Name,
        passphrase: Option<&[u8]>,
    ) -> Result<PrivateKey, KeychainError> {
        let (path, storage) = self
            .find_key_file(key_name)?
            .ok_or_else(|| KeychainError::UnknownName(key_name.to_string()))?;
        let bytes = fs::read(&path).map_err(io_err(&path))?;
        let corrupt = |why: String| KeychainError::Corrupt {
            path: path.clone(),
            why,
        };
        match storage {
            KeyStorage::HmacSecret => {
                if bytes.is_empty() {
                    return Err(corrupt("empty HMAC secret".into()));
                }
                Ok(PrivateKey::from_hmac_secret(&bytes))
            }
            KeyStorage::Pkcs8 => {
                PrivateKey::from_pkcs8_der(&bytes).map_err(|e| corrupt(e.to_string()))
            }
            KeyStorage::EncryptedPkcs8 => {
                let pass = passphrase
                    .ok_or_else(|| KeychainError::PassphraseRequired(key_name.to_string()))?;
                let enc = pkcs8::EncryptedPrivateKeyInfo::try_from(&bytes[..])
                    .map_err(|e| corrupt(format!("encrypted PKCS#8: {e}")))?;
                let doc = enc
                    .decrypt(pass)
                    .map_err(|_| KeychainError::WrongPassphrase(key_name.to_string()))?;
                // A wrong passphrase can decrypt to garbage with valid padding (1 in 256).
                PrivateKey::from_pkcs8_der(doc.as_bytes())
                    .map_err(|_| KeychainError::WrongPassphrase(key_name.to_string()))
            }
        }
    }

    /// Whether the stored key is passphrase-encrypted.
    pub fn is_encrypted(&self, key_name: &Name) -> Result<bool, KeychainError> {
        Ok(matches!(
            self.find_key_file(key_name)?,
            Some((_, KeyStorage::EncryptedPkcs8))
        ))
    }

    /// Loads a certificate by its exact name.
    pub fn certificate(&self, cert_name: &Name) -> Result<Certificate, KeychainError> {
        let path = self.file_for("certs", cert_name, "cert")?;
        if !path.exists() {
            return Err(KeychainError::UnknownName(cert_name.to_string()));
        }
        read_cert(&path)
    }

    /// Every certificate of the keychain.
    pub fn certificates(&self) -> Result<Vec<Certificate>, KeychainError> {
        let mut out = Vec::new();
        for (path, _) in list_dir(&self.dir.join("certs"), "cert")? {
            out.push(read_cert(&path)?);
        }
        out.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(out)
    }

    /// Every key with its certificates, sorted by key name.
    pub fn keys(&self) -> Result<Vec<KeyEntry>, KeychainError> {
        let certs = self.certificates()?;
        let mut out = Vec::new();
        let dir = self.dir.join("keys");
        for (path, ext) in list_dir(&dir, "")? {
            let Some(storage) = KeyStorage::from_ext(&ext) else {
                continue;
            };
            let key_name = name_of_file(&path)?;
            let mine: Vec<&Certificate> =
                certs.iter().filter(|c| c.key_name() == key_name).collect();
            let key_type = match storage {
                KeyStorage::HmacSecret => Some(KeyType::Hmac),
                KeyStorage::Pkcs8 => {
                    let bytes = fs::read(&path).map_err(io_err(&path))?;
                    Some(
                        PrivateKey::from_pkcs8_der(&bytes)
                            .map_err(|e| KeychainError::Corrupt {
                                path: path.clone(),
                                why: e.to_string(),
                            })?
                            .key_type(),
                    )
                }
                KeyStorage::EncryptedPkcs8 => mine.first().map(|c| c.public_key().key_type()),
            };
            let modified = fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            out.push(KeyEntry {
                certs: mine.iter().map(|c| c.name().clone()).collect(),
                key_name,
                storage,
                key_type,
                path,
                modified,
            });
        }
        out.sort_by(|a, b| a.key_name.cmp(&b.key_name));
        Ok(out)
    }

    /// Resolves an identity, key or certificate name to a key name: a key
    /// name as is, a certificate's key, or the newest key of an identity.
    pub fn resolve_key(&self, name: &Name) -> Result<Name, KeychainError> {
        let keys = self.keys()?;
        if let Some(k) = naming::to_key_name(name) {
            if keys.iter().any(|e| e.key_name == k) {
                return Ok(k);
            }
        }
        keys.iter()
            .filter(|e| e.key_name.prefix(e.key_name.len() - 2) == *name)
            .max_by_key(|e| (e.modified, e.key_name.clone()))
            .map(|e| e.key_name.clone())
            .ok_or_else(|| KeychainError::UnknownIdentity(name.to_string()))
    }

    /// The certificate to export for a name: the certificate itself, the
    /// newest (highest version) certificate of a key, or of an identity's newest key.
    pub fn resolve_certificate(&self, name: &Name) -> Result<Certificate, KeychainError> {
        if is_cert_name(name) {
            if let Ok(c) = self.certificate(name) {
                return Ok(c);
            }
        }
        let certs = self.certificates()?;
        let key = match self.resolve_key(name) {
            Ok(k) => k,
            // a certificate without a private key (imported)
            Err(_) if is_key_name(name) => name.clone(),
            Err(e) => return Err(e),
        };
        certs
            .into_iter()
            .filter(|c| c.key_name() == key)
            .max_by_key(|c| c.name().last().and_then(|v| v.as_version()).unwrap_or(0))
            .ok_or_else(|| KeychainError::UnknownName(format!("certificate of {key}")))
    }

    /// A signer for an identity, key or certificate name, with the key name as KeyLocator.
    pub fn signer(
        &self,
        name: &Name,
        passphrase: Option<&[u8]>,
    ) -> Result<KeySigner, KeychainError> {
        let key_name = self.resolve_key(name)?;
        let key = self.load_key(&key_name, passphrase)?;
        Ok(KeySigner::new(Arc::new(key), key_name))
    }

    /// Imports a certificate (binary Data or base64 text as `ndnsec` prints),
    /// and optionally its private key (PKCS#8 DER, or encrypted PKCS#8 with
    /// `key_passphrase`), checked against the certificate. The stored key
    /// is encrypted with `store_passphrase` if given.
    pub fn import(
        &self,
        cert_file: &[u8],
        key_der: Option<&[u8]>,
        key_passphrase: Option<&[u8]>,
        store_passphrase: Option<&[u8]>,
    ) -> Result<Certificate, KeychainError> {
        let cert = Certificate::decode(decode_cert_file(cert_file)?)?;
        if let Some(der) = key_der {
            let key = match key_passphrase {
                None => PrivateKey::from_pkcs8_der(der)?,
                Some(p) => {
                    let enc = pkcs8::EncryptedPrivateKeyInfo::try_from(der)
                        .map_err(|e| KeyError::Malformed(format!("encrypted PKCS#8: {e}")))?;
                    let doc = enc
                        .decrypt(p)
                        .map_err(|_| KeychainError::WrongPassphrase(cert.key_name().to_string()))?;
                    PrivateKey::from_pkcs8_der(doc.as_bytes())?
                }
            };
            if key.public_key_der()? != cert.public_key().der() {
                return Err(KeychainError::KeyMismatch);
            }
            self.store_key(&cert.key_name(), &key, store_passphrase)?;
        }
        self.add_certificate(&cert)?;
        Ok(cert)
    }

    /// Deletes a certificate (by certificate name), a key and its
    /// certificates (key name), or every key of an identity. Returns the
    /// number of files removed (an error if none).
    pub fn delete(&self, name: &Name) -> Result<usize, KeychainError> {
        let mut removed = 0;
        let mut remove = |p: &Path| -> Result<(), KeychainError> {
            fs::remove_file(p).map_err(io_err(p))?;
            removed += 1;
            Ok(())
        };
        if is_cert_name(name) {
            let p = self.file_for("certs", name, "cert")?;
            if p.exists() {
                remove(&p)?;
                return Ok(1);
            }
        }
        let keys = self.keys()?;
        let certs = self.certificates()?;
        let doomed_keys: Vec<Name> = if is_key_name(name)
            && (keys.iter().any(|k| k.key_name == *name)
                || certs.iter().any(|c| c.key_name() == *name))
        {
            vec![name.clone()]
        } else {
            let mut v: Vec<Name> = keys
                .iter()
                .map(|k| k.key_name.clone())
                .chain(certs.iter().map(|c| c.key_name()))
                .filter(|k| k.prefix(k.len() - 2) == *name)
                .collect();
            v.sort();
            v.dedup();
            v
        };
        if doomed_keys.is_empty() {
            return Err(KeychainError::UnknownName(name.to_string()));
        }
        for k in &doomed_keys {
            if let Some(e) = keys.iter().find(|e| e.key_name == *k) {
                remove(&e.path)?;
            }
            for c in certs.iter().filter(|c| c.key_name() == *k) {
                remove(&self.file_for("certs", c.name(), "cert")?)?;
            }
        }
        Ok(removed)
    }
}

/// Accepts a binary certificate or its base64 text (whitespace ignored).
pub fn decode_cert_file(bytes: &[u8]) -> Result<Bytes, KeychainError> {
    if bytes.first() == Some(&0x06) {
        return Ok(Bytes::copy_from_slice(bytes));
    }
    let text: Vec<u8> = bytes
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    base64_decode(&text)
        .filter(|b| b.first() == Some(&0x06))
        .map(Bytes::from)
        .ok_or_else(|| {
            KeychainError::Cert(CertError::Decode(
                "not a certificate: neither a Data packet nor base64 of one".into(),
            ))
        })
}

/// Base64 (standard alphabet, padded) of `data`, wrapped at 64 columns.
pub fn base64_encode(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in data.chunks(3).enumerate() {
        if i > 0 && i % 16 == 0 {
            out.push('\n');
        }
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push('\n');
    out
}

fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    if text.is_empty() || !text.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for (i, q) in text.chunks(4).enumerate() {
        let last = i == text.len() / 4 - 1;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = n << 6 | val(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

fn hex_encode(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The bytes of a hex string (upper or lower case); `None` when it is not one.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn name_of_file(path: &Path) -> Result<Name, KeychainError> {
    let corrupt = |why: &str| KeychainError::Corrupt {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| corrupt("file name is not hex"))?;
    let value = hex_decode(stem).ok_or_else(|| corrupt("file name is not hex"))?;
    Name::from_value(Bytes::from(value))
        .map_err(|e| corrupt(&format!("file name is not a name: {e}")))
}

fn read_cert(path: &Path) -> Result<Certificate, KeychainError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    Certificate::decode(Bytes::from(bytes)).map_err(|e| KeychainError::Corrupt {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// Files of `dir` with extension `ext` (any extension if empty), skipping temporaries.
fn list_dir(dir: &Path, ext: &str) -> Result<Vec<(PathBuf, String)>, KeychainError> {
    let mut out = Vec::new();
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io_err(dir)(e)),
    };
    for entry in rd {
        let path = entry.map_err(io_err(dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        let e = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_string();
        if ext.is_empty() || e == ext {
            out.push((path, e));
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `bytes` to `path` atomically: temporary file in the same
/// directory, fsync, rename. `secret` files get mode 0600.
fn write_atomic(path: &Path, bytes: &[u8], secret: bool) -> Result<(), KeychainError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut rnd = [0u8; 6];
    let _ = aws_lc_rs::rand::fill(&mut rnd);
    let tmp = dir.join(format!(".tmp-{}", hex_encode(&rnd)));
    let result = (|| {
        let mut opts = fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(if secret { 0o600 } else { 0o644 });
        }
        let _ = secret;
        let mut f = opts.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path)(e));
    }
    Ok(())
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let mut r = [0u8; 4];
        aws_lc_rs::rand::fill(&mut r).unwrap();
        let d = std::env::temp_dir().join(format!("ndnlab-kc-{tag}-{}", hex_encode(&r)));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn base64_roundtrip() {
        for n in 0..70 {
            let data: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            if data.is_empty() {
                continue;
            }
            let t: Vec<u8> = base64_encode(&data)
                .bytes()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            assert_eq!(base64_decode(&t).unwrap(), data);
        }
        assert_eq!(base64_encode(b"foob"), "Zm9vYg==\n");
        assert!(base64_decode(b"Zm9=Yg==").is_none());
    }

    #[test]
    fn generate_list_sign_delete() {
        let dir = tmpdir("gen");
        let kc = Keychain::open(&dir).unwrap();
        let id: Name = "/ndnlab/test".parse().unwrap();
        let k1 = kc
            .generate(&id, KeyType::EcdsaP256, None, DEFAULT_VALIDITY)
            .unwrap();
        let k2 = kc
            .generate(&id, KeyType::Hmac, None, DEFAULT_VALIDITY)
            .unwrap();
        // two keys of another identity are deleted together (with their certificate)
        let other: Name = "/ndnlab/other".parse().unwrap();
        kc.generate(&other, KeyType::Ed25519, None, DEFAULT_VALIDITY)
            .unwrap();
        kc.generate(&other, KeyType::EcdsaP256, None, DEFAULT_VALIDITY)
            .unwrap();
        assert_eq!(kc.delete(&other).unwrap(), 4);
        let keys = kc.keys().unwrap();
        assert_eq!(keys.len(), 2);
        let e1 = keys.iter().find(|e| e.key_name == k1).unwrap();
        assert_eq!(e1.key_type, Some(KeyType::EcdsaP256));
        assert_eq!(e1.certs.len(), 1);
        let cert = kc.resolve_certificate(&k1).unwrap();
        cert.verify_self_signature().unwrap();
        let signer = kc.signer(&k1, None).unwrap();
        let data = ndnlab_wire::Data::builder("/ndnlab/test/x".parse().unwrap())
            .sign_view(&signer)
            .unwrap();
        crate::verify_data(&data, Some(cert.public_key())).unwrap();
        assert!(matches!(
            kc.resolve_key(&"/nobody".parse().unwrap()),
            Err(KeychainError::UnknownIdentity(_))
        ));
        assert_eq!(kc.delete(&k2).unwrap(), 1);
        assert_eq!(kc.delete(&id).unwrap(), 2);
        assert!(kc.keys().unwrap().is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn passphrase_and_corruption() {
        let dir = tmpdir("pass");
        let kc = Keychain::open(&dir).unwrap();
        let id: Name = "/enc".parse().unwrap();
        let k = kc
            .generate(&id, KeyType::Ed25519, Some(b"s3cret"), DEFAULT_VALIDITY)
            .unwrap();
        assert!(kc.is_encrypted(&k).unwrap());
        assert!(matches!(
            kc.load_key(&k, None),
            Err(KeychainError::PassphraseRequired(_))
        ));
        assert!(matches!(
            kc.load_key(&k, Some(b"wrong")),
            Err(KeychainError::WrongPassphrase(_))
        ));
        let key = kc.load_key(&k, Some(b"s3cret")).unwrap();
        assert_eq!(key.key_type(), KeyType::Ed25519);
        let listed = kc.keys().unwrap();
        assert_eq!(listed[0].key_type, Some(KeyType::Ed25519));

        // a corrupt (truncated) unencrypted key file is a typed error, not a panic
        let k2 = kc
            .generate(&id, KeyType::EcdsaP384, None, DEFAULT_VALIDITY)
            .unwrap();
        let path = kc.file_for("keys", &k2, "p8").unwrap();
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(matches!(
            kc.load_key(&k2, None),
            Err(KeychainError::Corrupt { .. })
        ));
        // no temporary files are left behind
        let leftovers = fs::read_dir(dir.join("keys"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with('.')
            })
            .count();
        assert_eq!(leftovers, 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let dir = tmpdir("fail");
        let kc = Keychain::open(&dir).unwrap();
        let k = kc
            .generate(
                &"/f".parse().unwrap(),
                KeyType::EcdsaP256,
                None,
                DEFAULT_VALIDITY,
            )
            .unwrap();
        let cert = kc.resolve_certificate(&k).unwrap();
        // make the rename fail: the target is a non-empty directory
        let path = kc.file_for("certs", cert.name(), "cert").unwrap();
        fs::remove_file(&path).unwrap();
        fs::create_dir_all(path.join("x")).unwrap();
        assert!(matches!(
            kc.add_certificate(&cert),
            Err(KeychainError::Io { .. })
        ));
        let names: Vec<String> = fs::read_dir(dir.join("certs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(!names[0].starts_with('.'));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn import_cert_and_key() {
        let a = Keychain::open(tmpdir("imp-a")).unwrap();
        let b = Keychain::open(tmpdir("imp-b")).unwrap();
        let id: Name = "/imp".parse().unwrap();
        let k = a
            .generate(&id, KeyType::Rsa2048, None, DEFAULT_VALIDITY)
            .unwrap();
        let cert = a.resolve_certificate(&id).unwrap();
        let text = base64_encode(cert.wire());
        let key = a.load_key(&k, None).unwrap();
        let other = PrivateKey::generate(KeyType::Rsa2048).unwrap();
        assert!(matches!(
            b.import(
                text.as_bytes(),
                Some(other.to_pkcs8_der().unwrap()),
                None,
                None
            ),
            Err(KeychainError::KeyMismatch)
        ));
        let got = b
            .import(
                text.as_bytes(),
                Some(key.to_pkcs8_der().unwrap()),
                None,
                None,
            )
            .unwrap();
        assert_eq!(got.name(), cert.name());
        assert_eq!(b.resolve_key(&id).unwrap(), k);
        fs::remove_dir_all(a.dir()).unwrap();
        fs::remove_dir_all(b.dir()).unwrap();
    }
}
