//! The tools behind `ndnlab perf|put|get|ping|traffic`. Each takes a clap
//! `Args` struct (the binary's command modules only wrap them) and prints a
//! human table or, with `--json`, JSON objects one per line. The servers all
//! run the producer loop of [`serve`] and differ in what they answer.
//! [`ctl`], behind `ndnlab ctl`, is NFD management like nfdc: operations with
//! typed arguments and results, and their text and JSON, for the binary to print.

pub mod ctl;
pub mod data_cache;
pub mod get;
pub mod key;
pub mod perf;
pub mod ping;
pub mod popularity;
pub mod put;
pub mod rdr;
pub mod serve;
pub mod serve_stats;
pub mod signing;
pub mod traffic;
pub mod verify;
pub mod wall_clock;

use std::path::PathBuf;
use std::time::Duration;

use crate::client::{Client, FaceUri, Reconnect};

/// How to reach the forwarder.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectArgs {
    /// Forwarder socket path or URI (unix://, tcp://, udp://); default:
    /// $NDN_CLIENT_TRANSPORT, client.conf, /run/nfd/nfd.sock.
    #[arg(long, value_name = "PATH|URI", global = true)]
    pub socket: Option<PathBuf>,
    /// Sign management commands (prefix registrations) with this key, identity
    /// or certificate of the keychain, as a forwarder with
    /// `[[management.authorize]]` (NFD's `authorizations`) requires; an encrypted
    /// key's passphrase is read from $NDNLAB_PASSPHRASE. Default: DigestSha256.
    #[arg(long, value_name = "NAME", global = true, value_parser = parse_name)]
    pub command_key: Option<ndnlab_wire::Name>,
    /// Keychain of --command-key [default: $NDNLAB_KEYCHAIN, else
    /// $XDG_CONFIG_HOME/ndnlab/keychain, else ~/.config/ndnlab/keychain].
    #[arg(long, value_name = "DIR", global = true)]
    pub keychain: Option<PathBuf>,
    /// Do not reconnect when the forwarder goes away (Unix and TCP): fail at once.
    #[arg(long, global = true)]
    pub no_reconnect: bool,
    /// When the forwarder goes away, try to reconnect (50 ms, doubling to 1 s)
    /// for this many seconds, registering every prefix again; then fail.
    #[arg(long, default_value_t = 30.0, value_name = "SECS", global = true)]
    pub reconnect_for: f64,
}

impl Default for ConnectArgs {
    fn default() -> ConnectArgs {
        ConnectArgs {
            socket: None,
            command_key: None,
            keychain: None,
            no_reconnect: false,
            reconnect_for: 30.0,
        }
    }
}

impl ConnectArgs {
    pub fn uri(&self) -> anyhow::Result<FaceUri> {
        Ok(FaceUri::resolve(self.socket.as_deref())?)
    }

    /// The reconnection policy the flags say (stderr lines on).
    pub fn reconnect(&self) -> anyhow::Result<Reconnect> {
        anyhow::ensure!(
            self.reconnect_for.is_finite() && self.reconnect_for >= 0.0,
            "--reconnect-for: expected a number of seconds >= 0, got {}",
            self.reconnect_for
        );
        Ok(Reconnect {
            enabled: !self.no_reconnect,
            give_up_after: Duration::from_secs_f64(self.reconnect_for),
            log: true,
            ..Reconnect::default()
        })
    }

    /// Connects, reconnecting as the flags say, with the command signer of
    /// `--command-key` if given (registrations after a reconnection too).
    pub async fn connect(&self) -> anyhow::Result<Client> {
        let signer = self.command_signer()?;
        let client = Client::connect_with(&self.uri()?, self.reconnect()?).await?;
        client.set_command_signer(signer);
        Ok(client)
    }

    /// The signer of `--command-key`, loaded from the keychain.
    pub fn command_signer(
        &self,
    ) -> anyhow::Result<Option<std::sync::Arc<dyn ndnlab_wire::Signer>>> {
        command_signer(self.keychain.as_deref(), self.command_key.as_ref())
    }
}

/// A keychain signer for management commands: `key` (a key, identity or
/// certificate name) in `keychain` (or the default keychain).
pub fn command_signer(
    keychain: Option<&std::path::Path>,
    key: Option<&ndnlab_wire::Name>,
) -> anyhow::Result<Option<std::sync::Arc<dyn ndnlab_wire::Signer>>> {
    let Some(key) = key else { return Ok(None) };
    let dir = ndnlab_security::Keychain::resolve_dir(keychain);
    let kc = ndnlab_security::Keychain::open(&dir)
        .map_err(|e| anyhow::anyhow!("opening keychain {}: {e}", dir.display()))?;
    let passphrase = std::env::var(key::PASSPHRASE_ENV)
        .ok()
        .filter(|p| !p.is_empty());
    let signer = kc
        .signer(key, passphrase.as_deref().map(str::as_bytes))
        .map_err(|e| anyhow::anyhow!("command key {key} in keychain {}: {e}", dir.display()))?;
    Ok(Some(std::sync::Arc::new(signer)))
}

/// Parses a name argument with a clear error.
pub fn parse_name(s: &str) -> Result<ndnlab_wire::Name, String> {
    s.parse::<ndnlab_wire::Name>()
        .map_err(|e| format!("invalid NDN name `{s}`: {e}"))
}

/// Prints one JSON value on its own line.
pub fn print_json(v: &serde_json::Value) {
    println!("{v}");
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Runs a tool's future on a multi-threaded tokio runtime.
pub fn block_on<F: std::future::Future>(worker_threads: usize, f: F) -> anyhow::Result<F::Output> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(worker_threads.max(1))
        .enable_all()
        .build()?;
    Ok(rt.block_on(f))
}
