//! `ndnlab bench sim`: the simulator's speed and size
//! (`ndnlab_lab::simbench`): handlings per wall-clock second on a grid with
//! consumers at the edges, memory per idle node, and an experiment file in
//! virtual time against the wall clock.

use std::path::PathBuf;

use clap::Args;
use ndnlab_lab::simbench;

#[derive(Args, Debug)]
pub struct SimBenchArgs {
    /// Side of the square grid (side x side nodes).
    #[arg(long, default_value_t = 32)]
    pub side: usize,
    /// Interests per second of each edge consumer (Poisson).
    #[arg(long, default_value_t = 1000.0)]
    pub rate: f64,
    /// Virtual seconds of the grid run.
    #[arg(long, default_value_t = 1.0)]
    pub duration: f64,
    /// Also run this experiment's first point (e.g. experiments/seed003/fig2-line.toml).
    #[arg(long)]
    pub experiment: Option<PathBuf>,
    /// key=value (TOML value) applied to that experiment, repeatable
    /// (e.g. topology.n=30).
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: SimBenchArgs) -> anyhow::Result<()> {
    let (idle_nodes, idle_bytes) = simbench::idle_memory(a.side)?;
    let mut rows = vec![simbench::grid(a.side, a.rate, a.duration, 1)?];
    if let Some(p) = &a.experiment {
        rows.push(simbench::experiment(p, &a.set)?);
    }
    if a.json {
        let v = serde_json::json!({
            "runs": rows,
            "idle_nodes": idle_nodes,
            "idle_bytes_per_node": idle_bytes,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!(
        "{:<40} {:>6} {:>12} {:>10} {:>8} {:>9} {:>14} {:>8} {:>16} {:>6} {:>13} {:>9}",
        "run",
        "nodes",
        "handlings",
        "virtual_s",
        "build_s",
        "wall_s",
        "handlings/s",
        "cpu_s",
        "handlings/cpu_s",
        "core%",
        "core_only/s",
        "speedup"
    );
    for r in &rows {
        println!(
            "{:<40} {:>6} {:>12} {:>10.1} {:>8.2} {:>9.2} {:>14.0} {:>8.2} {:>16.0} {:>6.1} {:>13.0} {:>9.1}",
            r.what,
            r.nodes,
            r.handlings,
            r.virtual_s,
            r.build_s,
            r.wall_s,
            r.handlings_per_wall_s,
            r.cpu_s,
            r.handlings_per_cpu_s,
            r.core_share * 100.0,
            r.core_only_per_s,
            r.speedup
        );
    }
    println!(
        "memory per idle node ({idle_nodes} nodes, routes, no traffic): {:.0} bytes",
        idle_bytes
    );
    Ok(())
}
