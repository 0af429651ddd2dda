//! `transport = "unix" | "udp"`: a chain of `ndnlab fwd` processes, the load
//! generator in this process; the CPU split is per process.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use bytes::Bytes;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::burst::BurstConn;
use ndnlab_app::client::mgmt::ControlParameters as P;
use ndnlab_app::client::FaceUri;
use ndnlab_app::load::{self as loadgen, LoadCounters, Measured};
use ndnlab_wire::Name;

use super::FwdBench;
use ndnlab_fwd::process::handshake::{self, READY};

struct FwdProc {
    child: Child,
    dir: PathBuf,
    socket: PathBuf,
    listening: Vec<String>,
}

impl FwdProc {
    fn start(
        binary: &Path,
        i: usize,
        threads: usize,
        latency_sample: u64,
        max_packet: usize,
    ) -> anyhow::Result<FwdProc> {
        let dir = std::env::temp_dir().join(format!("ndnlab-bench-fwd-{}-{i}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let socket = dir.join("nfd.sock");
        let mut child = Command::new(binary)
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
        let listening = match handshake::watch(out).recv_timeout(READY) {
            Ok(l) => l,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                match e {
                    std::sync::mpsc::RecvTimeoutError::Timeout => {
                        anyhow::bail!("ndnlab fwd was not ready within {READY:?}")
                    }
                    std::sync::mpsc::RecvTimeoutError::Disconnected => {
                        anyhow::bail!("ndnlab fwd exited before it was ready")
                    }
                }
            }
        };
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

/// Routes `prefix` to `face_id` (`rib/register`).
fn register(c: &mut BlockingClient, prefix: &Name, face_id: Option<u64>) -> anyhow::Result<P> {
    let p = P {
        name: Some(prefix.clone()),
        face_id,
        ..Default::default()
    };
    command(c, "rib", "register", p)
}

/// A management connection to a forwarder of the chain.
fn mgmt(f: &FwdProc) -> anyhow::Result<BlockingClient> {
    Ok(BlockingClient::connect(&FaceUri::Unix(f.socket.clone()))?)
}

/// Runs `a` over a chain of `binary fwd` processes.
pub(super) fn run(
    a: &FwdBench,
    binary: &Path,
    warmup: Duration,
    duration: Duration,
) -> anyhow::Result<(Measured, Vec<(String, f64)>)> {
    anyhow::ensure!(a.hops >= 1, "--hops must be >= 1");
    let fwds: Vec<FwdProc> = (0..a.hops)
        .map(|i| {
            let max_packet = ndnlab_fwd::config::max_packet_size_for(a.payload);
            FwdProc::start(binary, i, a.threads, a.latency_sample, max_packet)
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
        register(&mut c, &prefix, face.face_id)?;
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
        register(&mut c, &prefix, Some(id))?;
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
