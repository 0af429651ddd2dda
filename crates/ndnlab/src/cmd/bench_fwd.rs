//! `ndnlab bench fwd`: forwarder daemon throughput with the in-repo load generator.
//!
//! Starts `hops` `ndnlab fwd` processes (this executable) chained over TCP or UDP on
//! 127.0.0.1, a producer on the last and a consumer on the first (over their Unix
//! sockets, or over UDP faces with `--transport udp`), and reports exchanges/s,
//! payload goodput, and the CPU time each process used. `--transport inproc` runs
//! one forwarder inside this process with app faces (no sockets): the forwarder's
//! own ceiling on this machine.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use bytes::Bytes;
use clap::Args;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::burst::BurstConn;
use ndnlab_app::client::mgmt::ControlParameters as P;
use ndnlab_app::client::FaceUri;
use ndnlab_app::load::{self as loadgen, LoadCounters, Measured};
use ndnlab_wire::Name;

/// Forwarder daemon throughput (exchanges/s, goodput, per-hop loss, CPU split).
#[derive(Args, Debug)]
pub struct FwdBenchArgs {
    /// unix, udp (consumer/producer faces), or inproc (one in-process forwarder, app faces).
    #[arg(long, default_value = "unix")]
    pub transport: String,
    /// Content bytes per Data.
    #[arg(long, default_value_t = 100)]
    pub payload: usize,
    /// Forwarders in the chain (1 = one forwarder).
    #[arg(long, default_value_t = 1)]
    pub hops: usize,
    /// Link between chained forwarders: tcp or udp.
    #[arg(long, default_value = "tcp")]
    pub link: String,
    /// Interests in flight. Default: 4096 below 1 KB payloads (many small packets per
    /// read and write, as a saturating load needs), 256 from 1 KB.
    #[arg(long)]
    pub window: Option<usize>,
    /// Forwarding threads per forwarder.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Data pool: the consumer cycles over N names (N >= window) and the producer
    /// signs each once, then answers from its cache; 0 = every Data signed afresh.
    /// Default: N = 64 MiB / payload, clamped to window..=8192, so that the producer's
    /// SHA-256 does not take the forwarder's cores. Interests are MustBeFresh and
    /// Data FreshnessPeriod 0 either way, so forwarders' caches never answer.
    #[arg(long)]
    pub data_pool: Option<usize>,
    /// Seconds measured (after 1 s of warm-up).
    #[arg(long, default_value_t = 5.0)]
    pub duration: f64,
    /// Time one packet in N in every forwarder (`ndnlab fwd --latency-sample N`;
    /// 0 = off), to measure what the instrumentation costs.
    #[arg(long, default_value_t = 0)]
    pub latency_sample: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl FwdBenchArgs {
    /// The window in effect.
    pub fn window(&self) -> usize {
        match self.window {
            Some(w) => w,
            None if self.payload < 1024 => 4096,
            None => 256,
        }
    }

    /// The Data pool size in effect (0 = none).
    pub fn pool(&self) -> usize {
        match self.data_pool {
            Some(n) => n,
            None => {
                ((64 << 20) / self.payload.max(1)).clamp(self.window(), 8192.max(self.window()))
            }
        }
    }
}

struct FwdProc {
    child: Child,
    dir: PathBuf,
    socket: PathBuf,
    listening: Vec<String>,
}

impl FwdProc {
    fn start(
        i: usize,
        threads: usize,
        latency_sample: u64,
        max_packet: usize,
    ) -> anyhow::Result<FwdProc> {
        let dir = std::env::temp_dir().join(format!("ndnlab-bench-fwd-{}-{i}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let socket = dir.join("nfd.sock");
        let mut child = Command::new(std::env::current_exe()?)
            .args([
                "fwd",
                "--log-level",
                "warn",
                "--threads",
                &threads.to_string(),
                "--socket",
            ])
            .arg(&socket)
            .args(["--tcp", "127.0.0.1:0", "--udp", "127.0.0.1:0"])
            .args(["--latency-sample", &latency_sample.to_string()])
            .args(["--max-packet-size", &max_packet.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start ndnlab fwd")?;
        let out = child.stdout.take().context("stdout")?;
        let mut listening = Vec::new();
        let mut lines = BufReader::new(out).lines();
        loop {
            let Some(Ok(l)) = lines.next() else {
                anyhow::bail!("ndnlab fwd exited before it was ready");
            };
            if l == "ndnlab fwd: ready" {
                break;
            }
            if let Some(u) = l.strip_prefix("ndnlab fwd: listening on ") {
                listening.push(u.to_string());
            }
        }
        std::thread::spawn(move || for _ in lines {});
        Ok(FwdProc {
            child,
            dir,
            socket,
            listening,
        })
    }

    fn listener(&self, scheme: &str) -> anyhow::Result<String> {
        self.listening
            .iter()
            .find(|l| l.starts_with(scheme))
            .cloned()
            .with_context(|| format!("no {scheme} listener"))
    }
}

impl Drop for FwdProc {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn command(c: &mut BlockingClient, module: &str, verb: &str, p: P) -> anyhow::Result<P> {
    Ok(c.command(module, verb, &p)?.body.unwrap_or_default())
}

/// A management connection to a forwarder of the chain.
fn mgmt(f: &FwdProc) -> anyhow::Result<BlockingClient> {
    Ok(BlockingClient::connect(&FaceUri::Unix(f.socket.clone()))?)
}

pub fn run(a: FwdBenchArgs) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: debug build; figures are meaningless (use --release)");
    }
    loadgen::check_pool(a.pool(), a.window()).map_err(|e| anyhow::anyhow!("--data-pool: {e}"))?;
    let warmup = Duration::from_secs(1);
    let duration = Duration::from_secs_f64(a.duration);
    let (m, cpu) = match a.transport.as_str() {
        "inproc" => run_inproc(&a, warmup, duration)?,
        "unix" | "udp" => run_procs(&a, warmup, duration)?,
        other => anyhow::bail!("unknown transport '{other}' (unix, udp, inproc)"),
    };
    let total_cpu: f64 = cpu.iter().map(|(_, s)| s).sum();
    if a.json {
        let cpu_json: Vec<_> = cpu
            .iter()
            .map(|(who, s)| {
                serde_json::json!({"process": who, "cpu_seconds": s, "cores": s / m.seconds,
                "cpu_us_per_exchange": 1e6 * s / (m.exchanges.max(1) as f64)})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "transport": a.transport, "payload": a.payload, "hops": a.hops, "link": a.link,
                "window": a.window(), "threads": a.threads, "data_pool": a.pool(), "seconds": m.seconds,
                "exchanges": m.exchanges, "exchanges_per_s": m.rate(), "goodput_gbps": m.gbits(),
                "nacks": m.nacks, "cpu": cpu_json,
            })
        );
    } else {
        println!(
            "transport={} payload={}B hops={} link={} window={} threads={} data-pool={}",
            a.transport,
            a.payload,
            a.hops,
            a.link,
            a.window(),
            a.threads,
            match a.pool() {
                0 => "off (every Data signed afresh)".to_string(),
                n => format!("{n} names (each signed once)"),
            }
        );
        println!(
            "  {:.0} exchanges/s   {:.3} Gbit/s goodput   {} nacks   ({} exchanges in {:.2} s)",
            m.rate(),
            m.gbits(),
            m.nacks,
            m.exchanges,
            m.seconds
        );
        for (who, s) in &cpu {
            println!(
                "  cpu {who:<14} {:.2} cores ({:.0}% of the CPU used, {:.2} us per exchange)",
                s / m.seconds,
                100.0 * s / total_cpu.max(1e-9),
                1e6 * s / (m.exchanges.max(1) as f64)
            );
        }
    }
    Ok(())
}

/// One process: the forwarder (1 shard: inline on the app faces' callers), the
/// consumer and the producer on dedicated threads; the CPU split is per thread.
fn run_inproc(
    a: &FwdBenchArgs,
    warmup: Duration,
    duration: Duration,
) -> anyhow::Result<(Measured, Vec<(String, f64)>)> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("ndnlab-io")
        .enable_all()
        .build()?;
    let mut cfg = ndnlab_fwd::FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = a.threads;
    cfg.latency.sample = a.latency_sample;
    cfg.forwarder.max_packet_size = ndnlab_fwd::config::max_packet_size_for(a.payload);
    let (payload, window, pool) = (a.payload, a.window(), a.pool());
    rt.block_on(async move {
        let d = ndnlab_fwd::Daemon::start(cfg).await?;
        let prod = d.app_face("bench-producer");
        let prefix = ndnlab_wire::Name::from_uri(loadgen::INPROC_PREFIX)?;
        d.register_route(&prefix, prod.id(), 0).await;
        let cons = d.app_face("bench-consumer");
        let (m, cpu) =
            loadgen::run_inproc(prod, cons, payload, window, pool, warmup, duration).await;
        d.shutdown().await;
        // Threads that used less than 0.1% of a core are left out.
        let cpu = cpu
            .into_iter()
            .filter(|(_, c)| *c > 0.001 * m.seconds)
            .collect();
        Ok((m, cpu))
    })
}

fn run_procs(
    a: &FwdBenchArgs,
    warmup: Duration,
    duration: Duration,
) -> anyhow::Result<(Measured, Vec<(String, f64)>)> {
    anyhow::ensure!(a.hops >= 1, "--hops must be >= 1");
    let fwds: Vec<FwdProc> = (0..a.hops)
        .map(|i| {
            let max_packet = ndnlab_fwd::config::max_packet_size_for(a.payload);
            FwdProc::start(i, a.threads, a.latency_sample, max_packet)
        })
        .collect::<Result<_, _>>()?;
    let prefix = Name::from_uri("/ndnlab/bench")?;
    let scheme = match a.link.as_str() {
        "tcp" => "tcp4",
        "udp" => "udp4",
        other => anyhow::bail!("unknown link '{other}' (tcp, udp)"),
    };
    for w in fwds.windows(2) {
        let mut c = mgmt(&w[0])?;
        let face = command(
            &mut c,
            "faces",
            "create",
            P {
                uri: Some(w[1].listener(scheme)?),
                ..Default::default()
            },
        )?;
        command(
            &mut c,
            "rib",
            "register",
            P {
                name: Some(prefix.clone()),
                face_id: face.face_id,
                ..Default::default()
            },
        )?;
    }
    let first = &fwds[0];
    let last = &fwds[fwds.len() - 1];
    let answerer = loadgen::Producer::new(Bytes::from(vec![0xA5u8; a.payload]), a.pool());
    let pool = a.pool();
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(LoadCounters::default());
    let (producer, consumer);
    if a.transport == "unix" {
        // The producer's own connection registers the prefix (face = requester).
        let mut conn = BurstConn::connect(&FaceUri::Unix(last.socket.clone()))?;
        conn.register(&prefix, Duration::from_secs(4))
            .context("producer registration")?;
        let s = stop.clone();
        producer = std::thread::spawn(move || loadgen::produce(conn, answerer, s).map(|_| ()));
        let cs = BurstConn::connect(&FaceUri::Unix(first.socket.clone()))?;
        let (s, c, p, w) = (stop.clone(), counters.clone(), prefix.clone(), a.window());
        consumer = std::thread::spawn(move || loadgen::consume(cs, p, w, pool, c, s));
    } else {
        let last_udp: SocketAddr = last
            .listener("udp4")?
            .trim_start_matches("udp4://")
            .parse()?;
        let first_udp: SocketAddr = first
            .listener("udp4")?
            .trim_start_matches("udp4://")
            .parse()?;
        let mut ps = BurstConn::connect(&FaceUri::Udp(last_udp.to_string()))?;
        // Say hello so the forwarder creates the producer's on-demand face, then route to it.
        ps.push_raw(&loadgen::interest(&Name::from_uri("/ndnlab/hello")?, 0, 0));
        ps.flush()?;
        let mut c = mgmt(last)?;
        let remote = format!("udp4://{}", ps.local_udp_addr().context("UDP address")?);
        // The face appears once the forwarder has read the hello.
        let mut found = None;
        for _ in 0..100 {
            let faces = ndnlab_proto::mgmt::dataset::decode_records(
                ndnlab_proto::mgmt::dataset::DatasetKind::Faces,
                &c.dataset("faces", "list")?,
            )
            .map_err(anyhow::Error::msg)?;
            found = faces
                .iter()
                .find(|r| r.text("remote") == Some(remote.as_str()))
                .and_then(|r| r.num("faceId"));
            if found.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let id = found.context("producer UDP face not found")?;
        command(
            &mut c,
            "rib",
            "register",
            P {
                name: Some(prefix.clone()),
                face_id: Some(id),
                ..Default::default()
            },
        )?;
        let s = stop.clone();
        producer = std::thread::spawn(move || loadgen::produce(ps, answerer, s).map(|_| ()));
        let cs = BurstConn::connect(&FaceUri::Udp(first_udp.to_string()))?;
        let (s, c, p, w) = (stop.clone(), counters.clone(), prefix.clone(), a.window());
        consumer = std::thread::spawn(move || loadgen::consume(cs, p, w, pool, c, s));
    }
    let me = std::process::id();
    let pids: Vec<(String, u32)> = std::iter::once(("load generator".to_string(), me))
        .chain(
            fwds.iter()
                .enumerate()
                .map(|(i, f)| (format!("fwd #{}", i + 1), f.child.id())),
        )
        .collect();
    std::thread::sleep(warmup);
    let cpu0: Vec<f64> = pids
        .iter()
        .map(|(_, p)| ndnlab_cputime::process_seconds(*p).unwrap_or(0.0))
        .collect();
    let m = loadgen::measure(&counters, Duration::ZERO, duration);
    let cpu1: Vec<f64> = pids
        .iter()
        .map(|(_, p)| ndnlab_cputime::process_seconds(*p).unwrap_or(0.0))
        .collect();
    stop.store(true, Relaxed);
    let _ = consumer.join();
    let _ = producer.join();
    let cpu = pids
        .into_iter()
        .zip(cpu0.iter().zip(&cpu1))
        .map(|((w, _), (a, b))| (w, b - a))
        .collect();
    drop(fwds);
    Ok((m, cpu))
}
