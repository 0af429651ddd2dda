//! Large segments and per-link counters: 64 KiB segments cross an mtu-1500
//! link as NDNLPv2 fragments and arrive byte-exact (the get checks the object's
//! SHA-256), under `inproc` and `sim`; each link direction counts its frames and
//! its drops by cause with known answers (a seeded loss link, a rate-limited
//! link with a small queue, an MTU-limited link without fragmentation); and
//! the combinations no forwarder can carry are refused up front by key.

use std::path::PathBuf;

use ndnlab_lab::experiment;
use ndnlab_lab::runner::{by_name, Metrics, RunPlan};
use ndnlab_proto::emu::{EmuDrop, LinkEmulator};

fn out(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-links-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `text` once with seed 1; returns its metrics and the links' CSV.
fn run_one(tag: &str, runner: &str, text: &str) -> (Metrics, String) {
    let (_, exp) = experiment::parse(text, "test.toml").unwrap();
    let plan = RunPlan::new(0, 1, exp).unwrap();
    let dir = out(tag);
    let m = by_name(runner)
        .unwrap()
        .run(&plan, &dir)
        .unwrap_or_else(|e| panic!("{runner}: {e:#}"));
    let csv = std::fs::read_to_string(dir.join("samples/links/0.csv")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (m, csv)
}

const SIZE: u64 = 4 * 65536 + 1000;

fn large(mtu: usize) -> String {
    format!(
        r#"
[experiment]
duration_s = 2.0
warmup_s = 0.1
[topology]
kind = "line"
n = 2
[link]
mtu = {mtu}
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
    )
}

fn check_large(m: &Metrics, csv: &str) {
    // the get verified the object's SHA-256 (a mismatch fails the run)
    assert!(m["download_time_s"] > 0.0, "{m:?}");
    assert_eq!(m["link_drops_mtu.r1-r0"], 0.0, "{m:?}");
    // four segments of 64 KiB, each cut into ~45 fragments of <= 1500 bytes
    let frames = m["link_frames.r1-r0"];
    assert!(frames >= 4.0 * 44.0, "{m:?}");
    assert!(m["link_bytes.r1-r0"] >= SIZE as f64, "{m:?}");
    assert!(m["link_bytes.r1-r0"] <= frames * 1500.0, "{m:?}");
    let header = csv.lines().next().unwrap_or("");
    assert!(
        header.starts_with("t_s,link,direction,queue_frames,queue_bytes,frames,bytes"),
        "{header}"
    );
    assert!(csv.lines().any(|l| l.contains(",r0-r1,r1-r0,")), "{csv}");
}

#[test]
fn segments_of_64_kib_cross_an_mtu_1500_link_intact_inproc() {
    let (m, csv) = run_one("large-inproc", "inproc", &large(1500));
    check_large(&m, &csv);
}

#[test]
fn segments_of_64_kib_cross_an_mtu_1500_link_intact_in_virtual_time() {
    let (m, csv) = run_one("large-sim", "sim", &large(1500));
    check_large(&m, &csv);
}

const PAIR: &str = r#"
[experiment]
duration_s = 0.4
warmup_s = 0.1
[topology]
kind = "line"
n = 2
[apps.c]
kind = "consumer"
nodes = ["first"]
window = 8
lifetime_ms = 100
[apps.p]
kind = "producer"
nodes = ["last"]
payload = 1000
"#;

/// How many of the first `sent` frames the emulator of link 0's direction
/// `a`→`b` (seeded as the runners seed it, run seed 1) loses at `loss`.
fn expected_losses(loss: f64, sent: u64) -> u64 {
    let seed = 1u64.wrapping_mul(0x100_0000_01B3);
    let p = ndnlab_proto::emu::LinkParams {
        loss,
        ..Default::default()
    };
    let mut e = LinkEmulator::new(p, seed);
    (0..sent)
        .filter(|&i| e.send(i, bytes::Bytes::from_static(b"x")) == Err(EmuDrop::Lost))
        .count() as u64
}

#[test]
fn a_seeded_loss_link_counts_exactly_what_it_dropped() {
    for runner in ["inproc", "sim"] {
        let text = format!("{PAIR}[link]\nloss_pct = 20.0\n");
        let (m, _) = run_one(&format!("loss-{runner}"), runner, &text);
        let sent = m["link_frames.r0-r1"] as u64;
        assert!(sent > 20, "{runner}: {m:?}");
        let lost = m["link_drops_loss.r0-r1"] as u64;
        assert_eq!(lost, expected_losses(0.2, sent), "{runner}: {m:?}");
        assert!(m["link_drops_loss.r1-r0"] > 0.0, "{runner}: {m:?}");
        assert_eq!(m["link_drops_queue.r0-r1"], 0.0, "{runner}: {m:?}");
    }
}

#[test]
fn a_rate_limited_link_with_a_small_queue_counts_queue_drops() {
    // 1000-byte Data at 1 Mbit/s take 8 ms each: a window of 32 overflows a
    // queue of 2 frames on the way back.
    let text = format!("{PAIR}[link]\nbandwidth_mbps = 1.0\nqueue = 2\n")
        .replace("window = 8", "window = 32")
        .replace("lifetime_ms = 100", "lifetime_ms = 200");
    for runner in ["inproc", "sim"] {
        let (m, _) = run_one(&format!("queue-{runner}"), runner, &text);
        assert!(m["link_drops_queue.r1-r0"] > 0.0, "{runner}: {m:?}");
        assert!(m["link_queue_max.r1-r0"] <= 2.0, "{runner}: {m:?}");
        assert_eq!(m["link_drops_loss.r1-r0"], 0.0, "{runner}: {m:?}");
        assert!(m["data"] > 0.0, "{runner}: {m:?}");
    }
}

#[test]
fn an_mtu_limited_link_without_fragmentation_counts_mtu_drops() {
    // 1000-byte payloads fit in 1500; 3000-byte ones do not, and are not cut.
    let text = format!("{PAIR}[link]\nmtu = 1500\nfragment = false\n")
        .replace("payload = 1000", "payload = 3000");
    let (m, _) = run_one("mtu", "inproc", &text);
    let dropped = m["link_drops_mtu.r1-r0"];
    assert!(dropped > 0.0, "{m:?}");
    // every Data the producer sent was too large: none arrived
    assert_eq!(m["data"], 0.0, "{m:?}");
    assert_eq!(m["link_frames.r1-r0"], 0.0, "{m:?}");
    assert_eq!(m["link_drops_mtu.r0-r1"], 0.0, "{m:?}");
}

fn refused(text: &str) -> String {
    match experiment::parse(text, "t.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn combinations_no_forwarder_carries_are_refused_by_key() {
    let big = PAIR.replace("payload = 1000", "payload = 65536");
    // sized from the payload by default
    let (_, exp) = experiment::parse(&big, "t.toml").unwrap();
    assert_eq!(
        exp.packet_limit(&exp.forwarder, exp.largest_data().unwrap()),
        65536 + 800
    );
    let e = refused(&format!("{big}[forwarder]\nmax_packet_size = 8800\n"));
    assert!(
        e.contains("apps.p.payload = 65536") && e.contains("forwarder.max_packet_size = 8800"),
        "{e}"
    );
    let e = refused(&format!(
        "{big}[link]\nmtu = 1500\n[nodes.r1]\nmax_packet_size = 9000\n"
    ));
    assert!(e.contains("nodes.r1.max_packet_size = 9000"), "{e}");
    let e = refused(&PAIR.replace("payload = 1000", "payload = 65537"));
    assert!(e.contains("apps.p.payload must be at most 65536"), "{e}");
    let e = refused(&format!("{PAIR}[forwarder]\nmax_packet_size = 100\n"));
    assert!(e.contains("forwarder.max_packet_size"), "{e}");
    let e = refused(&format!("{PAIR}[link]\nfragment = false\n"));
    assert!(e.contains("link.fragment") && e.contains("mtu"), "{e}");
    let nfd = format!(
        "{}[nodes.r1]\nkind = \"nfd\"\n",
        big.replace("[experiment]\n", "[experiment]\nrunner = \"processes\"\n")
            .replace("duration_s = 0.4", "duration_s = 1.5")
    );
    let e = refused(&nfd);
    assert!(e.contains("nodes.r1.kind") && e.contains("8800"), "{e}");
    // 8000 bytes fit NFD's 8800, and so do 8192 signed with RSA-2048: the
    // check measures the Data, not the payload plus a margin
    experiment::parse(&nfd.replace("payload = 65536", "payload = 8000"), "t.toml").unwrap();
    let rsa = nfd.replace(
        "payload = 65536",
        "payload = 8192\nsignature = \"rsa-2048\"",
    );
    let (_, exp) = experiment::parse(&rsa, "t.toml").unwrap();
    let largest = exp.largest_data().unwrap();
    assert!((8192 + 256..8800).contains(&largest), "{largest}");
    // a name long enough to push it past 8800 is refused, naming the key
    let long = rsa.replace(
        "lifetime_ms = 100",
        "lifetime_ms = 100\nname_components = 100",
    );
    let e = refused(&long);
    assert!(e.contains("nodes.r1.kind") && e.contains("8800"), "{e}");
    // NFD's counters come from a cache fresh for 1 s: a shorter window is refused
    let e = refused(&rsa.replace("duration_s = 1.5", "duration_s = 1.0"));
    assert!(
        e.contains("experiment.duration_s") && e.contains("nodes.r1.kind"),
        "{e}"
    );
}
