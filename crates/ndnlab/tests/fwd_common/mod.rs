//! Harness for the `ndnlab fwd` process tests: real daemons on temp Unix sockets and
//! ephemeral 127.0.0.1 ports, python-ndn apps (interop/fwd_*.py), `ndnlab ctl`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ndnlab"))
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

pub fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "ndnlab-t-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Lines of a child's stdout, read on a thread.
pub struct Lines(mpsc::Receiver<String>);

impl Lines {
    fn of(child: &mut Child) -> Lines {
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Lines(rx)
    }

    /// Lines up to (excluding) the first one satisfying `pred`; panics on timeout/EOF.
    pub fn until(&self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.0.recv_timeout(left) {
                Ok(l) if pred(&l) => return seen,
                Ok(l) => seen.push(l),
                Err(_) => break,
            }
        }
        panic!("line not seen within {timeout:?}; got {seen:?}");
    }
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

pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("NDNLAB_PYTHON") {
        return PathBuf::from(p);
    }
    let p = workspace().join(".venv/bin/python");
    assert!(
        p.exists(),
        "python-ndn venv not found at {}: run scripts/python-venv.sh (or set NDNLAB_PYTHON)",
        p.display()
    );
    p
}

/// A HOME with an initialised python-ndn keychain.
pub fn python_home() -> PathBuf {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = temp_dir("pyhome");
        for args in [
            &["-m", "ndn.bin.sec", "init"][..],
            &["-m", "ndn.bin.sec", "new-item", "/ndnlab/test"][..],
        ] {
            let st = Command::new(python())
                .args(args)
                .env("HOME", &home)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(st.success(), "python-ndn keychain init failed");
        }
        home
    })
    .clone()
}

/// A python-ndn app (interop/fwd_*.py).
pub struct Py {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines,
}

impl Py {
    pub fn spawn(script: &str, transport: &str, args: &[&str]) -> Py {
        let mut child = Command::new(python())
            .arg(workspace().join("interop").join(script))
            .args(args)
            .env("HOME", python_home())
            .env("NDN_CLIENT_TRANSPORT", transport)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let lines = Lines::of(&mut child);
        let stdin = child.stdin.take();
        Py {
            child,
            stdin,
            lines,
        }
    }

    pub fn expect_line(&mut self, want: &str, timeout: Duration) {
        self.lines.until(|l| l == want, timeout);
    }

    pub fn send(&mut self, line: &str) {
        let s = self.stdin.as_mut().unwrap();
        writeln!(s, "{line}").unwrap();
        s.flush().unwrap();
    }

    /// Waits for exit; the last stdout line as JSON.
    pub fn finish_json(mut self, timeout: Duration) -> serde_json::Value {
        let mut last = None;
        let deadline = Instant::now() + timeout;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.0.recv_timeout(left) {
                Ok(l) => last = Some(l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("python app did not finish in {timeout:?}")
                }
            }
        }
        let st = self.child.wait().unwrap();
        assert!(st.success(), "python app failed: {st}");
        serde_json::from_str(&last.expect("a result line")).expect("JSON result")
    }
}

impl Drop for Py {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
