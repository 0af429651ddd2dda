//! An `ndnlab fwd` daemon as a child process, for the tests of the `ndnlab`
//! binary: a temp directory with `fwd.toml` (a Unix socket inside it, one
//! forwarding thread, the caller's extra TOML), ready once the daemon's handshake
//! (`ndnlab_fwd::process::handshake`) says so, with the listeners it printed.
//! Killed, and its directory removed, on drop.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ndnlab_fwd::process::handshake;
use ndnlab_testkit::TempDir;

/// An `ndnlab fwd` process (see the module documentation).
pub struct FwdProcess {
    /// The `ndnlab` binary.
    pub binary: PathBuf,
    /// Holds `fwd.toml` and the Unix socket; removed on drop.
    pub dir: TempDir,
    pub socket: PathBuf,
    pub config: PathBuf,
    /// The listener URIs the running process printed.
    pub listening: Vec<String>,
    /// A command the daemon runs under (`ip netns exec <ns>`), empty for none.
    pub wrapper: Vec<String>,
    /// `None` once stopped or killed.
    pub child: Option<Child>,
}

impl FwdProcess {
    /// Writes `<dir>/fwd.toml` (`extra` appended to a config with the temp socket and
    /// one thread), runs `binary fwd --config <it> --log-level warn`, and waits for
    /// it to be ready.
    ///
    /// # Panics
    /// If the process cannot be spawned or is not ready in time (it is killed).
    pub fn start(binary: impl Into<PathBuf>, tag: &str, extra: &str) -> FwdProcess {
        Self::start_under(binary, &[], tag, extra)
    }

    /// [`start`](Self::start) with the daemon's command line prefixed by
    /// `wrapper`, e.g. `["ip", "netns", "exec", "ns1"]` to run it in a network
    /// namespace (the wrapper must exec the daemon, so that signals reach it).
    pub fn start_under(
        binary: impl Into<PathBuf>,
        wrapper: &[&str],
        tag: &str,
        extra: &str,
    ) -> FwdProcess {
        let dir = TempDir::new(tag);
        let socket = dir.join("nfd.sock");
        let config = dir.join("fwd.toml");
        std::fs::write(
            &config,
            format!(
                "[faces.unix]\npath = \"{}\"\n[forwarder]\nthreads = 1\n{extra}\n",
                socket.display()
            ),
        )
        .expect("write fwd.toml");
        let mut f = FwdProcess {
            binary: binary.into(),
            dir,
            socket,
            config,
            listening: Vec::new(),
            wrapper: wrapper.iter().map(|s| s.to_string()).collect(),
            child: None,
        };
        f.spawn();
        f
    }

    /// (Re)starts the process with the same configuration and waits until ready.
    pub fn spawn(&mut self) {
        self.kill();
        let mut cmd = match self.wrapper.split_first() {
            Some((prog, args)) => {
                let mut c = Command::new(prog);
                c.args(args).arg(&self.binary);
                c
            }
            None => Command::new(&self.binary),
        };
        let mut child = cmd
            .args(["fwd", "--config"])
            .arg(&self.config)
            .args(["--log-level", "warn"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {} fwd: {e}", self.binary.display()));
        let out = child.stdout.take().expect("piped stdout");
        match handshake::watch(out).recv_timeout(handshake::READY) {
            Ok(listening) => self.listening = listening,
            Err(e) => {
                let _ = child.kill();
                let st = child.wait();
                panic!(
                    "ndnlab fwd not ready within {:?} ({e}, {st:?})",
                    handshake::READY
                );
            }
        }
        self.child = Some(child);
    }

    /// `unix://<socket>`, for NDN_CLIENT_TRANSPORT.
    pub fn transport(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    /// The socket path as a string (for `--socket`).
    pub fn sock(&self) -> &str {
        self.socket.to_str().expect("utf-8 path")
    }

    /// The first listener URI starting with `scheme` (e.g. "udp4").
    ///
    /// # Panics
    /// If there is none.
    pub fn listener(&self, scheme: &str) -> String {
        ndnlab_testkit::listener(&self.listening, scheme)
    }

    /// SIGTERM, then waits up to 10 s (SIGKILL after); returns whether it exited
    /// successfully.
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

    /// Runs `<binary> ctl --socket <socket> args...`; returns (success, stdout and
    /// stderr).
    pub fn ctl(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new(&self.binary)
            .args(["ctl", "--socket"])
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run ndnlab ctl");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    }

    /// `ctl` that must succeed; returns its output.
    pub fn ctl_ok(&self, args: &[&str]) -> String {
        let (ok, out) = self.ctl(args);
        assert!(ok, "ndnlab ctl {args:?} failed: {out}");
        out
    }

    /// `ctl ... --json`, parsed.
    pub fn ctl_json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let out = self.ctl_ok(&a);
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("bad JSON from ctl {args:?}: {e}: {out}"))
    }

    /// Creates a face toward `to`'s listener of `scheme` and routes `prefix` through
    /// it; returns the face id.
    pub fn link(&self, to: &FwdProcess, scheme: &str, prefix: &str) -> u64 {
        let r = self.ctl_json(&["face", "create", &to.listener(scheme)]);
        let id = r["parameters"]["faceId"].as_u64().expect("face id");
        self.ctl_ok(&["route", "add", prefix, &id.to_string()]);
        id
    }
}

impl Drop for FwdProcess {
    fn drop(&mut self) {
        self.kill();
    }
}
