//! `ndnlab fwd`: run the forwarder daemon in the foreground.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use ndnlab_fwd::{Daemon, FwdConfig};

/// Run the NDN forwarder (NFD-compatible faces and management) in the foreground.
#[derive(Args, Debug)]
pub struct FwdArgs {
    /// Configuration file (see crates/ndnlab-fwd/fwd.example.toml).
    #[arg(long, short = 'c')]
    pub config: Option<PathBuf>,
    /// Unix socket for applications (default /run/nfd/nfd.sock, where NFD clients look).
    #[arg(long)]
    pub socket: Option<PathBuf>,
    /// Log level or tracing filter (overrides the config; RUST_LOG overrides both).
    #[arg(long)]
    pub log_level: Option<String>,
    /// Forwarding threads (shards); 0 = chosen from the machine.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Serve Prometheus metrics on this address (e.g. 127.0.0.1:9100).
    #[arg(long)]
    pub metrics: Option<SocketAddr>,
    /// Also listen for TCP faces on this address (repeatable).
    #[arg(long = "tcp")]
    pub tcp: Vec<SocketAddr>,
    /// Also listen for UDP faces on this address (repeatable).
    #[arg(long = "udp")]
    pub udp: Vec<SocketAddr>,
    /// Time one packet in N through input, queue, forwarding and output
    /// (`[latency] sample`; read with `ndnlab ctl latency`); 0 = off.
    #[arg(long)]
    pub latency_sample: Option<u64>,
    /// Write every timed packet to this CSV file (`[latency] log`), from a thread
    /// of its own.
    #[arg(long)]
    pub latency_log: Option<PathBuf>,
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

pub fn run(args: FwdArgs) -> anyhow::Result<()> {
    let mut cfg = match &args.config {
        Some(p) => FwdConfig::load(p)?,
        None => FwdConfig::default(),
    };
    if let Some(s) = args.socket {
        cfg.faces.unix.path = s;
        cfg.faces.unix.enabled = true;
    }
    if let Some(l) = args.log_level {
        cfg.log.level = l;
    }
    if let Some(t) = args.threads {
        cfg.forwarder.threads = t;
    }
    cfg.faces.tcp.listen.extend(args.tcp);
    cfg.faces.udp.listen.extend(args.udp);
    if let Some(n) = args.latency_sample {
        cfg.latency.sample = n;
    }
    if let Some(p) = args.latency_log {
        cfg.latency.log = Some(p);
    }
    cfg.validate()?;
    init_tracing(&cfg.log.level);

    let io_threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(io_threads)
        .thread_name("ndnlab-io")
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    rt.block_on(async move {
        let daemon = Daemon::start(cfg).await?;
        let metrics = match args.metrics {
            Some(addr) => Some(ndnlab_fwd::metrics::serve(addr, daemon.shared().clone()).await?),
            None => None,
        };
        for l in &daemon.listening {
            println!("ndnlab fwd: listening on {l}");
        }
        if let Some(m) = args.metrics {
            println!("ndnlab fwd: metrics on http://{m}/metrics");
        }
        println!("ndnlab fwd: ready");
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
