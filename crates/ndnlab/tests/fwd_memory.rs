//! Memory of a real `ndnlab fwd` process: a 1 GiB CS (and a PIT bound of 4 million
//! entries) allocates nothing up front. Read from the daemon's own
//! `/proc/PID/status`; it asserts on memory, never on speed.

mod fwd_common;

use fwd_common::*;

/// The daemon's resident memory in bytes (`VmRSS`).
fn vm_rss(fwd: &FwdProcess) -> u64 {
    let pid = fwd.child.as_ref().expect("running").id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS in /proc/PID/status");
    kib * 1024
}

#[test]
fn a_1_gib_content_store_daemon_starts_small() {
    let big = Fwd::start(
        "mem1g",
        "[cs]\ncapacity = 4000000\ncapacity_bytes = 1073741824\n\
         [limits]\npit_max_entries = 4194304\npit_max_entries_per_face = 1048576\n",
    );
    let small = Fwd::start("mem1m", "[cs]\ncapacity = 1000\ncapacity_bytes = 1048576\n");
    // both answer management, so both are fully up
    big.ctl_ok(&["status"]);
    small.ctl_ok(&["status"]);
    let (b, s) = (vm_rss(&big), vm_rss(&small));
    println!(
        "VmRSS: 1 GiB CS {} KiB, 1 MiB CS {} KiB",
        b / 1024,
        s / 1024
    );
    assert!(
        b < 64 << 20,
        "a daemon with a 1 GiB CS is {b} bytes resident at start"
    );
    assert!(
        b < s + (8 << 20),
        "a 1 GiB CS costs {} bytes more than a 1 MiB one at start",
        b.saturating_sub(s)
    );
}
