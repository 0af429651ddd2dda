//! Every experiment under `experiments/` and its subfolders (`truth/`, ...)
//! parses and expands, at full and quick scale, and its topology shows; the
//! two cheapest run for real at quick scale in this process. The truth
//! experiments (`experiments/truth/`) run in the `truth` test binary
//! (`crates/ndnlab/tests/truth/`), each against its known answers, so they
//! are only validated here.

use std::path::{Path, PathBuf};
use std::process::Output;

/// Every `.toml` under `dir`, subfolders included, sorted; a seed folder's
/// `paper.toml` (the paper, not an experiment) is left out.
fn tomls(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries {
        let p = e
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        if p.is_dir() {
            files.extend(tomls(&p));
        } else if p.extension().is_some_and(|e| e == "toml")
            && p.file_name().is_some_and(|n| n != "paper.toml")
        {
            files.push(p);
        }
    }
    files.sort();
    files
}

fn examples() -> Vec<PathBuf> {
    tomls(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments"))
}

use crate::ndnlab;

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

#[test]
fn every_example_validates_at_both_scales() {
    let files = examples();
    // the subfolders are walked: the truth experiments are among the files
    for truth in [
        "bottleneck.toml",
        "delay.toml",
        "loss.toml",
        "zipf_lru.toml",
    ] {
        assert!(
            files
                .iter()
                .any(|f| f.ends_with(Path::new("truth").join(truth))),
            "truth/{truth} not found among {files:?}"
        );
    }
    for seed in ["seed000", "seed001", "seed002", "seed003", "seed004"] {
        // a top-level seedNNN-*.toml or a file of the experiments/seedNNN/ folder
        assert!(
            files.iter().any(|f| {
                f.file_name().unwrap().to_string_lossy().starts_with(seed)
                    || f.parent().and_then(|p| p.file_name()) == Some(std::ffi::OsStr::new(seed))
            }),
            "no example for {seed}"
        );
    }
    for f in &files {
        let name = f.display().to_string();
        for quick in [false, true] {
            let mut a = vec!["run", "--dry-run", "--json", name.as_str()];
            if quick {
                a.push("--quick");
            }
            let runs: serde_json::Value = serde_json::from_str(&ok(&ndnlab(&a), &name)).unwrap();
            let n = runs.as_array().unwrap().len();
            assert!(n >= 1, "{name}: no runs");
            if quick {
                assert!(n <= 16, "{name}: {n} runs at quick scale");
            }
        }
        // and its topology shows
        ok(&ndnlab(&["topo", "show", name.as_str()]), &name);
    }
}

#[test]
fn the_cheapest_examples_run_at_quick_scale() {
    for name in [
        "seed000/fig12-large-packets.toml",
        "seed004/fig10-latency.toml",
    ] {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../experiments")
            .join(name);
        let out = std::env::temp_dir().join(format!(
            "ndnlab-example-{}-{}",
            std::process::id(),
            name.replace('/', "-")
        ));
        let _ = std::fs::remove_dir_all(&out);
        let summary: serde_json::Value = serde_json::from_str(&ok(
            &ndnlab(&[
                "run",
                "--quick",
                "--json",
                "--out",
                out.to_str().unwrap(),
                file.to_str().unwrap(),
            ]),
            name,
        ))
        .unwrap();
        assert_eq!(summary["failed"], 0, "{name}: {summary}");
        let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
        let mut lines = csv.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |c: &str| head.iter().position(|h| *h == c).unwrap();
        let (status, sat, data) = (col("status"), col("satisfaction"), col("data"));
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert!(!rows.is_empty(), "{name}: no rows");
        for r in &rows {
            assert_eq!(r[status], "ok", "{name}: {csv}");
            // sensible results: Data came back, nearly every Interest satisfied
            assert!(r[data].parse::<f64>().unwrap() > 0.0, "{name}: {csv}");
            assert!(r[sat].parse::<f64>().unwrap() > 0.9, "{name}: {csv}");
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
