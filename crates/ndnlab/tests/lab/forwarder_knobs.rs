//! The forwarder keys of seeds 003 and 004 under the `processes` runner: every
//! `ndnlab fwd` verifies Data signatures with the producers' keys in its
//! `[[forwarder.trust]]`, and two forwarding threads take the names of four
//! producer prefixes dispatched on two components.

use std::process::Command;

const SIGNED: &str = r#"
[experiment]
runner = "processes"
duration_s = 1.0
warmup_s = 0.5
[topology]
kind = "line"
n = 2
[link]
face = "udp"
[forwarder]
verify_data = "signature"
threads = 2
dispatch_components = 2
cs_capacity = 0
[apps.client]
kind = "consumer"
nodes = ["first"]
prefix = "/k"
prefixes = 4
window = 8
[apps.server]
kind = "producer"
nodes = ["last"]
prefix = "/k"
prefixes = 4
payload = 100
signature = "ecdsa-p256"
"#;

#[test]
fn daemon_processes_verify_signatures_with_the_producers_keys() {
    let d = std::env::temp_dir().join(format!("ndnlab-knobs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, SIGNED).unwrap();
    let out = d.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(["run", "--json", "--out", out.to_str().unwrap()])
        .arg(&f)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["failed"], 0, "{summary}");
    let m = &summary["points"][0]["means"];
    // a Data whose key were not trusted would be dropped at the first forwarder
    assert!(m["data"].as_f64().unwrap() > 0.0, "{m}");
    assert_eq!(m["satisfaction"].as_f64(), Some(1.0), "{m}");
    let conf = std::fs::read_to_string(out.join("nodes/0/r0.toml")).unwrap();
    assert!(
        conf.contains("verify_data = \"signature\"") && conf.contains("[[forwarder.trust]]"),
        "{conf}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
