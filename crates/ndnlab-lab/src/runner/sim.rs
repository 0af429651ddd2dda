//! The `sim` runner: the experiment in virtual time (`ndnlab_sim`). Every node
//! is the real forwarder core (its shards behind the Name Dispatch Table, as
//! `ndnlab fwd` runs them, configured from `[forwarder]` as `inproc`
//! configures its daemons); every link is the NDNLPv2 link service and the
//! emulated link (one emulator per direction, seeded from the run's seed as
//! `inproc` seeds them), every application the same sans-IO core the `inproc`
//! threads drive ([`crate::apps`]). Nothing reads the wall clock: the same
//! experiment and seed give byte-identical results.
//!
//! Differences from the other runners: `forwarder.threads = 0` means one
//! shard (not a number chosen from the machine); the link's `face` kind is not
//! modelled (every link is an emulated one); processing takes no virtual time
//! unless `forwarder.cost` says otherwise (each forwarding thread is then a
//! server whose input queue holds `forwarder.queue_capacity` packets, tail
//! drop on link faces, back-pressure on the app faces of a one-thread
//! forwarder: `ndnlab_sim::net`), and an app face hands frames to its
//! application in [`APP_DELAY_NS`];
//! `cpu_cores` and `bringup_s` are not reported, nor producers' signing and
//! serving times; an experiment whose `metrics` names one of those is refused. Besides `inproc`'s samples, it
//! writes `samples/queues/<run>.csv` (each face's transmit queue in frames,
//! sampled every `experiment.sample_interval_ms`) and `samples/drops/<run>.csv`
//! (losses by cause). Table and queue samples go to their files as they are
//! taken (a 1,000-node run takes millions), not kept in memory.

use std::collections::BTreeMap;
use std::path::Path;

use bytes::Bytes;
use ndnlab_sim::net::Network;
use ndnlab_sim::node::FaceKind;
use ndnlab_sim::{App, Nanos};
use ndnlab_wire::Name;

use super::{Metrics, RunPlan, Runner};
use crate::apps::placement::Wants;
use crate::apps::{ConsumerCore, ConsumerStats, GetCore, Responder, Span};

/// Virtual time an app face takes to hand frames to its application: with
/// zero-cost forwarders, it keeps a window consumer on links without delay
/// from sending without end at one instant.
pub const APP_DELAY_NS: Nanos = 20_000;

/// See the module documentation.
pub struct Sim;

/// An application of the laboratory in virtual time.
pub enum LabApp {
    Consumer(Box<ConsumerCore>),
    Get(Box<GetCore>),
    Producer(Box<Responder>),
}

impl App for LabApp {
    fn on_frames(&mut self, now: Nanos, frames: &mut Vec<Bytes>, out: &mut Vec<Bytes>) {
        match self {
            LabApp::Consumer(c) => {
                for f in frames.drain(..) {
                    c.on_frame(now, f);
                }
                c.poll(now, out);
            }
            LabApp::Get(g) => {
                for f in frames.drain(..) {
                    g.on_frame(now, f);
                }
                g.poll(now, out);
            }
            LabApp::Producer(p) => {
                for f in frames.drain(..) {
                    p.on_frame(f, out);
                }
            }
        }
    }

    fn on_timer(&mut self, now: Nanos, out: &mut Vec<Bytes>) {
        match self {
            LabApp::Consumer(c) => c.poll(now, out),
            LabApp::Get(g) => g.poll(now, out),
            LabApp::Producer(_) => {}
        }
    }

    fn next_timer(&self) -> Option<Nanos> {
        match self {
            LabApp::Consumer(c) => c.next_wakeup(),
            LabApp::Get(g) => g.next_wakeup(),
            LabApp::Producer(_) => None,
        }
    }
}

impl LabApp {
    fn is_done(&self) -> bool {
        match self {
            LabApp::Consumer(c) => c.is_done(),
            LabApp::Get(g) => g.is_done(),
            LabApp::Producer(_) => true,
        }
    }
}

impl Runner for Sim {
    fn name(&self) -> &'static str {
        "sim"
    }

    /// A run is one thread in virtual time: campaigns run several at once.
    fn parallel_safe(&self) -> bool {
        true
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        super::refuse_unmeasured("sim", plan)?;
        let mut built = build(plan)?;
        let m = run(plan, &mut built, dir)?;
        Ok(m)
    }
}

/// A network built from a plan, with the names of its nodes and consumers.
pub struct Built {
    pub net: Network<LabApp>,
    pub nodes: Vec<String>,
    /// (name `group@node`, app index) of every consumer.
    pub consumers: Vec<(String, u32)>,
    pub span: Span,
    /// When the run ends at the latest.
    pub end: Nanos,
}

fn ns(s: f64) -> Nanos {
    (s * 1e9).round() as Nanos
}

/// The network of a plan: nodes, links, routes and applications.
pub fn build(plan: &RunPlan) -> anyhow::Result<Built> {
    let exp = &plan.exp;
    let mut net = Network::new();
    net.set_app_delay(APP_DELAY_NS);
    let mut index = BTreeMap::new();
    // Each node marks congestion on its links' send queues as `ndnlab fwd`
    // (and NFD) mark on every face whose queue they can measure.
    let mut marking = BTreeMap::new();
    let trust = crate::apps::keys::trust(plan)?;
    for node in &plan.topology.nodes {
        let spec = exp
            .nodes
            .get(node)
            .map(|o| o.apply(&exp.forwarder))
            .unwrap_or_else(|| exp.forwarder.clone());
        let mut cfg = super::inproc::fwd_config(plan, &spec);
        cfg.forwarder.trust = crate::apps::keys::trust_of(&spec, &trust);
        // `forwarder.threads` 0 means 1 here, for a run that does not depend on
        // the machine.
        let shards = ndnlab_fwd::runtime::shard::configured(&cfg, cfg.forwarder.threads.max(1))
            .map_err(|e| anyhow::anyhow!("node {node}: {e}"))?;
        let id = net.add_node(
            node,
            ndnlab_sim::NodeSpec {
                shards,
                dispatch_components: cfg.forwarder.dispatch_components,
            },
        );
        marking.insert(
            node.clone(),
            ndnlab_proto::lp::CongestionLimits {
                interval_ns: cfg.faces.congestion_interval_ms * 1_000_000,
                threshold: cfg.faces.congestion_threshold,
            },
        );
        if spec.cost != ndnlab_sim::CostSpec::zero() {
            let base = exp.topology.base_dir.clone().unwrap_or_default();
            let model = ndnlab_model::service::cost_model(&spec.cost, &base, "forwarder.cost")
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let seed = plan.seed ^ (u64::from(id) + 1).wrapping_mul(0xA24B_AED4_963E_E407);
            net.nodes[id as usize].set_cost(
                &model,
                spec.queue_capacity,
                ndnlab_sim::DropPolicy::TailDrop,
                seed,
            );
        }
        index.insert(node.clone(), id);
    }
    let mut faces: BTreeMap<(String, String), u32> = BTreeMap::new();
    for (i, l) in plan.topology.links.iter().enumerate() {
        let seed = plan.seed.wrapping_mul(0x100_0000_01B3) ^ i as u64;
        let params = l.spec.params();
        params
            .validate()
            .map_err(|e| anyhow::anyhow!("link {}-{}: {e}", l.a, l.b))?;
        if !l.spec.fragment {
            anyhow::bail!(
                "link {}-{}: fragment = false: the sim runner's links always fragment to their mtu (use inproc or processes)",
                l.a,
                l.b
            );
        }
        let ab = net.links.len();
        let (fa, fb) = net.add_link(
            index[&l.a],
            index[&l.b],
            params,
            seed,
            seed ^ 0x9E37_79B9_7F4A_7C15,
        );
        net.links[ab].set_marking(Some(marking[&l.a]));
        net.links[ab + 1].set_marking(Some(marking[&l.b]));
        faces.insert((l.a.clone(), l.b.clone()), fa);
        faces.insert((l.b.clone(), l.a.clone()), fb);
    }
    for (node, routes) in &plan.routes {
        for (prefix, via, cost) in routes {
            let face = faces[&(node.clone(), via.clone())];
            net.add_route(index[node], &Name::from_uri(prefix)?, face, *cost);
        }
    }
    for (group, a) in &exp.apps {
        if !a.is_producer() {
            continue;
        }
        for node in plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)? {
            let r = Responder::with_full_length_signatures(a.clone(), &node)
                .map_err(|e| anyhow::anyhow!("apps.{group} on {node}: {e:#}"))?;
            let (_, face) = net.add_app(index[&node], LabApp::Producer(Box::new(r)));
            for prefix in a.prefixes_on(&node) {
                net.add_route(index[&node], &Name::from_uri(&prefix)?, face, 0);
            }
        }
    }
    let open = ns(exp.experiment.warmup_s);
    let span = Span {
        open,
        close: open + ns(exp.experiment.duration_s),
    };
    let mut consumers = Vec::new();
    let mut lifetime = 0u64;
    for c in crate::apps::placement::consumers(plan)? {
        lifetime = lifetime.max(c.spec.lifetime_ms);
        let label = c.label();
        let app = match c.wants {
            Wants::Object { size } => LabApp::Get(Box::new(GetCore::new(c.spec, size, span))),
            Wants::Names(names) => {
                LabApp::Consumer(Box::new(ConsumerCore::new(c.spec, names, c.seed, span, 0)))
            }
        };
        let (id, _) = net.add_app(index[&c.node], app);
        consumers.push((label, id));
    }
    Ok(Built {
        net,
        nodes: plan.topology.nodes.clone(),
        consumers,
        span,
        end: span.close + lifetime * 1_000_000 + 1_000_000_000,
    })
}

/// Forwarder counters of a node, summed over its shards.
#[derive(Debug, Default, Clone, Copy)]
struct Snapshot {
    in_interests: u64,
    cs_hits: u64,
    cs_misses: u64,
}

fn snapshot(net: &Network<LabApp>) -> Vec<Snapshot> {
    net.nodes
        .iter()
        .map(|n| {
            let mut s = Snapshot::default();
            for sh in &n.shards {
                s.in_interests += sh.fw.counters().n_in_interests;
                let cs = sh.fw.cs_ref().info();
                s.cs_hits += cs.n_hits;
                s.cs_misses += cs.n_misses;
            }
            s
        })
        .collect()
}

/// Runs a built network through the plan's window; writes the samples under
/// `dir` and returns the metrics.
pub fn run(plan: &RunPlan, b: &mut Built, dir: &Path) -> anyhow::Result<Metrics> {
    let exp = &plan.exp;
    let step = ((exp.experiment.sample_interval_ms * 1e6).round() as Nanos).max(1);
    let span = b.span;
    let mut out = SampleFiles::create(plan, dir)?;
    let mut before = None;
    let mut after = None;
    let mut t = 0;
    loop {
        // the next sample, or the window's edges, whichever comes first
        let next_sample = (t / step + 1) * step;
        let mut next = next_sample;
        if before.is_none() {
            next = next.min(span.open);
        } else if after.is_none() {
            next = next.min(span.close);
        }
        if before.is_none() && t >= span.open {
            before = Some(snapshot(&b.net));
            continue;
        }
        if before.is_some() && after.is_none() && t >= span.close {
            after = Some(snapshot(&b.net));
            continue;
        }
        if after.is_some()
            && b.consumers
                .iter()
                .all(|(_, id)| b.net.apps[*id as usize].app.is_done())
        {
            break;
        }
        if t >= b.end {
            break;
        }
        b.net.run_until(next);
        t = next;
        if t == next_sample {
            out.sample(&mut b.net, &b.nodes, t)?;
        }
    }
    let before = before.unwrap_or_default();
    let after = after.unwrap_or_default();
    let measured = exp.experiment.duration_s;
    let mut m = Metrics::new();
    let mut failures = Vec::new();
    let delay_rows = {
        let stats: Vec<(&str, &ConsumerStats)> = b
            .consumers
            .iter()
            .filter_map(|(n, id)| Some((n.as_str(), app_stats(&b.net.apps[*id as usize].app)?)))
            .collect();
        super::summary::consumers(exp, stats.into_iter(), measured, &mut m, &mut failures)
    };
    for (name, id) in &b.consumers {
        if !b.net.apps[*id as usize].app.is_done() {
            if let LabApp::Get(_) = b.net.apps[*id as usize].app {
                failures.push(format!("{name}: get not finished by the end of the run"));
            }
        }
    }
    super::summary::forwarders(
        b.nodes.iter().enumerate().map(|(i, name)| {
            let (x, y) = (before[i], after[i]);
            super::summary::FwdDelta {
                name,
                interests: (y.in_interests - x.in_interests) as f64,
                cs_hits: (y.cs_hits - x.cs_hits) as f64,
                cs_misses: (y.cs_misses - x.cs_misses) as f64,
                secs: measured,
            }
        }),
        true,
        &mut m,
    );
    super::verify_metrics(
        plan,
        b.net
            .nodes
            .iter()
            .flat_map(|n| n.shards.iter())
            .map(|sh| ndnlab_fwd::verify::counts(sh.fw.counters())),
        &mut m,
    );
    m.insert("pit_max".into(), out.pit_max as f64);
    // the links' counters at the end of the run
    let now = b.net.now();
    out.sample_links(&mut b.net, now);
    out.links.metrics(&mut m);
    out.links.write(dir, plan.run_id)?;
    out.finish()?;
    write_samples(plan, b, dir, &delay_rows)?;
    if !failures.is_empty() {
        anyhow::bail!("{}", failures.join("; "));
    }
    Ok(m)
}

fn app_stats(a: &LabApp) -> Option<&ConsumerStats> {
    match a {
        LabApp::Consumer(c) => Some(c.stats()),
        LabApp::Get(g) => Some(g.stats()),
        LabApp::Producer(_) => None,
    }
}

/// The table and queue sample files of a run, written as samples are taken.
struct SampleFiles {
    /// `t_s,node,pit,cs`: PIT and CS size per node.
    tables: csv::Writer<std::fs::File>,
    /// `t_s,node,face,remote,queue`: each link face's transmit queue.
    queues: csv::Writer<std::fs::File>,
    /// The largest PIT of a node over the samples.
    pit_max: usize,
    /// The topology's links in order (link `i` is `net.links[2i]`, `a`→`b`,
    /// and `net.links[2i + 1]`), and their samples.
    link_names: Vec<(String, String)>,
    links: super::links::Recorder,
}

impl SampleFiles {
    /// Creates `samples/{tables,queues,drops}/` under `dir` and the two files
    /// of this run, with their headers.
    fn create(plan: &RunPlan, dir: &Path) -> anyhow::Result<SampleFiles> {
        let samples = dir.join("samples");
        for sub in ["tables", "queues", "drops"] {
            std::fs::create_dir_all(samples.join(sub))?;
        }
        let run = format!("{}.csv", plan.run_id);
        let mut tables = csv::Writer::from_path(samples.join("tables").join(&run))?;
        tables.write_record(["t_s", "node", "pit", "cs"])?;
        let mut queues = csv::Writer::from_path(samples.join("queues").join(&run))?;
        queues.write_record(["t_s", "node", "face", "remote", "queue"])?;
        Ok(SampleFiles {
            tables,
            queues,
            pit_max: 0,
            link_names: plan
                .topology
                .links
                .iter()
                .map(|l| (l.a.clone(), l.b.clone()))
                .collect(),
            links: Default::default(),
        })
    }

    /// Writes the state at `t`: every node's PIT and CS size, every link
    /// face's transmit queue.
    fn sample(
        &mut self,
        net: &mut Network<LabApp>,
        names: &[String],
        t: Nanos,
    ) -> anyhow::Result<()> {
        let ts = format!("{:.6}", t as f64 / 1e9);
        for (i, n) in net.nodes.iter().enumerate() {
            let pit = n.pit_len();
            self.pit_max = self.pit_max.max(pit);
            self.tables.write_record([
                ts.as_str(),
                names[i].as_str(),
                &pit.to_string(),
                &n.cs_len().to_string(),
            ])?;
        }
        for i in 0..net.nodes.len() {
            for f in 0..net.nodes[i].faces.len() {
                if let FaceKind::Link(l) = net.nodes[i].faces[f].kind {
                    let q = net.links[l as usize].queue_len(t);
                    let remote = net.links[l as usize].to.node as usize;
                    self.queues.write_record([
                        ts.as_str(),
                        names[i].as_str(),
                        &ndnlab_sim::node::face_id(f as u32).to_string(),
                        names[remote].as_str(),
                        &q.to_string(),
                    ])?;
                }
            }
        }
        self.sample_links(net, t);
        Ok(())
    }

    /// Every link direction's queue and counters at `t`.
    fn sample_links(&mut self, net: &mut Network<LabApp>, t: Nanos) {
        let ts = t as f64 / 1e9;
        for (i, (a, b)) in self.link_names.iter().enumerate() {
            for (k, from_to) in [(a, b), (b, a)].into_iter().enumerate() {
                let l = &mut net.links[2 * i + k];
                let s = super::links::LinkSample {
                    queue_frames: l.queue_len(t) as u64,
                    queue_bytes: l.queue_bytes(t) as u64,
                    counters: l.counters(),
                };
                self.links.push(ts, (a, b), from_to, s);
            }
        }
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.tables.flush()?;
        self.queues.flush()?;
        Ok(())
    }
}

fn write_samples(
    plan: &RunPlan,
    b: &Built,
    dir: &Path,
    delay_rows: &[(String, f64, u64)],
) -> anyhow::Result<()> {
    let samples = dir.join("samples");
    let run = format!("{}.csv", plan.run_id);
    let mut w = csv::Writer::from_path(samples.join(&run))?;
    w.write_record(["t_s", "delay_us"])?;
    for (_, t, us) in delay_rows {
        w.write_record([format!("{t:.6}"), us.to_string()])?;
    }
    w.flush()?;
    let mut w = csv::Writer::from_path(samples.join("drops").join(&run))?;
    w.write_record(["reason", "count"])?;
    for (reason, n) in b.net.drops.by_reason() {
        w.write_record([reason.to_string(), n.to_string()])?;
    }
    w.flush()?;
    Ok(())
}
