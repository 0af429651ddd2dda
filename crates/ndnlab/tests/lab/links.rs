//! Large segments under the `processes` runner: `ndnlab put` publishes 64 KiB
//! segments, `ndnlab get` fetches them across two `ndnlab fwd` processes over a
//! UDP link with an mtu of 1500 (NDNLPv2 fragments, reassembled by the next
//! forwarder, whose packet limit the lab raises), and checks the object's
//! SHA-256; the daemons' `ndnlab/links` datasets give the per-link counters.

use std::process::Command;

const SIZE: u64 = 4 * 65536 + 1000;

#[test]
fn segments_of_64_kib_cross_an_mtu_1500_udp_link_between_processes() {
    let text = format!(
        r#"
[experiment]
runner = "processes"
duration_s = 2.0
warmup_s = 0.2
[topology]
kind = "line"
n = 2
[link]
face = "udp"
mtu = 1500
[apps.put]
kind = "put"
nodes = ["last"]
prefix = "/big"
payload = 65536
size = {SIZE}
[apps.get]
kind = "get"
nodes = ["first"]
prefix = "/big"
window = 2
"#
    );
    let d = std::env::temp_dir().join(format!("ndnlab-proc-large-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    let out = d.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args([
            "run",
            "--json",
            "--out",
            out.to_str().unwrap(),
            f.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap_or_default();
    // a wrong SHA-256 of the object fails the run
    assert_eq!(summary["failed"], 0, "{summary}\n{log}");
    let m = &summary["points"][0]["means"];
    let num = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {m}"));
    assert!(num("download_time_s") > 0.0, "{m}");
    // the daemons raised their limit from the payload
    let conf = std::fs::read_to_string(out.join("nodes/0/r0.toml")).unwrap();
    assert!(conf.contains("max_packet_size = 66336"), "{conf}");
    // four 64 KiB segments in fragments of at most 1500 bytes, none too large
    assert!(num("link_frames.r1-r0") >= 4.0 * 44.0, "{m}");
    assert!(num("link_bytes.r1-r0") >= SIZE as f64, "{m}");
    assert_eq!(num("link_drops_mtu.r1-r0"), 0.0, "{m}");
    let csv = std::fs::read_to_string(out.join("samples/links/0.csv")).unwrap();
    assert!(
        csv.starts_with("t_s,link,direction,queue_frames,queue_bytes,"),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
