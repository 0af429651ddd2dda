//! `ndnlab merge`: two shards of a small campaign joined give the run matrix of
//! a straight run; slices of different experiments, or overlapping ones, are
//! refused.

use std::path::{Path, PathBuf};
use std::process::Output;

/// The built-in default experiment, shortened: 4 points, 2 replicates each.
const SETS: [&str; 6] = [
    "--set",
    "experiment.duration_s=0.3",
    "--set",
    "experiment.warmup_s=0.1",
    "--set",
    "experiment.repetitions=2",
];

use crate::ndnlab;

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// (run_id, seed, status) of each row of a results.csv.
fn rows(dir: &Path) -> Vec<(u64, u64, String)> {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (id, seed, status) = (col("run_id"), col("seed"), col("status"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[id].parse().unwrap(),
                c[seed].parse().unwrap(),
                c[status].to_string(),
            )
        })
        .collect()
}

#[test]
fn shards_merge_into_the_straight_run_matrix() {
    let base: PathBuf =
        std::env::temp_dir().join(format!("ndnlab-merge-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (s0, s1, merged) = (base.join("s0"), base.join("s1"), base.join("merged"));
    for (shard, dir) in [("0/2", &s0), ("1/2", &s1)] {
        let mut a = vec!["run", "--json", "--shard", shard, "--out", p(dir)];
        a.extend(SETS);
        ok(&ndnlab(&a));
    }
    let mut a = vec!["run", "--dry-run", "--json"];
    a.extend(SETS);
    let matrix: serde_json::Value = serde_json::from_str(&ok(&ndnlab(&a))).unwrap();
    let want: Vec<(u64, u64)> = matrix
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_u64().unwrap(), r["seed"].as_u64().unwrap()))
        .collect();
    assert!(want.len() >= 4, "{matrix}");

    let summary: serde_json::Value = serde_json::from_str(&ok(&ndnlab(&[
        "merge",
        "--json",
        p(&s0),
        p(&s1),
        "--out",
        p(&merged),
    ])))
    .unwrap();
    assert_eq!(summary["merged"].as_u64().unwrap() as usize, want.len());
    assert!(summary["missing"].as_array().unwrap().is_empty());
    let got = rows(&merged);
    let got_ids: Vec<(u64, u64)> = got.iter().map(|(i, s, _)| (*i, *s)).collect();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(got_ids, want_sorted);
    assert!(got.iter().all(|r| r.2 == "ok"), "{got:?}");
    for (id, _) in &want {
        assert!(merged.join("samples").join(format!("{id}.csv")).exists());
    }
    for f in [
        "experiment.toml",
        "machine.json",
        "results.json",
        "index.html",
    ] {
        assert!(merged.join(f).exists(), "{f}");
    }
    // merging into a directory with results is refused
    let out = ndnlab(&["merge", p(&s0), p(&s1), "--out", p(&merged)]);
    assert!(!out.status.success());

    // overlapping slices are refused
    let out = ndnlab(&["merge", p(&s0), p(&s0), "--out", p(&base.join("twice"))]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("overlap"));

    // a slice of another experiment is refused
    let other = base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    for f in ["results.csv", "machine.json"] {
        std::fs::copy(s1.join(f), other.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(s1.join("experiment.toml")).unwrap();
    std::fs::write(
        other.join("experiment.toml"),
        text.replace("duration_s = 0.3", "duration_s = 0.4"),
    )
    .unwrap();
    let out = ndnlab(&["merge", p(&s0), p(&other), "--out", p(&base.join("mixed"))]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different experiments"), "{err}");
    let _ = std::fs::remove_dir_all(&base);
}
