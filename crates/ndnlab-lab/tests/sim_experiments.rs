//! The simulator's scale experiments (experiments/sim-*.toml) parse and plan:
//! their topologies have the node and link counts of their sources, every
//! app's nodes exist, and routes reach the producer. Also in `--quick` form.

use std::path::PathBuf;

use ndnlab_lab::campaign::{Campaign, Options};
use ndnlab_lab::runner::RunPlan;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn plans(file: &str, quick: bool) -> Vec<RunPlan> {
    let path = root().join("experiments").join(file);
    let opts = Options {
        quick,
        ..Options::default()
    };
    let c = Campaign::load(Some(&path), &opts).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(c.exp.experiment.runner, "sim", "{file}");
    c.runs
        .iter()
        .map(|r| {
            let e = c.point(&r.levels).unwrap_or_else(|e| panic!("{file}: {e}"));
            RunPlan::new(r.id, r.seed, e).unwrap_or_else(|e| panic!("{file}: {e}"))
        })
        .collect()
}

/// (file, nodes, links, consumer nodes) of the full experiments.
const SCALE: &[(&str, usize, usize, usize)] = &[
    ("sim-geant.toml", 45, 71, 45),
    ("sim-sprint.toml", 52, 84, 52),
    ("sim-testbed.toml", 37, 95, 37),
    ("sim-grid32.toml", 1024, 1984, 124),
    ("sim-1000.toml", 1000, 1500, 1000),
];

#[test]
fn scale_experiments_plan_with_the_right_sizes() {
    for &(file, nodes, links, consumers) in SCALE {
        let ps = plans(file, false);
        assert!(!ps.is_empty(), "{file}");
        for p in &ps {
            assert_eq!(p.topology.nodes.len(), nodes, "{file}: nodes");
            assert_eq!(p.topology.links.len(), links, "{file}: links");
            let (name, app) = p
                .exp
                .apps
                .iter()
                .find(|(_, a)| a.kind == "consumer")
                .expect("a consumer");
            let on = p.topology.select(&app.nodes).unwrap();
            assert_eq!(on.len(), consumers, "{file}: apps.{name}.nodes");
            // Every node but the producer's has a route toward it.
            let routed = p.routes.values().filter(|r| !r.is_empty()).count();
            assert_eq!(routed, nodes - 1, "{file}: nodes with a route");
        }
    }
}

#[test]
fn scale_experiments_plan_quick() {
    for &(file, ..) in SCALE {
        let ps = plans(file, true);
        assert!(!ps.is_empty(), "{file}");
    }
    assert_eq!(plans("sim-grid32.toml", true)[0].topology.nodes.len(), 64);
    assert_eq!(plans("sim-1000.toml", true)[0].topology.nodes.len(), 100);
}

#[test]
fn the_minindn_files_carry_delays() {
    for file in ["sim-geant.toml", "sim-sprint.toml", "sim-testbed.toml"] {
        let p = &plans(file, false)[0];
        assert!(
            p.topology.links.iter().all(|l| l.spec.emu.delay_ms > 0.0),
            "{file}: a link without the file's delay"
        );
    }
}
