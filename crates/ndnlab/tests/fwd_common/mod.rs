//! Harness for the `ndnlab fwd` process tests: real daemons on temp Unix sockets and
//! ephemeral 127.0.0.1 ports, python-ndn apps (interop/fwd_*.py), `ndnlab ctl`.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[allow(unused_imports)]
pub use ndnlab_testkit::{python, python_home, temp_dir, workspace, Lines, Py};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ndnlab"))
}

/// An `ndnlab fwd` process.
pub struct Fwd {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub config: PathBuf,
    pub child: Option<Child>,
    pub listening: Vec<String>,
}

impl Fwd {
    /// Writes `fwd.toml` (`extra` appended to a config with the temp socket) and starts.
    pub fn start(tag: &str, extra: &str) -> Fwd {
        let dir = temp_dir(tag);
        let socket = dir.join("nfd.sock");
        let config = dir.join("fwd.toml");
        std::fs::write(
            &config,
            format!(
                "[faces.unix]\npath = \"{}\"\n[forwarder]\nthreads = 1\n{extra}\n",
                socket.display()
            ),
        )
        .unwrap();
        let mut f = Fwd {
            dir,
            socket,
            config,
            child: None,
            listening: Vec::new(),
        };
        f.spawn();
        f
    }

    /// (Re)starts the process with the same configuration.
    pub fn spawn(&mut self) {
        let mut child = Command::new(bin())
            .args(["fwd", "--config"])
            .arg(&self.config)
            .args(["--log-level", "warn"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let lines = Lines::of(&mut child);
        let before = lines.until(|l| l == "ndnlab fwd: ready", Duration::from_secs(15));
        self.listening = before
            .iter()
            .filter_map(|l| {
                l.strip_prefix("ndnlab fwd: listening on ")
                    .map(str::to_string)
            })
            .collect();
        std::mem::forget(lines); // keep draining stdout
        self.child = Some(child);
    }

    pub fn transport(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    pub fn listener(&self, scheme: &str) -> String {
        self.listening
            .iter()
            .find(|l| l.starts_with(scheme))
            .cloned()
            .unwrap_or_else(|| panic!("no {scheme} listener in {:?}", self.listening))
    }

    /// SIGTERM and wait; returns whether it exited successfully.
    pub fn stop(&mut self) -> bool {
        let Some(mut c) = self.child.take() else {
            return true;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(st)) = c.try_wait() {
                return st.success();
            }
            if Instant::now() > deadline {
                let _ = c.kill();
                let _ = c.wait();
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL (leaves a stale socket file behind).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Runs `ndnlab ctl --socket <this> args...`; returns (success, stdout).
    pub fn ctl(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new(bin())
            .args(["ctl", "--socket"])
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    }

    /// `ctl` that must succeed; returns its stdout.
    pub fn ctl_ok(&self, args: &[&str]) -> String {
        let (ok, out) = self.ctl(args);
        assert!(ok, "ndnlab ctl {args:?} failed: {out}");
        out
    }

    /// `ctl ... --json` parsed.
    pub fn ctl_json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let out = self.ctl_ok(&a);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("bad JSON from ctl {args:?}: {e}: {out}"))
    }

    /// Creates a face toward `to`'s listener of `scheme` and routes `prefix` through it.
    pub fn link(&self, to: &Fwd, scheme: &str, prefix: &str) -> u64 {
        let r = self.ctl_json(&["face", "create", &to.listener(scheme)]);
        let id = r["parameters"]["faceId"].as_u64().expect("face id");
        self.ctl_ok(&["route", "add", prefix, &id.to_string()]);
        id
    }
}

impl Drop for Fwd {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
