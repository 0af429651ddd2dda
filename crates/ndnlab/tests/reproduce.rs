//! `ndnlab reproduce` end to end with the real binary: every seed directory of
//! the repository at its quick scale (every file reproduced or, for NFD files
//! without NFD, skipped; every reference point with a counterpart; the page
//! naming every paper), a fixture directory (a sim campaign and a model file),
//! and the errors a user meets (an unknown seed, a misspelt paper.toml key).

use std::path::{Path, PathBuf};

mod cli_common;

use cli_common::{fails, ndnlab, ok};

fn fixtures(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reproduce")
        .join(name)
        .display()
        .to_string()
}

fn nfd_installed() -> bool {
    std::env::var_os("NDNLAB_NFD").is_some()
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nfd").is_file()))
}

fn json(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("reproduce.json")).expect("reproduce.json");
    serde_json::from_str(&text).expect("reproduce.json parses")
}

fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Every file of `r` reproduced (or skipped for want of NFD), and every
/// reference point of each with a measured or interpolated counterpart.
fn check_complete(r: &serde_json::Value) {
    let mut problems = Vec::new();
    for s in r["seeds"].as_array().unwrap() {
        let seed = s["seed"].as_str().unwrap();
        for f in s["files"].as_array().unwrap() {
            let file = f["file"].as_str().unwrap();
            match f["outcome"].as_str().unwrap() {
                "ok" => {}
                "skipped" if !nfd_installed() => continue,
                o => {
                    problems.push(format!("{seed}/{file}: {o}: {}", f["message"]));
                    continue;
                }
            }
            for row in f["rows"].as_array().unwrap() {
                let skipped = row["counterpart"] == "skipped" && !nfd_installed();
                if row["counterpart"] == "missing" || row["counterpart"] == "skipped" && !skipped {
                    problems.push(format!(
                        "{seed}/{file}: no counterpart for {} {:?} ({} {} {}): {}",
                        row["kind"].as_str().unwrap(),
                        row["label"].as_str().unwrap(),
                        row["metric"].as_str().unwrap(),
                        row["x"].as_str().unwrap(),
                        row["where"].as_str().unwrap(),
                        row["note"].as_str().unwrap()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_seed_reproduces_at_quick_scale() {
    let out = cli_common::tmp("reproduce", "all");
    let o = ndnlab(&[
        "reproduce",
        "all",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.join("reproduce.json").is_file(),
        "no reproduce.json: {stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = json(&out);
    check_complete(&r);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let experiments = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut seeds: Vec<String> = std::fs::read_dir(&experiments)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("paper.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("seed"))
        .collect();
    seeds.sort();
    let ran: Vec<&str> = r["seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seed"].as_str().unwrap())
        .collect();
    assert_eq!(ran, seeds, "every seed directory ran");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    for s in r["seeds"].as_array().unwrap() {
        let title = s["paper"]["title"].as_str().unwrap();
        assert!(page.contains(&html_text(title)), "the page names {title:?}");
    }
    assert!(out.join("reference.csv").is_file());
}

#[test]
fn a_fixture_directory_runs_a_campaign_and_a_model_file() {
    let out = cli_common::tmp("reproduce", "fixture");
    let stdout = ok(ndnlab(&[
        "reproduce",
        "900",
        "--quick",
        "--experiments",
        &fixtures("ok"),
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(
        stdout.contains("fig1-rate") && stdout.contains("fig2-model"),
        "{stdout}"
    );
    let r = json(&out);
    check_complete(&r);
    let files = r["seeds"][0]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    // The sim runner's constant consumer gets every Data: ratio 1 at 100 and
    // 200/s, and at 150/s (no run) the interpolation between them.
    let rate = &files[0]["rows"];
    for (i, counterpart) in ["measured", "interpolated", "measured"].iter().enumerate() {
        assert_eq!(rate[i]["counterpart"], *counterpart, "{}", rate[i]);
        let q = rate[i]["ratio"].as_f64().unwrap();
        assert!((q - 1.0).abs() < 0.05, "{}", rate[i]);
    }
    assert_eq!(files[1]["kind"], "model");
    assert_eq!(files[1]["rows"][0]["counterpart"], "measured");
    let dir: PathBuf = out.join("seed900");
    assert!(dir.join("fig1-rate/index.html").is_file());
    assert!(dir.join("fig1-rate/reference.csv").is_file());
    assert!(dir.join("fig2-model/points.csv").is_file());
    assert!(dir.join("fig2-model/reference.csv").is_file());
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("Throughput of a constant consumer through two forwarders"));
    assert!(page.contains("<svg"), "figures inlined");
    assert!(
        page.contains("seed900/fig1-rate/index.html"),
        "links the campaign's report"
    );
    let csv = std::fs::read_to_string(out.join("reference.csv")).unwrap();
    assert!(
        csv.starts_with("seed,file,figure,kind,label,metric,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
    assert!(std::fs::read_dir(out.join("figures")).unwrap().count() >= 2);
}

#[test]
fn an_unknown_seed_lists_the_known_ones() {
    let out = cli_common::tmp("reproduce", "unknown");
    fails(
        ndnlab(&[
            "reproduce",
            "seed042",
            "--experiments",
            &fixtures("ok"),
            "--out",
            out.to_str().unwrap(),
        ]),
        &["unknown seed \"seed042\"", "seed900"],
    );
}

#[test]
fn a_misspelt_paper_key_names_the_file_and_key() {
    let out = cli_common::tmp("reproduce", "bad-paper");
    fails(
        ndnlab(&[
            "reproduce",
            "--experiments",
            &fixtures("bad-paper"),
            "--out",
            out.to_str().unwrap(),
        ]),
        &["seed901/paper.toml", "titel"],
    );
}

/// `ndnlab reproduce` of the NFD fixtures, with NFD hidden or not.
fn reproduce_nfd_fixture(tag: &str, hide_nfd: bool) -> (serde_json::Value, String, PathBuf) {
    let out = cli_common::tmp("reproduce", tag);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ndnlab"));
    cmd.args([
        "reproduce",
        "--quick",
        "--experiments",
        &fixtures("nfd"),
        "--out",
    ])
    .arg(&out);
    if hide_nfd {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let kept: Vec<PathBuf> = std::env::split_paths(&path)
            .filter(|d| !d.join("nfd").is_file())
            .collect();
        cmd.env("PATH", std::env::join_paths(kept).unwrap())
            .env_remove("NDNLAB_NFD");
    }
    let o = cmd.output().expect("run ndnlab");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    (json(&out), stderr, out)
}

#[test]
fn without_nfd_the_nfd_points_are_skipped_and_the_others_run() {
    let (r, stderr, out) = reproduce_nfd_fixture("no-nfd", true);
    let files = r["seeds"][0]["files"].as_array().unwrap();
    // every point NFD: the file is skipped, with the message
    assert_eq!(files[0]["file"], "fig1-nfd");
    assert_eq!(files[0]["outcome"], "skipped", "{}", files[0]);
    assert!(
        stderr.contains("seed902/fig1-nfd: NFD not installed"),
        "{stderr}"
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("NFD not installed"));
    // NFD at one level: the ndnlab point measured, the NFD point skipped
    let f = &files[1];
    assert_eq!(f["outcome"], "ok", "{f}");
    assert_eq!(
        (f["runs_ok"].as_u64(), f["runs_skipped"].as_u64()),
        (Some(1), Some(1)),
        "{f}"
    );
    let rows = f["rows"].as_array().unwrap();
    assert_eq!(rows[0]["counterpart"], "measured", "{}", rows[0]);
    let q = rows[0]["ratio"].as_f64().unwrap();
    assert!((0.95..=1.0).contains(&q), "{}", rows[0]);
    assert_eq!(rows[1]["counterpart"], "skipped", "{}", rows[1]);
    let log = std::fs::read_to_string(out.join("seed902/fig2-kinds/logs/1.log")).unwrap();
    assert!(log.contains("NFD is not installed"), "{log}");
}

#[test]
fn with_nfd_every_nfd_point_is_measured() {
    if !nfd_installed() {
        ndnlab_testkit::skip("no `nfd` on the PATH and NDNLAB_NFD is not set");
        return;
    }
    let (r, _, _) = reproduce_nfd_fixture("nfd", false);
    for f in r["seeds"][0]["files"].as_array().unwrap() {
        assert_eq!(f["outcome"], "ok", "{f}");
        for row in f["rows"].as_array().unwrap() {
            assert_eq!(row["counterpart"], "measured", "{row}");
        }
    }
}
