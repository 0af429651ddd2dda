//! Test and measurement support shared by the ndnlab crates.
//!
//! * [`cpu`]: thread and process CPU time, the clock of the benchmarks (the
//!   `ndnlab-cputime` crate, which the tools use directly);
//! * interop helpers for integration tests: tests run code we did not write,
//!   python-ndn 0.5.2 from the workspace venv that `scripts/python-venv.sh`
//!   creates (or `$NDNLAB_PYTHON`). The tests never skip when it is missing: they
//!   fail with the command that fixes it. Interop scripts live in
//!   `<workspace>/interop/` and talk to the test over stdin/stdout lines, which
//!   [`Py`] and [`Lines`] handle;
//! * [`temp_dir`], [`TempDir`], [`wait_until`], [`listener`]: small test utilities; [`skip`], the one way a
//!   test that cannot run here says so; [`binomial_interval`] and
//!   [`negative_binomial_interval`], the bounds a seeded random count is checked
//!   against; [`line_forwards_what_caches_miss`], what
//!   the forwarders of a line must have counted;
//! * `fuzzing` (feature `fuzzing`): the stable proptest driver of the crates' fuzz
//!   harnesses, which also replays the checked-in corpora of `fuzz/corpus/`.

mod binomial;
pub use ndnlab_cputime as cpu;
mod line;
pub use binomial::{binomial_interval, negative_binomial_interval};
pub use line::line_forwards_what_caches_miss;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;

mod temp;
pub use temp::TempDir;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

/// The workspace root.
pub fn workspace() -> PathBuf {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    r.canonicalize().unwrap_or(r)
}

/// The python interpreter with python-ndn: `$NDNLAB_PYTHON`, else the workspace venv.
///
/// # Panics
/// If neither exists, naming the command that creates the venv.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("NDNLAB_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let p = workspace().join(".venv/bin/python");
    // `metadata`, not `exists`: an I/O error (not only "no such file") is named.
    if let Err(e) = std::fs::metadata(&p) {
        panic!(
            "python-ndn venv not usable at {} ({e}): run scripts/python-venv.sh (or set NDNLAB_PYTHON)",
            p.display()
        );
    }
    p
}

/// A fresh, empty directory under the system temp dir, unique per process and call.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "ndnlab-t-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// A HOME with an initialised python-ndn keychain holding `/ndnlab/test` (made once
/// per test process and shared by its tests).
pub fn python_home() -> PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
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
                .expect("run python");
            assert!(st.success(), "python-ndn keychain init failed ({args:?})");
        }
        home
    })
    .clone()
}

/// Says that the running test is skipped and why, as `<test>: skipped: <reason>`
/// (the test is the harness thread's name), on the process's stderr itself: the
/// harness captures `eprintln!` of a passing test, so the line shows in a plain
/// `cargo test` run. A test returns right after; it never returns early without
/// calling this.
pub fn skip(reason: impl std::fmt::Display) {
    let thread = std::thread::current();
    let test = thread.name().filter(|n| *n != "main").unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {reason}");
}

/// Polls `cond` every 50 ms until it holds (true) or `timeout` passes (false).
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    cond()
}

/// The stdout lines of a child process, read on a thread.
pub struct Lines(mpsc::Receiver<String>);

impl Lines {
    /// Takes the child's (piped) stdout.
    pub fn of(child: &mut Child) -> Lines {
        let out = child.stdout.take().expect("stdout is piped");
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

    /// The next line, or `None` on timeout or end of output.
    pub fn next(&self, timeout: Duration) -> Option<String> {
        self.0.recv_timeout(timeout).ok()
    }

    /// Lines up to (excluding) the first one satisfying `pred`.
    ///
    /// # Panics
    /// On timeout or end of output, with the lines seen.
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

/// A python-ndn process running one of the `interop/` scripts with
/// `NDN_CLIENT_TRANSPORT` pointing at the forwarder under test. Killed on drop.
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
            .expect("spawn python");
        let lines = Lines::of(&mut child);
        let stdin = child.stdin.take();
        Py {
            child,
            stdin,
            lines,
        }
    }

    /// Waits for a line equal to `want`; panics with what came instead.
    pub fn expect_line(&mut self, want: &str, timeout: Duration) {
        self.lines.until(|l| l == want, timeout);
    }

    /// The next stdout line, if one comes within `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        self.lines.next(timeout)
    }

    /// Writes one line to the script's stdin.
    pub fn send(&mut self, line: &str) {
        let s = self.stdin.as_mut().expect("stdin open");
        writeln!(s, "{line}").expect("write to python");
        s.flush().expect("flush to python");
    }

    /// Waits for exit and returns the last stdout line parsed as JSON.
    pub fn finish_json(mut self, timeout: Duration) -> serde_json::Value {
        let mut last = None;
        let deadline = Instant::now() + timeout;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.0.recv_timeout(left) {
                Ok(l) => last = Some(l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("python app did not finish in {timeout:?}");
                }
            }
        }
        let st = self.child.wait().expect("wait for python");
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

/// The first of a forwarder's listener URIs starting with `scheme` (e.g. "udp4"),
/// for the binary's process harness and the in-process daemons of the fwd tests.
///
/// # Panics
/// If there is none.
pub fn listener(listening: &[String], scheme: &str) -> String {
    listening
        .iter()
        .find(|l| l.starts_with(scheme))
        .cloned()
        .unwrap_or_else(|| panic!("no {scheme} listener in {listening:?}"))
}
