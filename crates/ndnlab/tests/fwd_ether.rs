//! Ethernet faces between two `ndnlab fwd` processes, each in its own network
//! namespace joined by a veth pair that the test creates (and always deletes).
//! 8 KB Data (fragmented to the 1500-byte MTU) is fetched with `ndnlab perf`
//! through a unicast face created with `ctl face create ether://[MAC] local
//! dev://IF` and through the multicast faces. Needs root and `ip netns`; skipped
//! with a message otherwise. Face creation errors are checked without root.

mod fwd_common;

use std::process::{Command, Output};
use std::time::Duration;

use fwd_common::{bin, FwdProcess};
use serde_json::Value;

/// NDN's default Ethernet multicast group.
const GROUP: &str = "01:00:5e:00:17:aa";

fn ip(args: &[&str]) -> Output {
    Command::new("ip")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run ip {args:?}: {e}"))
}

fn ip_ok(args: &[&str]) {
    let out = ip(args);
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two namespaces joined by a veth pair; both namespaces (and so the pair) are
/// deleted on drop, whatever happened in between.
struct VethPair {
    ns: [String; 2],
    dev: [String; 2],
    mac: [String; 2],
}

impl VethPair {
    /// `None` (after saying why, [`ndnlab_testkit::skip`]) when this process
    /// cannot make namespaces: not root, no `ip`, or `ip netns add` refused (a
    /// container without the capability).
    fn create(tag: &str) -> Option<VethPair> {
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        if !root {
            ndnlab_testkit::skip("Ethernet face tests need root (network namespaces, raw sockets)");
            return None;
        }
        if Command::new("ip").arg("-V").output().is_err() {
            ndnlab_testkit::skip("no `ip` (iproute2) on the PATH");
            return None;
        }
        let pid = std::process::id();
        let pair = VethPair {
            ns: [
                format!("ndnlab-{tag}-a-{pid}"),
                format!("ndnlab-{tag}-b-{pid}"),
            ],
            // At most 15 characters.
            dev: [format!("e{tag}a{pid}"), format!("e{tag}b{pid}")],
            mac: [
                format!("02:00:00:{:02x}:{:02x}:0a", pid & 0xff, (pid >> 8) & 0xff),
                format!("02:00:00:{:02x}:{:02x}:0b", pid & 0xff, (pid >> 8) & 0xff),
            ],
        };
        for (k, ns) in pair.ns.iter().enumerate() {
            let out = ip(&["netns", "add", ns]);
            if !out.status.success() {
                if k > 0 {
                    ip(&["netns", "del", &pair.ns[0]]);
                }
                ndnlab_testkit::skip(format!(
                    "cannot create a network namespace: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
                return None;
            }
        }
        ip_ok(&[
            "link",
            "add",
            &pair.dev[0],
            "netns",
            &pair.ns[0],
            "type",
            "veth",
            "peer",
            "name",
            &pair.dev[1],
            "netns",
            &pair.ns[1],
        ]);
        for i in 0..2 {
            ip_ok(&[
                "-n",
                &pair.ns[i],
                "link",
                "set",
                "dev",
                &pair.dev[i],
                "address",
                &pair.mac[i],
            ]);
            ip_ok(&[
                "-n",
                &pair.ns[i],
                "link",
                "set",
                "dev",
                &pair.dev[i],
                "mtu",
                "1500",
            ]);
            ip_ok(&["-n", &pair.ns[i], "link", "set", "dev", &pair.dev[i], "up"]);
            ip_ok(&["-n", &pair.ns[i], "link", "set", "dev", "lo", "up"]);
        }
        Some(pair)
    }

    /// An `ndnlab fwd` in namespace `i` with Ethernet faces on its end of the pair.
    fn fwd(&self, i: usize, tag: &str) -> FwdProcess {
        let extra = format!("[faces.ether]\nwhitelist = [\"{}\"]\n", self.dev[i]);
        FwdProcess::start_under(bin(), &["ip", "netns", "exec", &self.ns[i]], tag, &extra)
    }

    /// [`fwd`](Self::fwd) that also serves Prometheus metrics on 127.0.0.1:9100 of
    /// its namespace (`sh` appends the flag to the daemon's command line and execs).
    fn fwd_with_metrics(&self, i: usize, tag: &str) -> FwdProcess {
        let extra = format!("[faces.ether]\nwhitelist = [\"{}\"]\n", self.dev[i]);
        let wrapper = [
            "ip",
            "netns",
            "exec",
            &self.ns[i],
            "sh",
            "-c",
            "exec \"$0\" \"$@\" --metrics 127.0.0.1:9100",
        ];
        FwdProcess::start_under(bin(), &wrapper, tag, &extra)
    }

    /// Runs python3 `code` in namespace `i`; `None` when there is no python3.
    fn python(&self, i: usize, code: &str) -> Option<String> {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.ns[i], "python3", "-c", code])
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "python3 in {}: {}",
            self.ns[i],
            String::from_utf8_lossy(&out.stderr)
        );
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        for ns in &self.ns {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

fn faces(f: &FwdProcess) -> Vec<Value> {
    f.ctl_json(&["face", "list"])
        .as_array()
        .expect("face list is an array")
        .clone()
}

fn face_with_remote(f: &FwdProcess, remote: &str) -> Option<Value> {
    faces(f).into_iter().find(|x| x["remote"] == remote)
}

/// `perf server` on `f` for `prefix` (8 KB Data), running for `secs`.
fn perf_server(f: &FwdProcess, prefix: &str, secs: u32) -> std::process::Child {
    Command::new(bin())
        .args(["perf", "server", "--prefix", prefix, "--payload", "8192"])
        .args(["--duration", &secs.to_string(), "--socket", f.sock()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn perf server")
}

/// Runs `perf client` on `f` for two seconds; returns its JSON summary.
fn perf_client(f: &FwdProcess, prefix: &str) -> Value {
    let out = Command::new(bin())
        .args(["perf", "client", "--prefix", prefix, "--duration", "2"])
        .args(["--window", "8", "--json", "--socket", f.sock()])
        .output()
        .expect("run perf client");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .unwrap_or_else(|| {
            panic!(
                "no perf summary: {text} {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

/// Waits until the perf server on `f` has registered `prefix`.
fn wait_route(f: &FwdProcess, prefix: &str) {
    let ok = ndnlab_testkit::wait_until(Duration::from_secs(20), || {
        f.ctl_json(&["route", "list"])
            .as_array()
            .is_some_and(|a| a.iter().any(|r| r["name"] == prefix))
    });
    assert!(ok, "{prefix} never registered");
}

fn n(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("no {k} in {v}"))
}

#[test]
fn unicast_ethernet_face_carries_fragmented_8kb_data_between_namespaces() {
    let Some(veth) = VethPair::create("u") else {
        return;
    };
    let a = veth.fwd(0, "ethua");
    let b = veth.fwd(1, "ethub");
    assert!(
        a.listening
            .iter()
            .any(|l| l == &format!("dev://{}", veth.dev[0])),
        "{:?}",
        a.listening
    );
    // nfdc's syntax: the peer's MAC on our interface.
    let remote = format!("ether://[{}]", veth.mac[1]);
    let local = format!("dev://{}", veth.dev[0]);
    let r = a.ctl_json(&["face", "create", &remote, "local", &local]);
    let id = r["parameters"]["faceId"].as_u64().expect("face id");
    a.ctl_ok(&["route", "add", "/ether/u", &id.to_string()]);
    let mut server = perf_server(&b, "/ether/u", 30);
    wait_route(&b, "/ether/u");
    let s = perf_client(&a, "/ether/u");
    let _ = server.kill();
    let _ = server.wait();
    assert!(n(&s, "data") > 0, "{s}");
    assert_eq!(n(&s, "bytes"), n(&s, "data") * 8192, "{s}");

    // A's face: as created; B's: on demand, from A's first frame.
    let fa = face_with_remote(&a, &remote).expect("A's Ethernet face");
    assert_eq!(fa["local"], local);
    assert_eq!(n(&fa, "scope"), 0, "non-local");
    assert_eq!(n(&fa, "persistency"), 0, "persistent");
    assert_eq!(n(&fa, "linkType"), 0, "point-to-point");
    assert_eq!(n(&fa, "mtu"), 1500);
    assert!(n(&fa, "nOutInterests") >= n(&s, "data"), "{fa}");
    assert!(n(&fa, "nInData") >= n(&s, "data"), "{fa}");
    // Each Data came in several fragments: more bytes than the payloads.
    assert!(n(&fa, "nInBytes") > n(&s, "bytes"), "{fa}");
    let fb = face_with_remote(&b, &format!("ether://[{}]", veth.mac[0]))
        .expect("B's on-demand Ethernet face");
    assert_eq!(fb["local"], format!("dev://{}", veth.dev[1]));
    assert_eq!(n(&fb, "persistency"), 1, "on-demand");
    assert!(n(&fb, "nInInterests") >= n(&s, "data"), "{fb}");
    // The same face again: 409 with its id (nfdc reports it).
    let (_, out) = a.ctl(&["face", "create", &remote, "local", &local, "--json"]);
    assert!(out.contains(&id.to_string()), "{out}");
}

#[test]
fn multicast_ethernet_faces_carry_data_between_namespaces() {
    let Some(veth) = VethPair::create("m") else {
        return;
    };
    let a = veth.fwd(0, "ethma");
    let b = veth.fwd(1, "ethmb");
    let group = format!("ether://[{GROUP}]");
    let ma = face_with_remote(&a, &group).expect("A's multicast face");
    assert_eq!(ma["local"], format!("dev://{}", veth.dev[0]));
    assert_eq!(n(&ma, "linkType"), 1, "multi-access");
    assert_eq!(n(&ma, "persistency"), 2, "permanent");
    assert_eq!(n(&ma, "scope"), 0);
    a.ctl_ok(&["route", "add", "/ether/m", &n(&ma, "faceId").to_string()]);
    let mut server = perf_server(&b, "/ether/m", 30);
    wait_route(&b, "/ether/m");
    let s = perf_client(&a, "/ether/m");
    let _ = server.kill();
    let _ = server.wait();
    assert!(n(&s, "data") > 0, "{s}");
    let ma = face_with_remote(&a, &group).unwrap();
    assert!(n(&ma, "nInData") >= n(&s, "data"), "{ma}");
    let mb = face_with_remote(&b, &group).expect("B's multicast face");
    assert!(n(&mb, "nInInterests") >= n(&s, "data"), "{mb}");
    assert!(n(&mb, "nOutData") >= n(&s, "data"), "{mb}");
    // Group frames do not create unicast faces.
    assert!(
        !faces(&b)
            .iter()
            .any(|f| f["remote"] == format!("ether://[{}]", veth.mac[0])),
        "no on-demand face from multicast frames"
    );
}

fn mac_bytes(mac: &str) -> String {
    format!("bytes.fromhex('{}')", mac.replace(':', ""))
}

/// Frames the daemon must refuse, sent raw from A's namespace to B: each is dropped
/// and counted by its reason, and B still forwards afterwards.
#[test]
fn malformed_frames_are_dropped_and_counted() {
    let Some(veth) = VethPair::create("x") else {
        return;
    };
    if !Command::new("python3")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        ndnlab_testkit::skip("no python3 to send raw frames with");
        return;
    }
    let b = veth.fwd_with_metrics(1, "ethxb");
    let (a_mac, b_mac) = (mac_bytes(&veth.mac[0]), mac_bytes(&veth.mac[1]));
    let other = mac_bytes("02:00:00:00:00:ff");
    let send = format!(
        "import socket\n\
         s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n\
         s.bind(('{dev}', 0))\n\
         t = bytes.fromhex('8624')\n\
         pad = bytes(46)\n\
         frames = [\n\
           {b_mac} + {a_mac} + t + pad,\n\
           {b_mac} + {a_mac} + t + bytes.fromhex('64fdffff') + bytes(42),\n\
           {other} + {a_mac} + t + bytes.fromhex('0503070100') + bytes(41),\n\
           {b_mac} + {b_mac} + t + bytes.fromhex('0503070100') + bytes(41),\n\
           {b_mac} + {a_mac} + t + bytes.fromhex('6404fe01ff00') + bytes(40),\n\
           {b_mac} + {a_mac} + t,\n\
         ]\n\
         for f in frames: s.send(f)\n",
        dev = veth.dev[0],
    );
    if veth.python(0, &send).is_none() {
        ndnlab_testkit::skip("python3 does not run in the namespace");
        return;
    }
    let metrics = |want: &[&str]| -> String {
        let mut text = String::new();
        ndnlab_testkit::wait_until(Duration::from_secs(10), || {
            text = veth
                .python(
                    1,
                    "import urllib.request\n\
                     print(urllib.request.urlopen('http://127.0.0.1:9100/metrics').read().decode())",
                )
                .unwrap_or_default();
            want.iter().all(|w| text.contains(w))
        });
        text
    };
    let dev = &veth.dev[1];
    let want: Vec<String> = [
        ("bad-tlv", 1),
        ("truncated", 1),
        ("other-destination", 1),
        ("from-self", 1),
        ("too-short", 1),
    ]
    .iter()
    .map(|(r, v)| format!("ndnlab_ether_frame_drops_total{{dev=\"{dev}\",reason=\"{r}\"}} {v}"))
    .collect();
    let want_refs: Vec<&str> = want.iter().map(String::as_str).collect();
    let text = metrics(&want_refs);
    for w in &want {
        assert!(text.contains(w.as_str()), "missing {w} in\n{text}");
    }
    // The well-framed LpPacket with a bad field reached A's on-demand face on B,
    // whose link service dropped it.
    let fb = face_with_remote(&b, &format!("ether://[{}]", veth.mac[0]))
        .expect("B's on-demand face for A");
    let id = n(&fb, "faceId");
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "ndnlab_face_drops_total{{face=\"{id}\",reason=\"malformed\"}} "
        )) && !l.ends_with(" 0")),
        "no malformed drop on face {id}:\n{text}"
    );
    // B still forwards.
    let a = veth.fwd(0, "ethxa");
    let r = a.ctl_json(&[
        "face",
        "create",
        &format!("ether://[{}]", veth.mac[1]),
        "local",
        &format!("dev://{}", veth.dev[0]),
    ]);
    let id = r["parameters"]["faceId"].as_u64().expect("face id");
    a.ctl_ok(&["route", "add", "/ether/x", &id.to_string()]);
    let mut server = perf_server(&b, "/ether/x", 30);
    wait_route(&b, "/ether/x");
    let s = perf_client(&a, "/ether/x");
    let _ = server.kill();
    let _ = server.wait();
    assert!(n(&s, "data") > 0, "{s}");
}

/// faces/create refusals, as NFD's EthernetFactory words and numbers them.
#[test]
fn bad_ethernet_face_requests_are_refused_clearly() {
    let f = FwdProcess::start(bin(), "ethbad", "");
    let err = |args: &[&str]| {
        let (ok, out) = f.ctl(args);
        assert!(!ok, "{args:?} should fail: {out}");
        out
    };
    let out = err(&["face", "create", "ether://[08:00:27:01:01:01]"]);
    assert!(out.contains("406") && out.contains("dev://"), "{out}");
    let out = err(&[
        "face",
        "create",
        "ether://[01:00:5e:00:17:aa]",
        "local",
        "dev://lo",
    ]);
    assert!(out.contains("406") && out.contains("multicast"), "{out}");
    let out = err(&[
        "face",
        "create",
        "ether://[08:00:27:01:01:01]",
        "local",
        "dev://nosuchif0",
    ]);
    assert!(
        out.contains("504") && out.contains("no network interface named 'nosuchif0'"),
        "{out}"
    );
    let out = err(&["face", "create", "ether://08:00:27:01:01:01"]);
    assert!(out.contains("400") && out.contains("brackets"), "{out}");
    let out = err(&[
        "face",
        "create",
        "ether://[08:00:27:01:01]",
        "local",
        "dev://x",
    ]);
    assert!(
        out.contains("400") && out.contains("not a MAC address"),
        "{out}"
    );
    let out = err(&[
        "face",
        "create",
        "ether://[08:00:27:01:01:01]",
        "local",
        "udp4://127.0.0.1:6363",
    ]);
    assert!(out.contains("406"), "{out}");
    let out = err(&[
        "face",
        "create",
        "udp4://127.0.0.1:6363",
        "local",
        "dev://lo",
    ]);
    assert!(out.contains("406") && out.contains("LocalUri"), "{out}");
}
