//! `ndnlab traffic client|server` through a real `ndnlab fwd`.

mod app_common;

use std::time::Duration;

use app_common::*;

/// A `traffic server` for `prefix` on `fwd`, once a probe under it is answered.
fn traffic_server(fwd: &Fwd, prefix: &str) -> Proc {
    let server = spawn(&[
        "traffic",
        "server",
        "--prefix",
        prefix,
        "--duration",
        "60",
        "--socket",
        fwd.sock(),
    ]);
    let probe = format!("name={prefix}/probe");
    let ok = wait_until(Duration::from_secs(20), || {
        let o = run(
            &[
                "traffic",
                "client",
                "--pattern",
                &probe,
                "--count",
                "1",
                "--json",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(10),
        );
        json_lines(&stdout(&o))
            .first()
            .is_some_and(|v| v["satisfied"] == 1)
    });
    assert!(ok, "traffic server for {prefix} never answered");
    server
}

#[test]
fn patterns_are_reported_separately() {
    let fwd = Fwd::start();
    let _server = traffic_server(&fwd, "/app/traffic");
    let out = run(
        &[
            "traffic",
            "client",
            "--socket",
            fwd.sock(),
            "--json",
            "--seed",
            "11",
            "--rate",
            "400",
            "--count",
            "300",
            "--pattern",
            "name=/app/traffic/a,percent=60,components=6,distinct=20,payload=300,fresh=true",
            "--pattern",
            "name=/app/traffic/b,percent=30,prefix=true,payload=2000",
            "--pattern",
            "name=/app/unserved,lifetime=300",
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let pats: Vec<_> = lines.iter().filter(|v| v["type"] == "pattern").collect();
    assert_eq!(pats.len(), 3);
    let sent: u64 = pats.iter().map(|p| p["sent"].as_u64().unwrap()).sum();
    assert_eq!(sent, 300);
    for p in &pats[..2] {
        assert!(p["sent"].as_u64().unwrap() > 0);
        assert_eq!(p["satisfied"], p["sent"], "{p}");
        assert_eq!(p["satisfaction_ratio"], 1.0);
        assert!(p["delivery_p99_ms"].as_f64().unwrap() >= p["delivery_p50_ms"].as_f64().unwrap());
    }
    // the pattern nobody serves is Nacked (no route) or times out, never satisfied
    let u = pats[2];
    assert_eq!(u["satisfied"], 0);
    assert_eq!(
        u["nacked"].as_u64().unwrap() + u["timeouts"].as_u64().unwrap(),
        u["sent"].as_u64().unwrap()
    );
    let summary = lines.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["seed"], 11);
}

#[test]
fn bad_pattern_is_a_clear_error() {
    let out = run(
        &["traffic", "client", "--pattern", "name=/x,bogus=1"],
        Duration::from_secs(10),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown key `bogus`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn warmup_is_left_out_and_zipf_ranks_patterns_in_order() {
    let fwd = Fwd::start();
    let _server = traffic_server(&fwd, "/app/tz");
    let out = run(
        &[
            "traffic",
            "client",
            "--socket",
            fwd.sock(),
            "--json",
            "--seed",
            "3",
            "--rate",
            "200",
            "--duration",
            "1.5",
            "--warmup",
            "0.5",
            "--zipf",
            "1.2",
            "--pattern",
            "name=/app/tz/a,distinct=5,payload=64",
            "--pattern",
            "name=/app/tz/b,distinct=5,payload=64",
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));
    // Poisson at 200/s: ~100 Interests in the 0.5 s warm-up, ~200 after
    // (5 standard deviations: +-50 and +-71)
    assert!((50..=150).contains(&n(s, "warmup_sent")), "{s}");
    assert!((129..=271).contains(&n(s, "sent")), "{s}");
    assert_eq!(n(s, "satisfied"), n(s, "sent"), "{s}");
    assert_eq!(n(s, "bytes"), 64 * n(s, "satisfied"), "{s}");
    // Zipf(1.2) over the 10 names, pattern a's first: P(a) = 0.83
    let pats: Vec<_> = lines.iter().filter(|v| v["type"] == "pattern").collect();
    let (a, b) = (n(pats[0], "sent"), n(pats[1], "sent"));
    assert_eq!(a + b, n(s, "sent"));
    assert!(a > 3 * b && b > 0, "a {a}, b {b}");
}

#[test]
fn a_window_at_a_unix_time_counts_from_then_and_stops_at_its_close() {
    let fwd = Fwd::start();
    let _server = traffic_server(&fwd, "/app/tw");
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    // the window opens 1 s from now and lasts 0.5 s; --duration (30 s) is
    // not what stops it
    let at = (unix + 1.0).to_string();
    let out = run(
        &[
            "traffic",
            "client",
            "--socket",
            fwd.sock(),
            "--json",
            "--arrival",
            "constant",
            "--rate",
            "100",
            "--duration",
            "30",
            "--window-at",
            &at,
            "--window-secs",
            "0.5",
            "--pattern",
            "name=/app/tw/a,distinct=10,payload=64",
        ],
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k}: {s}"));
    // one Interest every 10 ms: 50 in the 0.5 s window (a boundary moves one
    // in or out by a late timer wake-up: +-5 allows five at each end); before
    // it, 100/s for what remained of the 1 s after the client started
    assert!((45..=55).contains(&n("sent")), "{s}");
    assert!(n("warmup_sent") <= 101, "{s}");
    assert_eq!(n("satisfied"), n("sent"), "{s}");
    let t = s["time_s"].as_f64().unwrap();
    assert!(t < 10.0, "stopped at {t} s, not at the window's close: {s}");
    // --warmup and --window-at exclude each other
    let out = run(
        &[
            "traffic",
            "client",
            "--pattern",
            "name=/x",
            "--warmup",
            "1",
            "--window-at",
            "1",
        ],
        Duration::from_secs(10),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
