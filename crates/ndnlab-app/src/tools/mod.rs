//! The tools behind `ndnlab perf|put|get|ping|traffic`. Each takes a clap
//! `Args` struct (the binary's command modules only wrap them) and prints a
//! human table or, with `--json`, JSON objects one per line. The servers all
//! run the producer loop of [`serve`] and differ in what they answer.

pub mod data_cache;
pub mod get;
pub mod perf;
pub mod ping;
pub mod put;
pub mod rdr;
pub mod serve;
pub mod signing;
pub mod traffic;

use std::path::PathBuf;

use crate::client::{Client, FaceUri};

/// How to reach the forwarder.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConnectArgs {
    /// Forwarder socket path or URI (unix://, tcp://, udp://); default:
    /// $NDN_CLIENT_TRANSPORT, client.conf, /run/nfd/nfd.sock.
    #[arg(long, value_name = "PATH|URI", global = true)]
    pub socket: Option<PathBuf>,
}

impl ConnectArgs {
    pub fn uri(&self) -> anyhow::Result<FaceUri> {
        Ok(FaceUri::resolve(self.socket.as_deref())?)
    }
    pub async fn connect(&self) -> anyhow::Result<Client> {
        Ok(Client::connect(&self.uri()?).await?)
    }
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
