//! python-ndn apps (unmodified library, scripts in interop/) through the forwarder
//! running in this process on a temp Unix socket.

mod common;

use std::time::Duration;

use common::{Py, TestFwd};

#[test]
fn producer_registers_and_consumer_fetches_1000() {
    let fwd = TestFwd::start("py1000", |_| {});
    let t = fwd.transport();
    let mut prod = Py::spawn("fwd_producer.py", &t, &["/ndnlab/p", "--size", "100"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let cons = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/p", "--count", "1000", "--size", "100"],
    );
    let r = cons.finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 1000, "{r}");
}

#[test]
fn appv2_registers_with_signed_interest_v03() {
    let fwd = TestFwd::start("pyv2", |_| {});
    let t = fwd.transport();
    let mut prod = Py::spawn(
        "fwd_producer.py",
        &t,
        &["/ndnlab/v2", "--size", "300", "--api", "v2"],
    );
    prod.expect_line("registered", Duration::from_secs(20));
    let cons = Py::spawn(
        "fwd_consumer.py",
        &t,
        &[
            "/ndnlab/v2",
            "--count",
            "50",
            "--size",
            "300",
            "--api",
            "v2",
        ],
    );
    let r = cons.finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 50, "{r}");
}

#[test]
fn unregistered_prefix_gets_nack_and_unregister_works() {
    let fwd = TestFwd::start("pynack", |_| {});
    let t = fwd.transport();
    let cons = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/nobody", "--expect-fail", "--lifetime", "1000"],
    );
    let r = cons.finish_json(Duration::from_secs(30));
    assert_eq!(r["outcome"], "nack", "{r}");

    let mut prod = Py::spawn("fwd_producer.py", &t, &["/ndnlab/u"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn("fwd_consumer.py", &t, &["/ndnlab/u", "--count", "5"])
        .finish_json(Duration::from_secs(30));
    assert_eq!(r["fetched"], 5, "{r}");
    prod.send("unregister");
    prod.expect_line("unregistered", Duration::from_secs(10));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/u", "--expect-fail", "--lifetime", "1000"],
    )
    .finish_json(Duration::from_secs(30));
    assert_ne!(r["outcome"], "data", "{r}");
}

#[test]
fn closed_app_face_releases_its_prefix() {
    let fwd = TestFwd::start("pyclose", |_| {});
    let t = fwd.transport();
    let mut a = Py::spawn("fwd_producer.py", &t, &["/ndnlab/same", "--size", "10"]);
    a.expect_line("registered", Duration::from_secs(20));
    drop(a); // killed: its face closes, its routes go
    let mut b = Py::spawn("fwd_producer.py", &t, &["/ndnlab/same", "--size", "20"]);
    b.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/same", "--count", "20", "--size", "20"],
    )
    .finish_json(Duration::from_secs(30));
    assert_eq!(r["fetched"], 20, "{r}");
    let mut c = fwd.client();
    let rib = c.dataset("rib", "list").unwrap();
    let recs = ndnlab_proto::mgmt::dataset::decode_records(
        ndnlab_proto::mgmt::dataset::DatasetKind::Rib,
        &rib,
    )
    .unwrap();
    let same: Vec<_> = recs
        .iter()
        .filter(|r| r.text("name") == Some("/ndnlab/same"))
        .collect();
    assert_eq!(same.len(), 1);
    assert_eq!(
        same[0].all("route").count(),
        1,
        "the dead producer's route is gone"
    );
}

#[test]
fn concurrent_apps_all_register() {
    // NFD rejects DigestSha256 commands whose timestamps collide across apps; we must not.
    let fwd = TestFwd::start("pyconc", |_| {});
    let t = fwd.transport();
    let mut apps: Vec<Py> = (0..8)
        .map(|i| Py::spawn("fwd_producer.py", &t, &[&format!("/ndnlab/c{i}")]))
        .collect();
    for a in &mut apps {
        a.expect_line("registered", Duration::from_secs(30));
    }
}

#[test]
fn four_forwarding_shards_serve_python_apps() {
    // Interests spread over shards by the Name Dispatch Table; python-ndn does not
    // echo PIT tokens, so its Data is dispatched by name.
    let fwd = TestFwd::start("pyshards", |c| {
        c.forwarder.threads = 4;
        c.forwarder.dispatch_components = 3;
    });
    let t = fwd.transport();
    let mut prod = Py::spawn("fwd_producer.py", &t, &["/ndnlab/s", "--size", "100"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let cons = Py::spawn(
        "fwd_consumer.py",
        &t,
        &["/ndnlab/s", "--count", "300", "--size", "100"],
    );
    let r = cons.finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 300, "{r}");
}

#[test]
fn python_ndn_nfdc_reads_our_datasets() {
    // python-ndn's own nfdc: signed dataset Interests, its own TLV models.
    let fwd = TestFwd::start("pynfdc", |_| {});
    let run = |args: &[&str]| {
        let out = std::process::Command::new(common::python())
            .args(["-m", "ndn.bin.nfdc"])
            .args(args)
            .env("HOME", common::python_home())
            .env("NDN_CLIENT_TRANSPORT", fwd.transport())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let st = run(&["status"]);
    assert!(st.contains("ndnlab"), "{st}");
    assert!(st.contains("nFibEntries"), "{st}");
    let mut prod = Py::spawn("fwd_producer.py", &fwd.transport(), &["/ndnlab/nfdc"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let routes = run(&["route"]);
    assert!(routes.contains("/ndnlab/nfdc"), "{routes}");
    let faces = run(&["face"]);
    assert!(faces.contains("unix://"), "{faces}");
    let strategies = run(&["strategy"]);
    assert!(strategies.contains("best-route"), "{strategies}");
}

#[test]
fn python_over_tcp_from_loopback_is_a_local_face() {
    // python-ndn sends /localhost commands over TCP too: loopback TCP must be local.
    let fwd = TestFwd::start("pytcp", |c| {
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()]
    });
    let tcp = fwd.listener("tcp4").replace("tcp4://", "tcp://");
    let mut prod = Py::spawn("fwd_producer.py", &tcp, &["/ndnlab/tcp", "--size", "500"]);
    prod.expect_line("registered", Duration::from_secs(20));
    let r = Py::spawn(
        "fwd_consumer.py",
        &tcp,
        &["/ndnlab/tcp", "--count", "200", "--size", "500"],
    )
    .finish_json(Duration::from_secs(60));
    assert_eq!(r["fetched"], 200, "{r}");
}
