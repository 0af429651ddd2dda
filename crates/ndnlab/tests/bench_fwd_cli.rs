//! `ndnlab bench fwd`: the defaults it reports and its refusal of bad settings
//! (in-process transport: no sockets, a fraction of a second).

use std::process::Command;

fn bench_fwd(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(["bench", "fwd", "--transport", "inproc", "--duration", "0.3"])
        .args(args)
        .output()
        .expect("run ndnlab")
}

#[test]
fn defaults_small_payload_window_4096_pool_8192() {
    let o = bench_fwd(&["--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["window"], 4096);
    assert_eq!(v["data_pool"], 8192);
    assert_eq!(v["nacks"], 0);
    assert!(v["exchanges"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn defaults_large_payload_window_256() {
    let o = bench_fwd(&["--json", "--payload", "8192"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["window"], 256);
    assert_eq!(v["data_pool"], 8192);
}

#[test]
fn pool_smaller_than_window_is_refused() {
    let o = bench_fwd(&["--window", "64", "--data-pool", "10"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--data-pool"), "{err}");
}
