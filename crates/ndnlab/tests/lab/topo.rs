//! `ndnlab topo show|import|export` on the fixture files of the lab crate, and
//! bad files failing with their file and line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ndnlab-lab/tests/data")
        .join(name)
}

use crate::ndnlab;

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-topo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn show_summarises_minindn_and_ndnsim_files() {
    let text = ok(&ndnlab(&["topo", "show", path(&data("line4.conf"))]));
    assert!(
        text.contains("Mini-NDN topology, 4 nodes, 3 links"),
        "{text}"
    );
    assert!(text.contains("diameter: 3 hops, 30 ms"), "{text}");
    assert!(text.contains("delay_ms"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&ok(&ndnlab(&[
        "topo",
        "show",
        "--json",
        path(&data("square.txt")),
    ])))
    .unwrap();
    assert_eq!(v["links"].as_array().unwrap().len(), 5);
    assert_eq!(v["diameter_hops"], 2);
    assert_eq!(v["degree"]["max"], 3);
    assert_eq!(v["components"], 1);
    assert_eq!(v["links"][4]["cost"], 5);
    assert_eq!(v["links"][4]["bandwidth_mbps"], 10.0);
}

#[test]
fn import_gives_an_equivalent_experiment_topology() {
    let toml = ok(&ndnlab(&["topo", "import", path(&data("square.txt"))]));
    assert!(toml.contains("kind = \"explicit\""), "{toml}");
    let exp = tmp("square.toml");
    std::fs::write(
        &exp,
        format!(
            "{toml}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n"
        ),
    )
    .unwrap();
    let links = |file: &Path| {
        let v: serde_json::Value =
            serde_json::from_str(&ok(&ndnlab(&["topo", "show", "--json", path(file)]))).unwrap();
        (v["links"].clone(), v["nodes"].as_array().unwrap().len())
    };
    assert_eq!(links(&exp), links(&data("square.txt")));
    // --out and --format
    let out = tmp("line4-imported.toml");
    ok(&ndnlab(&[
        "topo",
        "import",
        "--format",
        "minindn",
        path(&data("line4.conf")),
        "--out",
        path(&out),
    ]));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("loss_pct = 0.5"), "{text}");
    assert!(text.contains("r1: radius=0.2 angle=0.0"), "{text}");
    let _ = std::fs::remove_file(exp);
    let _ = std::fs::remove_file(out);
}

#[test]
fn export_writes_dot_of_files_and_experiments() {
    let dot = ok(&ndnlab(&["topo", "export", path(&data("square.txt"))]));
    assert!(dot.starts_with("graph \"square\" {"), "{dot}");
    assert_eq!(dot.matches(" -- ").count(), 5, "{dot}");
    assert!(dot.contains("pos="), "{dot}");
    let out = tmp("line4.dot");
    ok(&ndnlab(&[
        "topo",
        "export",
        "--format",
        "dot",
        path(&data("line4.toml")),
        "--out",
        path(&out),
    ]));
    let dot = std::fs::read_to_string(&out).unwrap();
    assert!(dot.contains("client (consumer)"), "{dot}");
    assert!(dot.contains("server (producer)"), "{dot}");
    assert!(dot.contains("20ms"), "{dot}");
    // a generated topology, with --set
    let dot = ok(&ndnlab(&[
        "topo",
        "export",
        path(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/seed003/fig2-line.toml"),
        ),
        "--set",
        "topology.n=7",
    ]));
    assert_eq!(dot.matches(" -- ").count(), 6, "{dot}");
    let _ = std::fs::remove_file(out);
}

#[test]
fn bad_files_fail_naming_file_and_line() {
    for (args, needle) in [
        (vec!["topo", "show"], "bad.conf:6:"),
        (vec!["topo", "import"], "bad.conf:6:"),
        (vec!["topo", "export"], "bad.conf:6:"),
    ] {
        let mut a = args.clone();
        let f = data("bad.conf");
        a.push(path(&f));
        let out = ndnlab(&a);
        assert!(!out.status.success(), "{a:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle) && err.contains("'r9'"), "{a:?}: {err}");
    }
    let out = ndnlab(&["topo", "show", path(&data("bad.txt"))]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.txt:5:") && err.contains("data rate"),
        "{err}"
    );
    let out = ndnlab(&["topo", "show", path(&data("nothing-here.conf"))]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing-here.conf"));
    // an experiment naming a bad topology file fails before anything runs
    let exp = tmp("bad-import.toml");
    std::fs::write(
        &exp,
        format!(
            "[topology]\nkind = \"minindn\"\nfile = {:?}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n",
            data("bad.conf")
        ),
    )
    .unwrap();
    let out = ndnlab(&["run", "--dry-run", path(&exp)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.conf:6:"), "{err}");
    let _ = std::fs::remove_file(exp);
}

#[test]
fn an_experiment_over_an_imported_file_runs_from_anywhere() {
    let out_dir = tmp("run-line4");
    let out = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .current_dir(std::env::temp_dir())
        .args(["run", "--json", "--out"])
        .arg(&out_dir)
        .arg(data("line4.toml"))
        .output()
        .expect("run ndnlab");
    let summary: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(summary["failed"], 0, "{summary}");
    let csv = std::fs::read_to_string(out_dir.join("results.csv")).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",ok,"), "{csv}");
    let _ = std::fs::remove_dir_all(out_dir);
}
