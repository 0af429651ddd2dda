//! What the truth experiments share: running one of
//! `experiments/truth/*.toml` under a runner with `ndnlab run --json` and
//! reading its one row back, and one lock so that two real-time truth
//! experiments never share the machine's cores with each other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::lab_common::{num, rows, run};

/// A truth experiment's results: its one row of `results.csv`, the `--json`
/// summary, and the wall time of the whole `ndnlab run`.
pub struct Truth {
    pub row: BTreeMap<String, String>,
    pub wall: Duration,
    pub file: String,
    pub runner: String,
}

impl Truth {
    /// The metric `k` of the row (a failure names the run and its row).
    pub fn get(&self, k: &str) -> f64 {
        num(&self.row, k)
    }
}

/// `experiments/truth/<name>`.
pub fn truth_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/truth")
        .join(name)
}

/// Runs `experiments/truth/<name>` under `runner` with `sets` (`KEY=VALUE`,
/// each passed as `--set`); the run must succeed with one `ok` row.
pub fn truth(name: &str, runner: &str, sets: &[&str]) -> Truth {
    let out = ndnlab_testkit::temp_dir(&format!("truth-{runner}"));
    let mut args = vec!["--json", "--runner", runner];
    for s in sets {
        args.extend(["--set", s]);
    }
    let started = Instant::now();
    let o = run(&truth_file(name), &out, &args);
    let wall = started.elapsed();
    let what = format!("{name} under {runner} {sets:?}");
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what}: --json output: {e}"));
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap_or_default();
    assert_eq!(summary["failed"], 0, "{what}: {summary}\n{log}");
    let mut r = rows(&out);
    assert_eq!(r.len(), 1, "{what}: one run: {r:?}");
    let row = r.remove(0);
    assert_eq!(row["status"], "ok", "{what}: {row:?}\n{log}");
    let _ = std::fs::remove_dir_all(&out);
    Truth {
        row,
        wall,
        file: name.to_string(),
        runner: runner.to_string(),
    }
}

/// `Err` naming the experiment, the runner, the metric, its bounds and how
/// they were derived (`why`) unless `lo <= t.get(k) <= hi`.
fn check(t: &Truth, k: &str, lo: f64, hi: f64, why: &str) -> Result<(), String> {
    let v = t.get(k);
    if (lo..=hi).contains(&v) {
        return Ok(());
    }
    Err(format!(
        "{} under {}: {k} = {v}, outside [{lo}, {hi}] ({why})",
        t.file, t.runner
    ))
}

/// Asserts `lo <= t.get(k) <= hi`, naming the experiment, the runner, the
/// bounds and how they were derived (`why`).
pub fn within(t: &Truth, k: &str, lo: f64, hi: f64, why: &str) {
    if let Err(e) = check(t, k, lo, hi, why) {
        panic!("{e}; row: {:?}", t.row);
    }
}

/// Bounds checked one after the other, every one that fails reported at once
/// (a real-time run is too dear to learn one failure per run).
#[derive(Default)]
pub struct Checks {
    failed: Vec<String>,
    rows: Vec<String>,
}

impl Checks {
    /// As [`within`], noted instead of panicking.
    pub fn within(&mut self, t: &Truth, k: &str, lo: f64, hi: f64, why: &str) {
        if let Err(e) = check(t, k, lo, hi, why) {
            self.note(e, t);
        }
    }

    /// Notes `what` (a derived bound) unless `ok`.
    pub fn that(&mut self, ok: bool, t: &Truth, what: &str) {
        if !ok {
            self.note(format!("{} under {}: {what}", t.file, t.runner), t);
        }
    }

    /// A failed bound, and the row it came from (once per row).
    fn note(&mut self, failed: String, t: &Truth) {
        self.failed.push(failed);
        let row = format!("{} under {}: {:?}", t.file, t.runner, t.row);
        if !self.rows.contains(&row) {
            self.rows.push(row);
        }
    }

    /// Panics with every failed bound, and the rows they came from.
    pub fn finish(self) {
        assert!(
            self.failed.is_empty(),
            "{} bounds failed:\n{}\nrows:\n{}",
            self.failed.len(),
            self.failed.join("\n"),
            self.rows.join("\n")
        );
    }
}

/// Held by every real-time truth experiment while it runs: their bounds are
/// derived for one experiment at a time on the machine.
pub fn real_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Thread wake-ups one emulated link traversal adds in real time to a line
/// without delay whose consumer is paced as slowly: the link's timer, and
/// the writer that sends the frame when it is due (the next forwarder's
/// reader wakes cold in both lines).
pub const WAKES_PER_TRAVERSAL: f64 = 2.0;

/// How late this machine wakes a thread from an idle 10 ms sleep now, in µs:
/// the median lateness of 25 sleeps (the kernel's wake-up latency and timer
/// slack, which grow with the machine's load). The real-time bounds allow it
/// [`WAKES_PER_TRAVERSAL`] times per link traversal; an emulator late by a
/// millisecond tick per traversal (tokio's timer wheel) exceeds that
/// allowance on an idle machine by an order of magnitude.
pub fn wake_up_us() -> f64 {
    let want = Duration::from_millis(10);
    let mut late: Vec<f64> = (0..25)
        .map(|_| {
            let t = Instant::now();
            std::thread::sleep(want);
            (t.elapsed() - want).as_secs_f64() * 1e6
        })
        .collect();
    late.sort_by(f64::total_cmp);
    late[late.len() / 2]
}
