//! Every example configuration the project ships starts a daemon, as written.
//!
//! The examples listen on NFD's well-known ports (6363 on `0.0.0.0` and `[::]`), so
//! each daemon runs in a network namespace of its own (`unshare --net`, loopback
//! brought up), where those ports are free whatever else runs on the machine. Only
//! the Unix socket path moves (`--socket`), since the file system is shared. Needs
//! root; skipped with a message otherwise.

mod fwd_common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use fwd_common::{bin, workspace};
use ndnlab_fwd::process::handshake;
use ndnlab_testkit::TempDir;

/// The shipped example configurations (`*.example.toml` anywhere in the tree).
fn examples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![workspace()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    dirs.push(p);
                }
            } else if name.ends_with(".example.toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn can_unshare() -> bool {
    Command::new("unshare")
        .args(["--net", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn every_shipped_example_config_starts() {
    let examples = examples();
    assert!(
        examples.iter().any(|p| p.ends_with("fwd.example.toml")),
        "fwd.example.toml not found: {examples:?}"
    );
    if !can_unshare() {
        ndnlab_testkit::skip(
            "`unshare --net` fails here (needs root): the examples bind NFD's ports",
        );
        return;
    }
    for example in examples {
        let dir = TempDir::new("example");
        let sock = dir.join("nfd.sock");
        let script = format!(
            "ip link set lo up && exec {} fwd --config {} --socket {} --log-level warn",
            bin().display(),
            example.display(),
            sock.display()
        );
        let mut child = Command::new("unshare")
            .args(["--net", "sh", "-c", &script])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn unshare");
        let out = child.stdout.take().expect("piped stdout");
        let listening = handshake::watch(out).recv_timeout(handshake::READY).ok();
        let ready = listening.is_some();
        let ctl = ready.then(|| {
            Command::new(bin())
                .args(["ctl", "--socket"])
                .arg(&sock)
                .arg("status")
                .output()
                .expect("run ndnlab ctl")
        });
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            ready,
            "{} did not start (its errors are above)",
            example.display()
        );
        let ctl = ctl.unwrap();
        assert!(
            ctl.status.success(),
            "ctl status against {}: {}",
            example.display(),
            String::from_utf8_lossy(&ctl.stderr)
        );
        // Both wildcard TCP listeners of the same port came up side by side.
        let listening = listening.unwrap();
        if example.ends_with("fwd.example.toml") {
            for want in [
                "tcp4://0.0.0.0:6363",
                "tcp6://[::]:6363",
                "udp4://0.0.0.0:6363",
            ] {
                assert!(
                    listening.iter().any(|l| l == want),
                    "{want} missing: {listening:?}"
                );
            }
        }
    }
}
