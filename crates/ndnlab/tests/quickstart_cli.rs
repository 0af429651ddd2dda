//! `ndnlab quickstart`, the README's main job: the real binary runs the 2x2 design
//! in-process and its JSON summary and CSV hold what the design says.

use std::process::Command;

fn quickstart(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args([
            "quickstart",
            "--exchanges",
            "2000",
            "-r",
            "2",
            "--catalog",
            "500",
            "--json",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .expect("run ndnlab")
}

#[test]
fn runs_the_design_and_writes_results() {
    let dir = std::env::temp_dir().join(format!("ndnlab-quickstart-{}", std::process::id()));
    let out = quickstart(&dir, &[]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
    let runs = summary["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 8, "2 x 2 cells x r = 2");
    for run in runs {
        assert_eq!(run["exchanges"], 2000);
        // The only drops: a second Interest for a name already pending from the same
        // face is a retransmission to NFD's best-route, and suppressed.
        let suppressed = run["drops_by_reason"]["retx-suppressed"]
            .as_u64()
            .unwrap_or(0);
        assert_eq!(run["drops"].as_u64().unwrap(), suppressed, "{run}");
        let hit = run["cs_hit_ratio"].as_f64().unwrap();
        match run["cs"].as_str().unwrap() {
            "off" => assert_eq!(hit, 0.0, "{run}"),
            _ => assert!(
                hit > 0.0,
                "a cache holding 10% of the catalogue must hit: {run}"
            ),
        }
        // Every Interest is a CS hit, a CS miss (new PIT entry, forwarded to the
        // producer) or a suppressed retransmission (its PIT entry already pending).
        let (hits, misses) = (
            run["cs_hits"].as_u64().unwrap(),
            run["cs_misses"].as_u64().unwrap(),
        );
        assert_eq!(hits + misses + suppressed, 2000, "{run}");
        assert_eq!(run["producer_data"].as_u64().unwrap(), misses, "{run}");
    }
    // Zipf popularity with a cache must hit more often than uniform popularity with it.
    let mean_hit = |pop: &str| {
        let v: Vec<f64> = runs
            .iter()
            .filter(|r| r["cs"] == "on" && r["popularity"] == pop)
            .map(|r| r["cs_hit_ratio"].as_f64().unwrap())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean_hit("zipf") > mean_hit("uniform"));
    let responses = summary["responses"].as_array().unwrap();
    assert_eq!(responses.len(), 2);
    for r in responses {
        let total: f64 = r["effects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["percent"].as_f64().unwrap())
            .sum::<f64>()
            + r["error"]["percent"].as_f64().unwrap();
        assert!(
            (total - 100.0).abs() < 1e-6,
            "allocation of variation sums to 100%: {total}"
        );
        assert_eq!(r["replicates"], 2);
    }
    let csv = std::fs::read_to_string(dir.join("runs.csv")).expect("runs.csv");
    assert_eq!(csv.lines().count(), 9, "header + 8 runs");
    assert!(dir.join("summary.json").exists());
    let results = std::fs::read_to_string(dir.join("results.csv")).expect("results.csv");
    assert!(results.starts_with("run_id,cs,popularity,replicate,seed,status,"));
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    assert!(html.contains("Factorial analysis of exchanges_per_sec"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_parameters_are_clear_errors() {
    let dir = std::env::temp_dir().join("ndnlab-quickstart-bad");
    let out = quickstart(&dir, &["--zipf=-1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--zipf"));
    let out = quickstart(&dir, &["--window", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--window"));
}
