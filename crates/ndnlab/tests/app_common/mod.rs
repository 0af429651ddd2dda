//! Helpers of the application end-to-end tests: a real `ndnlab fwd` process
//! on a temporary Unix socket (`tests/fwd_process`), tool processes killed when
//! dropped, and the python-ndn interpreter for interop tests.

#![allow(dead_code)]

use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "../fwd_process/mod.rs"]
mod fwd_process;
pub use fwd_process::FwdProcess;
#[allow(unused_imports)]
pub use ndnlab_testkit::{python, wait_until, workspace, TempDir};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_ndnlab")
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

/// A running `ndnlab fwd` on a temporary Unix socket (the testkit's
/// [`FwdProcess`]): `fwd.dir` is its temp directory, `fwd.sock()` its socket.
pub struct Fwd(FwdProcess);

impl Fwd {
    pub fn start() -> Fwd {
        Fwd::with("")
    }

    /// A forwarder with `extra` TOML appended to its configuration.
    pub fn with(extra: &str) -> Fwd {
        Fwd(FwdProcess::start(bin(), "fwd", extra))
    }
}

impl std::ops::Deref for Fwd {
    type Target = FwdProcess;
    fn deref(&self) -> &FwdProcess {
        &self.0
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
