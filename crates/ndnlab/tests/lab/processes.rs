//! The `processes` runner with the real binary: a line of three `ndnlab fwd`
//! processes over UDP faces with emulated delay, `ndnlab perf` apps on the ends;
//! and what it refuses, recorded as a failed run naming the key (Ctrl-C:
//! `cleanup.rs`).

use std::process::Command;

fn ndnlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .output()
        .expect("run ndnlab")
}

const LINE: &str = r#"
[experiment]
runner = "processes"
duration_s = 1.0
warmup_s = 0.5
[topology]
kind = "line"
n = 3
[link]
face = "udp"
delay_ms = 5.0
[apps.client]
kind = "consumer"
nodes = ["first"]
window = 8
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 1000
"#;

fn setup(tag: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("ndnlab-proc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    (d, f)
}

#[test]
fn a_line_of_daemon_processes_carries_data() {
    let (d, f) = setup("line", LINE);
    let out = d.join("out");
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["failed"], 0, "{summary}");
    let m = &summary["points"][0]["means"];
    assert!(m["data"].as_f64().unwrap() > 0.0, "{m}");
    assert_eq!(m["satisfaction"].as_f64(), Some(1.0), "{m}");
    // four emulated 5 ms transmissions per exchange (two links, both ways)
    assert!(m["delay_p50_us"].as_f64().unwrap() >= 20_000.0, "{m}");
    for k in [
        "bringup_s",
        "cpu_cores.r0",
        "cpu_cores.r2",
        "fwd_interests_per_sec.r1",
    ] {
        assert!(m[k].is_number(), "{k} missing: {m}");
    }
    // the generated configurations and the daemons' logs are kept
    assert!(out.join("nodes/0/r1.toml").exists());
    assert!(out.join("logs/0/r1.log").exists());
    // no daemon of this run is left behind
    let ps = Command::new("pgrep")
        .args(["-f", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        ps.stdout.is_empty(),
        "left running: {}",
        String::from_utf8_lossy(&ps.stdout)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn what_the_tools_cannot_do_is_refused_by_key() {
    let (d, f) = setup(
        "refuse",
        &format!("{LINE}\n[apps.client2]\nkind = \"consumer\"\nzipf = 1.0\n"),
    );
    let out = d.join("out");
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["failed"], 1);
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap();
    assert!(log.contains("apps.client2.zipf"), "{log}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn daemon_processes_report_their_latency() {
    let text = format!("{LINE}\n[forwarder]\nlatency_sample = 2\n");
    let (d, f) = setup("latency", &text);
    let out = d.join("out");
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["failed"], 0, "{summary}");
    let m = &summary["points"][0]["means"];
    for node in ["r0", "r1", "r2"] {
        assert!(
            m[format!("lat_samples.{node}")].as_f64().unwrap() > 0.0,
            "{m}"
        );
        assert!(
            m[format!("lat_fwd_p50_ns.{node}")].as_f64().unwrap() > 0.0,
            "{m}"
        );
        let csv =
            std::fs::read_to_string(out.join(format!("samples/latency/0/{node}.csv"))).unwrap();
        assert!(csv.lines().count() > 1, "{node}: {csv}");
    }
    assert!(out.join("samples/latency/0/histograms.json").exists());
    let _ = std::fs::remove_dir_all(&d);
}
