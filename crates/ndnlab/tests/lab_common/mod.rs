//! What the laboratory's test binaries (`lab`, `truth`) share: running `ndnlab
//! run` on an experiment file, reading its `results.csv` back, and whether the
//! `netns` runner can run here.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// Why the netns runner cannot run here, if it cannot: the runner's own check
/// (root, iproute2, and a probe namespace created and deleted), made once per
/// test process.
pub fn netns_unavailable() -> Option<&'static str> {
    static WHY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    WHY.get_or_init(ndnlab_lab::runner::netns::unavailable)
        .as_deref()
}

/// Whether the netns runner can run here; says why not ([`ndnlab_testkit::skip`]).
pub fn netns_or_skip() -> bool {
    match netns_unavailable() {
        Some(why) => {
            ndnlab_testkit::skip(why);
            false
        }
        None => true,
    }
}

/// `ndnlab run <exp> --out <out> <extra...>` with the binary under test.
pub fn run(exp: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .arg("run")
        .arg(exp)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run ndnlab")
}

/// The rows of `results.csv` (no field of these experiments holds a comma).
pub fn rows(out: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// The metric `k` of a row as a number (a missing one panics, naming the row).
pub fn num(row: &BTreeMap<String, String>, k: &str) -> f64 {
    row.get(k)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number {k} in {row:?}"))
}
