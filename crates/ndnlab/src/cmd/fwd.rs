//! `ndnlab fwd`: run the forwarder daemon in the foreground.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::fwd::FwdConfig;

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
    /// Largest packet accepted, in bytes (`[forwarder] max_packet_size`; NDN's
    /// 8800 by default). Larger values are a non-standard extension for large
    /// segments, which datagram faces carry as NDNLPv2 fragments.
    #[arg(long)]
    pub max_packet_size: Option<usize>,
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
    if let Some(n) = args.max_packet_size {
        cfg.forwarder.max_packet_size = n;
    }
    ndnlab_lab::fwd::process::run(cfg, args.metrics)
}
