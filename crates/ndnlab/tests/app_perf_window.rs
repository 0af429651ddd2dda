//! `ndnlab perf client --window-start|--window-at --window-secs` and the tools' histograms
//! (`rtt_hist_us`, `sign_hist_ns`, `serve_hist_ns`) through a real `ndnlab fwd`.

mod app_common;

use std::collections::BTreeMap;
use std::time::Duration;

use app_common::*;
use serde_json::Value;

/// Samples in a `[[value, count], ...]` field.
fn samples(v: &Value) -> u64 {
    v.as_array()
        .unwrap_or_else(|| panic!("not buckets: {v}"))
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .sum()
}

/// Adds the buckets of `v` to `into`.
fn add(into: &mut BTreeMap<u64, u64>, v: &Value) {
    for p in v.as_array().unwrap() {
        *into.entry(p[0].as_u64().unwrap()).or_default() += p[1].as_u64().unwrap();
    }
}

/// Waits until a short client gets Data under `prefix` (the server's prefix
/// is registered), so the measured run starts with a route.
fn wait_for_route(fwd: &Fwd, prefix: &str) {
    let mut last = None;
    let ok = wait_until(Duration::from_secs(20), || {
        let o = run(
            &[
                "perf",
                "client",
                "--prefix",
                prefix,
                "--duration",
                "0.1",
                "--json",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(30),
        );
        let done = o.status.success();
        last = Some(o);
        done
    });
    assert!(ok, "no route to {prefix}: {}", stderr(&last.expect("ran")));
}

#[test]
fn the_window_row_counts_its_interests_once_each_and_histograms_add_up() {
    let fwd = Fwd::start();
    let server = spawn(&[
        "perf",
        "server",
        "--prefix",
        "/app/win",
        "--payload",
        "1000",
        "--interval",
        "0.2",
        "--duration",
        "30",
        "--json",
        "--socket",
        fwd.sock(),
    ]);
    wait_for_route(&fwd, "/app/win");
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/win",
            "--duration",
            "1.5",
            "--interval",
            "0.25",
            "--window",
            "4",
            "--window-start",
            "0.5",
            "--window-secs",
            "0.5",
            "--json",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let windows: Vec<_> = lines.iter().filter(|v| v["type"] == "window").collect();
    assert_eq!(windows.len(), 1, "{lines:?}");
    let w = windows[0];
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    assert_eq!(
        (w["window_start_s"].as_f64(), w["window_secs"].as_f64()),
        (Some(0.5), Some(0.5))
    );
    // every Interest of the window has one outcome; every Data one delivery time
    assert!(n(w, "interests") > 0, "{w}");
    assert_eq!(
        n(w, "data") + n(w, "nacks") + n(w, "timeouts") + n(w, "rejected"),
        n(w, "interests"),
        "{w}"
    );
    assert_eq!(samples(&w["rtt_hist_us"]), n(w, "data"), "{w}");
    assert_eq!(n(w, "bytes"), n(w, "data") * 1000, "{w}");
    // the window is part of the run
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    assert!(n(w, "interests") < n(s, "interests"), "{w} {s}");
    // the window's histogram is part of the summary's, bucket by bucket
    let (mut window, mut summary) = (BTreeMap::new(), BTreeMap::new());
    add(&mut window, &w["rtt_hist_us"]);
    add(&mut summary, &s["rtt_hist_us"]);
    assert_eq!(samples(&s["rtt_hist_us"]), n(s, "data"), "{s}");
    // (the summary's times are Karn's, of no retransmitted segment: without
    // a retransmission timer firing they are every Data's)
    if n(s, "timeouts") == 0 {
        for (us, c) in &window {
            assert!(
                summary.get(us).is_some_and(|s| s >= c),
                "{us} µs: {window:?} {summary:?}"
            );
        }
    }
    // the server's rows: one signature and one serving time per Data it signed
    let out = server.stop();
    // (killed, it may have printed part of a line: the complete ones)
    let text = stdout(&out);
    let rows = json_lines(&text[..text.rfind('\n').map_or(0, |i| i + 1)]);
    let mut signed = 0;
    // (a killed server does not print its last interval)
    for r in rows.iter().filter(|v| v["type"] == "interval") {
        assert_eq!(samples(&r["sign_hist_ns"]), n(r, "signed"), "{r}");
        assert_eq!(samples(&r["serve_hist_ns"]), n(r, "served"), "{r}");
        let busy = r["sign_cores"].as_f64().unwrap() * r["interval_s"].as_f64().unwrap() * 1e9;
        assert!(
            (busy - n(r, "sign_busy_ns") as f64).abs() <= 1.0 + busy * 1e-9,
            "{r}"
        );
        signed += n(r, "signed");
    }
    assert!(signed > 0, "{rows:?}");
}

#[test]
fn a_window_at_a_unix_time_opens_then_and_lasts_past_the_duration() {
    let fwd = Fwd::start();
    let _server = spawn(&[
        "perf",
        "server",
        "--prefix",
        "/app/at",
        "--duration",
        "30",
        "--socket",
        fwd.sock(),
    ]);
    let unix = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    // the window opens 1.5 s after the command is made and closes 0.5 s
    // later, past the client's --duration of 0.2 s
    wait_for_route(&fwd, "/app/at");
    let at = unix() + 1.5;
    let out = run(
        &[
            "perf",
            "client",
            "--prefix",
            "/app/at",
            "--duration",
            "0.2",
            "--interval",
            "0.1",
            "--window",
            "2",
            "--window-at",
            &at.to_string(),
            "--window-secs",
            "0.5",
            "--json",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let w = lines
        .iter()
        .find(|v| v["type"] == "window")
        .unwrap_or_else(|| panic!("no window row: {lines:?}"));
    let f = |k: &str| w[k].as_f64().unwrap_or_else(|| panic!("{k} in {w}"));
    // (serde_json reads a float to within an ulp or so)
    assert!((f("window_at_unix_s") - at).abs() < 1e-6, "{at}: {w}");
    assert_eq!(f("window_secs"), 0.5, "{w}");
    // from the client's start, which came after the command was made
    // (and, on any machine this runs on, within the 1.5 s)
    let open = f("window_start_s");
    assert!(open > 0.0 && open < 1.5, "{w}");
    // it went on sending into the window, past its --duration
    let n = |k: &str| w[k].as_u64().unwrap_or_else(|| panic!("{k} in {w}"));
    assert!(n("interests") > 0, "{w}");
    assert_eq!(
        n("data") + n("nacks") + n("timeouts") + n("rejected"),
        n("interests"),
        "{w}"
    );
    let s = lines
        .iter()
        .find(|v| v["type"] == "summary")
        .expect("summary");
    assert!(s["time_s"].as_f64().unwrap() >= open + 0.5, "{s}");
}

#[test]
fn a_window_needs_both_its_start_and_its_length() {
    for args in [
        &["--window-start", "1"][..],
        &["--window-secs", "1"][..],
        &["--window-start=-1", "--window-secs", "1"][..],
        &["--window-start", "0", "--window-secs", "0"][..],
        &["--window-at", "1"][..],
        &["--window-at", "soon", "--window-secs", "1"][..],
        &[
            "--window-at",
            "1",
            "--window-start",
            "0",
            "--window-secs",
            "1",
        ][..],
    ] {
        let mut a = vec![
            "perf",
            "client",
            "--duration",
            "0.1",
            "--socket",
            "/nonexistent.sock",
        ];
        a.extend_from_slice(args);
        let out = run(&a, Duration::from_secs(20));
        assert!(!out.status.success(), "{args:?}");
        let e = stderr(&out);
        assert!(e.contains("--window"), "{args:?}: {e}");
    }
}
