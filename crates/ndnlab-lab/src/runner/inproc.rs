//! The `inproc` runner: every forwarder of the topology is an `ndnlab fwd` daemon
//! in this process (its shards on their own threads), joined by peer faces whose
//! frames cross an emulated link layer (`ndnlab_proto::emu`, one emulator per
//! direction, seeded from the run's seed); applications ([`crate::apps`]) run on
//! threads of their own over app faces. Nothing leaves the process, so it measures the real CPU
//! cost of forwarding without sockets, and runs on any machine.
//!
//! A link's task waits for its next arrival on a [`LinkTimer`] (a timerfd, not
//! tokio's millisecond wheel): a frame is handed on one wake-up (tens of
//! microseconds) after it is due, never before; bandwidth and loss are exact.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ndnlab_app::tools::serve_stats::{ServeStats, SharedServeStats};
use ndnlab_fwd::cpu_clock::{self, Account};
use ndnlab_fwd::face::app::AppFace;
use ndnlab_fwd::face::emu_timer::LinkTimer;
use ndnlab_fwd::latency::dataset::LatencyReport;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_proto::emu::{LinkEmulator, LinkParams};
use ndnlab_wire::Name;
use tokio::time::Instant;

use super::links::LinkSample;
use super::{Metrics, RunPlan, Runner};
use crate::apps::placement::Wants;
use crate::apps::{self, ConsumerStats, Span};

use crate::experiment::ForwarderSpec;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// How often PIT and CS sizes are sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// Set to `0`, turns the per-node and per-app CPU accounting off (the
/// `cpu_cores.<node>` and `cpu_cores.<app>@<node>` metrics are then absent).
pub const CPU_ACCOUNTING_ENV: &str = "NDNLAB_LAB_CPU";

/// The CPU accounts of a run's forwarders and apps, by name (none when the
/// accounting is off).
#[derive(Default)]
struct Accounts(BTreeMap<String, Arc<Account>>, bool);

impl Accounts {
    fn new() -> Accounts {
        let on = std::env::var(CPU_ACCOUNTING_ENV).map_or(true, |v| v != "0");
        Accounts(BTreeMap::new(), on)
    }

    /// The account of `name`, created on first use; None when off.
    fn of(&mut self, name: &str) -> Option<Arc<Account>> {
        if !self.1 {
            return None;
        }
        Some(
            self.0
                .entry(name.to_string())
                .or_insert_with(|| Account::new(name))
                .clone(),
        )
    }

    fn read(&self) -> BTreeMap<String, Duration> {
        self.0
            .iter()
            .map(|(n, a)| (n.clone(), a.cpu_time()))
            .collect()
    }
}

/// See the module documentation.
pub struct InProc;

impl Runner for InProc {
    fn name(&self) -> &'static str {
        "inproc"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        for l in &plan.topology.links {
            if l.spec.face != "memory" {
                anyhow::bail!(
                    "link {}-{}: face '{}' needs the processes or netns runner (inproc links are in memory)",
                    l.a,
                    l.b,
                    l.spec.face
                );
            }
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        rt.block_on(run(plan, dir))
    }
}

/// The `ndnlab fwd` configuration of a node's `[forwarder]` `f` in `plan` (the
/// `sim` runner's too).
pub(crate) fn fwd_config(plan: &RunPlan, f: &ForwarderSpec) -> FwdConfig {
    let mut cfg = FwdConfig::default();
    cfg.faces.unix.enabled = false;
    cfg.forwarder.threads = f.threads;
    cfg.forwarder.queue_capacity = f.queue_capacity;
    cfg.forwarder.max_packet_size = plan.packet_limit(f);
    cfg.forwarder.dispatch_components = f.dispatch_components;
    cfg.forwarder.inline = f.inline;
    cfg.forwarder.verify_data = f.verify_data.clone();
    cfg.cs.capacity = f.cs_capacity;
    cfg.cs.admit = f.cs_capacity > 0;
    cfg.cs.policy = f.cs_policy.clone();
    cfg.strategies = f
        .strategy
        .iter()
        .map(|(prefix, s)| ndnlab_fwd::config::StrategyEntry {
            prefix: prefix.clone(),
            strategy: s.clone(),
        })
        .collect();
    cfg
}

/// A link in memory: its two emulators (`a`→`b`, `b`→`a`) on the clock that
/// started at `t0`, shared by the task moving its frames ([`bridge`]) and the
/// sampler ([`MemoryLink::sample`]).
struct MemoryLink {
    t0: Instant,
    emus: Mutex<[LinkEmulator; 2]>,
}

impl MemoryLink {
    fn new(params: LinkParams, seed: u64) -> MemoryLink {
        let ab = LinkEmulator::new(params.clone(), seed);
        let ba = LinkEmulator::new(params, seed ^ 0x9E37_79B9_7F4A_7C15);
        MemoryLink {
            t0: Instant::now(),
            emus: Mutex::new([ab, ba]),
        }
    }

    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, [LinkEmulator; 2]> {
        self.emus.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Direction `i` (0: `a`→`b`) now.
    fn sample(&self, i: usize) -> LinkSample {
        let now = self.now();
        let e = &mut self.lock()[i];
        LinkSample {
            queue_frames: e.queue_len(now) as u64,
            queue_bytes: e.queue_bytes(now) as u64,
            counters: e.counters(),
        }
    }
}

/// Moves frames between two peer faces through the link's emulators.
async fn bridge(mut a: AppFace, mut b: AppFace, link: Arc<MemoryLink>) {
    let mut timer = LinkTimer::default();
    loop {
        let next = {
            let e = link.lock();
            match (e[0].next_arrival(), e[1].next_arrival()) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            }
        };
        let wake = async {
            match next {
                Some(t) => {
                    let now = link.now();
                    timer
                        .sleep(Duration::from_nanos(t.saturating_sub(now)))
                        .await
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            x = a.recv_burst() => {
                let Some(frames) = x else { return };
                let t = link.now();
                let e = &mut link.lock()[0];
                for f in frames {
                    let _ = e.send(t, f);
                }
            }
            x = b.recv_burst() => {
                let Some(frames) = x else { return };
                let t = link.now();
                let e = &mut link.lock()[1];
                for f in frames {
                    let _ = e.send(t, f);
                }
            }
            _ = wake => {}
        }
        let t = link.now();
        let (to_b, to_a) = {
            let mut e = link.lock();
            let to_b: Vec<_> = std::iter::from_fn(|| e[0].poll(t)).collect();
            let to_a: Vec<_> = std::iter::from_fn(|| e[1].poll(t)).collect();
            (to_b, to_a)
        };
        if !to_b.is_empty() {
            b.send_burst(to_b);
        }
        if !to_a.is_empty() {
            a.send_burst(to_a);
        }
    }
}

/// Forwarder counters summed over shards.
#[derive(Debug, Default, Clone, Copy)]
struct Snapshot {
    in_interests: u64,
    in_data: u64,
    satisfied: u64,
    unsatisfied: u64,
    cs_hits: u64,
    cs_misses: u64,
    pit: usize,
    cs: usize,
}

async fn snapshot(d: &Daemon) -> Snapshot {
    let mut s = Snapshot::default();
    for r in d.shared().query_shards().await {
        let c = &r.counters;
        s.in_interests += c.n_in_interests;
        s.in_data += c.n_in_data;
        s.satisfied += c.n_satisfied_interests;
        s.unsatisfied += c.n_unsatisfied_interests;
        s.cs_hits += r.cs.n_hits;
        s.cs_misses += r.cs.n_misses;
        s.pit += r.n_pit;
        s.cs += r.cs.n_entries;
    }
    s
}

async fn run(plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
    let exp = &plan.exp;
    let mut accounts = Accounts::new();
    let trust = apps::keys::trust(plan)?;
    let mut daemons: BTreeMap<String, Daemon> = BTreeMap::new();
    for node in &plan.topology.nodes {
        let spec = exp
            .nodes
            .get(node)
            .map(|o| o.apply(&exp.forwarder))
            .unwrap_or_else(|| exp.forwarder.clone());
        let mut cfg = fwd_config(plan, &spec);
        cfg.forwarder.trust = apps::keys::trust_of(&spec, &trust);
        cfg.latency = crate::latency::section(&spec, dir, plan.run_id, node)?;
        // the forwarder's own threads are its account's
        let start = Daemon::start(cfg);
        let d = match accounts.of(node) {
            Some(a) => cpu_clock::spawning_as(a, start).await,
            None => start.await,
        }
        .map_err(|e| anyhow::anyhow!("forwarder {node}: {e:#}"))?;
        daemons.insert(node.clone(), d);
    }
    // Links: a peer face on each side, bridged through the emulator.
    let mut faces: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut links = Vec::new();
    for (i, l) in plan.topology.links.iter().enumerate() {
        let mtu = (l.spec.emu.mtu > 0 && l.spec.fragment).then_some(l.spec.emu.mtu);
        let mut fa = daemons[&l.a].peer_face(&format!("{}-{}", l.a, l.b), mtu);
        let mut fb = daemons[&l.b].peer_face(&format!("{}-{}", l.b, l.a), mtu);
        // what a face hands its forwarder runs on the link's task, for the forwarder
        if let (Some(a), Some(b)) = (accounts.of(&l.a), accounts.of(&l.b)) {
            fa.charge_cpu_to(a);
            fb.charge_cpu_to(b);
        }
        faces.insert((l.a.clone(), l.b.clone()), fa.id());
        faces.insert((l.b.clone(), l.a.clone()), fb.id());
        let seed = plan.seed.wrapping_mul(0x100_0000_01B3) ^ i as u64;
        let link = Arc::new(MemoryLink::new(l.spec.params(), seed));
        links.push(((l.a.clone(), l.b.clone()), link.clone()));
        tokio::spawn(bridge(fa, fb, link));
    }
    for (node, routes) in &plan.routes {
        for (prefix, via, cost) in routes {
            let face = faces[&(node.clone(), via.clone())];
            daemons[node]
                .register_route(&Name::from_uri(prefix)?, face, *cost)
                .await;
        }
    }
    // Producers first (routed to before any consumer starts), each on its thread.
    let stop = Arc::new(AtomicBool::new(false));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut threads = Vec::new();
    let mut producers: Vec<(String, SharedServeStats)> = Vec::new();
    for (group, a) in &exp.apps {
        if !a.is_producer() {
            continue;
        }
        for node in plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)? {
            let label = format!("{group}@{node}");
            let mut face = daemons[&node].app_face(&label);
            if let Some(n) = accounts.of(&node) {
                face.charge_cpu_to(n);
            }
            let owner = accounts.of(&label);
            let stats = ServeStats::shared();
            producers.push((label, stats.clone()));
            for prefix in a.prefixes_on(&node) {
                daemons[&node]
                    .register_route(&Name::from_uri(&prefix)?, face.id(), 0)
                    .await;
            }
            let (spec, stop, failures) = (a.clone(), stop.clone(), failures.clone());
            let at = format!("apps.{group} on {node}");
            let pool_owner = owner.clone();
            threads.push(apps::dedicated(
                &format!("lab-{group}"),
                owner,
                move || async move {
                    if let Err(e) = apps::serve(face, spec, node, stop, stats, pool_owner).await {
                        let mut f = failures.lock().unwrap_or_else(|e| e.into_inner());
                        f.push(format!("{at}: {e:#}"));
                    }
                },
            ));
        }
    }
    let start = std::time::Instant::now();
    let epoch = apps::Epoch(start);
    let ns = |s: f64| (s * 1e9).round() as u64;
    let span = Span {
        open: ns(exp.experiment.warmup_s),
        close: ns(exp.experiment.warmup_s) + ns(exp.experiment.duration_s),
    };
    let window = (
        Instant::from_std(epoch.at(span.open)),
        Instant::from_std(epoch.at(span.close)),
    );
    let start = Instant::from_std(start);
    for (_, s) in &producers {
        let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
        s.set_window(window.0.into_std(), window.1.into_std());
    }
    let mut consumers = Vec::new();
    for c in apps::placement::consumers(plan)? {
        let label = c.label();
        let mut face = daemons[&c.node].app_face(&label);
        if let Some(n) = accounts.of(&c.node) {
            face.charge_cpu_to(n);
        }
        let owner = accounts.of(&label);
        let stats = Arc::new(Mutex::new(ConsumerStats::default()));
        let (spec, st, seed) = (c.spec.clone(), stats.clone(), c.seed);
        let thread = format!("lab-{}", c.group);
        let task = match c.wants {
            Wants::Object { size } => apps::dedicated(&thread, owner, move || {
                apps::fetch(face, spec, size, (epoch, span), st)
            }),
            Wants::Names(names) => apps::dedicated(&thread, owner, move || {
                apps::consume(face, spec, names, seed, (epoch, span), st)
            }),
        };
        consumers.push((label, stats, task));
    }
    // Samples of PIT and CS sizes over the whole run; counters at the window's ends.
    let mut pit_rows = Vec::new();
    let mut before = BTreeMap::new();
    let mut after = BTreeMap::new();
    let mut cpu_open = Duration::ZERO;
    let cpu_close;
    let mut owned_open = BTreeMap::new();
    let owned_close;

    let mut link_rows = super::links::Recorder::default();
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    loop {
        tick.tick().await;
        let now = Instant::now();
        let t = now.duration_since(start).as_secs_f64();
        for (name, d) in &daemons {
            let s = snapshot(d).await;
            pit_rows.push((t, name.clone(), s.pit, s.cs));
        }
        for ((a, b), link) in &links {
            link_rows.push(t, (a, b), (a, b), link.sample(0));
            link_rows.push(t, (a, b), (b, a), link.sample(1));
        }
        if before.is_empty() && now >= window.0 {
            cpu_open = ndnlab_cputime::process_time();
            owned_open = accounts.read();
            for (name, d) in &daemons {
                before.insert(name.clone(), snapshot(d).await);
            }
        }
        if now >= window.1 {
            cpu_close = ndnlab_cputime::process_time();
            owned_close = accounts.read();
            for (name, d) in &daemons {
                after.insert(name.clone(), snapshot(d).await);
            }
            break;
        }
    }
    for (_, _, task) in &mut consumers {
        let t = std::mem::replace(task, std::thread::spawn(|| ()));
        let _ = tokio::task::spawn_blocking(move || t.join()).await;
    }
    let measured = window.1.duration_since(window.0).as_secs_f64();
    let mut m = Metrics::new();
    let stats: Vec<_> = consumers
        .iter()
        .map(|(n, s, _)| (n.clone(), s.lock().unwrap_or_else(|e| e.into_inner())))
        .collect();
    let delay_rows = {
        let mut f = failures.lock().unwrap_or_else(|e| e.into_inner());
        super::summary::consumers(
            exp,
            stats.iter().map(|(n, s)| (n.as_str(), &**s)),
            measured,
            &mut m,
            &mut f,
        )
    };
    drop(stats);
    super::summary::forwarders(
        before.iter().map(|(name, b)| {
            let a = &after[name];
            super::summary::FwdDelta {
                name,
                interests: (a.in_interests - b.in_interests) as f64,
                cs_hits: (a.cs_hits - b.cs_hits) as f64,
                cs_misses: (a.cs_misses - b.cs_misses) as f64,
                secs: measured,
            }
        }),
        true,
        &mut m,
    );
    super::summary::pit_max(pit_rows.iter().map(|r| r.2), &mut m);
    let mut reports = Vec::new();
    for d in daemons.values() {
        reports.extend(d.shared().query_shards().await);
    }
    let counts = reports
        .iter()
        .map(|r| ndnlab_fwd::verify::counts(&r.counters));
    super::verify_metrics(plan, counts, &mut m);
    let spent = |a: Duration, b: Duration| b.saturating_sub(a).as_secs_f64();
    super::summary::cpu_cores(None, spent(cpu_open, cpu_close), measured, &mut m);
    for (name, close) in &owned_close {
        let open = owned_open.get(name).copied().unwrap_or_default();
        super::summary::cpu_cores(Some(name), spent(open, *close), measured, &mut m);
    }
    // what answers the Interests that arrived in the window
    super::summary::producers(
        producers.iter().map(|(n, s)| {
            let s = s.lock().unwrap_or_else(|e| e.into_inner());
            (n.as_str(), s.summary(measured))
        }),
        &mut m,
    );
    // Raw samples, for pandas: delivery times, and table sizes over time.
    let samples = dir.join("samples");
    std::fs::create_dir_all(samples.join("tables"))?;
    let mut w = csv::Writer::from_path(samples.join(format!("{}.csv", plan.run_id)))?;
    w.write_record(["t_s", "delay_us"])?;
    for (_, t, us) in &delay_rows {
        w.write_record([format!("{t:.6}"), us.to_string()])?;
    }
    w.flush()?;
    let mut w =
        csv::Writer::from_path(samples.join("tables").join(format!("{}.csv", plan.run_id)))?;
    w.write_record(["t_s", "node", "pit", "cs"])?;
    for (t, node, pit, cs) in &pit_rows {
        w.write_record([
            format!("{t:.3}"),
            node.clone(),
            pit.to_string(),
            cs.to_string(),
        ])?;
    }
    w.flush()?;
    // Per-face counters at the end of the run.
    std::fs::create_dir_all(samples.join("faces"))?;
    let mut w = csv::Writer::from_path(samples.join("faces").join(format!("{}.csv", plan.run_id)))?;
    w.write_record(crate::runner::FACE_COLUMNS)?;
    for (node, d) in &daemons {
        for f in d.shared().faces.list() {
            let st = &f.stats;
            let n = |a: &std::sync::atomic::AtomicU64| a.load(Relaxed).to_string();
            let drops = st.in_drops.load(Relaxed) + st.queue_drops.load(Relaxed);
            w.write_record([
                node.clone(),
                f.id.to_string(),
                f.remote.to_string(),
                n(&st.in_interests),
                n(&st.in_data),
                n(&st.in_nacks),
                n(&st.out_interests),
                n(&st.out_data),
                n(&st.out_nacks),
                n(&st.in_bytes),
                n(&st.out_bytes),
                drops.to_string(),
            ])?;
        }
    }
    w.flush()?;
    let lat: Vec<_> = daemons
        .iter()
        .map(|(n, d)| (n.clone(), LatencyReport::of(d.shared().latency.as_deref())))
        .collect();
    crate::latency::collect(&mut m, dir, plan.run_id, &lat)?;
    // Per-link counters at the end of the run, after the last queue sample.
    let t = Instant::now().duration_since(start).as_secs_f64();
    for ((a, b), link) in &links {
        link_rows.push(t, (a, b), (a, b), link.sample(0));
        link_rows.push(t, (a, b), (b, a), link.sample(1));
    }
    link_rows.metrics(&mut m);
    link_rows.write(dir, plan.run_id)?;
    stop.store(true, Relaxed);
    for t in threads {
        let _ = tokio::task::spawn_blocking(move || t.join()).await;
    }
    for (_, d) in daemons {
        d.shutdown().await;
    }
    let failures = failures.lock().unwrap_or_else(|e| e.into_inner());
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join("; "));
    }
    Ok(m)
}
