//! Floods against a real daemon: one face floods Interests with unique names (under
//! a prefix routed to a producer that never answers, so every Interest would hold a
//! PIT entry for its whole lifetime) as fast as it can write, while a consumer on
//! another face fetches from a live producer. The PIT stays within its bounds, the
//! bounds count when they bite, and the consumer keeps its satisfaction ratio.
//!
//! `FLOOD_SECS` sets the flood's length (2 s here; `scripts/flood.sh` runs 60 s),
//! `FLOOD_PER_FACE=0` turns the per-face PIT bound off (to measure what it takes:
//! the checks on the consumer are then skipped) and `FLOOD_REPORT` names a file
//! where the figures are written as JSON.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_wire::{Interest, Name, Packet};

const PIT_MAX: usize = 20_000;
const PIT_PER_FACE: usize = 5_000;

fn register(c: &mut RawFace, prefix: &str) {
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(Name::from_uri(prefix).unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
}

/// `(nPitEntries, limits text)` from the daemon's datasets.
fn status(c: &mut RawFace) -> (u64, String) {
    let g = c.dataset("status", "general").unwrap();
    let rec = decode_records(DatasetKind::General, &g).unwrap();
    let pit = rec[0].num("nPitEntries").unwrap_or(0);
    let l = c.dataset("status", "limits").unwrap();
    (pit, String::from_utf8_lossy(&l).into_owned())
}

fn counter(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in\n{text}"))
}

/// Resident memory of this process in bytes (the daemon runs in it).
fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = s
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

#[test]
fn a_unique_name_flood_on_one_face_leaves_the_pit_bounded_and_the_others_served() {
    let secs: f64 = std::env::var("FLOOD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let per_face: usize = std::env::var("FLOOD_PER_FACE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(PIT_PER_FACE);
    let fwd = TestFwd::start("flood", |c| {
        c.limits.pit_max_entries = PIT_MAX;
        c.limits.pit_max_entries_per_face = per_face;
        c.cs.capacity = 1000;
    });
    let served = producer(&fwd, "/legit", 100, usize::MAX);
    // The black hole: registered for /flood, reads nothing.
    let mut hole = fwd.client();
    register(&mut hole, "/flood");
    let stop = Arc::new(AtomicBool::new(false));
    let flooded = Arc::new(AtomicU64::new(0));

    let flooder = {
        let (stop, flooded, mut f) = (stop.clone(), flooded.clone(), fwd.client());
        std::thread::spawn(move || {
            let mut n = 0u64;
            let mut batch = Vec::with_capacity(64 * 1024);
            while !stop.load(Relaxed) {
                batch.clear();
                for _ in 0..500 {
                    let name = Name::from_uri(&format!("/flood/{n}")).unwrap();
                    batch.extend_from_slice(&Interest::builder(name).nonce(n as u32).build());
                    n += 1;
                }
                if f.send_raw(&batch).is_err() {
                    break;
                }
                flooded.store(n, Relaxed);
            }
        })
    };

    // The legitimate consumer: one Interest at a time (lifetime 1 s), unique names.
    let mut legit = fwd.client();
    let mut mon = fwd.client();
    let (mut sent, mut satisfied, mut pit_max_seen, mut i) = (0u64, 0u64, 0u64, 0u64);
    let start = Instant::now();
    let mut next_sample = start;
    let rss_start = rss_bytes();
    let mut rss_max = rss_start;
    while start.elapsed().as_secs_f64() < secs {
        let name = Name::from_uri(&format!("/legit/{i}")).unwrap();
        i += 1;
        let wire = Interest::builder(name.clone())
            .nonce(i as u32)
            .lifetime_ms(1000)
            .build();
        legit.send_raw(&wire).unwrap();
        sent += 1;
        let deadline = Instant::now() + Duration::from_millis(1000);
        while Instant::now() < deadline {
            match legit.recv_packet(deadline - Instant::now()) {
                Ok(Some(Packet::Data(d))) if d.name() == &name => {
                    satisfied += 1;
                    break;
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        if Instant::now() >= next_sample {
            next_sample += Duration::from_millis(250);
            let (pit, _) = status(&mut mon);
            pit_max_seen = pit_max_seen.max(pit);
            rss_max = rss_max.max(rss_bytes());
        }
    }
    stop.store(true, Relaxed);
    flooder.join().unwrap();
    let (pit_end, text) = status(&mut mon);
    pit_max_seen = pit_max_seen.max(pit_end);
    let ratio = satisfied as f64 / sent.max(1) as f64;
    let flood = flooded.load(Relaxed);
    let face_full = counter(&text, "drop.pit-face-full");
    let report = serde_json::json!({
        "flood_secs": secs,
        "flood_interests_written": flood,
        "flood_rate_per_s": flood as f64 / secs,
        "legit_sent": sent,
        "legit_satisfied": satisfied,
        "legit_satisfaction": ratio,
        "pit_max_entries": PIT_MAX,
        "pit_max_entries_per_face": per_face,
        "pit_max_seen": pit_max_seen,
        "drop_pit_face_full": face_full,
        "drop_pit_full": counter(&text, "drop.pit-full"),
        "rss_start_bytes": rss_start,
        "rss_max_bytes": rss_max,
    });
    eprintln!("{report}");
    if let Ok(path) = std::env::var("FLOOD_REPORT") {
        std::fs::write(path, report.to_string()).unwrap();
    }
    // The bounds hold: the PIT never exceeds its size, nor the flood its share
    // (plus the consumer's one entry and management's).
    assert!(
        pit_max_seen <= PIT_MAX as u64,
        "PIT {pit_max_seen} > {PIT_MAX}"
    );
    if per_face == 0 {
        // the bound is off: it never bites, and the consumer may lose to the flood
        assert_eq!(face_full, 0, "a per-face bound of 0 bit:\n{text}");
        ndnlab_testkit::skip(
            "FLOOD_PER_FACE=0 turns the per-face PIT bound off: its share and the consumer's satisfaction are not checked",
        );
        return;
    }
    assert!(
        pit_max_seen <= per_face as u64 + 10,
        "PIT {pit_max_seen}: the flood took more than its share"
    );
    assert!(face_full > 0, "the per-face bound never bit:\n{text}");
    assert!(sent >= 10, "too few legitimate Interests: {sent}");
    assert!(
        ratio >= 0.95,
        "satisfaction {ratio:.3} ({satisfied}/{sent})"
    );
    drop(legit);
    drop(hole);
    drop(fwd);
    let _ = served.join();
}

#[test]
fn a_1_gb_content_store_allocates_nothing_up_front() {
    let before = rss_bytes();
    let fwd = TestFwd::start("cs1g", |c| {
        c.cs.capacity = 4_000_000;
        c.cs.capacity_bytes = 1 << 30;
        c.limits.pit_max_entries = 1 << 22;
        c.limits.pit_max_entries_per_face = 1 << 20;
    });
    let mut c = fwd.client();
    let (pit, _) = status(&mut c);
    assert_eq!(pit, 0);
    let grown = rss_bytes().saturating_sub(before);
    assert!(grown < 32 << 20, "the daemon took {grown} bytes at start");
}
