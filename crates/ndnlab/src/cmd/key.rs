//! `ndnlab key`: the file keychain (generate, list, export, import, delete
//! keys and NDN certificates v2).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use ndnlab_lab::app::tools::key;
use ndnlab_lab::security::{base64_encode, KeyType, Keychain, DEFAULT_VALIDITY};
use ndnlab_lab::wire::Name;

/// Keys and certificates.
#[derive(Args, Debug)]
pub struct KeyArgs {
    /// Keychain directory [default: $NDNLAB_KEYCHAIN, else $XDG_CONFIG_HOME/ndnlab/keychain,
    /// else ~/.config/ndnlab/keychain].
    #[arg(long, global = true, value_name = "DIR")]
    pub keychain: Option<PathBuf>,
    #[command(subcommand)]
    pub cmd: KeyCmd,
}

#[derive(Subcommand, Debug)]
pub enum KeyCmd {
    /// Generate a key for IDENTITY and its self-signed certificate.
    Gen {
        /// Identity name, e.g. /example/alice.
        identity: String,
        /// ecdsa-p256, ecdsa-p384, ed25519, rsa-1024, rsa-2048, rsa-3072, rsa-4096 or hmac.
        #[arg(long = "type", short = 't', default_value = "ecdsa-p256")]
        key_type: String,
        /// Encrypt the private key with the passphrase read from this file
        /// (first line) or, with --encrypt, from $NDNLAB_PASSPHRASE.
        #[arg(long, value_name = "FILE")]
        passphrase_file: Option<PathBuf>,
        /// Encrypt the private key with $NDNLAB_PASSPHRASE.
        #[arg(long)]
        encrypt: bool,
        /// Certificate validity in days.
        #[arg(long, default_value_t = DEFAULT_VALIDITY.as_secs() / 86400)]
        validity_days: u64,
    },
    /// List keys and their certificates.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Export the certificate of an identity, key or certificate name
    /// (base64 on stdout, binary with -o).
    ExportCert {
        name: String,
        /// Write the binary certificate to FILE.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Import a certificate (binary or base64), optionally with its private key.
    Import {
        /// Certificate file.
        file: PathBuf,
        /// PKCS#8 DER private key matching the certificate (encrypted PKCS#8
        /// if --passphrase-file or $NDNLAB_PASSPHRASE is set).
        #[arg(long, value_name = "FILE")]
        key: Option<PathBuf>,
        /// Passphrase of the key file (first line of FILE).
        #[arg(long, value_name = "FILE")]
        passphrase_file: Option<PathBuf>,
    },
    /// Delete a certificate, a key (with its certificates) or an identity.
    Delete { name: String },
}

fn parse_name(s: &str) -> anyhow::Result<Name> {
    s.parse::<Name>()
        .map_err(|e| anyhow::anyhow!("invalid name {s:?}: {e}"))
}

pub fn run(args: KeyArgs) -> anyhow::Result<()> {
    let dir = Keychain::resolve_dir(args.keychain.as_deref());
    let kc = Keychain::open(&dir).with_context(|| format!("opening keychain {}", dir.display()))?;
    match args.cmd {
        KeyCmd::Gen {
            identity,
            key_type,
            passphrase_file,
            encrypt,
            validity_days,
        } => {
            let id = parse_name(&identity)?;
            let t: KeyType = key_type.parse()?;
            let pass = if encrypt || passphrase_file.is_some() {
                key::passphrase(passphrase_file.as_deref(), true)?
            } else {
                None
            };
            let validity = Duration::from_secs(validity_days.saturating_mul(86400));
            let key = kc.generate(&id, t, pass.as_deref(), validity)?;
            println!(
                "key  {key}  ({t}{})",
                if pass.is_some() { ", encrypted" } else { "" }
            );
            if t.is_asymmetric() {
                let cert = kc.resolve_certificate(&key)?;
                println!("cert {}", cert.name());
            }
        }
        KeyCmd::List { json } => {
            let keys = kc.keys()?;
            if json {
                let v = key::list_json(&kc, &keys);
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print!("{}", key::list_text(&kc, &keys));
            }
        }
        KeyCmd::ExportCert { name, output } => {
            let cert = kc.resolve_certificate(&parse_name(&name)?)?;
            match output {
                Some(path) => {
                    std::fs::write(&path, cert.wire())
                        .with_context(|| format!("writing {}", path.display()))?;
                    eprintln!("wrote {} to {}", cert.name(), path.display());
                }
                None => print!("{}", base64_encode(cert.wire())),
            }
        }
        KeyCmd::Import {
            file,
            key,
            passphrase_file,
        } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let key_der = match &key {
                Some(p) => {
                    Some(std::fs::read(p).with_context(|| format!("reading {}", p.display()))?)
                }
                None => None,
            };
            let pass = if key.is_some() {
                key::passphrase(passphrase_file.as_deref(), false)?
            } else {
                None
            };
            let cert = kc.import(&bytes, key_der.as_deref(), pass.as_deref(), pass.as_deref())?;
            println!(
                "imported {}{}",
                cert.name(),
                if key.is_some() {
                    " with its private key"
                } else {
                    ""
                }
            );
        }
        KeyCmd::Delete { name } => {
            let n = kc.delete(&parse_name(&name)?)?;
            println!("deleted {n} file(s) for {name}");
        }
    }
    Ok(())
}
