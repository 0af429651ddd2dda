//! The `processes` runner: Mini-NDN's model without Mininet. Every node is an
//! `ndnlab fwd` process with a generated configuration
//! (`<out>/nodes/<run_id>/<node>.toml`: a Unix socket for its apps, UDP and TCP
//! listeners on loopback ports reserved for it, its CS and strategies, and
//! `[[faces.emulation]]` rules that apply each link's emulated layer to the faces
//! toward its neighbours). Once every daemon is ready, the runner creates the
//! faces and routes through NFD management, as Mini-NDN does with nfdc; apps are
//! `ndnlab perf` and `ndnlab traffic` processes on the nodes' sockets.
//!
//! Every child runs in its own process group and is killed with it when the run
//! ends, fails or is dropped; daemon logs go to `logs/<run_id>/<node>.log`.
//! Links: `udp` (and `memory`, this runner's default) and `tcp`; each end emulates
//! what it sends, so a link's parameters apply both ways.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::FaceUri;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::ControlParameters;
use ndnlab_wire::Name;

use super::{Metrics, RunPlan, Runner};
use crate::experiment::{AppSpec, LinkSpec};

/// How long a daemon may take to say it is ready.
const READY: Duration = Duration::from_secs(20);

/// See the module documentation.
pub struct Processes {
    binary: PathBuf,
}

impl Processes {
    /// The `ndnlab` binary: `$NDNLAB_BIN`, or this executable when it is `ndnlab`.
    pub fn new() -> anyhow::Result<Processes> {
        if let Some(b) = std::env::var_os("NDNLAB_BIN") {
            return Ok(Processes { binary: b.into() });
        }
        let me = std::env::current_exe().context("cannot find this executable")?;
        if me.file_name().is_some_and(|n| n == "ndnlab") {
            return Ok(Processes { binary: me });
        }
        anyhow::bail!(
            "the processes runner starts `ndnlab` processes: run it from `ndnlab run`, or set NDNLAB_BIN"
        )
    }
}

/// Children killed (with their process groups) when dropped.
#[derive(Default)]
struct Children(Vec<(String, Child)>);

impl Children {
    fn spawn(&mut self, name: &str, mut cmd: Command) -> anyhow::Result<&mut Child> {
        cmd.process_group(0);
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start {name}"))?;
        crate::cleanup::register(child.id());
        self.0.push((name.to_string(), child));
        Ok(&mut self.0.last_mut().expect("just pushed").1)
    }

    fn pid(&self, name: &str) -> Option<u32> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, c)| c.id())
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, c) in &mut self.0 {
            // SAFETY: kill(2) on the child's own process group.
            unsafe {
                libc::kill(-(c.id() as i32), libc::SIGKILL);
            }
            let _ = c.kill();
            let _ = c.wait();
            crate::cleanup::unregister(c.id());
        }
    }
}

/// A free loopback port (UDP and TCP both free), found by binding port 0.
fn free_port() -> anyhow::Result<u16> {
    for _ in 0..64 {
        let u = std::net::UdpSocket::bind("127.0.0.1:0")?;
        let port = u.local_addr()?.port();
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    anyhow::bail!("no free loopback port")
}

fn emulation_table(l: &LinkSpec) -> Option<String> {
    let p = l.params();
    if p.is_perfect() {
        return None;
    }
    let mut kv = Vec::new();
    if l.delay_ms > 0.0 {
        kv.push(format!("delay_ms = {:?}", l.delay_ms));
    }
    if l.jitter_ms > 0.0 {
        kv.push(format!("jitter_ms = {:?}", l.jitter_ms));
    }
    if l.loss_pct > 0.0 {
        kv.push(format!("loss_pct = {:?}", l.loss_pct));
    }
    if l.bandwidth_mbps > 0.0 {
        kv.push(format!("bandwidth_mbps = {:?}", l.bandwidth_mbps));
        if l.queue > 0 {
            kv.push(format!("queue = {}", l.queue));
        }
    }
    if l.mtu > 0 && l.face != "tcp" {
        kv.push(format!("mtu = {}", l.mtu));
    }
    Some(kv.join("\n"))
}

/// Checks what this runner can run, naming the key it cannot.
fn check(plan: &RunPlan) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        if !["memory", "udp", "tcp"].contains(&l.spec.face.as_str()) {
            anyhow::bail!(
                "link {}-{}: face '{}': the processes runner joins forwarders over udp or tcp",
                l.a,
                l.b,
                l.spec.face
            );
        }
    }
    for (name, a) in &plan.exp.apps {
        if a.kind != "consumer" {
            continue;
        }
        let refuse = |key: &str| {
            anyhow::anyhow!(
                "apps.{name}.{key}: ndnlab perf client and traffic client have no such option (use the inproc runner)"
            )
        };
        if a.zipf > 0.0 {
            return Err(refuse("zipf"));
        }
        if a.count > 0 {
            return Err(refuse("count"));
        }
        if a.pattern == "window" && a.must_be_fresh {
            return Err(refuse("must_be_fresh"));
        }
    }
    Ok(())
}

struct Node {
    sock: PathBuf,
    port: u16,
}

impl Runner for Processes {
    fn name(&self) -> &'static str {
        "processes"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        check(plan)?;
        let exp = &plan.exp;
        let conf_dir = dir.join("nodes").join(plan.run_id.to_string());
        let log_dir = dir.join("logs").join(plan.run_id.to_string());
        std::fs::create_dir_all(&conf_dir)?;
        std::fs::create_dir_all(&log_dir)?;
        // Unix sockets have a short path limit: keep them in a short temp dir.
        let sock_dir =
            std::env::temp_dir().join(format!("ndnlab-lab-{}-{}", std::process::id(), plan.run_id));
        std::fs::create_dir_all(&sock_dir)?;
        let _cleanup = RemoveOnDrop(sock_dir.clone());
        let mut nodes = BTreeMap::new();
        for n in &plan.topology.nodes {
            nodes.insert(
                n.clone(),
                Node {
                    sock: sock_dir.join(format!("{n}.sock")),
                    port: free_port()?,
                },
            );
        }
        let uri_of = |l: &LinkSpec, peer: &str| {
            let scheme = if l.face == "tcp" { "tcp4" } else { "udp4" };
            format!("{scheme}://127.0.0.1:{}", nodes[peer].port)
        };
        // Configurations.
        for (name, node) in &nodes {
            let f = exp
                .nodes
                .get(name)
                .map(|o| o.apply(&exp.forwarder))
                .unwrap_or_else(|| exp.forwarder.clone());
            let mut t = format!(
                "[forwarder]\nthreads = {}\nqueue_capacity = {}\n[cs]\ncapacity = {}\npolicy = \"{}\"\nadmit = {}\n\
                 [faces.unix]\npath = \"{}\"\n[faces.udp]\nlisten = [\"127.0.0.1:{}\"]\n[faces.tcp]\nlisten = [\"127.0.0.1:{}\"]\n",
                f.threads,
                f.queue_capacity,
                f.cs_capacity,
                f.cs_policy,
                f.cs_capacity > 0,
                node.sock.display(),
                node.port,
                node.port
            );
            for (prefix, s) in &f.strategy {
                t += &format!("[[strategy]]\nprefix = \"{prefix}\"\nstrategy = \"{s}\"\n");
            }
            t += &crate::latency::toml_section(&f, dir, plan.run_id, name)?;
            for l in &plan.topology.links {
                let peer = if &l.a == name {
                    &l.b
                } else if &l.b == name {
                    &l.a
                } else {
                    continue;
                };
                if let Some(e) = emulation_table(&l.spec) {
                    t += &format!(
                        "[[faces.emulation]]\nremote = \"{}\"\n{e}\n",
                        uri_of(&l.spec, peer)
                    );
                }
            }
            std::fs::write(conf_dir.join(format!("{name}.toml")), t)?;
        }
        // Daemons.
        let started = Instant::now();
        let mut children = Children::default();
        for name in nodes.keys() {
            let log = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
            let mut cmd = Command::new(&self.binary);
            cmd.args(["fwd", "--config"])
                .arg(conf_dir.join(format!("{name}.toml")))
                .args(["--log-level", "warn"])
                .stdout(Stdio::piped())
                .stderr(log);
            let child = children.spawn(&format!("fwd {name}"), cmd)?;
            let out = child.stdout.take().expect("piped");
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    if line == "ndnlab fwd: ready" {
                        let _ = tx.send(());
                    }
                }
            });
            if rx.recv_timeout(READY).is_err() {
                anyhow::bail!(
                    "forwarder {name} did not start (see {})",
                    log_dir.join(format!("{name}.log")).display()
                );
            }
        }
        let clients: BTreeMap<&String, BlockingClient> = nodes
            .iter()
            .map(|(n, node)| {
                BlockingClient::connect(&FaceUri::Unix(node.sock.clone()))
                    .map(|c| (n, c))
                    .with_context(|| format!("cannot reach forwarder {n}"))
            })
            .collect::<anyhow::Result<_>>()?;
        // Faces (both ends, as nfdc would) and routes.
        let mut face_ids: BTreeMap<(String, String), u64> = BTreeMap::new();
        for l in &plan.topology.links {
            for (me, peer) in [(&l.a, &l.b), (&l.b, &l.a)] {
                let p = ControlParameters {
                    uri: Some(uri_of(&l.spec, peer)),
                    face_persistency: Some(0),
                    ..Default::default()
                };
                let r = clients[me]
                    .command_response("faces", "create", &p)
                    .with_context(|| format!("faces/create on {me}"))?;
                let id = r
                    .body
                    .and_then(|b| b.face_id)
                    .filter(|_| r.code == 200 || r.code == 409)
                    .ok_or_else(|| {
                        anyhow::anyhow!("faces/create on {me} toward {peer}: {} {}", r.code, r.text)
                    })?;
                face_ids.insert((me.clone(), peer.clone()), id);
            }
        }
        for (node, routes) in &plan.routes {
            for (prefix, via, cost) in routes {
                let p = ControlParameters {
                    name: Some(Name::from_uri(prefix)?),
                    face_id: Some(face_ids[&(node.clone(), via.clone())]),
                    cost: Some(*cost),
                    origin: Some(255),
                    ..Default::default()
                };
                clients[node]
                    .command("rib", "register", &p)
                    .with_context(|| format!("rib/register {prefix} on {node}"))?;
            }
        }
        let bringup = started.elapsed().as_secs_f64();
        // Producers, then consumers, as processes on the nodes' sockets.
        let total = exp.experiment.warmup_s + exp.experiment.duration_s;
        let mut consumers = Vec::new();
        for (group, a) in &exp.apps {
            for node in plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)? {
                let name = format!("{group}@{node}");
                let sock = format!("unix://{}", nodes[&node].sock.display());
                let mut cmd = Command::new(&self.binary);
                app_args(&mut cmd, a, &sock, total, plan.seed);
                let log = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
                if a.kind == "producer" {
                    cmd.stdout(Stdio::null()).stderr(log);
                    children.spawn(&name, cmd)?;
                    // its prefix is registered once it answers management
                    let prefix = Name::from_uri(&a.prefix)?;
                    wait_route(&clients[&node], &prefix)?;
                } else {
                    consumers.push((name, a.clone()));
                    let _ = (cmd, log);
                }
            }
        }
        let mut running = Vec::new();
        for (name, a) in &consumers {
            let node = name.split('@').nth(1).expect("group@node");
            let sock = format!("unix://{}", nodes[node].sock.display());
            let mut cmd = Command::new(&self.binary);
            app_args(&mut cmd, a, &sock, total, plan.seed);
            let out = std::fs::File::create(log_dir.join(format!("{name}.json")))?;
            let err = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
            cmd.stdout(out).stderr(err);
            children.spawn(name, cmd)?;
            running.push(name.clone());
        }
        // Counters at the window's ends.
        std::thread::sleep(Duration::from_secs_f64(exp.experiment.warmup_s));
        let cpu0 = cpu_of(&children, &nodes);
        let before = counters(&clients)?;
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(exp.experiment.duration_s));
        let measured = t0.elapsed().as_secs_f64();
        let after = counters(&clients)?;
        let cpu1 = cpu_of(&children, &nodes);
        // Consumers end by themselves shortly after.
        let deadline = Instant::now() + Duration::from_secs(30);
        for name in &running {
            let (_, c) = children
                .0
                .iter_mut()
                .find(|(n, _)| n == name)
                .expect("spawned");
            loop {
                if c.try_wait()?.is_some() {
                    break;
                }
                if Instant::now() > deadline {
                    anyhow::bail!("consumer {name} did not finish");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let mut m = Metrics::new();
        m.insert("bringup_s".into(), bringup);
        let (mut hits, mut misses, mut fwd_in) = (0.0, 0.0, 0.0);
        for (n, a) in &after {
            let b = &before[n];
            let interests = a.0 - b.0;
            fwd_in += interests;
            hits += a.1 - b.1;
            misses += a.2 - b.2;
            if after.len() > 1 {
                m.insert(format!("fwd_interests_per_sec.{n}"), interests / measured);
            }
            if let (Some(x), Some(y)) = (cpu0.get(n), cpu1.get(n)) {
                m.insert(format!("cpu_cores.{n}"), (y - x) / measured);
            }
        }
        m.insert("fwd_interests_per_sec".into(), fwd_in / measured);
        m.insert(
            "cs_hit_ratio".into(),
            if hits + misses > 0.0 {
                hits / (hits + misses)
            } else {
                0.0
            },
        );
        consumer_metrics(&mut m, &consumers, &log_dir, exp.experiment.warmup_s)?;
        let lat = crate::latency::reports_of(clients.iter().map(|(n, c)| (*n, c)))?;
        crate::latency::collect(&mut m, dir, plan.run_id, &lat)?;
        Ok(m)
    }
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The command line of an app.
fn app_args(cmd: &mut Command, a: &AppSpec, sock: &str, seconds: f64, seed: u64) {
    let secs = format!("{}", seconds.ceil().max(1.0) as u64);
    if a.kind == "producer" {
        cmd.args(["perf", "server", "--socket", sock, "--prefix", &a.prefix])
            .args(["--payload", &a.payload.to_string()])
            .args(["--freshness", &a.freshness_ms.to_string()])
            .args(["--sign", &a.signature]);
    } else if a.pattern == "window" {
        cmd.args(["perf", "client", "--socket", sock, "--prefix", &a.prefix])
            .args(["--window", &a.window.to_string()])
            .args(["--duration", &secs])
            .args(["--lifetime", &a.lifetime_ms.to_string()])
            .args(["--names", &a.catalogue.to_string()])
            .args(["--interval", "0.1", "--json"]);
    } else {
        let pattern = format!(
            "name={},percent=100,components={},distinct={},lifetime={},fresh={}",
            a.prefix, a.name_components, a.catalogue, a.lifetime_ms, a.must_be_fresh
        );
        cmd.args(["traffic", "client", "--socket", sock, "--pattern", &pattern])
            .args(["--arrival", &a.pattern, "--rate", &a.rate.to_string()])
            .args([
                "--duration",
                &secs,
                "--seed",
                &seed.to_string(),
                "--json",
                "--quiet",
            ]);
    }
}

/// Waits until `prefix` has a route on the node (its producer registered).
fn wait_route(c: &BlockingClient, prefix: &Name) -> anyhow::Result<()> {
    let want = prefix.to_string();
    let deadline = Instant::now() + READY;
    while Instant::now() < deadline {
        let recs = decode_records(DatasetKind::Rib, &c.dataset("rib", "list")?)
            .map_err(anyhow::Error::msg)?;
        if recs.iter().any(|r| r.text("name") == Some(want.as_str())) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    anyhow::bail!("no producer registered {want}")
}

/// (Interests in, CS hits, CS misses) per node.
fn counters(
    clients: &BTreeMap<&String, BlockingClient>,
) -> anyhow::Result<BTreeMap<String, (f64, f64, f64)>> {
    let mut out = BTreeMap::new();
    for (n, c) in clients {
        let g = decode_records(DatasetKind::General, &c.dataset("status", "general")?)
            .map_err(anyhow::Error::msg)?;
        let cs = decode_records(DatasetKind::Cs, &c.dataset("cs", "info")?)
            .map_err(anyhow::Error::msg)?;
        let num = |r: Option<&ndnlab_proto::mgmt::dataset::Record>, k: &str| {
            r.and_then(|r| r.num(k)).unwrap_or(0) as f64
        };
        out.insert(
            (*n).clone(),
            (
                num(g.first(), "nInInterests"),
                num(cs.first(), "nHits"),
                num(cs.first(), "nMisses"),
            ),
        );
    }
    Ok(out)
}

/// CPU seconds of each forwarder process.
fn cpu_of(children: &Children, nodes: &BTreeMap<String, Node>) -> BTreeMap<String, f64> {
    nodes
        .keys()
        .filter_map(|n| {
            let pid = children.pid(&format!("fwd {n}"))?;
            ndnlab_testkit::cpu::process_seconds(pid).map(|s| (n.clone(), s))
        })
        .collect()
}

/// Sums the consumers' interval reports inside the window.
fn consumer_metrics(
    m: &mut Metrics,
    consumers: &[(String, AppSpec)],
    log_dir: &Path,
    warmup: f64,
) -> anyhow::Result<()> {
    let (mut interests, mut data, mut nacks, mut timeouts, mut bytes, mut secs) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0f64);
    let mut delay = Vec::new();
    for (name, a) in consumers {
        let path = log_dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path)?;
        let rows: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
        if a.pattern == "window" {
            let mut window_secs = 0.0;
            let mut last_t = warmup;
            // An interval's Data may answer Interests of the one before: count the
            // outcomes (Data, Nack, timeout), one per Interest.
            for r in rows
                .iter()
                .filter(|r| r["type"] == "interval" && f(r, "time_s") > warmup)
            {
                interests += f(r, "data") + f(r, "nacks") + f(r, "timeouts");
                data += f(r, "data");
                nacks += f(r, "nacks");
                timeouts += f(r, "timeouts");
                bytes += f(r, "bytes");
                window_secs += f(r, "time_s") - last_t;
                last_t = f(r, "time_s");
                delay.push((
                    f(r, "data"),
                    f(r, "rtt_mean_ms") * 1000.0,
                    f(r, "rtt_p50_ms") * 1000.0,
                    f(r, "rtt_p99_ms") * 1000.0,
                ));
            }
            secs = secs.max(window_secs);
        } else {
            // traffic client: one summary for the whole run
            let Some(s) = rows.last() else {
                anyhow::bail!(
                    "consumer {name} printed no summary (see {})",
                    path.display()
                );
            };
            let total = f(s, "interests").max(f(s, "sent"));
            interests += total;
            data += f(s, "data").max(f(s, "satisfied"));
            nacks += f(s, "nacks");
            timeouts += f(s, "timeouts");
            bytes += f(s, "bytes");
        }
    }
    if interests == 0.0 {
        anyhow::bail!(
            "the consumers sent no Interest in the window (see {})",
            log_dir.display()
        );
    }
    m.insert("interests".into(), interests);
    m.insert("data".into(), data);
    m.insert("nacks".into(), nacks);
    m.insert("timeouts".into(), timeouts);
    m.insert("satisfaction".into(), data / interests);
    m.insert("loss".into(), 1.0 - data / interests);
    if secs > 0.0 {
        m.insert("data_per_sec".into(), data / secs);
        m.insert("throughput_mbps".into(), bytes * 8.0 / secs / 1e6);
    }
    let weight: f64 = delay.iter().map(|d| d.0).sum();
    if weight > 0.0 {
        // Data-weighted means of the intervals' statistics.
        let wmean = |i: usize| delay.iter().map(|d| d.0 * [d.1, d.2, d.3][i]).sum::<f64>() / weight;
        m.insert("delay_mean_us".into(), wmean(0));
        m.insert("delay_p50_us".into(), wmean(1));
        m.insert("delay_p99_us".into(), wmean(2));
    }
    Ok(())
}
