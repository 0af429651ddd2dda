//! Ctrl-C and SIGTERM during `ndnlab run` under the `processes` and `netns`
//! runners: the campaign exits with 130 (143) and leaves no process (group) of
//! the run, no network namespace, no veth, and no socket or temporary directory
//! behind. SIGKILL, where no handler runs: the children die with the campaign,
//! and the socket directory it leaves is swept when the next campaign starts.
//! The netns case is skipped, saying why, where namespaces cannot be made.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::netns::{line3, netns_or_skip, pids_mentioning, run, setup};

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

/// Starts a long `ndnlab run` with `runner` in `d` and waits until its consumer
/// and its forwarders run. Returns the campaign and the marker its children's
/// command lines carry.
fn start_long_run(d: &std::path::Path, f: &std::path::Path, runner: &str) -> (Child, String) {
    let out = d.join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .arg("run")
        .arg(f)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
    assert_eq!(socket_dirs_of(child.id()).len(), 1);
    if runner == "netns" {
        assert_eq!(namespaces_of(child.id()).len(), 3);
    }
    (child, marker)
}

fn signal(pid: u32, sig: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Starts a long run, sends `sig` (INT: Ctrl-C, or TERM) once its consumer runs,
/// and checks that the campaign exits with `code` and nothing it started is left.
fn signal_leaves_nothing(runner: &str, sig: &str, code: i32) {
    let (d, f) = setup(
        &format!("sig{}-{runner}", sig.to_lowercase()),
        &line3(runner, 60.0, ""),
    );
    let veths_before = veths_on_host();
    let (mut child, marker) = start_long_run(&d, &f, runner);
    let pid = child.id();
    signal(pid, sig);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(code), "{err}");
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
    signal_leaves_nothing("processes", "INT", 130);
}

#[test]
fn sigterm_tears_down_the_processes_runner() {
    signal_leaves_nothing("processes", "TERM", 143);
}

#[test]
fn ctrl_c_tears_down_the_netns_runner() {
    if netns_or_skip() {
        signal_leaves_nothing("netns", "INT", 130);
    }
}

/// SIGKILL: no handler runs. The forwarders and apps die with the campaign
/// (`PR_SET_PDEATHSIG`); its socket directory stays until the next campaign's
/// start sweeps it.
#[test]
fn a_sigkilled_run_leaves_no_process_and_the_next_run_sweeps_its_directory() {
    let (d, f) = setup("sigkill-processes", &line3("processes", 60.0, ""));
    let (mut child, marker) = start_long_run(&d, &f, "processes");
    let pid = child.id();
    signal(pid, "KILL");
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(10), || pids_mentioning(&marker)
            .is_empty()),
        "processes left: {:?}",
        pids_mentioning(&marker)
    );
    assert_eq!(socket_dirs_of(pid).len(), 1, "no handler removed it");
    // The next campaign, a short one in-process, sweeps it as it starts.
    let (d2, f2) = setup("sigkill-next", &line3("inproc", 0.5, ""));
    let next = run(&f2, &d2.join("out"), &["--quick"]);
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(socket_dirs_of(pid).is_empty(), "{:?}", socket_dirs_of(pid));
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_dir_all(&d2);
}
