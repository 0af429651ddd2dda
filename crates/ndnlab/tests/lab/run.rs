//! `ndnlab run`, the README's main job: the real binary runs the built-in default
//! experiment in-process, writes the output directory the analysis reads, resumes,
//! shards, and refuses bad experiment files naming the file, line and key.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::ndnlab;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-run-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Short runs: the quick variant with a fraction of a second per run.
const SHORT: [&str; 5] = [
    "--quick",
    "--set",
    "experiment.duration_s=0.3",
    "--set",
    "experiment.warmup_s=0.1",
];

fn run(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--json", "--out", out.to_str().unwrap()];
    args.extend_from_slice(&SHORT);
    args.extend_from_slice(extra);
    ndnlab(&args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn default_experiment_writes_the_output_directory_and_resumes() {
    let out = dir("default");
    let o = run(&out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(summary["runs"], 8, "2^2 points x 2 repetitions: {summary}");
    assert_eq!(summary["failed"], 0);
    for f in [
        "experiment.toml",
        "machine.json",
        "results.csv",
        "results.json",
        "index.html",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..6],
        &[
            "run_id",
            "apps.server.payload",
            "forwarder.cs_capacity",
            "replicate",
            "seed",
            "status"
        ]
    );
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 8);
    for r in &rows {
        assert_eq!(r[col("status")], "ok");
        assert!(r[col("data")].parse::<f64>().unwrap() > 0.0, "{r:?}");
        let hit: f64 = r[col("cs_hit_ratio")].parse().unwrap();
        if r[col("forwarder.cs_capacity")] == "0" {
            assert_eq!(hit, 0.0, "no cache, no hits: {r:?}");
        } else {
            assert!(
                hit > 0.0,
                "a 1000-entry cache over Zipf popularity hits: {r:?}"
            );
        }
    }
    // Raw delivery times per run, and the tables' sizes over time.
    assert!(out.join("samples/0.csv").exists());
    assert!(out.join("samples/tables/0.csv").exists());
    let machine: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("machine.json")).unwrap()).unwrap();
    assert!(machine["cores"].as_u64().unwrap() >= 1);

    // --resume: every run is already done.
    let o = run(&out, &["--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["skipped"], 8);
    // ...but not with another experiment in that directory.
    let o = run(&out, &["--resume", "--set", "apps.client.window=8"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn dry_run_lists_the_matrix_and_shards_slice_it() {
    let o = ndnlab(&["run", "--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let all: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(all.len(), 12, "2^2 points x 3 repetitions");
    let o = ndnlab(&["run", "--dry-run", "--json", "--shard", "1/3"]);
    let slice: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<u64> = slice.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, vec![1, 4, 7, 10]);
    for bad in ["3/3", "1", "a/b", "0/0"] {
        let o = ndnlab(&["run", "--dry-run", "--shard", bad]);
        assert!(!o.status.success(), "--shard {bad}");
        assert!(stderr(&o).contains("--shard"), "{}", stderr(&o));
    }
}

/// Writes an experiment file and runs `ndnlab run --dry-run` on it.
fn check(tag: &str, text: &str, extra: &[&str]) -> Output {
    let d = dir(tag);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    let mut args = vec!["run", "--dry-run", f.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ndnlab(&args);
    let _ = std::fs::remove_dir_all(&d);
    o
}

const APPS: &str =
    "[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n";

#[test]
fn bad_experiment_files_name_file_line_and_key() {
    let cases: [(&str, String, &[&str], &[&str]); 8] = [
        (
            "syntax",
            format!("{APPS}\n[topology\nn = 3\n"),
            &[],
            &["exp.toml:7"],
        ),
        (
            "unknown",
            format!("{APPS}[topology]\nsize = 3\n"),
            &[],
            &["exp.toml:7", "unknown field `size`"],
        ),
        (
            "type",
            format!("{APPS}[link]\ndelay_ms = \"ten\"\n"),
            &[],
            &["exp.toml:7"],
        ),
        (
            "range",
            format!("{APPS}[link]\nloss_pct = 200\n"),
            &[],
            &["link.loss_pct"],
        ),
        (
            "level",
            format!("{APPS}[factors]\n\"apps.p.payload\" = [100, 90000]\n"),
            &[],
            &["apps.p.payload=90000", "65536"],
        ),
        (
            "node",
            format!("{APPS}[topology]\nn = 2\n[[links]]\na = \"r0\"\nb = \"r9\"\n"),
            &[],
            &["no node 'r9'"],
        ),
        (
            "set",
            APPS.to_string(),
            &["--set", "topology.n=0"],
            &["topology.n"],
        ),
        (
            "metric",
            format!("{APPS}[experiment]\nmetrics = [\"goodput\"]\n"),
            &[],
            &["experiment.metrics", "goodput"],
        ),
    ];
    for (tag, text, extra, want) in cases {
        let o = check(tag, &text, extra);
        assert!(!o.status.success(), "{tag}: accepted");
        let e = stderr(&o);
        for w in want {
            assert!(e.contains(w), "{tag}: '{w}' not in: {e}");
        }
    }
    let o = ndnlab(&["run", "--dry-run", "/nonexistent/exp.toml"]);
    assert!(stderr(&o).contains("/nonexistent/exp.toml"));
}

#[test]
fn a_failed_run_is_recorded_and_the_campaign_goes_on() {
    // TCP links need a runner with sockets: the in-process runner refuses each run.
    let d = dir("failed");
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(
        &f,
        format!(
            "[experiment]\nduration_s = 0.2\nwarmup_s = 0.0\nrepetitions = 2\n[topology]\nn = 2\n[link]\nface = \"tcp\"\n{APPS}"
        ),
    )
    .unwrap();
    let out = d.join("out");
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (summary["runs"].as_u64(), summary["failed"].as_u64()),
        (Some(2), Some(2))
    );
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap();
    assert!(log.contains("processes or netns runner"), "{log}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(
        csv.lines().filter(|l| l.contains(",failed")).count(),
        2,
        "{csv}"
    );
    // --fail-fast stops at the first.
    let o = ndnlab(&[
        "run",
        "--fail-fast",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--fail-fast"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}
