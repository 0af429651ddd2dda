//! What the CLI tests of analysis and model commands share: a scratch directory,
//! running the binary, and checking success or a failure's message.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh scratch directory `ndnlab-<kind>-<tag>-<pid>` under the temp dir.
pub fn tmp(kind: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-{kind}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the `ndnlab` binary under test.
pub fn ndnlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .output()
        .expect("run ndnlab")
}

/// Its stdout, after asserting success.
pub fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Asserts exit code 1 and that stderr holds every needle.
pub fn fails(o: Output, needles: &[&str]) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected failure, got {:?}",
        o.status
    );
    let err = String::from_utf8_lossy(&o.stderr);
    for n in needles {
        assert!(err.contains(n), "stderr {err:?} lacks {n:?}");
    }
}
