//! Helpers of the application end-to-end tests: a real `ndnlab fwd` process
//! on a temporary Unix socket, tool processes killed when dropped, and the
//! python-ndn interpreter for interop tests.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

#[allow(unused_imports)]
pub use ndnlab_testkit::{python, wait_until, workspace};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ndnlab")
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "ndnlab-{tag}-{}-{}",
            std::process::id(),
            rand_suffix()
        ));
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(Instant::now().elapsed().as_nanos() as u64);
    h.finish() & 0xffff_ffff
}

/// A child process killed (by its own pid) when dropped.
pub struct Proc {
    pub child: Child,
    pub what: String,
}

impl Proc {
    /// Waits up to `timeout` for exit; kills it and panics on timeout.
    pub fn wait_output(mut self, timeout: Duration) -> Output {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(_status) = self.child.try_wait().expect("try_wait") {
                break;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let out = take_output(&mut self.child);
                panic!(
                    "{} did not finish in {timeout:?}\nstdout:\n{}\nstderr:\n{}",
                    self.what,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        take_output(&mut self.child)
    }

    /// Kills it now and returns what it printed.
    pub fn stop(mut self) -> Output {
        let _ = self.child.kill();
        take_output(&mut self.child)
    }
}

fn take_output(child: &mut Child) -> Output {
    let status = child.wait().expect("wait");
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_end(&mut stdout);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_end(&mut stderr);
    }
    Output {
        status,
        stdout,
        stderr,
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `ndnlab <args>` with piped output.
pub fn spawn(args: &[&str]) -> Proc {
    let child = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ndnlab");
    Proc {
        child,
        what: format!("ndnlab {}", args.join(" ")),
    }
}

/// Runs `ndnlab <args>` to completion (bounded by `timeout`).
pub fn run(args: &[&str], timeout: Duration) -> Output {
    spawn(args).wait_output(timeout)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Parses JSON lines of a tool's output.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect()
}

/// A running `ndnlab fwd` on a temporary Unix socket.
pub struct Fwd {
    pub dir: TempDir,
    pub socket: PathBuf,
    proc: Option<Proc>,
}

impl Fwd {
    pub fn start() -> Fwd {
        let dir = TempDir::new("fwd");
        let socket = dir.path().join("fwd.sock");
        let mut p = spawn(&[
            "fwd",
            "--socket",
            socket.to_str().expect("utf-8 path"),
            "--threads",
            "1",
            "--log-level",
            "warn",
        ]);
        // wait for "ready" on stdout
        let out = p.child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if line.contains("ready") {
                    let _ = tx.send(());
                }
            }
        });
        if rx.recv_timeout(Duration::from_secs(20)).is_err() {
            let o = p.stop();
            panic!(
                "ndnlab fwd did not become ready: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        Fwd {
            dir,
            socket,
            proc: Some(p),
        }
    }

    pub fn sock(&self) -> &str {
        self.socket.to_str().expect("utf-8 path")
    }
}

impl Drop for Fwd {
    fn drop(&mut self) {
        drop(self.proc.take());
    }
}

/// Random-looking but deterministic content.
pub fn content(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
