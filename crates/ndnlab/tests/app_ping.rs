//! `ndnlab ping` and `ndnlab ping server` through a real `ndnlab fwd`.

mod app_common;

use std::time::Duration;

use app_common::*;

#[test]
fn ping_gets_replies_and_summary() {
    let fwd = Fwd::start();
    let _server = spawn(&["ping", "server", "/app/ping-test", "--socket", fwd.sock()]);
    // the server registers asynchronously: probe until it answers
    let up = wait_until(Duration::from_secs(20), || {
        run(
            &[
                "ping",
                "/app/ping-test",
                "-c",
                "1",
                "-t",
                "300",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(10),
        )
        .status
        .success()
    });
    assert!(up, "ping server never answered");
    let out = run(
        &[
            "ping",
            "/app/ping-test",
            "-c",
            "3",
            "-i",
            "50",
            "-t",
            "1000",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("content from /app/ping-test: seq="), "{text}");
    assert!(text.contains("3 packets transmitted, 3 received"), "{text}");
    assert!(text.contains("rtt min/avg/max/mdev = "), "{text}");

    let out = run(
        &[
            "ping",
            "/app/ping-test",
            "-c",
            "2",
            "-i",
            "20",
            "--start-seq",
            "7",
            "--json",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let replies: Vec<_> = lines.iter().filter(|v| v["type"] == "reply").collect();
    assert_eq!(replies.len(), 2);
    let mut seqs: Vec<u64> = replies.iter().map(|v| v["seq"].as_u64().unwrap()).collect();
    seqs.sort();
    assert_eq!(seqs, vec![7, 8]);
    let summary = lines.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["received"], 2);
    assert!(summary["rtt_avg_ms"].as_f64().unwrap() > 0.0);
}

#[test]
fn ping_without_server_reports_nacks_and_fails() {
    let fwd = Fwd::start();
    let out = run(
        &[
            "ping",
            "/app/nobody",
            "-c",
            "2",
            "-i",
            "20",
            "-t",
            "500",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(30),
    );
    assert!(!out.status.success());
    let text = stdout(&out);
    assert!(text.contains("2 packets transmitted, 0 received"), "{text}");
    assert!(stderr(&out).contains("no reply"), "{}", stderr(&out));
}

#[test]
fn ping_server_exits_after_count() {
    let fwd = Fwd::start();
    let server = spawn(&[
        "ping",
        "server",
        "/app/ping-count",
        "-p",
        "2",
        "--socket",
        fwd.sock(),
    ]);
    // the first ping that succeeds once the server has registered
    assert!(
        wait_until(Duration::from_secs(30), || run(
            &[
                "ping",
                "/app/ping-count",
                "-c",
                "1",
                "-t",
                "300",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(10),
        )
        .status
        .success()),
        "no ping to the server ever succeeded"
    );
    let _ = run(
        &[
            "ping",
            "/app/ping-count",
            "-c",
            "1",
            "-t",
            "1000",
            "--socket",
            fwd.sock(),
        ],
        Duration::from_secs(10),
    );
    let out = server.wait_output(Duration::from_secs(20));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 Interests processed"),
        "{}",
        stdout(&out)
    );
}
