//! Face connect/disconnect cycles on Unix and TCP against a real daemon: each
//! connection sends an Interest that stays pending (its prefix goes to a producer
//! that never answers) and closes. Afterwards nothing has leaked: the same file
//! descriptors, the same faces, no PIT entry, and resident memory within a bound.
//!
//! `CHURN_CYCLES` sets the cycles per transport (1000 by default) and
//! `CHURN_REPORT` names a file for the figures (JSON).

mod common;

use std::time::{Duration, Instant};

use common::*;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_wire::{Interest, Name};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

fn rss_bytes() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    s.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        * 4096
}

/// `(face IDs, PIT entries)` as management reports them.
fn tables(c: &mut RawFace) -> (Vec<u64>, u64) {
    let mut faces: Vec<u64> =
        decode_records(DatasetKind::Faces, &c.dataset("faces", "list").unwrap())
            .unwrap()
            .iter()
            .filter_map(|r| r.num("faceId"))
            .collect();
    faces.sort_unstable();
    let g = decode_records(
        DatasetKind::General,
        &c.dataset("status", "general").unwrap(),
    )
    .unwrap();
    (faces, g[0].num("nPitEntries").unwrap_or(0))
}

#[test]
fn connect_disconnect_cycles_leak_no_fd_face_pit_entry_or_memory() {
    let cycles: usize = std::env::var("CHURN_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let fwd = TestFwd::start("churn", |c| {
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let tcp = fwd.listener("tcp4").replace("tcp4://", "tcp://");
    let mut mgmt = fwd.client();
    let mut hole = fwd.client();
    let r = hole
        .command(
            "rib",
            "register",
            &P {
                name: Some(Name::from_uri("/churn").unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200);
    // The faces that stay: the forwarder's own, `mgmt` and `hole`. Every face the
    // cycles open gets a higher ID, so "settled" means none of those is listed and
    // no PIT entry is left, whatever the order in which a closed face's state goes.
    let base = tables(&mut mgmt);
    assert_eq!(base.1, 0, "no PIT entry before the first cycle");
    // Warm up once on each transport (first-use allocations), then take the baseline.
    // A cycle ends when the Interest reached the producer: the face was really
    // there, and its close leaves a pending PIT entry to clean up.
    let cycle = |hole: &mut RawFace, transport: &str, i: usize| {
        let mut f = RawFace::connect(transport);
        let name = Name::from_uri(&format!("/churn/{i}")).unwrap();
        f.send_raw(
            &Interest::builder(name.clone())
                .nonce(i as u32)
                .lifetime_ms(60_000)
                .build(),
        )
        .unwrap();
        loop {
            match hole.recv_packet(Duration::from_secs(5)) {
                Ok(Some(ndnlab_wire::Packet::Interest(got))) if got.name() == &name => break,
                Ok(Some(ndnlab_wire::Packet::Lp(lp)))
                    if lp
                        .fragment()
                        .and_then(|f| Interest::decode(f).ok())
                        .is_some_and(|got| got.name() == &name) =>
                {
                    break
                }
                Ok(Some(_)) => {}
                other => panic!("Interest {name} never reached the producer: {other:?}"),
            }
        }
    };
    cycle(&mut hole, &fwd.transport(), 0);
    cycle(&mut hole, &tcp, 1);
    let settle = |mgmt: &mut RawFace| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let t = tables(mgmt);
            if (t.0 == base.0 && t.1 == 0) || Instant::now() > deadline {
                return t;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    assert_eq!(settle(&mut mgmt), base, "the warm-up cycles' faces closed");
    let (fds0, rss0) = (open_fds(), rss_bytes());
    let start = Instant::now();
    for i in 0..cycles {
        cycle(&mut hole, &fwd.transport(), 2 + 2 * i);
        cycle(&mut hole, &tcp, 3 + 2 * i);
    }
    let elapsed = start.elapsed();
    let after = settle(&mut mgmt);
    let (fds1, rss1) = (open_fds(), rss_bytes());
    let report = serde_json::json!({
        "cycles_per_transport": cycles,
        "seconds": elapsed.as_secs_f64(),
        "faces_before": base.0.len(), "faces_after": after.0.len(),
        "pit_after": after.1,
        "fds_before": fds0, "fds_after": fds1,
        "rss_before_bytes": rss0, "rss_after_bytes": rss1,
    });
    eprintln!("{report}");
    if let Ok(path) = std::env::var("CHURN_REPORT") {
        std::fs::write(path, report.to_string()).unwrap();
    }
    assert_eq!(after, base, "faces and PIT entries back to where they were");
    assert!(
        fds1 <= fds0,
        "file descriptors: {fds0} before, {fds1} after"
    );
    assert!(
        rss1 <= rss0 + (16 << 20),
        "resident memory grew from {rss0} to {rss1}"
    );
}
