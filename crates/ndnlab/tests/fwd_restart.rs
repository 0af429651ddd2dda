//! Apps across a forwarder crash: a real `ndnlab fwd` is killed (SIGKILL) and
//! started again on the same Unix socket while `put`, `perf server` and
//! `ping server` run; they reconnect and register their prefixes again, and
//! fresh consumers are served. A `get` across a restart finishes with a
//! byte-identical file; a consumer told not to reconnect fails with a clear
//! message. No fixed sleeps: every wait is a poll with a deadline.

mod app_common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use app_common::*;
use ndnlab_testkit::Lines;

/// `ndnlab <args>` with its stdout lines readable while it runs.
fn spawn_lines(args: &[&str]) -> (Proc, Lines) {
    let mut p = spawn(args);
    let lines = Lines::of(&mut p.child);
    (p, lines)
}

/// Waits for the first line satisfying `pred` and returns it.
fn wait_line(lines: &Lines, pred: impl Fn(&str) -> bool, what: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match lines.next(left) {
            Some(l) if pred(&l) => return l,
            Some(l) => seen.push(l),
            None => break,
        }
    }
    panic!("{what}: the line was not seen; got {seen:?}");
}

/// Waits for the line starting with `start` (the tool's "I am serving" line).
fn expect_line(lines: &Lines, start: &str, what: &str) -> String {
    wait_line(lines, |l| l.starts_with(start), what)
}

fn ping_ok(sock: &str, prefix: &str) -> bool {
    let args = ["ping", prefix, "-c", "1", "-t", "500", "--socket", sock];
    run(&args, Duration::from_secs(20)).status.success()
}

fn perf_ok(sock: &str, prefix: &str) -> bool {
    let args = [
        "perf",
        "client",
        "--prefix",
        prefix,
        "--duration",
        "0.3",
        "--interval",
        "0.3",
        "--json",
        "--socket",
        sock,
    ];
    let out = run(&args, Duration::from_secs(20));
    out.status.success()
        && json_lines(&stdout(&out))
            .iter()
            .any(|v| v["type"] == "summary" && v["data"].as_u64().unwrap_or(0) > 0)
}

fn get_ok(sock: &str, name: &str, out: &Path, want: &[u8]) -> bool {
    let o = out.to_str().unwrap();
    let args = [
        "get",
        name,
        "-o",
        o,
        "-q",
        "--socket",
        sock,
        "--no-reconnect",
    ];
    run(&args, Duration::from_secs(60)).status.success()
        && std::fs::read(out).is_ok_and(|got| got == want)
}

#[test]
fn servers_reconnect_and_register_again_after_a_forwarder_crash() {
    let mut fwd = FwdProcess::start(bin(), "restart-servers", "");
    let sock = fwd.sock().to_string();
    let input = fwd.dir.path().join("in.bin");
    let data = content(100_000, 25);
    std::fs::write(&input, &data).unwrap();
    let output = fwd.dir.path().join("out.bin");

    let (put, put_lines) = spawn_lines(&[
        "put",
        "/restart/file",
        input.to_str().unwrap(),
        "--segment-size",
        "4000",
        "--socket",
        &sock,
    ]);
    let (perf, perf_lines) = spawn_lines(&[
        "perf",
        "server",
        "--prefix",
        "/restart/perf",
        "--payload",
        "1000",
        "--socket",
        &sock,
    ]);
    let (ping, ping_lines) = spawn_lines(&["ping", "server", "/restart/ping", "--socket", &sock]);
    expect_line(&put_lines, "published", "put");
    expect_line(&perf_lines, "perf server on", "perf server");
    expect_line(&ping_lines, "PING SERVER", "ping server");

    let all_served = || {
        get_ok(&sock, "/restart/file", &output, &data)
            && perf_ok(&sock, "/restart/perf")
            && ping_ok(&sock, "/restart/ping")
    };
    assert!(
        wait_until(Duration::from_secs(60), all_served),
        "not served before the crash"
    );
    for crash in 1..=2 {
        fwd.kill();
        fwd.spawn();
        assert!(
            wait_until(Duration::from_secs(60), all_served),
            "not served after crash {crash}"
        );
    }
    for (p, what) in [(put, "put"), (perf, "perf server"), (ping, "ping server")] {
        let out = p.stop();
        let err = stderr(&out);
        assert!(
            err.matches("reconnected after").count() >= 2,
            "{what} did not say it reconnected twice:\n{err}"
        );
    }
}

/// The temporary file `get -o out` writes into (in 1 MiB steps) before renaming it.
fn part_file(out: &Path) -> Option<PathBuf> {
    let dir = out.parent()?;
    let stem = format!(".{}.ndnlab-part-", out.file_name()?.to_str()?);
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&stem))
        })
}

#[test]
fn get_across_a_forwarder_crash_is_byte_identical() {
    let mut fwd = FwdProcess::start(bin(), "restart-get", "");
    let sock = fwd.sock().to_string();
    let input = fwd.dir.path().join("in.bin");
    let data = content(24 << 20, 26);
    std::fs::write(&input, &data).unwrap();
    let output = fwd.dir.path().join("out.bin");
    let (_put, put_lines) = spawn_lines(&[
        "put",
        "/restart/big",
        input.to_str().unwrap(),
        "--segment-size",
        "8000",
        "--socket",
        &sock,
    ]);
    let published = expect_line(&put_lines, "published", "put");
    let sha256 = published
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches(')')
        .to_string();

    let mut get = spawn(&[
        "get",
        "/restart/big",
        "-o",
        output.to_str().unwrap(),
        "-p",
        "fixed",
        "-w",
        "4",
        "--socket",
        &sock,
    ]);
    // crash the forwarder once the first MiB is on disk
    let started = wait_until(Duration::from_secs(60), || {
        part_file(&output).is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
    });
    assert!(started, "get wrote nothing");
    assert!(
        get.child.try_wait().unwrap().is_none(),
        "get finished before the crash: the file is too small for this machine"
    );
    fwd.kill();
    fwd.spawn();
    get.what = "get across a forwarder crash".into();
    let out = get.wait_output(Duration::from_secs(120));
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("reconnected after"), "{err}");
    assert!(std::fs::read(&output).unwrap() == data, "the file differs");
    let text = stdout(&out);
    assert!(
        text.contains(&format!("SHA-256: {sha256}")),
        "want {sha256}:\n{text}"
    );
}

#[test]
fn consumers_fail_fast_with_a_clear_message_when_the_forwarder_stays_away() {
    let mut fwd = FwdProcess::start(bin(), "restart-noreconnect", "");
    let sock = fwd.sock().to_string();
    let (_ping, ping_lines) = spawn_lines(&["ping", "server", "/nr/ping", "--socket", &sock]);
    expect_line(&ping_lines, "PING SERVER", "ping server");
    let ping_until_killed = |fwd: &mut FwdProcess, extra: &[&str]| {
        let mut args = vec![
            "ping", "/nr/ping", "-i", "50", "-t", "500", "--socket", &sock,
        ];
        args.extend_from_slice(extra);
        let (mut ping, lines) = spawn_lines(&args);
        wait_line(&lines, |l| l.contains("content from"), "ping");
        fwd.kill();
        ping.what = format!("ndnlab {}", args.join(" "));
        let out = ping.wait_output(Duration::from_secs(60));
        assert!(!out.status.success());
        stderr(&out)
    };
    // not reconnecting: it stops at once
    let err = ping_until_killed(&mut fwd, &["--no-reconnect"]);
    assert!(err.contains("connection to the forwarder"), "{err}");
    // reconnecting for 1 s to a forwarder that never comes back: it gives up then
    fwd.spawn();
    let err = ping_until_killed(&mut fwd, &["--reconnect-for", "1"]);
    assert!(err.contains("did not come back within 1s"), "{err}");
    assert!(err.contains("giving up"), "{err}");
    assert!(err.contains("connection to the forwarder"), "{err}");

    // perf client (the batched path) stops at once with the connection's error
    fwd.spawn();
    let (_perf, perf_lines) =
        spawn_lines(&["perf", "server", "--prefix", "/nr/perf", "--socket", &sock]);
    expect_line(&perf_lines, "perf server on", "perf server");
    assert!(wait_until(Duration::from_secs(60), || perf_ok(
        &sock, "/nr/perf"
    )));
    let args = [
        "perf",
        "client",
        "--prefix",
        "/nr/perf",
        "--duration",
        "600",
        "--interval",
        "0.2",
        "--json",
        "--socket",
        &sock,
    ];
    let (mut perf, lines) = spawn_lines(&args);
    wait_line(&lines, |l| l.contains("\"interval\""), "perf client");
    fwd.kill();
    perf.what = "perf client across a forwarder crash".into();
    let out = perf.wait_output(Duration::from_secs(60));
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("connection to unix://"), "{err}");
}
