//! `ndnlab perf server|client` through a real `ndnlab fwd`.

mod app_common;

use std::time::Duration;

use app_common::*;

fn wait_registered(fwd: &Fwd, prefix: &str) {
    // a short perf run fails until the server's prefix is registered
    let ok = wait_until(Duration::from_secs(20), || {
        run(
            &[
                "perf",
                "client",
                "--prefix",
                prefix,
                "--duration",
                "0.2",
                "--interval",
                "0.2",
                "--json",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(20),
        )
        .status
        .success()
    });
    assert!(ok, "perf server on {prefix} never answered");
}

#[test]
fn fixed_window_json_intervals_and_summary() {
    let fwd = Fwd::start();
    let server = spawn(&[
        "perf",
        "server",
        "--prefix",
        "/app/perf1",
        "--payload",
        "4096",
        "--duration",
        "30",
        "--json",
        "--socket",
        fwd.sock(),
    ]);
    wait_registered(&fwd, "/app/perf1");
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/perf1",
            "--duration",
            "2",
            "--interval",
            "0.5",
            "--window",
            "8",
            "--json",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let intervals: Vec<_> = lines.iter().filter(|v| v["type"] == "interval").collect();
    assert!(intervals.len() >= 3, "{lines:?}");
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    let data = s["data"].as_u64().unwrap();
    assert!(data > 0);
    assert_eq!(
        s["bytes"].as_u64().unwrap(),
        data * 4096,
        "every Data carries the payload"
    );
    assert!(s["mbps"].as_f64().unwrap() > 0.0);
    assert!(s["rtt_p50_ms"].as_f64().unwrap() > 0.0);
    assert!(s["rtt_p99_ms"].as_f64().unwrap() >= s["rtt_p50_ms"].as_f64().unwrap());
    assert!(s["limit"].as_str().unwrap().len() > 3);
    // the server saw at least what the client got and reports it
    let out = server.stop();
    let slines = json_lines(&stdout(&out));
    let served: f64 = slines
        .iter()
        .filter(|v| v["type"] == "interval")
        .map(|v| v["data_per_s"].as_f64().unwrap())
        .sum();
    assert!(served > 0.0, "{slines:?}");
    assert!(slines.iter().all(|v| v["limit"].is_string()));
}

#[test]
fn signed_cached_server_with_cc_and_flows() {
    let fwd = Fwd::start();
    let _server = spawn(&[
        "perf",
        "server",
        "--prefix",
        "/app/perf2",
        "--sign",
        "ecdsa-p256",
        "--threads",
        "2",
        "--cache",
        "--presign",
        "64",
        "--payload",
        "1000",
        "--duration",
        "30",
        "--socket",
        fwd.sock(),
    ]);
    wait_registered(&fwd, "/app/perf2");
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/perf2",
            "--duration",
            "1.5",
            "--cc",
            "cubic",
            "--flows",
            "2",
            "--names",
            "64",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("cc cubic flows 2"), "{text}");
    assert!(text.contains("--- summary"), "{text}");
    assert!(
        text.contains("Mbit/s") && text.contains("rtt_p99"),
        "{text}"
    );
}

#[test]
fn client_without_server_fails_clearly() {
    let fwd = Fwd::start();
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/none",
            "--duration",
            "0.5",
            "--interval",
            "0.25",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no Data received"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn count_zipf_several_prefixes_and_no_fresh() {
    let fwd = Fwd::start();
    let servers: Vec<_> = ["/app/za", "/app/zb"]
        .iter()
        .map(|p| {
            // FreshnessPeriod 0: only Interests without MustBeFresh can hit the CS
            spawn(&[
                "perf",
                "server",
                "--prefix",
                p,
                "--payload",
                "100",
                "--cache",
                "--duration",
                "30",
                "--json",
                "--interval",
                "0.2",
                "--socket",
                fwd.sock(),
            ])
        })
        .collect();
    wait_registered(&fwd, "/app/za");
    wait_registered(&fwd, "/app/zb");
    // the probes' Data out of the CS
    fwd.ctl_ok(&["cs", "erase", "/", "--count", "1000000"]);
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/za",
            "--prefix",
            "/app/zb",
            "--names",
            "10",
            "--zipf",
            "1.0",
            "--seed",
            "5",
            "--count",
            "300",
            "--window",
            "4",
            "--no-fresh",
            "--duration",
            "30",
            "--json",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    // the count stops the client long before its duration, and says when
    assert_eq!(s["data"].as_u64().unwrap(), 300, "{s}");
    let finished = s["finished_s"].as_f64().expect("finished_s with --count");
    assert!(finished > 0.0 && finished < 30.0, "{s}");
    // 20 names under two prefixes (10 each): the CS, emptied before, holds
    // names of both (more than 10) and answered the rest, which MustBeFresh
    // would have ruled out (the servers' freshness is 0). A name's first
    // Data answers every Interest in flight for it (at most the window, 4):
    // at most 20 x 4 Data came from elsewhere than the CS
    let cs = fwd.ctl_json(&["cs", "info"]);
    let num = |k: &str| cs[k].as_u64().unwrap_or_else(|| panic!("{k}: {cs}"));
    assert!((11..=20).contains(&num("nEntries")), "{cs}");
    assert!(
        num("nHits") >= 300 - 20 * 4,
        "at most 80 Data not from the CS: {cs}"
    );
    drop(servers);
}
