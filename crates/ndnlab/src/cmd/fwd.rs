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
    /// Largest packet accepted, in bytes (`[forwarder] max_packet_size`; NDN's
    /// 8800 by default). Larger values are a non-standard extension for large
    /// segments, which datagram faces carry as NDNLPv2 fragments.
    #[arg(long)]
    pub max_packet_size: Option<usize>,
}

/// mimalloc's `purge_delay` option (its index in mimalloc 3's `mi_option_e`).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
/// How long, in ms, freed memory stays resident before the forwarder returns it.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

extern "C" {
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_collect(force: bool);
}

/// How often an I/O thread about to sleep runs the allocator's collection.
const COLLECT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Called by each I/O thread as it parks: at most every [`COLLECT_EVERY`], frees
/// the pages other threads emptied (read buffers are allocated here and freed by
/// the forwarding threads) and runs the purges that are due. mimalloc does both
/// only when the thread allocates again, so a forwarder that went quiet kept what
/// its last burst freed: a 256 MiB CS erased stayed resident (docs/RELIABILITY.md).
/// A busy thread does not park and collects as it allocates.
fn collect_when_parking() {
    use std::cell::Cell;
    use std::time::Instant;
    thread_local!(static LAST: Cell<Option<Instant>> = const { Cell::new(None) });
    let now = Instant::now();
    if LAST
        .get()
        .is_some_and(|t| now.duration_since(t) < COLLECT_EVERY)
    {
        return;
    }
    LAST.set(Some(now));
    // SAFETY: collects this thread's heap and the arenas' expired purges.
    unsafe { mi_collect(false) }
}

/// mimalloc 3 keeps freed pages resident for 1 s (10 s in its arenas) before it
/// returns them to the kernel; a forwarder frees its read buffers and cached Data at
/// the line rate, so at 2 Gbit/s that held 10-25 MiB beyond what it uses. 10 ms
/// (mimalloc 2's default) keeps the reuse and returns the rest
/// (docs/RELIABILITY.md). `MIMALLOC_PURGE_DELAY` in the environment wins.
///
/// Transparent huge pages are turned off for the process: mimalloc asks for them on
/// its arenas, and a 2 MiB page is resident as a whole once any byte of it is
/// touched, so every face's buffers and every partly used page cost up to 2 MiB:
/// 1 MiB per face at 256 faces and 25 MiB of the idle process, where the bound
/// counts 512 KiB and 17.5 MiB (docs/RELIABILITY.md). `MIMALLOC_ALLOW_THP` in the
/// environment wins.
fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc's option setters take any option index and value.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    }
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE takes a flag and no pointers; it only marks this
        // process's address space (and its children's) as not using huge pages.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

/// Whether transparent huge pages are off for this process.
fn thp_disabled() -> bool {
    // SAFETY: PR_GET_THP_DISABLE takes no pointers and returns the flag.
    unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 }
}

/// The allocator's purge delay in ms.
fn purge_delay_ms() -> std::ffi::c_long {
    // SAFETY: as above.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
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
    tune_allocator();
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
    cfg.validate()?;
    init_tracing(&cfg.log.level);
    tracing::debug!(
        purge_delay_ms = purge_delay_ms(),
        thp_disabled = thp_disabled(),
        "allocator"
    );

    let io_threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(io_threads)
        .thread_name("ndnlab-io")
        .on_thread_park(collect_when_parking)
        .enable_all()
        .build()
        .context("cannot start the I/O runtime")?;
    rt.block_on(async move {
        // Purges come due after the threads parked: one tick every COLLECT_EVERY
        // wakes a thread to run them, so an idle forwarder returns memory too.
        tokio::spawn(async {
            let mut tick = tokio::time::interval(COLLECT_EVERY);
            loop {
                tick.tick().await;
                // SAFETY: as in `collect_when_parking`.
                unsafe { mi_collect(false) }
            }
        });
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

#[cfg(test)]
mod tests {
    #[test]
    fn allocator_purges_after_10_ms_without_huge_pages() {
        // The index names mimalloc's purge_delay: its default is 1,000 ms, or the
        // number `MIMALLOC_PURGE_DELAY` gives, and tuning sets 10 ms unless that
        // variable is set (the environment wins, whatever mimalloc made of it).
        // Huge pages: turned off unless `MIMALLOC_ALLOW_THP` is set, then left
        // as they were.
        let env_delay = std::env::var("MIMALLOC_PURGE_DELAY").ok();
        let allow_thp = std::env::var_os("MIMALLOC_ALLOW_THP").is_some();
        let before = super::purge_delay_ms();
        if let Some(Ok(v)) = env_delay.as_deref().map(str::parse::<std::ffi::c_long>) {
            assert_eq!(before, v, "MIMALLOC_PURGE_DELAY={v} read back");
        } else if env_delay.is_none() {
            assert_eq!(before, 1000, "mimalloc's default purge_delay");
        }
        let thp_before = super::thp_disabled();
        super::tune_allocator();
        let want = if env_delay.is_some() {
            before
        } else {
            super::PURGE_DELAY_MS
        };
        assert_eq!(super::purge_delay_ms(), want, "{env_delay:?}");
        if allow_thp {
            assert_eq!(super::thp_disabled(), thp_before, "MIMALLOC_ALLOW_THP set");
        } else {
            assert!(super::thp_disabled(), "huge pages still on");
        }
    }
}
