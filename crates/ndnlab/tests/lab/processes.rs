//! The `processes` runner with the real binary: a line of three `ndnlab fwd`
//! processes over UDP faces with emulated delay, `ndnlab perf` apps on the ends;
//! every app kind as a tool process; and a point it cannot carry out, recorded
//! as a skipped run naming the key (Ctrl-C: `cleanup.rs`).

use std::process::Command;

use crate::ndnlab;

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

/// `node`'s Interests in and Data out over all its faces in run 0's
/// `samples/faces/0.csv` (the faces/list counters at the window's close).
pub fn face_sums(out: &std::path::Path, node: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(out.join("samples/faces/0.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |k: &str| head.iter().position(|h| *h == k).unwrap();
    let (n, i, d) = (col("node"), col("in_interests"), col("out_data"));
    let (mut interests, mut data) = (0.0, 0.0);
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        if f[n] == node {
            interests += f[i].parse::<f64>().unwrap_or(0.0);
            data += f[d].parse::<f64>().unwrap_or(0.0);
        }
    }
    (interests, data)
}

#[test]
fn a_line_of_daemon_processes_carries_data() {
    let (d, f) = setup("line", LINE);
    let out = d.join("out");
    let started = std::time::Instant::now();
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    let wall = started.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["failed"], 0, "{summary}");
    let m = &summary["points"][0]["means"];
    let v = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {m}"));
    assert_eq!(m["satisfaction"].as_f64(), Some(1.0), "{m}");
    // four emulated 5 ms transmissions per exchange (two links, both ways)
    let rtt_us = 4.0 * 5_000.0;
    let p50 = v("delay_p50_us");
    assert!(p50 >= rtt_us, "{m}");
    // a ceiling that holds on a loaded machine and fails a unit error
    assert!(p50 <= 5.0 * rtt_us + 50_000.0, "{m}");
    // a window of 8 completes at most 8 exchanges per RTT, plus the 8 in
    // flight as the 1 s window opens
    let (window, measured) = (8.0, 1.0);
    let dps = v("data_per_sec");
    let most = window * 1e6 / rtt_us + window / measured;
    assert!(dps > 0.0 && dps <= most, "{dps} Data/s > {most}: {m}");
    // from the first daemon started to the last route, inside the whole command
    let bringup = v("bringup_s");
    assert!(
        bringup > 0.0 && bringup < wall,
        "{bringup} s of {wall} s: {m}"
    );
    // a process uses at most the machine's cores (10% for the clocks' ticks)
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    for k in ["cpu_cores.r0", "cpu_cores.r2"] {
        assert!(v(k) > 0.0 && v(k) <= cores * 1.1, "{k}: {m}");
    }
    // Each forwarder's rate is its count over its own span between its two
    // counter reads, the nodes read at once at the window's ends, the
    // consumer's window the same on the system clock. A node's count and the
    // consumer's differ by the Interests in flight at each end (the window's
    // 8) and by those sent between an end and the node's read there: the
    // read starts as the runner's sleep wakes and takes a management round
    // trip, allowed `read_s` at each end, in which a window of 8 sends at most
    // 8 x (read_s / rtt + 1).
    let read_s = 0.02;
    let edge = 2.0 * (window + window * (read_s * 1e6 / rtt_us + 1.0)) / measured;
    let rates = ["r0", "r1", "r2"].map(|n| v(&format!("fwd_interests_per_sec.{n}")));
    assert!(
        (rates[0] - dps).abs() <= edge,
        "r0 {}/s, data {dps}/s: more than {edge}/s apart: {m}",
        rates[0]
    );
    // down the line each passes on what its CS missed, within the same edges
    ndnlab_testkit::line_forwards_what_caches_miss(&rates, v("cs_hit_ratio"), edge)
        .unwrap_or_else(|e| panic!("{e}: {m}"));
    let all = v("fwd_interests_per_sec");
    // the sum of the three, each rounded to 6 decimals
    assert!((all - rates.iter().sum::<f64>()).abs() < 1e-3, "{m}");
    // the middle forwarder's faces (faces/list, read at the window's close: a
    // consumer's face may be gone by then, the links' faces are not)
    // forwarded Interests and returned Data for them
    let (interests, data) = face_sums(&out, "r1");
    assert!(data > 0.0 && interests >= data, "{interests} {data}");
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
fn a_point_the_runner_cannot_carry_out_is_skipped_not_failed() {
    // Ethernet faces need namespaces: under `processes` that point is skipped.
    let (d, f) = setup(
        "skip",
        &format!("{LINE}\n[factors]\n\"link.face\" = [\"udp\", \"ether\"]\n"),
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
    assert_eq!(summary["failed"], 0, "{summary}");
    assert_eq!(summary["not_applicable"], 1, "{summary}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let status: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| {
            if l.contains(",ok,") {
                "ok"
            } else if l.contains(",skipped,") {
                "skipped"
            } else {
                l
            }
        })
        .collect();
    assert_eq!(status, ["ok", "skipped"], "{csv}");
    let log = std::fs::read_to_string(out.join("logs/1.log")).unwrap();
    assert!(log.contains("face 'ether'"), "{log}");
    // the report analyses the ok run and counts the skipped one out
    let o = ndnlab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("runs left out (status not ok)"));
    let _ = std::fs::remove_dir_all(&d);
}

/// Every app kind as a tool process: a put and a get, a ping, a windowed
/// consumer with a count, Zipf popularity and MustBeFresh, on a line of two.
const EVERY_KIND: &str = r#"
[experiment]
runner = "processes"
duration_s = 1.5
warmup_s = 0.5
[topology]
kind = "line"
n = 2
[link]
face = "udp"
[apps.server]
kind = "producer"
nodes = ["last"]
prefix = "/p"
payload = 500
freshness_ms = 100
[apps.object]
kind = "put"
nodes = ["last"]
prefix = "/obj/{node}"
size = 60000
payload = 4000
[apps.fetch]
kind = "get"
nodes = ["first"]
prefix = "/obj/r1"
window = 4
[apps.pinger]
kind = "ping"
nodes = ["first"]
prefix = "/p"
rate = 20.0
lifetime_ms = 1000
[apps.counted]
kind = "consumer"
nodes = ["first"]
prefix = "/p"
window = 4
catalogue = 50
zipf = 0.9
must_be_fresh = true
count = 200
lifetime_ms = 1000
"#;

#[test]
fn every_app_kind_runs_as_a_tool_process() {
    let (d, f) = setup("kinds", EVERY_KIND);
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
    let get = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("no {k} in {m}"));
    // the get fetched the put's 15 segments (its SHA-256 checked) and the
    // counted consumer its 200 Interests, both inside the 1.5 s window
    for k in ["download_time_s.fetch@r0", "download_time_s.counted@r0"] {
        assert!(get(k) > 0.0 && get(k) < 1.5, "{k}: {m}");
    }
    assert!(get("distribution_time_s") >= get("download_time_s.fetch@r0"));
    // 15 segments + 200 counted + 30 pings (20/s over 1.5 s), answered but
    // for a few of the counted consumer's: its Zipf draws may ask for a name
    // already in flight, and the PIT answers the face once (the other
    // Interest times out, 1 s, and is counted so)
    assert!((240.0..=250.0).contains(&get("interests")), "{m}");
    assert!((0.97..=1.0).contains(&get("satisfaction")), "{m}");
    assert!(get("data_per_sec.pinger@r0") > 15.0, "{m}");
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

#[test]
fn daemon_processes_report_cpu_signing_and_serving_per_app() {
    // one forwarder, the CS off: every Interest is signed for, on 2 threads
    let text = r#"
[experiment]
runner = "processes"
duration_s = 1.5
warmup_s = 0.5
[forwarder]
cs_capacity = 0
[apps.client]
kind = "consumer"
window = 4
catalogue = 1000000
[apps.server]
kind = "producer"
payload = 1000
signature = "ecdsa-p256"
threads = 2
"#;
    let (d, f) = setup("signing", text);
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
    let v = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {m}"));
    assert!(v("data") > 100.0, "{m}");
    // each process's CPU, at most its threads' worth
    assert!(v("cpu_cores.r0") > 0.0 && v("cpu_cores.r0") <= 1.05, "{m}");
    assert!(
        v("cpu_cores.client@r0") > 0.0 && v("cpu_cores.client@r0") <= 2.1,
        "{m}"
    );
    assert!(
        v("cpu_cores.server@r0") > 0.0 && v("cpu_cores.server@r0") <= 2.1,
        "{m}"
    );
    // an ECDSA P-256 signature takes microseconds to milliseconds
    let mean = v("sign_mean_us.server@r0");
    assert!(mean > 2.0 && mean < 20_000.0, "{m}");
    assert!(v("sign_p50_us.server@r0") > 2.0, "{m}");
    assert!(
        v("sign_p99_us.server@r0") >= v("sign_p50_us.server@r0") * 0.99,
        "{m}"
    );
    assert!(
        v("sign_cores.server@r0") > 0.0 && v("sign_cores.server@r0") <= 2.1,
        "{m}"
    );
    // every Data served was signed: the cores the producer's rate needs are
    // its signing CPU; the consumer's rate, over its own intervals, is close
    let needed = v("sign_cores_needed.server@r0");
    let busy = v("sign_cores.server@r0");
    assert!((needed - busy).abs() / busy < 0.01, "{m}");
    let from_consumer = mean * v("data_per_sec") / 1e6;
    assert!((needed - from_consumer).abs() / from_consumer < 0.15, "{m}");
    // Interest in to Data out covers the signing, and is inside the delivery time
    assert!(v("serve_mean_us.server@r0") >= mean * 0.9, "{m}");
    assert!(
        v("serve_p50_us.server@r0") <= v("delay_p50_us") * 1.02,
        "{m}"
    );
    // the server's reports are kept
    assert!(out.join("logs/0/server@r0.json").exists());
    let _ = std::fs::remove_dir_all(&d);
}
