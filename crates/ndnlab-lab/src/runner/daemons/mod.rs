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

mod apps;
mod collect;
mod config;
mod consumers;
mod links;
pub mod nfd;
mod relay;

pub use apps::check;

use std::collections::BTreeMap;
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
use crate::experiment::AppSpec;
use apps::app_args;
use collect::{counters, cpu_of, producer_metrics};
use config::config;
use consumers::consumer_metrics;
use ndnlab_app::tools::wall_clock::unix_now_s;

use ndnlab_fwd::process::handshake::{self, READY};

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
    /// Whether each child is the program itself (`ip netns exec` execs it), so
    /// that its CPU time can be read from `/proc`; false when the child is a
    /// launcher (srun) and the program runs elsewhere: no CPU metrics.
    pub programs_are_children: bool,
    /// What holds the fabric up (namespaces), dropped after the daemons.
    pub keep: Vec<Box<dyn std::any::Any>>,
    /// What the fabric set up outside the daemons (namespaces, links, shapers),
    /// written to `nodes/<run_id>/fabric.txt`; empty: nothing.
    pub description: String,
}

/// One node of a [`Fabric`].
pub struct Place {
    pub wrap: Vec<String>,
    /// The node's UDP and TCP listening port (what `listen` says, for NFD
    /// nodes).
    pub port: u16,
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

/// Runs `plan` on `fabric`: daemons, faces and routes, apps, counters, metrics.
/// `started` is when the fabric began to be built (for `bringup_s`).
pub fn run(
    binary: &Path,
    plan: &RunPlan,
    dir: &Path,
    mut fabric: Fabric,
    started: Instant,
) -> anyhow::Result<Metrics> {
    let exp = &plan.exp;
    nfd::check(plan, fabric.daemon_rate)?;
    let _relays = if fabric.daemon_rate {
        nfd::relays(plan, &mut fabric)?
    } else {
        Vec::new()
    };
    let conf_dir = dir.join("nodes").join(plan.run_id.to_string());
    let log_dir = dir.join("logs").join(plan.run_id.to_string());
    std::fs::create_dir_all(&conf_dir)?;
    std::fs::create_dir_all(&log_dir)?;
    // Unix sockets have a short path limit: keep them in a short temp dir.
    let socks = TempDir::new(crate::cleanup::socket_dir(plan.run_id))?;
    let sock = |n: &str| socks.path().join(format!("{n}.sock"));
    if !fabric.description.is_empty() {
        std::fs::write(conf_dir.join("fabric.txt"), &fabric.description)?;
    }
    for (name, place) in &fabric.nodes {
        if nfd::is_nfd(plan, name) {
            let c = nfd::conf(&exp.forwarder_of(name), &sock(name), place.port);
            std::fs::write(conf_dir.join(format!("{name}.nfd.conf")), c)?;
            continue;
        }
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
        if nfd::is_nfd(plan, name) {
            let conf = conf_dir.join(format!("{name}.nfd.conf"));
            let home = socks.path().join(format!("{name}.home"));
            let mut cmd = nfd::command(place, &conf, &home)?;
            cmd.stdout(log.try_clone()?).stderr(log);
            children.spawn(&format!("fwd {name}"), cmd)?;
            continue;
        }
        let mut cmd = command(place, binary);
        cmd.args(["fwd", "--config"])
            .arg(conf_dir.join(format!("{name}.toml")))
            .args(["--log-level", "warn"])
            .stdout(Stdio::piped())
            .stderr(log);
        let child = children.spawn(&format!("fwd {name}"), cmd)?;
        let out = child.stdout.take().expect("piped");
        ready.push((name, handshake::watch(out)));
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
    for name in fabric.nodes.keys().filter(|n| nfd::is_nfd(plan, n)) {
        let child = children.get(&format!("fwd {name}")).expect("spawned");
        let log = log_dir.join(format!("{name}.log"));
        nfd::wait_ready(name, child, &sock(name), deadline, &log)?;
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
                mtu: config::face_mtu(&l.spec),
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
    let routed = Instant::now();
    // Producers, then consumers, as processes on the nodes' sockets.
    let total = exp.experiment.warmup_s + exp.experiment.duration_s;
    let launch = |label: &str,
                  node: &str,
                  spec: &AppSpec,
                  seed: u64,
                  window_at: f64|
     -> anyhow::Result<Command> {
        let mut cmd = command(&fabric.nodes[node], binary);
        let seconds = if apps::starts_at_window(spec) {
            exp.experiment.duration_s
        } else {
            total
        };
        let sock = unix_uri(&sock(node));
        let l = apps::Launch {
            plan,
            spec,
            label,
            node,
            sock: &sock,
            seconds,
            seed,
            window_at,
            files: &conf_dir,
        };
        app_args(&mut cmd, &l)?;
        Ok(cmd)
    };
    let mut producers = Vec::new();
    for (group, a) in exp.apps.iter().filter(|(_, a)| a.is_producer()) {
        for node in plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)? {
            let name = format!("{group}@{node}");
            let mut cmd = launch(&name, &node, a, plan.seed, 0.0)?;
            let log = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
            if matches!(a.kind.as_str(), "producer" | "repository") {
                // perf server's interval reports: signing and serving times
                let out = std::fs::File::create(log_dir.join(format!("{name}.json")))?;
                cmd.args(["--json", "--interval", "0.1"]).stdout(out);
                producers.push(name.clone());
            } else {
                cmd.stdout(Stdio::null());
            }
            cmd.stderr(log);
            children.spawn(&name, cmd)?;
            // its prefix is registered once it answers management
            let prefix = Name::from_uri(&a.prefix_on(&node))?;
            wait_route(&clients[&node], &prefix)?;
        }
    }
    // Consumers as the inproc runner places them (labels and seeds); those
    // with a count, and gets, once the window opens.
    let placed = crate::apps::placement::consumers(plan)?;
    let consumers: Vec<(String, String, AppSpec)> = placed
        .iter()
        .map(|c| (c.label(), c.node.clone(), c.spec.clone()))
        .collect();
    // The window on the system clock, which every process of the machine (of
    // every namespace) shares: the consumers count from it, and the runner
    // reads the forwarders' counters and selects the producers' intervals by it.
    let open_unix = unix_now_s() + exp.experiment.warmup_s;
    let close_unix = open_unix + exp.experiment.duration_s;
    let until = |t: f64| Duration::from_secs_f64((t - unix_now_s()).max(0.0));
    let mut spawn_consumers = |at_window: bool| -> anyhow::Result<()> {
        for c in placed
            .iter()
            .filter(|c| apps::starts_at_window(c.spec) == at_window)
        {
            let name = c.label();
            let mut cmd = launch(&name, &c.node, c.spec, c.seed, open_unix)?;
            let out = std::fs::File::create(log_dir.join(format!("{name}.json")))?;
            let err = std::fs::File::create(log_dir.join(format!("{name}.log")))?;
            cmd.stdout(out).stderr(err);
            children.spawn(&name, cmd)?;
        }
        Ok(())
    };
    spawn_consumers(false)?;
    // Counters at the window's ends; the links sampled meanwhile.
    let mut link_sampler = links::LinkSampler::new(
        plan,
        clients
            .iter()
            .filter(|(n, _)| !nfd::is_nfd(plan, n))
            .map(|(n, c)| (*n, c)),
        &face_ids,
        started,
    );
    // a sampler that loses a forwarder: the forwarder's death explains it
    let warm = link_sampler.sleep(until(open_unix));
    if warm.is_ok() {
        spawn_consumers(true)?;
    }
    warm.or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let cpu_of = |c: &Children| {
        if fabric.programs_are_children {
            cpu_of(c)
        } else {
            BTreeMap::new()
        }
    };
    let cpu0 = cpu_of(&children);
    let before = counters(&clients).or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let t0 = Instant::now();
    link_sampler
        .sleep(until(close_unix))
        .or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let measured = t0.elapsed().as_secs_f64();
    let after = counters(&clients).or_else(|e| children.explain(e, &consumers, &log_dir))?;
    children.check_alive(&consumers, &log_dir)?;
    let faces_csv = dir
        .join("samples")
        .join("faces")
        .join(format!("{}.csv", plan.run_id));
    collect::write_faces(&clients, &faces_csv)
        .or_else(|e| children.explain(e, &consumers, &log_dir))?;
    let cpu1 = cpu_of(&children);
    // Consumers end by themselves shortly after, once the window's last
    // Interests are answered or their lifetime is over.
    let lifetime = consumers.iter().map(|c| c.2.lifetime_ms).max().unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(30) + Duration::from_millis(lifetime);
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
    super::summary::bringup_s(started, routed, &mut m);
    for n in cpu1.keys() {
        if let (Some(x), Some(y)) = (cpu0.get(n), cpu1.get(n)) {
            super::summary::cpu_cores(Some(n), y - x, measured, &mut m);
        }
    }
    super::summary::forwarders(
        after
            .iter()
            .map(|(n, a)| collect::window_delta(n, &before[n], a)),
        after.len() > 1,
        &mut m,
    );
    let ran: Vec<consumers::Ran> = placed
        .iter()
        .zip(&consumers)
        .map(|(c, (label, _, _))| consumers::Ran {
            label,
            spec: c.spec,
            seed: c.seed,
        })
        .collect();
    consumer_metrics(&mut m, plan, &ran, &log_dir)?;
    producer_metrics(&mut m, &producers, &log_dir, (open_unix, close_unix))?;
    let lat = crate::latency::reports_of(
        clients
            .iter()
            .filter(|(n, _)| !nfd::is_nfd(plan, n))
            .map(|(n, c)| (*n, c)),
    )?;
    crate::latency::collect(&mut m, dir, plan.run_id, &lat)?;
    // over the whole run, as link_frames: the consumers are done
    let verifying =
        (plan.topology.nodes.iter()).any(|n| plan.exp.forwarder_of(n).verify_data != "none");
    if verifying {
        let counts = collect::verify_counts(&clients, plan)?;
        super::verify_metrics(plan, counts.into_iter(), &mut m);
    }
    link_sampler.finish(&mut m, dir, plan.run_id)?;
    Ok(m)
}

fn unix_uri(sock: &Path) -> String {
    format!("unix://{}", sock.display())
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
