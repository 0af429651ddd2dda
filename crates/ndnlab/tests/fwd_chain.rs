//! Two and three `ndnlab fwd` processes chained over UDP and TCP on 127.0.0.1 with
//! python-ndn apps at the ends; 100 KB Data fragmented over UDP; a forwarder that
//! dies mid-transfer.

mod fwd_common;

use std::time::Duration;

use fwd_common::{Fwd, Py};

const UDP: &str = "[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n";
const TCP: &str = "[faces.tcp]\nlisten = [\"127.0.0.1:0\"]\n";

/// 100 KB Data need forwarders that accept packets beyond NDN's 8800 bytes (a
/// key of the `[forwarder]` table the test forwarder's configuration ends with,
/// so it comes first in `extra`).
const BIG: &str = "max_packet_size = 110000\n";

#[test]
fn two_forwarders_over_udp_carry_100kb_data() {
    let a = Fwd::start("u2a", &format!("{BIG}{UDP}"));
    let b = Fwd::start("u2b", &format!("{BIG}{UDP}"));
    a.link(&b, "udp4", "/big");
    let mut prod = Py::spawn(
        "fwd_producer.py",
        &b.transport(),
        &["/big", "--size", "100000"],
    );
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &a.transport(),
        &["/big", "--count", "30", "--size", "100000", "--window", "4"],
    )
    .finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 30, "{r}");
}

#[test]
fn three_forwarders_over_tcp_then_udp() {
    let a = Fwd::start("c3a", TCP);
    let b = Fwd::start("c3b", &format!("{TCP}{UDP}"));
    let c = Fwd::start("c3c", UDP);
    a.link(&b, "tcp4", "/chain");
    b.link(&c, "udp4", "/chain");
    let mut prod = Py::spawn(
        "fwd_producer.py",
        &c.transport(),
        &["/chain", "--size", "8000"],
    );
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &a.transport(),
        &["/chain", "--count", "500", "--size", "8000"],
    )
    .finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 500, "{r}");
}

#[test]
fn face_to_a_dead_forwarder_is_destroyed() {
    let a = Fwd::start("dia", TCP);
    let mut b = Fwd::start("dib", TCP);
    let face = a.link(&b, "tcp4", "/die");
    let mut prod = Py::spawn(
        "fwd_producer.py",
        &b.transport(),
        &["/die", "--size", "1000"],
    );
    prod.expect_line("registered", Duration::from_secs(20));
    // A transfer runs while B is killed: B dies once 100 Data came through.
    let mut cons = Py::spawn(
        "fwd_consumer.py",
        &a.transport(),
        &[
            "/die",
            "--count",
            "3000",
            "--size",
            "1000",
            "--lifetime",
            "1000",
            "--progress",
            "100",
        ],
    );
    cons.expect_line("progress", Duration::from_secs(30));
    b.kill();
    let r = cons.finish_json(Duration::from_secs(60));
    let fetched = r["fetched"].as_u64().unwrap();
    assert!(fetched > 0 && fetched < 3000, "{r}");
    // A closed the TCP face (socket error) and dropped its route; A still serves.
    let faces = a.ctl_json(&["face", "list"]);
    assert!(
        !faces
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["faceId"] == face),
        "{faces}"
    );
    let routes = a.ctl_json(&["route", "list"]);
    assert!(
        !routes
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "/die"),
        "{routes}"
    );
    let st = a.ctl_json(&["status"]);
    assert!(st["nInInterests"].as_u64().unwrap() >= fetched);
}
