//! Two `ndnlab fwd` processes over UDP on 127.0.0.1 with NDNLPv2 reliability on
//! both ends of the link (turned on with `ndnlab ctl face create ... reliability
//! on`, nfdc's syntax), carrying fragmented Data between python-ndn apps. Loss
//! repair itself is tested without processes (crates/ndnlab-fwd: the sans-IO unit
//! tests and tests/lp_reliability.rs, through a lossy relay).

mod fwd_common;

use std::time::Duration;

use fwd_common::{Fwd, Py};

const UDP: &str = "[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n";

fn face_json(fwd: &Fwd, remote: &str) -> serde_json::Value {
    fwd.ctl_json(&["face", "list"])
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["remote"] == remote)
        .cloned()
        .unwrap_or_else(|| panic!("no face {remote}"))
}

#[test]
fn two_forwarders_with_lp_reliability_carry_fragmented_data() {
    let a = Fwd::start("rela", UDP);
    let b = Fwd::start("relb", UDP);
    let (a_udp, b_udp) = (a.listener("udp4"), b.listener("udp4"));
    // Each side's face toward the other's listener, reliability on (flag bit 1).
    let out = a.ctl_ok(&["face", "create", &b_udp, "reliability", "on"]);
    assert!(out.starts_with("face-created id="), "{out}");
    assert!(out.contains("reliability=on"), "{out}");
    let out = b.ctl_ok(&["face", "create", &a_udp, "reliability", "on"]);
    assert!(out.contains("reliability=on"), "{out}");
    let id = face_json(&a, &b_udp)["faceId"].as_u64().unwrap();
    a.ctl_ok(&["route", "add", "/rel", &id.to_string()]);

    let mut prod = Py::spawn(
        "fwd_producer.py",
        &b.transport(),
        &["/rel", "--size", "5000"],
    );
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &a.transport(),
        &["/rel", "--count", "300", "--size", "5000", "--window", "16"],
    )
    .finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 300, "{r}");

    for (fwd, remote) in [(&a, &b_udp), (&b, &a_udp)] {
        let f = face_json(fwd, remote);
        assert_eq!(f["flags"].as_u64().unwrap() & 2, 2, "{f}");
        let line = fwd.ctl_ok(&["face", "list"]);
        assert!(
            line.lines()
                .any(|l| l.contains(&format!("remote={remote}")) && l.contains("lp-reliability")),
            "{line}"
        );
    }
    // (Ack and retransmission counters are asserted in crates/ndnlab-fwd's
    // tests/lp_reliability.rs, which can read them in-process.)
    let b_out = face_json(&b, &a_udp)["nOutBytes"].as_u64().unwrap();
    assert!(b_out > 300 * 5000, "{b_out}");

    // nfdc's update through create, then `face update`; bad changes are refused.
    let out = a.ctl_ok(&[
        "face",
        "create",
        &b_udp,
        "reliability",
        "off",
        "mtu",
        "1400",
    ]);
    assert!(out.starts_with("face-updated"), "{out}");
    assert!(
        out.contains("reliability=off") && out.contains("mtu=1400"),
        "{out}"
    );
    let out = a.ctl_ok(&[
        "face",
        "update",
        &b_udp,
        "persistency",
        "permanent",
        "reliability",
        "on",
    ]);
    assert!(
        out.contains("persistency=permanent") && out.contains("reliability=on"),
        "{out}"
    );
    let (ok, out) = a.ctl(&["face", "update", &id.to_string(), "local-fields", "on"]);
    assert!(!ok && out.contains("409"), "{out}");
    let j = a.ctl_json(&[
        "face",
        "update",
        &id.to_string(),
        "congestion-marking-interval",
        "50",
    ]);
    assert_eq!(j["statusCode"], 200);
    assert_eq!(j["parameters"]["baseCongestionMarkingInterval"], 50_000_000);
}
