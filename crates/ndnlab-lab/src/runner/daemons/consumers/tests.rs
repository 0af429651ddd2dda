//! The consumers' reports under `processes`, read into the window's stats and
//! metrics, against answers worked out by hand.

use serde_json::json;

use super::*;

/// A plan of `apps` on a line of 2 forwarders, warm-up 1 s, window 2 s.
fn plan(apps: &str) -> RunPlan {
    let text = format!(
        "[experiment]\nwarmup_s = 1.0\nduration_s = 2.0\n[topology]\nkind = \"line\"\nn = 2\n{apps}"
    );
    let (_, exp) = crate::experiment::parse(&text, "t.toml").unwrap();
    RunPlan::new(0, 1, exp).unwrap()
}

const PERF: &str = "[apps.c]\nkind = \"consumer\"\nnodes = [\"r0\", \"r1\"]\n[apps.p]\nkind = \"producer\"\nnodes = [\"r1\"]\n";

/// A perf client's report: intervals (which the window row supersedes), its
/// window row, its summary.
fn perf_report(window: Value) -> String {
    [
        json!({"type": "interval", "time_s": 1.5, "data": 999, "interests": 999, "rtt_hist_us": [[5, 999]]}),
        window,
        json!({"type": "summary", "time_s": 3.0, "data": 5000, "finished_s": 2.75}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect()
}

/// Writes each `(label, report)` to `<dir>/<label>.json` and reads them back
/// as the run's consumer metrics.
fn metrics_of(plan: &RunPlan, reports: &[(&str, String)]) -> anyhow::Result<Metrics> {
    let dir = ndnlab_testkit::temp_dir("lab-consumer-reports");
    let placed = crate::apps::placement::consumers(plan)?;
    let mut ran = Vec::new();
    let labels: Vec<String> = placed.iter().map(|c| c.label()).collect();
    for (c, label) in placed.iter().zip(&labels) {
        let (_, text) = reports
            .iter()
            .find(|(l, _)| l == label)
            .expect("a report per consumer");
        std::fs::write(dir.join(format!("{label}.json")), text)?;
        ran.push(Ran {
            label,
            spec: c.spec,
            seed: c.seed,
        });
    }
    let mut m = Metrics::new();
    consumer_metrics(&mut m, plan, &ran, &dir)?;
    Ok(m)
}

#[test]
fn perf_windows_make_the_metrics_with_merged_histograms() {
    let p = plan(PERF);
    // c@r0: 100 Interests, 99 of 100 µs and 1 of 1000 µs (its p99 100 µs);
    // c@r1: 100 Interests, 98 Data of 500 µs, 1 Nack, 1 timeout (p99 500 µs)
    let a = json!({"type": "window", "interests": 100, "data": 100, "nacks": 0, "timeouts": 0,
                   "bytes": 100_000, "retransmissions": 0, "marks": 0,
                   "rtt_hist_us": [[100, 99], [1000, 1]]});
    let b = json!({"type": "window", "interests": 100, "data": 98, "nacks": 1, "timeouts": 1,
                   "bytes": 49_000, "retransmissions": 0, "marks": 0,
                   "rtt_hist_us": [[500, 98]]});
    let m = metrics_of(&p, &[("c@r0", perf_report(a)), ("c@r1", perf_report(b))]).unwrap();
    assert_eq!(
        (m["interests"], m["data"], m["nacks"], m["timeouts"]),
        (200.0, 198.0, 1.0, 1.0)
    );
    assert_eq!(m["satisfaction"], 0.99);
    // per second of the 2 s window, content bytes: 149,000 x 8 / 2
    assert_eq!(m["data_per_sec"], 99.0);
    assert_eq!(m["data_per_sec.c@r0"], 50.0);
    assert_eq!(m["data_per_sec.c@r1"], 49.0);
    assert_eq!(m["throughput_mbps"], 0.596);
    // 198 samples merged: the 99th percentile is the 197th smallest, 500 µs
    // (a Data-weighted mean of the two p99 would be 59,000 / 198 = 298 µs);
    // the median the 99th smallest, 100 µs
    assert_eq!(m["delay_p99_us"], 500.0);
    assert_eq!(m["delay_p50_us"], 100.0);
    // (99 x 100 + 1000 + 98 x 500) / 198
    assert!(
        (m["delay_mean_us"] - 59_900.0 / 198.0).abs() < 1e-9,
        "{m:?}"
    );
    // no count: no download time, although the summary has one
    assert!(!m.contains_key("download_time_s.c@r0"));
}

#[test]
fn a_counted_perf_client_gives_its_download_time() {
    let p = plan("[apps.c]\nkind = \"consumer\"\ncount = 4\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n");
    let w = json!({"type": "window", "interests": 4, "data": 4, "nacks": 0, "timeouts": 0,
                   "bytes": 4000, "retransmissions": 0, "marks": 0, "rtt_hist_us": [[7, 4]]});
    let m = metrics_of(&p, &[("c@r0", perf_report(w))]).unwrap();
    assert_eq!(m["download_time_s"], 2.75);
    assert_eq!(m["distribution_time_s"], 2.75);
    assert_eq!(m["delay_p50_us"], 7.0);
}

#[test]
fn bad_reports_are_named() {
    let p = plan(PERF);
    let ok = json!({"type": "window", "interests": 1, "data": 1, "rtt_hist_us": [[5, 1]]});
    let bad = json!({"type": "window", "interests": 1, "data": 1, "rtt_hist_us": [[5]]});
    let e = metrics_of(
        &p,
        &[
            ("c@r0", perf_report(ok.clone())),
            ("c@r1", perf_report(bad)),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("consumer c@r1: rtt_hist_us: ") && e.contains("c@r1.json"),
        "{e}"
    );
    let no_window = format!("{}\n", json!({"type": "summary"}));
    let e = metrics_of(&p, &[("c@r0", perf_report(ok)), ("c@r1", no_window)])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("consumer c@r1: no window row"), "{e}");
}

#[test]
fn a_traffic_client_summary_and_its_histogram() {
    let p = plan("[apps.c]\nkind = \"consumer\"\npattern = \"poisson\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n");
    let rows = [
        json!({"type": "pattern", "sent": 60, "satisfied": 50, "delivery_hist_us": [[1, 1]]}),
        json!({"type": "summary", "sent": 60, "satisfied": 50, "nacked": 4, "timeouts": 6,
               "bytes": 50_000, "time_s": 3.4, "delivery_hist_us": [[200, 49], [900, 1]]}),
    ];
    let text: String = rows.iter().map(|v| format!("{v}\n")).collect();
    let m = metrics_of(&p, &[("c@r0", text)]).unwrap();
    assert_eq!(
        (m["interests"], m["data"], m["nacks"], m["timeouts"]),
        (60.0, 50.0, 4.0, 6.0)
    );
    assert_eq!(m["data_per_sec"], 25.0);
    assert_eq!(m["throughput_mbps"], 0.2);
    // the 50th of 50 is 900 µs; the 25th 200 µs
    assert_eq!((m["delay_p50_us"], m["delay_p99_us"]), (200.0, 900.0));
}

#[test]
fn pings_count_by_their_sending_time() {
    // one ping every 10 ms from the ping's start; window 1 s .. 3 s
    let p = plan("[apps.g]\nkind = \"ping\"\nrate = 100.0\nprefix = \"/p\"\n[apps.p]\nkind = \"producer\"\nprefix = \"/p\"\nnodes = [\"last\"]\n");
    let placed = crate::apps::placement::consumers(&p).unwrap();
    let start = ping_start(placed[0].seed);
    let reply = |k: u64, result: &str, rtt: f64| json!({"type": "reply", "seq": start + k, "result": result, "rtt_ms": rtt});
    let rows = [
        // sent at 0.99 s, before the window opens, answered inside: out
        reply(99, "data", 50.0),
        // sent as it opens: in
        reply(100, "data", 1.5),
        reply(101, "nack", 0.0),
        reply(150, "timeout", 0.0),
        // sent at 2.99 s, answered after the close: in
        reply(299, "data", 30.0),
        // sent as it closes: out
        reply(300, "data", 2.0),
    ];
    let text: String = rows.iter().map(|v| format!("{v}\n")).collect();
    let m = metrics_of(&p, &[("g@r0", text)]).unwrap();
    assert_eq!(
        (m["interests"], m["data"], m["nacks"], m["timeouts"]),
        (4.0, 2.0, 1.0, 1.0)
    );
    // 1,500 and 30,000 µs, exact (the replies are raw samples): the median
    // is the first, the p99 the second
    assert_eq!((m["delay_p50_us"], m["delay_p99_us"]), (1500.0, 30_000.0));
}

#[test]
fn a_get_is_checked_against_the_puts_object() {
    let p = plan("[apps.put]\nkind = \"put\"\nprefix = \"/obj\"\nsize = 3000\nnodes = [\"last\"]\n[apps.g]\nkind = \"get\"\nprefix = \"/obj\"\n");
    let want = hex(&Sha256::digest(crate::apps::producer::object("/obj", 3000)));
    let summary = |sha: &str| {
        format!(
            "{}\n",
            json!({"type": "summary", "interests": 5, "retransmissions": 2, "segments": 3,
                   "nacks": 0, "timeouts": 2, "bytes": 3000, "congestion_marks": 1,
                   "time_s": 0.5, "sha256": sha, "rtt_hist_us": [[100, 2], [300, 1]]})
        )
    };
    let m = metrics_of(&p, &[("g@r0", summary(&want))]).unwrap();
    // 5 Interests of which 2 retransmissions: 3 first Interests, 3 Data
    assert_eq!(
        (m["interests"], m["data"], m["retransmissions"]),
        (3.0, 3.0, 2.0)
    );
    assert_eq!((m["download_time_s"], m["marks"]), (0.5, 1.0));
    assert_eq!((m["delay_p50_us"], m["delay_p99_us"]), (100.0, 300.0));
    let e = metrics_of(&p, &[("g@r0", summary("00"))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not match what the put published"), "{e}");
}
