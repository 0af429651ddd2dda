//! Topology files of Mini-NDN and ndnSIM read from disk, alone and through an
//! experiment that names one relative to itself.

use std::path::{Path, PathBuf};

use ndnlab_lab::experiment::{self, LinkSpec};
use ndnlab_lab::import::{self, Format};
use ndnlab_lab::shape::shape;
use ndnlab_lab::topology::Topology;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn minindn_file_with_its_link_parameters() {
    let imp = import::load(&data("line4.conf"), None).unwrap();
    assert_eq!(imp.format, Format::MiniNdn);
    let t = imp.topology(&LinkSpec::default());
    assert_eq!(t.nodes, ["r1", "r2", "r3", "r4"]);
    let mid = &t.links[1].spec;
    assert_eq!(
        (
            mid.emu.delay_ms,
            mid.bandwidth_mbps(),
            mid.emu.loss_pct,
            mid.queue(),
            mid.emu.jitter_ms
        ),
        (20.0, 10.0, 0.5, 50, 1.0)
    );
    let s = shape(&t);
    assert_eq!(
        (s.diameter_hops, s.diameter_delay_ms),
        (Some(3), Some(30.0))
    );
    assert_eq!(imp.positions().len(), 4);
}

#[test]
fn ndnsim_file_with_metrics_and_queues() {
    let imp = import::load(&data("square.txt"), None).unwrap();
    assert_eq!(imp.format, Format::NdnSim);
    let t = imp.topology(&LinkSpec::default());
    assert_eq!(t.links.len(), 5);
    let diag = &t.links[4].spec;
    assert_eq!(
        (
            diag.bandwidth_mbps(),
            diag.cost,
            diag.emu.delay_ms,
            diag.queue()
        ),
        (10.0, 5, 10.0, 20)
    );
    // routes by cost avoid the diagonal (cost 5) for the two-hop path (cost 2)
    let r = t.routes(&[("/p".into(), "c".into())], "cost", false);
    assert_ne!(r["a"][0].1, "c");
    let s = shape(&t);
    assert_eq!((s.diameter_hops, s.degree_max), (Some(2), 3));
}

#[test]
fn errors_name_the_file_and_line() {
    let e = import::load(&data("bad.conf"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.conf:6:") && e.contains("'r9'"), "{e}");
    let e = import::load(&data("bad.txt"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.txt:5:") && e.contains("100Mbits"), "{e}");
    let e = import::load(&data("missing.conf"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.conf"), "{e}");
}

#[test]
fn an_experiment_imports_relative_to_itself() {
    let (_, exp) = experiment::load(&data("line4.toml")).unwrap();
    let t = Topology::of(&exp).unwrap();
    assert_eq!(t.nodes, ["r1", "r2", "r3", "r4"]);
    // [link] fills what the file leaves out, [[links]] overrides the file
    assert!(t.links.iter().all(|l| l.spec.emu.mtu == 9000));
    assert_eq!(t.links[0].spec.emu.delay_ms, 5.0);
    assert_eq!(t.links[1].spec.emu.loss_pct, 0.0);
    assert_eq!(t.links[1].spec.emu.delay_ms, 20.0);
}
