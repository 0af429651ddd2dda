//! What the `processes` and `netns` runners share: a run of `ndnlab fwd`
//! daemons, one per node, each with a generated configuration
//! (`<out>/nodes/<run_id>/<node>.toml`: a Unix socket for its apps, its UDP and
//! TCP listeners, its CS and strategies, and `[[faces.emulation]]` rules that
//! apply each link's emulated layer to the faces toward its neighbours). Once
//! every daemon is ready, the faces and routes are created through NFD
//! management, as Mini-NDN does with nfdc; apps are `ndnlab perf` and `ndnlab
//! traffic` processes on the nodes' sockets. The runners differ only in the
//! [`Fabric`]: where each node runs and how it reaches its neighbours.
//!
//! Every child runs in its own process group (see [`crate::cleanup`]) and is
//! killed with it when the run ends, fails or is dropped; daemon and app logs go
//! to `logs/<run_id>/`. Each end emulates what it sends, so a link's parameters
//! apply both ways.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::FaceUri;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::ControlParameters;
use ndnlab_wire::Name;

use super::{Metrics, RunPlan};
use crate::cleanup::TempDir;
use crate::experiment::{AppSpec, LinkSpec};

/// How long a daemon may take to say it is ready.
const READY: Duration = Duration::from_secs(20);

/// The `ndnlab` binary the runners start: `$NDNLAB_BIN`, or this executable
/// when it is `ndnlab`.
pub fn ndnlab_binary(runner: &str) -> anyhow::Result<PathBuf> {
    if let Some(b) = std::env::var_os("NDNLAB_BIN") {
        return Ok(b.into());
    }
    let me = std::env::current_exe().context("cannot find this executable")?;
    if me.file_name().is_some_and(|n| n == "ndnlab") {
        return Ok(me);
    }
    anyhow::bail!(
        "the {runner} runner starts `ndnlab` processes: run it from `ndnlab run`, or set NDNLAB_BIN"
    )
}

/// Where the daemons of a run live and how they reach each other.
pub struct Fabric {
    /// Node → the command prefix that runs a program there (`ip netns exec NS`;
    /// empty: on this host) and the listener tables of its configuration.
    pub nodes: BTreeMap<String, Place>,
    /// (node, peer) → the face the node creates toward that neighbour.
    pub faces: BTreeMap<(String, String), Endpoint>,
    /// Whether the daemons emulate the links' rate and queue (false: the fabric
    /// shapes them itself, with `tc`).
    pub daemon_rate: bool,
    /// What holds the fabric up (namespaces), dropped after the daemons.
    pub keep: Vec<Box<dyn std::any::Any>>,
    /// What the fabric set up outside the daemons (namespaces, links, shapers),
    /// written to `nodes/<run_id>/fabric.txt`; empty: nothing.
    pub description: String,
}

/// One node of a [`Fabric`].
pub struct Place {
    pub wrap: Vec<String>,
    /// `[faces.udp]`, `[faces.tcp]` (and more) tables of the configuration.
    pub listen: String,
}

/// The face a node creates toward a neighbour.
pub struct Endpoint {
    /// Remote URI (`udp4://...`, `tcp4://...`, `ether://[...]`).
    pub uri: String,
    /// Local URI (`dev://IF` for Ethernet faces).
    pub local: Option<String>,
    /// The key of the `[[faces.emulation]]` rule matching the faces toward
    /// this neighbour: `remote = "URI"` or `remote_ip = "ADDR"`.
    pub rule: String,
}

/// Children killed (with their process groups) when dropped.
#[derive(Default)]
struct Children(Vec<(String, Child)>);

impl Children {
    fn spawn(&mut self, name: &str, mut cmd: Command) -> anyhow::Result<&mut Child> {
        let child =
            crate::cleanup::spawn(&mut cmd).with_context(|| format!("cannot start {name}"))?;
        self.0.push((name.to_string(), child));
        Ok(&mut self.0.last_mut().expect("just pushed").1)
    }

    fn get(&mut self, name: &str) -> Option<&mut Child> {
        self.0.iter_mut().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

impl Children {
    /// Fails the run when a forwarder or producer (anything but `consumers`,
    /// which end by themselves) has exited.
    fn check_alive(
        &mut self,
        consumers: &[(String, String, AppSpec)],
        log_dir: &Path,
    ) -> anyhow::Result<()> {
        for (name, c) in &mut self.0 {
            if consumers.iter().any(|(n, _, _)| n == name) {
                continue;
            }
            if let Some(status) = c.try_wait()? {
                let log = name.strip_prefix("fwd ").unwrap_or(name);
                anyhow::bail!(
                    "{name} exited during the run ({status}; see {})",
                    log_dir.join(format!("{log}.log")).display()
                );
            }
        }
        Ok(())
    }
}

impl Children {
    /// A management error, or the death of a daemon that explains it.
    fn explain<T>(
        &mut self,
        e: anyhow::Error,
        consumers: &[(String, String, AppSpec)],
        log_dir: &Path,
    ) -> anyhow::Result<T> {
        // a daemon that died may take a moment to be reaped
        std::thread::sleep(Duration::from_millis(50));
        self.check_alive(consumers, log_dir)?;
        Err(e)
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        for (_, c) in &mut self.0 {
            crate::cleanup::kill_group(c);
        }
    }
}

/// The emulation keys of a link (none for a perfect one). Without
/// `with_rate`, bandwidth and queue are left out (the fabric shapes them).
fn emulation_table(l: &LinkSpec, with_rate: bool) -> Option<String> {
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
    if with_rate && l.bandwidth_mbps > 0.0 {
        kv.push(format!("bandwidth_mbps = {:?}", l.bandwidth_mbps));
        if l.queue > 0 {
            kv.push(format!("queue = {}", l.queue));
        }
    }
    if l.mtu > 0 && l.face != "tcp" {
        kv.push(format!("mtu = {}", l.mtu));
    }
    (!kv.is_empty()).then(|| kv.join("\n"))
}

/// Checks that `runner` can carry out `plan`: its links are of the `faces` it
/// joins forwarders with, and its consumers ask nothing the tools lack. The
/// error names the key.
pub fn check(plan: &RunPlan, runner: &str, faces: &[&str]) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        if !faces.contains(&l.spec.face.as_str()) {
            anyhow::bail!(
                "link {}-{}: face '{}': the {runner} runner joins forwarders over {}",
                l.a,
                l.b,
                l.spec.face,
                faces
                    .iter()
                    .filter(|f| **f != "memory")
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    for (name, a) in &plan.exp.apps {
        if !matches!(a.kind.as_str(), "consumer" | "producer") {
            anyhow::bail!(
                "apps.{name}.kind: '{}' runs under the inproc runner only",
                a.kind
            );
        }
        if a.prefix.contains("{node}") || !a.from.is_empty() {
            anyhow::bail!(
                "apps.{name}: per-node prefixes and `from` run under the inproc runner only"
            );
        }
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

/// A command run on `place`.
fn command(place: &Place, binary: &Path) -> Command {
    match place.wrap.split_first() {
        None => Command::new(binary),
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(binary);
            c
        }
    }
}

/// The configuration of `node`.
fn config(
    plan: &RunPlan,
    fabric: &Fabric,
    node: &str,
    sock: &Path,
    dir: &Path,
) -> anyhow::Result<String> {
    let exp = &plan.exp;
    let f = exp
        .nodes
        .get(node)
        .map(|o| o.apply(&exp.forwarder))
        .unwrap_or_else(|| exp.forwarder.clone());
    let mut t = format!(
        "[forwarder]\nthreads = {}\nqueue_capacity = {}\n[cs]\ncapacity = {}\npolicy = \"{}\"\nadmit = {}\n\
         [faces.unix]\npath = \"{}\"\n{}",
        f.threads,
        f.queue_capacity,
        f.cs_capacity,
        f.cs_policy,
        f.cs_capacity > 0,
        sock.display(),
        fabric.nodes[node].listen,
    );
    for (prefix, s) in &f.strategy {
        t += &format!("[[strategy]]\nprefix = \"{prefix}\"\nstrategy = \"{s}\"\n");
    }
    t += &crate::latency::toml_section(&f, dir, plan.run_id, node)?;
    for l in &plan.topology.links {
        let peer = if l.a == node {
            &l.b
        } else if l.b == node {
            &l.a
        } else {
            continue;
        };
        if let Some(e) = emulation_table(&l.spec, fabric.daemon_rate) {
            let rule = &fabric.faces[&(node.to_string(), peer.clone())].rule;
            t += &format!("[[faces.emulation]]\n{rule}\n{e}\n");
        }
    }
    Ok(t)
}

/// Runs `plan` on `fabric`: daemons, faces and routes, apps, counters, metrics.
/// `started` is when the fabric began to be built (for `bringup_s`).
pub fn run(
    binary: &Path,
    plan: &RunPlan,
    dir: &Path,
    fabric: Fabric,
    started: Instant,
) -> anyhow::Result<Metrics> {
    let exp = &plan.exp;
    let conf_dir = dir.join("nodes").join(plan.run_id.to_string());
    let log_dir = dir.join("logs").join(plan.run_id.to_string());
    std::fs::create_dir_all(&conf_dir)?;
    std::fs::create_dir_all(&log_dir)?;
    // Unix sockets have a short path limit: keep them in a short temp dir.
    let socks = TempDir::new(std::env::temp_dir().join(format!(
        "ndnlab-lab-{}-{}",
        std::process::id(),
        plan.run_id
    )))?;
    let sock = |n: &str| socks.path().join(format!("{n}.sock"));
    if !fabric.description.is_empty() {
        std::fs::write(conf_dir.join("fabric.txt"), &fabric.description)?;
    }
    for name in fabric.nodes.keys() {
        std::fs::write(
            conf_dir.join(format!("{name}.toml")),
            config(plan, &fabric, name, &sock(name), dir)?,
        )?;
    }
    // Daemons, all started at once, then each awaited.
    let mut children = Children::default();
    let mut ready = Vec::new();
    for (name, place) in &fabric.nodes {
        let log = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
        let mut cmd = command(place, binary);
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
        ready.push((name, rx));
    }
    let deadline = Instant::now() + READY;
    for (name, rx) in ready {
        let left = deadline.saturating_duration_since(Instant::now());
        if rx.recv_timeout(left).is_err() {
            anyhow::bail!(
                "forwarder {name} did not start (see {})",
                log_dir.join(format!("{name}.log")).display()
            );
        }
    }
    let clients: BTreeMap<&String, BlockingClient> = fabric
        .nodes
        .keys()
        .map(|n| {
            BlockingClient::connect(&FaceUri::Unix(sock(n)))
                .map(|c| (n, c))
                .with_context(|| format!("cannot reach forwarder {n}"))
        })
        .collect::<anyhow::Result<_>>()?;
    // Faces (both ends, as nfdc would) and routes.
    let mut face_ids: BTreeMap<(String, String), u64> = BTreeMap::new();
    for l in &plan.topology.links {
        for (me, peer) in [(&l.a, &l.b), (&l.b, &l.a)] {
            let end = &fabric.faces[&(me.clone(), peer.clone())];
            let p = ControlParameters {
                uri: Some(end.uri.clone()),
                local_uri: end.local.clone(),
                face_persistency: Some(0),
                mtu: (l.spec.mtu > 0 && l.spec.face != "tcp").then_some(l.spec.mtu as u64),
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
            if a.kind == "producer" {
                let mut cmd = command(&fabric.nodes[&node], binary);
                app_args(&mut cmd, a, &unix_uri(&sock(&node)), total, plan.seed);
                let log = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
                cmd.stdout(Stdio::null()).stderr(log);
                children.spawn(&name, cmd)?;
                // its prefix is registered once it answers management
                let prefix = Name::from_uri(&a.prefix)?;
                wait_route(&clients[&node], &prefix)?;
            } else {
                consumers.push((name, node, a.clone()));
            }
        }
    }
    for (name, node, a) in &consumers {
        let mut cmd = command(&fabric.nodes[node], binary);
        app_args(&mut cmd, a, &unix_uri(&sock(node)), total, plan.seed);
        let out = std::fs::File::create(log_dir.join(format!("{name}.json")))?;
        let err = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
        cmd.stdout(out).stderr(err);
        children.spawn(name, cmd)?;
    }
    // Counters at the window's ends.
    std::thread::sleep(Duration::from_secs_f64(exp.experiment.warmup_s));
    let cpu0 = cpu_of(&mut children, &fabric);
    let before = counters(&clients).or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(exp.experiment.duration_s));
    let measured = t0.elapsed().as_secs_f64();
    children.check_alive(&consumers, &log_dir)?;
    let after = counters(&clients).or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let cpu1 = cpu_of(&mut children, &fabric);
    // Consumers end by themselves shortly after.
    let deadline = Instant::now() + Duration::from_secs(30);
    for (name, _, _) in &consumers {
        let c = children.get(name).expect("spawned");
        while c.try_wait()?.is_none() {
            if Instant::now() > deadline {
                anyhow::bail!("consumer {name} did not finish");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    children.check_alive(&consumers, &log_dir)?;
    let mut m = Metrics::new();
    m.insert("bringup_s".into(), bringup);
    for n in after.keys() {
        if let (Some(x), Some(y)) = (cpu0.get(n), cpu1.get(n)) {
            m.insert(format!("cpu_cores.{n}"), (y - x) / measured);
        }
    }
    super::summary::forwarders(
        after.iter().map(|(n, a)| {
            let b = &before[n];
            super::summary::FwdDelta {
                name: n,
                interests: a.0 - b.0,
                cs_hits: a.1 - b.1,
                cs_misses: a.2 - b.2,
            }
        }),
        measured,
        after.len() > 1,
        &mut m,
    );
    let consumers: Vec<(String, AppSpec)> = consumers.into_iter().map(|(n, _, a)| (n, a)).collect();
    consumer_metrics(&mut m, &consumers, &log_dir, exp.experiment.warmup_s)?;
    let lat = crate::latency::reports_of(clients.iter().map(|(n, c)| (*n, c)))?;
    crate::latency::collect(&mut m, dir, plan.run_id, &lat)?;
    Ok(m)
}

fn unix_uri(sock: &Path) -> String {
    format!("unix://{}", sock.display())
}

/// The command line of an app.
fn app_args(cmd: &mut Command, a: &AppSpec, sock: &str, seconds: f64, seed: u64) {
    let secs = format!("{}", seconds.ceil().max(1.0) as u64);
    if a.kind == "producer" {
        cmd.args(["perf", "server", "--socket", sock, "--prefix", &a.prefix])
            .args(["--payload", &a.payload.to_string()])
            .args(["--freshness", &a.freshness_ms.to_string()])
            .args(["--sign", &a.signature])
            .args(["--threads", &a.threads.to_string()]);
        if a.presign {
            cmd.arg("--cache");
        }
    } else if a.pattern == "window" {
        cmd.args(["perf", "client", "--socket", sock, "--prefix", &a.prefix]);
        if a.cc == "fixed" {
            cmd.args(["--window", &a.window.to_string()]);
        } else {
            cmd.args(["--cc", &a.cc]);
        }
        cmd.args(["--duration", &secs])
            .args(["--lifetime", &a.lifetime_ms.to_string()])
            // a timeout is an Interest unanswered for its lifetime, as the
            // metric says, not an early retransmission timer firing on a
            // loaded machine
            .args(["--min-rto", &a.lifetime_ms.to_string()])
            .args(["--names", &a.catalogue.to_string()])
            .args(["--interval", "0.1", "--json"]);
    } else {
        let pattern = format!(
            "name={},percent=100,components={},distinct={},lifetime={},fresh={}",
            a.prefix, a.name_components, a.catalogue, a.lifetime_ms, a.must_be_fresh
        );
        cmd.args(["traffic", "client", "--socket", sock, "--pattern", &pattern])
            .args(["--arrival", &a.pattern, "--rate", &a.rate.to_string()])
            .args(["--burst-size", &a.burst.to_string()])
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
        let read = |module: &str, what: &str, kind| -> anyhow::Result<_> {
            let d = c
                .dataset(module, what)
                .with_context(|| format!("{module}/{what} of forwarder {n}"))?;
            decode_records(kind, &d).map_err(anyhow::Error::msg)
        };
        let g = read("status", "general", DatasetKind::General)?;
        let cs = read("cs", "info", DatasetKind::Cs)?;
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

/// CPU seconds of each forwarder process (`ip netns exec` execs the daemon, so
/// the pid is the daemon's under every fabric).
fn cpu_of(children: &mut Children, fabric: &Fabric) -> BTreeMap<String, f64> {
    fabric
        .nodes
        .keys()
        .filter_map(|n| {
            let pid = children.get(&format!("fwd {n}"))?.id();
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
