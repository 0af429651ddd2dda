//! python-ndn apps (unmodified library) through a real `ndnlab fwd` process.

mod fwd_common;

use std::process::Command;
use std::time::Duration;

use fwd_common::{bin, Fwd, Py};

#[test]
fn python_producer_and_consumer_exchange_1000_data() {
    let fwd = Fwd::start("py", "");
    let t = fwd.transport();
    let mut prod = Py::spawn("fwd_producer.py", &t, &["/ndnlab/p", "--size", "100"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/p", "--count", "1000", "--size", "100"],
    )
    .finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 1000, "{r}");
    // Unregistered prefix: Nack (or timeout), never Data.
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/none", "--expect-fail", "--lifetime", "1000"],
    )
    .finish_json(Duration::from_secs(30));
    assert_eq!(r["outcome"], "nack", "{r}");
    // Unregister works.
    prod.send("unregister");
    prod.expect_line("unregistered", Duration::from_secs(10));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/p", "--expect-fail", "--lifetime", "1000"],
    )
    .finish_json(Duration::from_secs(30));
    assert_ne!(r["outcome"], "data", "{r}");
}

#[test]
fn python_face_survives_forwarder_restart() {
    let mut fwd = Fwd::start("pyrestart", "");
    let t = fwd.transport();
    let mut prod = Py::spawn("fwd_producer.py", &t, &["/ndnlab/r", "--size", "10"]);
    prod.expect_line("registered", Duration::from_secs(20));
    // Clean stop: the socket file is removed.
    assert!(fwd.stop(), "SIGTERM stop exits 0");
    assert!(!fwd.socket.exists(), "Unix socket removed on stop");
    prod.expect_line("disconnected", Duration::from_secs(10));
    fwd.spawn();
    // The app reconnects and registers again, as with NFD.
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/r", "--count", "20", "--size", "10"],
    )
    .finish_json(Duration::from_secs(30));
    assert_eq!(r["fetched"], 20, "{r}");
    // A crash leaves a stale socket: the next start cleans it up.
    fwd.kill();
    assert!(fwd.socket.exists());
    fwd.spawn();
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/r", "--count", "20", "--size", "10"],
    )
    .finish_json(Duration::from_secs(30));
    assert_eq!(r["fetched"], 20, "{r}");
}

#[test]
fn refuses_to_start_when_socket_or_port_is_taken() {
    let fwd = Fwd::start("taken", "[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n");
    let out = Command::new(bin())
        .args(["fwd", "--socket"])
        .arg(&fwd.socket)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use"), "{err}");
    let udp = fwd
        .listener("udp4")
        .trim_start_matches("udp4://")
        .to_string();
    let other = fwd.dir.join("other.sock");
    let out = Command::new(bin())
        .args(["fwd", "--socket"])
        .arg(&other)
        .args(["--udp", &udp])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&udp) && err.contains("cannot bind"), "{err}");
    // Unknown config keys are errors naming the key.
    let bad = fwd.dir.join("bad.toml");
    std::fs::write(&bad, "[cs]\ncapacty = 1\n").unwrap();
    let out = Command::new(bin())
        .args(["fwd", "--config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("capacty"));
}
