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

/// Interests then Data with echoed, stale and foreign PIT tokens, digest and
/// CanBePrefix names: the staged prefetch pipeline changes nothing.
fn run_tokens(burst: bool) -> (Vec<(u64, String)>, ndnlab_core::ForwarderCounters) {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    let d3 = data("/a/3");
    let digest_uri = format!("/a/3/sha256digest={}", hex(&d3.implicit_digest()));
    let interests = vec![
        (
            A,
            InPacket::Interest(interest("/a/1", 1)),
            LpMeta::default(),
        ),
        (
            A,
            InPacket::Interest(interest_with("/a/2", 2, |b| b.can_be_prefix(true))),
            LpMeta::default(),
        ),
        (
            B,
            InPacket::Interest(interest(&digest_uri, 3)),
            LpMeta::default(),
        ),
        (
            B,
            InPacket::Interest(interest("/a/4", 4)),
            LpMeta::default(),
        ),
    ];
    let mut out: Vec<Transmit> = Vec::new();
    let feed = |lab: &mut Lab, mut pkts: Vec<(ndnlab_core::FaceId, InPacket, LpMeta)>| {
        if burst {
            lab.fw.handle_burst(lab.now, &mut pkts);
        } else {
            for (f, p, m) in pkts {
                match p {
                    InPacket::Interest(i) => lab.fw.handle_interest(lab.now, f, i, m),
                    InPacket::Data(d) => lab.fw.handle_data(lab.now, f, d, m),
                    InPacket::Nack(n) => lab.fw.handle_nack(lab.now, f, n, m),
                }
            }
        }
    };
    feed(&mut lab, interests);
    lab.fw.drain_transmits(&mut out);
    let tokens: Vec<_> = out.iter().map(|t| t.meta.pit_token.clone()).collect();
    let meta = |t: Option<bytes::Bytes>| LpMeta {
        pit_token: t,
        ..Default::default()
    };
    let datas = vec![
        (C, InPacket::Data(data("/a/1")), meta(tokens[0].clone())),
        (C, InPacket::Data(data("/a/2/v=1")), meta(tokens[1].clone())),
        (C, InPacket::Data(d3), meta(tokens[2].clone())),
        // Foreign shard and garbage tokens: found by name (or unsolicited).
        (
            C,
            InPacket::Data(data("/a/4")),
            meta(Some(bytes::Bytes::from_static(&[9, 0, 0, 1, 0, 0, 0, 3]))),
        ),
        (
            C,
            InPacket::Data(data("/a/5")),
            meta(Some(bytes::Bytes::from_static(b"xy"))),
        ),
        // Echoed token of an entry that is gone by now.
        (C, InPacket::Data(data("/a/1")), meta(tokens[0].clone())),
    ];
    feed(&mut lab, datas);
    lab.fw.drain_transmits(&mut out);
    (summary(&out), lab.fw.counters().clone())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn burst_with_tokens_equals_one_by_one() {
    let (a, ca) = run_tokens(false);
    let (b, cb) = run_tokens(true);
    assert_eq!(a, b);
    assert_eq!(ca, cb);
    assert_eq!(ca.n_satisfied_interests, 4, "{a:?}");
    assert_eq!(a.iter().filter(|(_, k)| k == "D").count(), 4, "{a:?}");
}
