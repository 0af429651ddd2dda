//! `handle_burst` gives the same outputs and counters as the packets one by one.

mod common;

use common::*;
use ndnlab_core::{InPacket, LpMeta, Transmit};

fn run(burst: bool) -> (Vec<(u64, String)>, ndnlab_core::ForwarderCounters) {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_data(C, data("/a/cached"), None); // unsolicited: dropped by default
    let mut pkts = vec![
        (
            A,
            InPacket::Interest(interest("/a/1", 1)),
            LpMeta::default(),
        ),
        (
            B,
            InPacket::Interest(interest("/a/1", 2)),
            LpMeta::default(),
        ),
        (
            A,
            InPacket::Interest(interest("/a/2", 1)),
            LpMeta::default(),
        ),
        (
            B,
            InPacket::Interest(interest("/a/1", 1)),
            LpMeta::default(),
        ), // loop
        (C, InPacket::Data(data("/a/1")), LpMeta::default()),
        (
            A,
            InPacket::Interest(interest("/a/1", 9)),
            LpMeta::default(),
        ), // CS hit
        (A, InPacket::Interest(interest("/zz", 3)), LpMeta::default()), // no route
    ];
    let mut out: Vec<Transmit> = Vec::new();
    if burst {
        lab.fw.handle_burst(lab.now, &mut pkts);
        assert!(pkts.is_empty());
    } else {
        for (f, p, m) in pkts {
            match p {
                InPacket::Interest(i) => lab.fw.handle_interest(lab.now, f, i, m),
                InPacket::Data(d) => lab.fw.handle_data(lab.now, f, d, m),
                InPacket::Nack(n) => lab.fw.handle_nack(lab.now, f, n, m),
            }
        }
    }
    lab.fw.drain_transmits(&mut out);
    (summary(&out), lab.fw.counters().clone())
}

#[test]
fn burst_equals_one_by_one() {
    let (a, ca) = run(false);
    let (b, cb) = run(true);
    assert_eq!(a, b);
    assert_eq!(ca, cb);
    assert_eq!(ca.n_cs_hits, 1);
    assert!(a.contains(&(B.0, "N:duplicate".to_string())));
    assert!(a.contains(&(A.0, "N:no-route".to_string())));
}
