//! The forwarder as a process: what `ndnlab fwd` runs once it has its
//! configuration. [`run`] tunes the allocator ([`allocator`]), starts the tracing
//! log on stderr, the I/O runtime and the [`Daemon`], prints the lines a
//! supervisor waits for (`ndnlab fwd: listening on …` per listener, then
//! [`READY_LINE`]), and serves until SIGINT or SIGTERM.

pub mod allocator;
pub mod handshake;

use std::net::SocketAddr;

use anyhow::Context;

pub use allocator::Allocator;

/// The line [`run`] prints once every listener is up and management answers.
pub const READY_LINE: &str = "ndnlab fwd: ready";
/// The prefix of the lines naming each listener's URI, printed before [`READY_LINE`].
pub const LISTENING_PREFIX: &str = "ndnlab fwd: listening on ";

use crate::{Daemon, FwdConfig};

/// Runs the forwarder configured by `cfg` in this process until SIGINT or
/// SIGTERM, with a Prometheus endpoint on `metrics` if given. The configuration is
/// validated first; the error names the offending key.
pub fn run(cfg: FwdConfig, metrics_addr: Option<SocketAddr>) -> anyhow::Result<()> {
    allocator::tune();
    cfg.validate()?;
    init_tracing(&cfg.log.level);
    tracing::debug!(
        purge_delay_ms = allocator::purge_delay_ms(),
        thp_disabled = allocator::thp_disabled(),
        "allocator"
    );

    let io_threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(io_threads)
        .thread_name("ndnlab-io")
        .on_thread_park(allocator::collect_when_parking)
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    rt.block_on(async move {
        // Purges come due after the threads parked: one tick every COLLECT_EVERY
        // wakes a thread to run them, so an idle forwarder returns memory too.
        tokio::spawn(async {
            let mut tick = tokio::time::interval(allocator::COLLECT_EVERY);
            loop {
                tick.tick().await;
                // SAFETY: as in `collect_when_parking`.
                unsafe { allocator::mi_collect(false) }
            }
        });
        let daemon = Daemon::start(cfg).await?;
        let metrics = match metrics_addr {
            Some(addr) => Some(crate::metrics::serve(addr, daemon.shared().clone()).await?),
            None => None,
        };
        for l in &daemon.listening {
            println!("{LISTENING_PREFIX}{l}");
        }
        if let Some(m) = metrics_addr {
            println!("ndnlab fwd: metrics on http://{m}/metrics");
        }
        println!("{READY_LINE}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        tracing::info!(threads = daemon.shared().shards.len(), "forwarder started");

        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: stopping"),
            _ = term.recv() => tracing::info!("SIGTERM: stopping"),
        }
        if let Some(m) = metrics {
            m.abort();
        }
        daemon.shutdown().await;
        tracing::info!("forwarder stopped");
        Ok::<_, anyhow::Error>(())
    })?;
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    Ok(())
}

fn init_tracing(level: &str) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
