//! The `netns` runner with the real binary: a line of three namespaces over
//! UDP, TCP and Ethernet faces with `tc tbf` on the veths; a forwarder that
//! crashes recorded as a failed run with its logs while the campaign goes on,
//! and `--fail-fast` stopping instead. Where namespaces cannot be made (no root,
//! no iproute2, or a container that refuses `ip netns add`) each test checks the
//! runner's message or says it was skipped, and why.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub use super::lab_common::{netns_or_skip, netns_unavailable, num, rows, run};

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Live (not zombie) processes whose command line contains `marker`.
pub fn pids_mentioning(marker: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = stat
            .rfind(')')
            .and_then(|i| stat.get(i + 2..))
            .is_some_and(|s| s.starts_with('Z') || s.starts_with('X'));
        if cmd.contains(marker) && !zombie {
            out.push((pid, cmd));
        }
    }
    out
}

/// A 3-node line, a window consumer on r0 and a producer on r2.
pub fn line3(runner: &str, duration: f64, extra: &str) -> String {
    format!(
        r#"
[experiment]
runner = "{runner}"
duration_s = {duration}
warmup_s = 0.3
[topology]
kind = "line"
n = 3
[apps.client]
kind = "consumer"
nodes = ["first"]
window = 8
catalogue = 100000
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 500
{extra}
"#
    )
}

pub fn setup(tag: &str, text: &str) -> (PathBuf, PathBuf) {
    let d = std::env::temp_dir().join(format!("ndnlab-netns-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    (d, f)
}

#[test]
fn a_line_of_namespaces_over_udp_tcp_and_ether_with_tbf() {
    let (d, f) = setup(
        "line",
        &line3(
            "netns",
            0.5,
            "[link]\ndelay_ms = 1.0\nbandwidth_mbps = 20\n[factors]\n\"link.face\" = [\"udp\", \"tcp\", \"ether\"]\n",
        ),
    );
    let out = d.join("out");
    let started = std::time::Instant::now();
    let o = run(&f, &out, &[]);
    let wall = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if let Some(why) = netns_unavailable() {
        // refused before the campaign starts with the same reason, not a failed
        // row per run (the reason's words before its details: the probe's name
        // holds a pid)
        assert!(!o.status.success(), "{stderr}");
        let head = why.split(" (").next().unwrap_or(why);
        assert!(stderr.contains(head), "{head:?} not in {stderr}");
        assert!(!out.join("results.csv").exists());
        let _ = std::fs::remove_dir_all(&d);
        ndnlab_testkit::skip(why);
        return;
    }
    assert!(o.status.success(), "{stderr}");
    let rows = rows(&out);
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert!(num(r, "data") > 0.0, "{r:?}");
        assert_eq!(num(r, "satisfaction"), 1.0, "{r:?}");
        // from the first namespace to the last route, inside the whole command
        let bringup = num(r, "bringup_s");
        assert!(
            bringup > 0.0 && bringup < wall,
            "{bringup} s of {wall} s: {r:?}"
        );
        // Each forwarder's rate is its count over its own span between its
        // two counter reads, the nodes read at once at the window's ends, the
        // consumer's window the same on the system clock: they differ by the
        // 8 in flight at each end and by what a window of 8 sends, over round
        // trips of at least 4 x 1 ms, in the `read_s` allowed between an end
        // and a node's read there (the runner's wake-up and a management
        // round trip). Down the line each passes on what its CS missed,
        // within the same edges.
        let (read_s, secs) = (0.02, 0.5);
        let edge = 2.0 * (8.0 + 8.0 * (read_s / 0.004 + 1.0)) / secs;
        let dps = num(r, "data_per_sec");
        let rates = ["r0", "r1", "r2"].map(|n| num(r, &format!("fwd_interests_per_sec.{n}")));
        assert!(
            (rates[0] - dps).abs() <= edge,
            "r0 {}/s, data {dps}/s: more than {edge}/s apart: {r:?}",
            rates[0]
        );
        ndnlab_testkit::line_forwards_what_caches_miss(&rates, num(r, "cs_hit_ratio"), edge)
            .unwrap_or_else(|e| panic!("{e}: {r:?}"));
    }
    // what the runner set up: namespaces, addresses, tbf on both ends
    let fabric = std::fs::read_to_string(out.join("nodes/0/fabric.txt")).unwrap();
    assert!(
        fabric.contains("l0 10.0.0.1 02:6c:61:00:00:01 <-> l0 10.0.0.2"),
        "{fabric}"
    );
    assert!(fabric.contains("l1 10.0.0.5"), "{fabric}");
    assert_eq!(fabric.matches("qdisc tbf").count(), 4, "{fabric}");
    assert!(fabric.contains("rate 20Mbit"), "{fabric}");
    // the daemons emulate the delay only; UDP and TCP rules match a
    // neighbour's link address, Ethernet ones its MAC
    let udp = std::fs::read_to_string(out.join("nodes/0/r1.toml")).unwrap();
    assert!(
        udp.contains("remote_ip = \"10.0.0.1\"\ndelay_ms = 1.0\n"),
        "{udp}"
    );
    assert!(!udp.contains("bandwidth_mbps"), "{udp}");
    let ether = std::fs::read_to_string(out.join("nodes/2/r1.toml")).unwrap();
    assert!(
        ether.contains("remote = \"ether://[02:6c:61:00:00:01]\""),
        "{ether}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Kills run 0's forwarder r1 once its consumer runs.
fn crash_r1_of_run_0(out: &Path, child: &mut std::process::Child) {
    let started = out.join("logs/0/client@r0.json");
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(30), || started.exists()
            || child.try_wait().unwrap().is_some()),
        "the consumer never started"
    );
    let conf = out.join("nodes/0/r1.toml").display().to_string();
    let r1 = pids_mentioning(&format!("fwd --config {conf}"));
    assert_eq!(r1.len(), 1, "forwarder r1 of run 0: {r1:?}");
    let o = Command::new("kill")
        .args(["-KILL", &r1[0].0.to_string()])
        .status()
        .unwrap();
    assert!(o.success(), "cannot kill forwarder r1");
}

#[test]
fn a_crashed_forwarder_fails_its_run_with_logs_and_fail_fast_stops() {
    if !netns_or_skip() {
        return;
    }
    let (d, f) = setup(
        "crash",
        &line3("netns", 1.0, "").replace("warmup_s = 0.3", "warmup_s = 0.3\nrepetitions = 2"),
    );
    // The campaign goes on: run 0 failed with its logs, run 1 ok.
    let out = d.join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .arg("run")
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    crash_r1_of_run_0(&out, &mut child);
    assert!(child.wait().unwrap().success());
    let r = rows(&out);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["status"], "failed", "{r:?}");
    assert_eq!(r[1]["status"], "ok", "{r:?}");
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap();
    assert!(log.contains("fwd r1 exited during the run"), "{log}");
    assert!(out.join("logs/0/r1.log").exists());
    assert!(out.join("logs/0/client@r0.json").exists());
    // --fail-fast: a forwarder that refuses its configuration (an unknown
    // strategy) crashes at startup, and the campaign stops there.
    let bad = line3(
        "netns",
        0.3,
        "[forwarder.strategy]\n\"/lab\" = \"/localhost/nfd/strategy/no-such-strategy\"\n",
    )
    .replace("warmup_s = 0.3", "warmup_s = 0.3\nrepetitions = 2");
    std::fs::write(&f, bad).unwrap();
    let out = d.join("out-ff");
    let o = run(&f, &out, &["--fail-fast"]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--fail-fast"), "{stderr}");
    let r = rows(&out);
    assert_eq!(r.len(), 1, "stopped after the first run: {r:?}");
    assert_eq!(r[0]["status"], "failed");
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap();
    assert!(log.contains("did not start"), "{log}");
    let node = std::fs::read_to_string(out.join("logs/0/r0.log")).unwrap();
    assert!(node.contains("no-such-strategy"), "{node}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn without_root_the_netns_runner_is_refused_before_the_campaign_starts() {
    // As root, the refusal is seen by running the campaign as `nobody`.
    let (d, f) = setup("refused", &line3("netns", 0.3, ""));
    let out = d.join("out");
    let mut cmd = if is_root() {
        let ok = Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            ndnlab_testkit::skip("no setpriv to drop root");
            return;
        }
        std::fs::set_permissions(&d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_ndnlab"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_ndnlab"))
    };
    let o = cmd
        .arg("run")
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if stderr.starts_with("setpriv:") {
        // a user namespace maps no uid 65534 (an unprivileged container)
        ndnlab_testkit::skip(format!("setpriv cannot drop root here ({})", stderr.trim()));
        let _ = std::fs::remove_dir_all(&d);
        return;
    }
    if stderr.contains("Permission denied") && !stderr.contains("netns") {
        ndnlab_testkit::skip(format!("`nobody` cannot run the test binary ({stderr})"));
        let _ = std::fs::remove_dir_all(&d);
        return;
    }
    assert!(!o.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("the netns runner needs root").count(),
        1,
        "one message: {stderr}"
    );
    assert!(!out.join("results.csv").exists(), "no run was made");
    let _ = std::fs::remove_dir_all(&d);
}
