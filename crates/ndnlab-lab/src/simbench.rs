//! `ndnlab bench sim`: how fast and how large the `sim` runner goes. The
//! logic is here; the binary parses options and prints.
//!
//! - [`grid`]: packet handlings by forwarder cores per wall-clock second on a
//!   square grid (32x32 by default: 1,024 nodes) with a Poisson consumer on
//!   every edge node and a producer in the middle;
//! - [`idle_memory`]: resident memory per idle node (a grid without traffic);
//! - [`experiment`]: an experiment file's first design point in virtual time,
//!   against the wall clock (seed 003's line: 30 routers, λ = 6/s, 300 s).

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::experiment::Experiment;
use crate::runner::sim;
use crate::runner::RunPlan;

/// One measurement of a simulated run.
#[derive(Debug, Clone, Serialize)]
pub struct SimSpeed {
    pub what: String,
    pub nodes: usize,
    /// Packets fed to forwarder cores.
    pub handlings: u64,
    pub events: u64,
    pub virtual_s: f64,
    /// Building the network (nodes, links, routes, apps), wall-clock seconds.
    pub build_s: f64,
    /// Running it (and writing its results), wall-clock seconds.
    pub wall_s: f64,
    pub handlings_per_wall_s: f64,
    /// CPU time of the run (this thread's), seconds: the figure to read on a
    /// shared machine, where `wall_s` counts other processes' time too.
    pub cpu_s: f64,
    pub handlings_per_cpu_s: f64,
    /// The share of the run spent inside forwarder cores (the daemon's own
    /// code), the rest being the simulator: links, events and applications.
    pub core_share: f64,
    /// Handlings per CPU second inside the cores alone: the rate a simulator
    /// that took no time at all would reach.
    pub core_only_per_s: f64,
    /// Virtual seconds per wall-clock second.
    pub speedup: f64,
}

fn grid_experiment(side: usize, rate: f64, duration_s: f64) -> Result<Experiment, String> {
    let mut edges = Vec::new();
    for y in 0..side {
        for x in 0..side {
            if x == 0 || y == 0 || x + 1 == side || y + 1 == side {
                edges.push(format!("\"r{y}_{x}\""));
            }
        }
    }
    let mid = side / 2;
    let text = format!(
        r#"
[experiment]
runner = "sim"
duration_s = {duration_s}
warmup_s = 0.0
sample_interval_ms = 1000
[topology]
kind = "grid"
n = {side}
[link]
delay_ms = 1.0
[forwarder]
cs_capacity = 1000
[apps.edge]
kind = "consumer"
nodes = [{}]
prefix = "/p"
pattern = "poisson"
rate = {rate}
catalogue = 1000000
lifetime_ms = 1000
[apps.server]
kind = "producer"
nodes = ["r{mid}_{mid}"]
prefix = "/p"
payload = 100
"#,
        edges.join(", ")
    );
    crate::experiment::parse(&text, "bench-sim-grid")
        .map(|(_, e)| e)
        .map_err(|e| e.to_string())
}

fn measure(what: &str, plan: &RunPlan) -> anyhow::Result<SimSpeed> {
    let dir = std::env::temp_dir().join(format!("ndnlab-bench-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let t0 = Instant::now();
    let mut b = sim::build(plan)?;
    b.net.set_profile(true);
    let build_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let c1 = ndnlab_cputime::thread_time();
    sim::run(plan, &mut b, &dir)?;
    let wall_s = t1.elapsed().as_secs_f64();
    let cpu_s = (ndnlab_cputime::thread_time() - c1).as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let virtual_s = b.net.now() as f64 / 1e9;
    // both wall-clock: a share that holds whoever else shares the cores
    let core_share = b.net.core_wall().unwrap_or_default().as_secs_f64() / wall_s;
    let handlings = b.net.handled();
    Ok(SimSpeed {
        what: what.to_string(),
        nodes: b.net.nodes.len(),
        handlings,
        events: b.net.events(),
        virtual_s,
        build_s,
        wall_s,
        handlings_per_wall_s: handlings as f64 / wall_s,
        cpu_s,
        handlings_per_cpu_s: handlings as f64 / cpu_s,
        core_share,
        core_only_per_s: handlings as f64 / (cpu_s * core_share),
        speedup: virtual_s / wall_s,
    })
}

/// The grid run: `side`x`side` nodes, consumers at `rate` per second on the
/// edge nodes for `duration_s` virtual seconds.
pub fn grid(side: usize, rate: f64, duration_s: f64, seed: u64) -> anyhow::Result<SimSpeed> {
    let exp = grid_experiment(side, rate, duration_s).map_err(anyhow::Error::msg)?;
    let plan = RunPlan::new(0, seed, exp).map_err(anyhow::Error::msg)?;
    measure(
        &format!("grid {side}x{side}, edge consumers {rate}/s"),
        &plan,
    )
}

/// Resident bytes of this process (from /proc/self/statm), if known.
fn rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Resident bytes per idle node: a `side`x`side` grid with routes and no
/// traffic, built, measured, dropped.
pub fn idle_memory(side: usize) -> anyhow::Result<(usize, f64)> {
    let mut exp = grid_experiment(side, 1.0, 1.0).map_err(anyhow::Error::msg)?;
    exp.apps.clear();
    let plan = RunPlan::new(0, 1, exp).map_err(anyhow::Error::msg)?;
    let before = rss_bytes().unwrap_or(0);
    let b = sim::build(&plan)?;
    let after = rss_bytes().unwrap_or(0);
    let n = b.net.nodes.len();
    drop(b);
    Ok((n, after.saturating_sub(before) as f64 / n as f64))
}

/// The first point of the experiment in `path`, with `sets` (`key=value`, the
/// value in TOML, else a string) applied and its factors dropped, in virtual
/// time.
pub fn experiment(path: &Path, sets: &[String]) -> anyhow::Result<SimSpeed> {
    let (mut doc, _) = crate::experiment::load(path)?;
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--set {s}: expected key=value"))?;
        let v = toml::from_str::<toml::Table>(&format!("v = {v}"))
            .ok()
            .and_then(|t| t.get("v").cloned())
            .unwrap_or_else(|| toml::Value::String(v.to_string()));
        crate::design::set_path(&mut doc, k, v).map_err(|e| anyhow::anyhow!("--set {s}: {e}"))?;
    }
    if let Some(t) = doc.as_table_mut() {
        t.remove("factors");
    }
    let text = toml::to_string(&doc)?;
    let (_, exp) = crate::experiment::parse(&text, &path.display().to_string())?;
    let seed = exp.experiment.seed;
    let plan = RunPlan::new(0, seed, exp).map_err(anyhow::Error::msg)?;
    let what = path
        .file_stem()
        .map_or("experiment".into(), |s| s.to_string_lossy().to_string());
    measure(&what, &plan)
}
