//! `ndnlab model explore` and `ndnlab model merge` end to end: the tables,
//! `--json`, the files written, shards merged into the one run's CSV, and the
//! errors a user meets (a bad grid, results already there, a missing shard).

use std::path::PathBuf;

mod cli_common;

use cli_common::{fails, ndnlab, ok};

fn tmp(tag: &str) -> PathBuf {
    cli_common::tmp("model-explore", tag)
}

/// One forwarding thread is overloaded, four are not.
const MODEL: &str = r#"format = "ndnlab-dataplane/1"
name = "explore cli"
[consumer]
pattern = "poisson"
rate = 1500000
interests = 1000
[forwarder]
queue = 64
[service.fwd]
interest = "exp:1us"
"#;

#[test]
fn explore_shards_merge_and_recommend() {
    let d = tmp("e2e");
    let model = d.join("m.toml");
    std::fs::write(&model, MODEL).unwrap();
    let m = model.to_str().unwrap();
    let dir = |n: &str| d.join(n).to_str().unwrap().to_string();
    let common = [
        "model",
        "explore",
        m,
        "--grid",
        "threads=1,4",
        "--grid",
        "queue=32,256",
        "--method",
        "clopper-pearson",
        "--runs",
        "20",
        "--require",
        "0.8",
    ];
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = common.to_vec();
        a.extend_from_slice(extra);
        ndnlab(&a)
    };
    let one = dir("one");
    let table = ok(run(&["--out", &one]));
    assert!(
        table.contains("P[all-satisfied] by clopper-pearson over 4 points"),
        "{table}"
    );
    assert!(
        table.contains("recommended (fewest threads, then smallest queue"),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().take(3).eq(["4", "32", "1.000"])),
        "{table}"
    );
    for f in [
        "explore.toml",
        "points.csv",
        "recommended.csv",
        "estimate.svg",
        "estimate.png",
        "satisfaction.svg",
    ] {
        assert!(d.join("one").join(f).exists(), "{f}");
    }
    fails(run(&["--out", &one]), &["--resume"]);

    let json = ok(run(&["--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["recommendations"][0]["row"]["levels"],
        serde_json::json!(["4", "32"])
    );
    assert_eq!(v["recommendations"][0]["meets"], true);

    let (s0, s1, merged) = (dir("s0"), dir("s1"), dir("merged"));
    ok(run(&["--shard", "0/2", "--out", &s0]));
    fails(
        ndnlab(&["model", "merge", &s0, "--out", &merged]),
        &["2 of 4 points", "threads=1 queue=256"],
    );
    ok(run(&["--shard", "1/2", "--out", &s1, "--threads", "1"]));
    let out = ok(ndnlab(&[
        "model",
        "merge",
        &s0,
        &s1,
        "--out",
        &merged,
        "--require",
        "0.8",
    ]));
    assert!(out.contains("4 points of P[all-satisfied] merged"), "{out}");
    let csv = |p: &str| std::fs::read_to_string(PathBuf::from(p).join("points.csv")).unwrap();
    assert_eq!(csv(&merged), csv(&one));

    let explore = |grid: &str| ndnlab(&["model", "explore", m, "--grid", grid]);
    fails(explore("threads=0..2"), &["--grid threads=0", "1..=64"]);
    fails(explore("cores=1"), &["--grid cores", "not a parameter"]);
    fails(
        run(&["--grid", "queue=8"]),
        &["--grid queue", "given twice"],
    );
    fails(run(&["--shard", "2/2"]), &["--shard", "I/N"]);
    fails(
        run(&["--series", "rate"]),
        &["--series rate", "not a grid parameter"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}
