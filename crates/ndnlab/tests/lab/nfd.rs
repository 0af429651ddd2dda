//! NFD nodes (`kind = "nfd"`) under the `processes` runner with the real
//! binaries: a line of three NFDs, a mixed line (ndnlab fwd, NFD, ndnlab fwd),
//! `kind` as a factor, and emulated delay through the relay. These run when
//! `nfd` is on the PATH or NDNLAB_NFD names it, and are skipped with a message
//! otherwise; what is refused by key runs always.

use crate::ndnlab;

/// Whether NFD is there; says why the test is skipped when not.
fn have_nfd() -> bool {
    if std::env::var_os("NDNLAB_NFD").is_some() {
        return true;
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("nfd").is_file()));
    if !on_path {
        ndnlab_testkit::skip("no `nfd` on the PATH and NDNLAB_NFD is not set");
    }
    on_path
}

const BASE: &str = r#"
[experiment]
runner = "processes"
duration_s = 1.5
warmup_s = 0.5
[topology]
kind = "line"
n = 3
[link]
face = "udp"
[apps.client]
kind = "consumer"
nodes = ["first"]
window = 4
[apps.server]
kind = "producer"
nodes = ["last"]
payload = 1000
"#;

/// Runs `text` (BASE plus more) and returns the summary and the output dir.
fn run(tag: &str, text: &str) -> (serde_json::Value, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("ndnlab-nfd-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    let out = d.join("out");
    let o = ndnlab(&[
        "run",
        "--json",
        "--out",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (summary, out)
}

/// The run logs of a campaign, for failure messages.
fn logs(out: &std::path::Path) -> String {
    let mut s = String::new();
    for e in walk(out) {
        if e.extension().is_some_and(|x| x == "log") {
            s += &format!(
                "== {}\n{}\n",
                e.display(),
                std::fs::read_to_string(&e).unwrap_or_default()
            );
        }
    }
    s
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn assert_carried(summary: &serde_json::Value, out: &std::path::Path, point: usize) {
    assert_eq!(summary["failed"], 0, "{summary}\n{}", logs(out));
    let m = &summary["points"][point]["means"];
    assert!(m["data"].as_f64().unwrap() > 0.0, "{m}");
    assert_eq!(m["satisfaction"].as_f64(), Some(1.0), "{m}");
}

#[test]
fn a_line_of_three_nfds_carries_data() {
    if !have_nfd() {
        return;
    }
    let (s, out) = run("line", &format!("{BASE}\n[forwarder]\nkind = \"nfd\"\n"));
    assert_carried(&s, &out, 0);
    let m = &s["points"][0]["means"];
    // NFD's own counters (status/general) and CPU (/proc) of each node
    assert!(m["fwd_interests_per_sec.r1"].as_f64().unwrap() > 0.0, "{m}");
    // the middle NFD's faces (faces/list, read at the window's close: a
    // consumer's face may be gone by then, the links' faces are not)
    // forwarded Interests and returned Data for them
    let (interests, data) = super::processes::face_sums(&out, "r1");
    assert!(data > 0.0 && interests >= data, "{interests} {data}");
    // a process uses at most the machine's cores (10% for the clocks' ticks)
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    for k in ["cpu_cores.r0", "cpu_cores.r1", "cpu_cores.r2"] {
        assert!(
            m[k].as_f64().is_some_and(|c| c > 0.0 && c <= cores * 1.1),
            "{k}: {m}"
        );
    }
    let conf = std::fs::read_to_string(out.join("nodes/0/r1.nfd.conf")).unwrap();
    assert!(conf.contains("cs_max_packets 65536"), "{conf}");
    assert!(!out.join("nodes/0/r1.toml").exists());
}

#[test]
fn a_mixed_line_with_emulated_delay() {
    if !have_nfd() {
        return;
    }
    // ndnlab fwd, NFD, ndnlab fwd: each ndnlab end emulates what it sends,
    // the relays what the NFD in the middle sends
    let delay = 10.0;
    let text = format!(
        "{}\n[nodes.r1]\nkind = \"nfd\"\n",
        BASE.replace(
            "face = \"udp\"",
            &format!("face = \"udp\"\ndelay_ms = {delay}")
        )
    );
    let (s, out) = run("mixed", &text);
    assert_carried(&s, &out, 0);
    let m = &s["points"][0]["means"];
    assert!(out.join("nodes/0/r0.toml").exists());
    assert!(out.join("nodes/0/r1.nfd.conf").exists());
    let fabric = std::fs::read_to_string(out.join("nodes/0/fabric.txt")).unwrap();
    assert!(
        fabric.contains("relay r0-r1") && fabric.contains("emulates r1->r0"),
        "{fabric}"
    );
    assert_delay(m, delay);
}

/// Four emulated transmissions of `delay_ms` per exchange (two links, both
/// ways): the median delivery time is at least that, and not much more (one
/// Interest in flight per slot of a small window, nothing queued).
fn assert_delay(m: &serde_json::Value, delay_ms: f64) {
    let p50 = m["delay_p50_us"].as_f64().unwrap();
    let floor = 4.0 * delay_ms * 1000.0;
    assert!(p50 >= floor, "median {p50} us < {floor} us: {m}");
    assert!(
        p50 <= floor + 30_000.0,
        "median {p50} us > {floor} + 30 ms: {m}"
    );
}

#[test]
fn emulated_delay_between_nfds() {
    if !have_nfd() {
        return;
    }
    let delay = 10.0;
    let text = format!(
        "{}\n[forwarder]\nkind = \"nfd\"\n",
        BASE.replace(
            "face = \"udp\"",
            &format!("face = \"udp\"\ndelay_ms = {delay}")
        )
    );
    let (s, out) = run("delay", &text);
    assert_carried(&s, &out, 0);
    assert_delay(&s["points"][0]["means"], delay);
}

#[test]
fn kind_is_a_factor() {
    if !have_nfd() {
        return;
    }
    let text = format!("{BASE}\n[factors]\n\"forwarder.kind\" = [\"ndnlab\", \"nfd\"]\n");
    let (s, out) = run("factor", &text);
    let points = s["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{s}");
    for i in 0..2 {
        assert_carried(&s, &out, i);
    }
    // one run of each kind
    assert!(out.join("nodes/0/r1.toml").exists() != out.join("nodes/1/r1.toml").exists());
    assert!(out.join("nodes/0/r1.nfd.conf").exists() != out.join("nodes/1/r1.nfd.conf").exists());
}

#[test]
fn what_nfd_nodes_cannot_do_is_refused_by_key() {
    // no NFD needed: both are refused before anything starts
    let inproc = BASE.replace("runner = \"processes\"", "runner = \"inproc\"");
    let d = std::env::temp_dir().join(format!("ndnlab-nfd-refuse-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let f = d.join("inproc.toml");
    std::fs::write(&f, format!("{inproc}\n[nodes.r1]\nkind = \"nfd\"\n")).unwrap();
    let o = ndnlab(&["run", "--dry-run", f.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nodes.r1.kind") && err.contains("inproc"),
        "{err}"
    );
    // an emulated TCP link under processes (here with an NFD end, whose relay
    // is UDP): a point the runner cannot carry out, skipped with the reason
    let tcp = BASE.replace("face = \"udp\"", "face = \"tcp\"\ndelay_ms = 5.0");
    let (s, out) = run(
        "refuse-tcp",
        &format!("{tcp}\n[nodes.r2]\nkind = \"nfd\"\n"),
    );
    assert_eq!(s["not_applicable"], 1, "{s}");
    let log = std::fs::read_to_string(out.join("logs/0.log")).unwrap();
    assert!(log.contains("face 'tcp' with a delay"), "{log}");
    let _ = std::fs::remove_dir_all(&d);
}
