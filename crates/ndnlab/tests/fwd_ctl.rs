//! `ndnlab ctl` against a real `ndnlab fwd` process: every verb, text and --json.

mod fwd_common;

use fwd_common::Fwd;

#[test]
fn ctl_verbs_round_trip() {
    let fwd = Fwd::start("ctl", "[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n");
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let remote = format!("udp4://{}", peer.local_addr().unwrap());

    let st = fwd.ctl_ok(&["status"]);
    assert!(st.contains("version=ndnlab"), "{st}");
    assert!(
        st.contains("Limits:") && st.contains("pit_max_entries=1048576"),
        "{st}"
    );
    assert!(
        st.contains("Drops:") && st.contains("pit-face-full=0"),
        "{st}"
    );
    let st = fwd.ctl_json(&["status"]);
    assert!(st["startTimestamp"].as_u64().unwrap() > 0);
    assert_eq!(st["limits"]["pit_max_entries_per_face"], 262144, "{st}");
    assert_eq!(st["drops"]["interest-rate-limit"], 0, "{st}");

    let created = fwd.ctl_ok(&["face", "create", &remote]);
    assert!(created.starts_with("face-created id="), "{created}");
    let again = fwd.ctl_ok(&["face", "create", &remote]);
    assert!(again.starts_with("face-exists"), "{again}");
    let list = fwd.ctl_ok(&["face", "list"]);
    assert!(
        list.lines()
            .any(|l| l.contains(&format!("remote={remote}")) && l.contains("non-local")),
        "{list}"
    );
    let faces = fwd.ctl_json(&["face", "list"]);
    let id = faces
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["remote"] == remote.as_str())
        .unwrap()["faceId"]
        .as_u64()
        .unwrap();

    let add = fwd.ctl_ok(&["route", "add", "/ctl/a", &remote, "--cost", "5"]);
    assert_eq!(
        add.trim(),
        format!("route-add-accepted prefix=/ctl/a nexthop={id} origin=static cost=5 flags=child-inherit expires=never")
    );
    let routes = fwd.ctl_ok(&["route", "list"]);
    assert!(
        routes.contains(&format!(
            "prefix=/ctl/a nexthop={id} origin=static cost=5 flags=child-inherit expires=never"
        )),
        "{routes}"
    );
    let fib = fwd.ctl_ok(&["fib", "list"]);
    assert!(
        fib.contains(&format!("/ctl/a nexthops={{faceid={id} (cost=5)}}")),
        "{fib}"
    );
    let fibj = fwd.ctl_json(&["fib", "list"]);
    assert!(fibj
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "/ctl/a" && e["nexthops"][0]["faceId"] == id));
    fwd.ctl_ok(&["route", "remove", "/ctl/a", &id.to_string()]);
    assert!(!fwd.ctl_ok(&["route", "list"]).contains("/ctl/a"));

    let set = fwd.ctl_ok(&[
        "strategy",
        "set",
        "/ctl/m",
        "/localhost/nfd/strategy/multicast",
    ]);
    assert!(
        set.contains("strategy=/localhost/nfd/strategy/multicast/v="),
        "{set}"
    );
    assert!(fwd
        .ctl_ok(&["strategy", "list"])
        .contains("prefix=/ctl/m strategy=/localhost/nfd/strategy/multicast"));
    fwd.ctl_ok(&["strategy", "unset", "/ctl/m"]);
    assert!(!fwd.ctl_ok(&["strategy", "list"]).contains("/ctl/m"));
    let (ok, out) = fwd.ctl(&["strategy", "set", "/x", "/no/such/strategy"]);
    assert!(!ok && out.contains("404"), "{out}");

    fwd.ctl_ok(&["cs", "config", "--capacity", "1234", "--serve", "off"]);
    let info = fwd.ctl_ok(&["cs", "info"]);
    assert!(
        info.contains("capacity=1234") && info.contains("serve=off") && info.contains("admit=on"),
        "{info}"
    );
    let csj = fwd.ctl_json(&["cs", "info"]);
    assert_eq!(csj["capacity"], 1234);
    let erased = fwd.ctl_json(&["cs", "erase", "/"]);
    assert_eq!(erased["statusCode"], 200);

    let destroyed = fwd.ctl_ok(&["face", "destroy", &remote]);
    assert!(
        destroyed.starts_with(&format!("face-destroyed id={id}")),
        "{destroyed}"
    );
    assert!(!fwd.ctl_ok(&["face", "list"]).contains(&remote));
}

#[test]
fn ctl_finds_the_socket_through_ndn_client_transport() {
    let fwd = Fwd::start("ctlenv", "");
    let out = std::process::Command::new(fwd_common::bin())
        .args(["ctl", "status"])
        .env("NDN_CLIENT_TRANSPORT", fwd.transport())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (ok, err) = {
        let o = std::process::Command::new(fwd_common::bin())
            .args(["ctl", "status", "--socket", "/nonexistent/x.sock"])
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert!(!ok && err.contains("cannot connect"), "{err}");
    // The cause is named once, not once more by the error chain.
    assert_eq!(err.matches("os error").count(), 1, "{err}");
}

#[test]
fn prometheus_metrics_endpoint_exports_counters() {
    use ndnlab_fwd::process::handshake;
    use std::io::{Read, Write};
    let dir = fwd_common::temp_dir("metrics");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(fwd_common::bin())
        .args(["fwd", "--log-level", "warn", "--metrics", &addr, "--socket"])
        .arg(dir.join("s.sock"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let ready = handshake::watch(out).recv_timeout(handshake::READY);
    assert!(ready.is_ok(), "ndnlab fwd --metrics not ready");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(body.starts_with("HTTP/1.1 200 OK"), "{body}");
    assert!(body.contains("ndnlab_in_interests_total "), "{body}");
    assert!(body.contains("ndnlab_shard_queue_drops_total "), "{body}");
}

#[test]
fn ctl_face_options_in_nfdc_syntax() {
    let fwd = Fwd::start(
        "ctlopt",
        "[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n[faces.tcp]\nlisten = [\"127.0.0.1:0\"]\n",
    );
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let remote = format!("udp4://{}", peer.local_addr().unwrap());
    let out = fwd.ctl_ok(&[
        "face",
        "create",
        &remote,
        "persistency",
        "permanent",
        "reliability",
        "on",
        "congestion-marking-interval",
        "40",
        "default-congestion-threshold",
        "20000",
        "mtu",
        "1300",
    ]);
    assert!(out.starts_with("face-created id="), "{out}");
    for want in [
        "persistency=permanent",
        "reliability=on",
        "congestion-marking=on",
        "congestion-marking-interval=40ms",
        "default-congestion-threshold=20000B",
        "mtu=1300",
    ] {
        assert!(out.contains(want), "{want} in {out}");
    }
    let list = fwd.ctl_ok(&["face", "list"]);
    let line = list
        .lines()
        .find(|l| l.contains(&format!("remote={remote}")))
        .expect("listed");
    assert!(
        line.contains("lp-reliability") && line.contains("mtu=1300"),
        "{line}"
    );
    // Existing face, no options: face-exists; with options: updated.
    assert!(fwd
        .ctl_ok(&["face", "create", &remote])
        .starts_with("face-exists"));
    let out = fwd.ctl_ok(&["face", "create", &remote, "congestion-marking", "off"]);
    assert!(
        out.starts_with("face-updated") && out.contains("congestion-marking=off"),
        "{out}"
    );
    // Refusals carry the forwarder's code and reason.
    let tcp = fwd
        .listening
        .iter()
        .find(|l| l.starts_with("tcp4"))
        .unwrap()
        .clone();
    let (ok, out) = fwd.ctl(&["face", "create", &tcp, "reliability", "on"]);
    assert!(!ok && out.contains("406") && out.contains("UDP"), "{out}");
    let (ok, out) = fwd.ctl(&["face", "update", &remote, "local-fields", "on"]);
    assert!(
        !ok && out.contains("409") && out.contains("LocalFields"),
        "{out}"
    );
    let (ok, out) = fwd.ctl(&["face", "create", &remote, "reliability", "maybe"]);
    assert!(!ok && out.contains("on or off"), "{out}");
    let (ok, out) = fwd.ctl(&["face", "update", "999999", "mtu", "1400"]);
    assert!(!ok && out.contains("404"), "{out}");
    let j = fwd.ctl_json(&["face", "update", &remote, "reliability", "off"]);
    assert_eq!(j["statusCode"], 200);
    assert_eq!(j["parameters"]["flags"].as_u64().unwrap() & 2, 0);
}

/// `ndnlab ctl latency` (table and --json) on a forwarder timing every packet, with
/// ping traffic through it; the raw log has the documented columns; a log without a
/// sampling rate is refused with the key named.
#[test]
fn ctl_latency_table_json_and_raw_log() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = fwd_common::temp_dir("ctl-latency");
    let log = dir.join("lat.csv");
    let fwd = Fwd::start(
        "ctl-latency",
        &format!(
            "[latency]\nsample = 1\nlog = {:?}\n",
            log.display().to_string()
        ),
    );
    let off = fwd.ctl_ok(&["latency"]);
    assert!(off.contains("(no samples yet)"), "{off}");
    let sock = fwd.socket.display().to_string();
    let mut server = Command::new(fwd_common::bin())
        .args(["ping", "server", "/lat/ping", "--socket", &sock])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ping = |count: &str| {
        Command::new(fwd_common::bin())
            .args(["ping", "/lat/ping", "-c", count, "-i", "20", "-t", "1000"])
            .args(["--socket", &sock])
            .output()
            .unwrap()
    };
    // The server registers asynchronously.
    let t0 = Instant::now();
    while !ping("1").status.success() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "ping server never answered"
        );
    }
    assert!(ping("5").status.success());
    let _ = server.kill();
    let _ = server.wait();

    let table = fwd.ctl_ok(&["latency"]);
    assert!(table.starts_with("latency: 1 packet in 1 timed"), "{table}");
    let row = table
        .lines()
        .find(|l| l.starts_with("total") && l.contains(" all "))
        .unwrap_or_else(|| panic!("{table}"));
    assert_eq!(row.split_whitespace().count(), 8, "{row}");
    let j = fwd.ctl_json(&["latency"]);
    assert_eq!(j["enabled"], true);
    let entries = j["entries"].as_array().unwrap();
    let data = entries
        .iter()
        .find(|e| e["stage"] == "fwd" && e["class"] == "data")
        .unwrap();
    assert!(data["count"].as_u64().unwrap() >= 6, "{j}");

    // Reading the dataset wrote the raw log out.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() as u64 >= j["samples_recorded"].as_u64().unwrap() - 1);
    assert!(rows.iter().any(|r| r[1] == "interest" && r[2] == "miss"));
    assert!(rows.iter().any(|r| r[1] == "data" && r[2] == "-"));

    let out = Command::new(fwd_common::bin())
        .args(["fwd", "--latency-log"])
        .arg(dir.join("x.csv"))
        .args(["--socket"])
        .arg(dir.join("x.sock"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("latency.log"), "{err}");
}

/// `[[management.authorize]]`: `ctl --key` signs with a keychain key; the
/// forwarder runs commands signed by the listed key for its modules only, and
/// refuses the rest with NFD's 403 "authorization rejected".
/// A keychain (`ndnlab key gen`) under a temp dir with `/admin` and `/other`, and
/// `/admin`'s exported certificate: (dir, keychain, certificate file).
fn admin_keychain(tag: &str) -> (std::path::PathBuf, String, std::path::PathBuf) {
    let keys = fwd_common::temp_dir(tag);
    let kc = keys.join("keychain").to_string_lossy().into_owned();
    let key = |args: &[&str]| {
        let out = std::process::Command::new(fwd_common::bin())
            .args(["key", "--keychain", &kc])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "key {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    key(&["gen", "/admin"]);
    key(&["gen", "/other"]);
    let cert = keys.join("admin.ndncert");
    key(&["export-cert", "/admin", "-o", cert.to_str().unwrap()]);
    (keys, kc, cert)
}

#[test]
fn ctl_key_signs_commands_for_an_authorizing_forwarder() {
    let (keys, kc, cert) = admin_keychain("ctl-keys");
    let kc_s = kc.as_str();
    let fwd = Fwd::start(
        "ctl-auth",
        &format!(
            "[[management.authorize]]\ncertfile = \"{}\"\nprivileges = [\"strategy-choice\"]\n",
            cert.display()
        ),
    );
    let set = [
        "strategy",
        "set",
        "/auth",
        "/localhost/nfd/strategy/multicast",
    ];
    let with = |name: &str| {
        let mut a = vec!["--keychain", kc_s, "--key", name];
        a.extend_from_slice(&set);
        fwd.ctl(&a)
    };
    let (ok, out) = with("/admin");
    assert!(ok && out.starts_with("strategy-set"), "{out}");
    let (ok, out) = with("/other");
    assert!(
        !ok && out.contains("403") && out.contains("authorization rejected"),
        "{out}"
    );
    // The admin key holds no `rib` privilege.
    let (ok, out) = fwd.ctl(&[
        "--keychain",
        kc_s,
        "--key",
        "/admin",
        "route",
        "add",
        "/r",
        "1",
    ]);
    assert!(!ok && out.contains("authorization rejected"), "{out}");
    // Datasets need no signature; the refusals are counted.
    let st = fwd.ctl_json(&["status"]);
    assert_eq!(st["drops"]["command-unknown-key"], 1, "{st}");
    assert_eq!(st["drops"]["command-unauthorized"], 1, "{st}");
    let strategies = fwd.ctl_ok(&["strategy", "list"]);
    assert!(strategies.contains("/auth"), "{strategies}");
    let _ = std::fs::remove_dir_all(keys);
}

/// The apps sign their prefix registrations with `--command-key`; python-ndn's
/// `NDNApp.register` (DigestSha256) registers only where `rib` is granted to
/// `certfile = "any"`.
#[test]
fn apps_register_with_command_key_and_python_ndn_needs_any() {
    let (keys, kc, cert) = admin_keychain("app-keys");
    let grant = |who: &str| {
        format!("[[management.authorize]]\ncertfile = \"{who}\"\nprivileges = [\"rib\"]\n")
    };
    let fwd = Fwd::start("app-auth", &grant(&cert.display().to_string()));
    let sock = fwd.socket.to_string_lossy().into_owned();
    let perf_server = |extra: &[&str]| {
        let mut a = vec![
            "perf",
            "server",
            "--prefix",
            "/ps",
            "--duration",
            "0.5",
            "--json",
            "--socket",
            &sock,
        ];
        a.extend_from_slice(extra);
        std::process::Command::new(fwd_common::bin())
            .args(&a)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let o = perf_server(&["--keychain", &kc, "--command-key", "/admin"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = perf_server(&[]);
    assert!(!o.status.success(), "an unsigned registration was accepted");
    let mut prod = fwd_common::Py::spawn("fwd_producer.py", &fwd.transport(), &["/py/a"]);
    prod.expect_line("register-failed", std::time::Duration::from_secs(20));
    drop(prod);
    let open = Fwd::start("app-auth-any", &grant("any"));
    let mut prod = fwd_common::Py::spawn("fwd_producer.py", &open.transport(), &["/py/b"]);
    prod.expect_line("registered", std::time::Duration::from_secs(20));
    let _ = std::fs::remove_dir_all(keys);
}
