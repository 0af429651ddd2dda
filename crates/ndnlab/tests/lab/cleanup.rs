//! Ctrl-C during `ndnlab run` under the `processes` and `netns` runners: the
//! campaign exits with 130 and leaves no process (group) of the run, no network
//! namespace, no veth, and no socket or temporary directory behind. The netns
//! case needs root and is skipped (saying so) without it.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::netns::{line3, netns_or_skip, pids_mentioning, setup};

fn namespaces_of(pid: u32) -> Vec<String> {
    let Ok(o) = Command::new("ip").args(["netns", "list"]).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with(&format!("ndnlab-{pid}-")))
        .map(|l| l.to_string())
        .collect()
}

/// The host's network interfaces named like the runner's veth ends.
fn veths_on_host() -> Vec<String> {
    let Ok(o) = Command::new("ip").args(["-o", "link", "show"]).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .map(|n| n.split('@').next().unwrap_or(n).to_string())
        .filter(|n| {
            n.strip_prefix('l')
                .is_some_and(|k| k.parse::<u32>().is_ok())
        })
        .collect()
}

fn socket_dirs_of(pid: u32) -> Vec<String> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("ndnlab-lab-{pid}-")))
        .collect()
}

/// Starts a long run, presses Ctrl-C once its consumer runs, and checks that
/// nothing it started is left.
fn ctrl_c_leaves_nothing(runner: &str) {
    let (d, f) = setup(&format!("sigint-{runner}"), &line3(runner, 60.0, ""));
    let out = d.join("out");
    let veths_before = veths_on_host();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .arg("run")
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let consumer = out.join("logs/0/client@r0.json");
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(30), || consumer.exists()),
        "the consumer never started"
    );
    let marker = out.display().to_string();
    // three forwarders, a producer and a consumer
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(10), || pids_mentioning(&marker).len()
            >= 4),
        "{:?}",
        pids_mentioning(&marker)
    );
    assert_eq!(socket_dirs_of(pid).len(), 1);
    if runner == "netns" {
        assert_eq!(namespaces_of(pid).len(), 3);
    }
    let sent = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let left = pids_mentioning(&marker);
    assert!(left.is_empty(), "processes left: {left:?}");
    assert!(socket_dirs_of(pid).is_empty(), "{:?}", socket_dirs_of(pid));
    assert!(namespaces_of(pid).is_empty(), "{:?}", namespaces_of(pid));
    assert_eq!(veths_on_host(), veths_before, "veths on the host");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ctrl_c_tears_down_the_processes_runner() {
    ctrl_c_leaves_nothing("processes");
}

#[test]
fn ctrl_c_tears_down_the_netns_runner() {
    if netns_or_skip("ctrl_c_tears_down_the_netns_runner") {
        ctrl_c_leaves_nothing("netns");
    }
}
