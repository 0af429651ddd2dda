//! `handle_burst` gives the same outputs and counters as the packets one by one.

mod common;

use common::*;
use ndnlab_core::{InPacket, LpMeta, Transmit};

/// A burst element.
type Elem = (ndnlab_core::FaceId, InPacket, LpMeta);

/// An Interest from `face` with default link-layer fields, as a burst element.
fn int(face: ndnlab_core::FaceId, name: &str, nonce: u32) -> Elem {
    (
        face,
        InPacket::Interest(interest(name, nonce)),
        LpMeta::default(),
    )
}

/// A Data from `face` with default link-layer fields, as a burst element.
fn dat(face: ndnlab_core::FaceId, name: &str) -> Elem {
    (face, InPacket::Data(data(name)), LpMeta::default())
}

/// `pkts` through `handle_burst` (`burst`) or one by one through `handle_*`.
fn feed(lab: &mut Lab, burst: bool, pkts: &mut Vec<Elem>) {
    if burst {
        lab.fw.handle_burst(lab.now, pkts);
        assert!(pkts.is_empty());
        return;
    }
    for (f, p, m) in pkts.drain(..) {
        match p {
            InPacket::Interest(i) => lab.fw.handle_interest(lab.now, f, i, m),
            InPacket::Data(d) => lab.fw.handle_data(lab.now, f, d, m),
            InPacket::Nack(n) => lab.fw.handle_nack(lab.now, f, n, m),
        }
    }
}

fn run(burst: bool) -> (Vec<(u64, String)>, ndnlab_core::ForwarderCounters) {
    let mut lab = Lab::standard();
    lab.route("/a", C, 1);
    lab.send_data(C, data("/a/cached"), None); // unsolicited: dropped by default
    let mut pkts = vec![
        int(A, "/a/1", 1),
        int(B, "/a/1", 2),
        int(A, "/a/2", 1),
        int(B, "/a/1", 1), // loop
        dat(C, "/a/1"),
        int(A, "/a/1", 9), // CS hit
        int(A, "/zz", 3),  // no route
    ];
    let mut out: Vec<Transmit> = Vec::new();
    feed(&mut lab, burst, &mut pkts);
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
    let mut interests = vec![
        int(A, "/a/1", 1),
        (
            A,
            InPacket::Interest(interest_with("/a/2", 2, |b| b.can_be_prefix(true))),
            LpMeta::default(),
        ),
        int(B, &digest_uri, 3),
        int(B, "/a/4", 4),
    ];
    let mut out: Vec<Transmit> = Vec::new();
    feed(&mut lab, burst, &mut interests);
    lab.fw.drain_transmits(&mut out);
    let tokens: Vec<_> = out.iter().map(|t| t.meta.pit_token.clone()).collect();
    let meta = |t: Option<bytes::Bytes>| LpMeta {
        pit_token: t,
        ..Default::default()
    };
    let mut datas = vec![
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
    feed(&mut lab, burst, &mut datas);
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

/// Bursts mixing Interests, Data (tokens echoed, unsolicited) and Nacks (by token and by
/// name) through a 4-entry CS, so that Data evict within a burst and across bursts, and
/// bursts without Data follow bursts with Data: same outputs, counters and table sizes.
fn run_evicting(
    burst: bool,
) -> (
    Vec<(u64, String)>,
    ndnlab_core::ForwarderCounters,
    usize,
    usize,
) {
    let mut lab = Lab::standard_with(ndnlab_core::ForwarderConfig {
        cs_capacity: 4,
        unsolicited: ndnlab_core::UnsolicitedDataPolicy::AdmitAll,
        ..Default::default()
    });
    lab.route("/a", C, 1);
    let mut out: Vec<Transmit> = Vec::new();
    let feed_out = |lab: &mut Lab, mut pkts: Vec<Elem>| {
        feed(lab, burst, &mut pkts);
        let mut o = Vec::new();
        lab.fw.drain_transmits(&mut o);
        o
    };
    let meta = |t: Option<bytes::Bytes>| LpMeta {
        pit_token: t,
        ..Default::default()
    };
    let r1: Vec<_> = (0..8)
        .map(|k| {
            let i = interest(&format!("/a/{k}"), 100 + k);
            (A, InPacket::Interest(i), LpMeta::default())
        })
        .collect();
    let sent = feed_out(&mut lab, r1);
    assert_eq!(sent.len(), 8);
    let fwd = |k: usize| (as_interest(&sent[k]), sent[k].meta.pit_token.clone());
    let mut r2: Vec<_> = (0..6)
        .map(|k| (C, InPacket::Data(data(&format!("/a/{k}"))), meta(fwd(k).1)))
        .collect();
    let nack = |k: usize| ndnlab_wire::Nack::new(fwd(k).0, ndnlab_wire::NackReason::NoRoute);
    r2.push((C, InPacket::Nack(nack(6)), meta(fwd(6).1)));
    r2.push((C, InPacket::Nack(nack(7)), LpMeta::default()));
    r2.push(int(B, "/a/0", 200));
    r2.push(int(B, "/a/5", 201));
    r2.push(dat(C, "/a/u1"));
    out.extend(feed_out(&mut lab, r2));
    let r3: Vec<_> = (0..6)
        .map(|k| {
            let i = interest(&format!("/a/{k}"), 300 + k);
            (D, InPacket::Interest(i), LpMeta::default())
        })
        .collect();
    out.extend(feed_out(&mut lab, r3));
    let r4 = vec![dat(C, "/a/u2"), dat(C, "/a/u3")];
    out.extend(feed_out(&mut lab, r4));
    (
        summary(&out),
        lab.fw.counters().clone(),
        lab.fw.cs_ref().len(),
        lab.fw.pit_len(),
    )
}

#[test]
fn evicting_bursts_with_nacks_equal_one_by_one() {
    let (a, ca, csa, pita) = run_evicting(false);
    let (b, cb, csb, pitb) = run_evicting(true);
    assert_eq!(a, b);
    assert_eq!(ca, cb);
    assert_eq!((csa, pita), (csb, pitb));
    assert_eq!(csa, 4);
    assert!(ca.n_cs_hits > 0 && ca.n_cs_misses > 0, "{ca:?}");
    assert!(a.iter().any(|(_, k)| k.starts_with("N:")), "{a:?}");
}

/// FIB prefixes at five lengths: stage 3 of `handle_burst` probes up to four of them
/// per Interest to prefetch the entry its FIB lookup will verify first. Every Interest
/// still reaches its longest match, whether it is found at the first length probed,
/// after some, or past all four, also after a CS hit and next to a Nack.
fn run_fib_lengths(burst: bool) -> (Vec<(u64, String)>, ndnlab_core::ForwarderCounters) {
    let mut lab = Lab::standard();
    lab.route("/p", C, 1);
    lab.route("/p/q/r", B, 1);
    lab.route("/z/1/2/3", C, 1);
    lab.route("/y/1/2/3/4", B, 1);
    lab.route("/x/1/2/3/4/5", D, 1);
    let mut out: Vec<Transmit> = Vec::new();
    let mut pkts = vec![
        // Lengths 6, 5, 4 absent, 3 found: to B.
        int(A, "/p/q/r/s/t/u/v", 1),
        // The first four populated lengths absent, then /p: to C.
        int(A, "/p/q/zz/1/2/3/4/5", 2),
        // Only length 1 is short enough: to C.
        int(A, "/p/q", 3),
        // The longest length matches: to D.
        int(A, "/x/1/2/3/4/5/6", 4),
    ];
    feed(&mut lab, burst, &mut pkts);
    lab.fw.drain_transmits(&mut out);
    lab.send_data(B, data("/p/q/r/s/t/u/v"), None);
    let mut pkts = vec![
        // A CS hit (no FIB lookup), then names that go to the FIB.
        int(A, "/p/q/r/s/t/u/v", 5),
        (
            C,
            InPacket::Nack(ndnlab_wire::Nack::new(
                interest("/p/q", 3),
                ndnlab_wire::NackReason::NoRoute,
            )),
            LpMeta::default(),
        ),
        int(A, "/y/1/2/3/4/5", 6),
        int(A, "/q", 7),
    ];
    feed(&mut lab, burst, &mut pkts);
    lab.fw.drain_transmits(&mut out);
    (summary(&out), lab.fw.counters().clone())
}

#[test]
fn fib_lookups_at_many_lengths_equal_one_by_one() {
    let (a, ca) = run_fib_lengths(false);
    let (b, cb) = run_fib_lengths(true);
    assert_eq!(a, b);
    assert_eq!(ca, cb);
    let i = |f: ndnlab_core::FaceId| (f.0, "I".to_string());
    let d = |f: ndnlab_core::FaceId| (f.0, "D".to_string());
    let n = |f: ndnlab_core::FaceId, r: &str| (f.0, format!("N:{r}"));
    assert_eq!(
        a,
        [
            i(B),
            i(C),
            i(C),
            i(D),
            d(A),
            d(A),
            n(A, "no-route"),
            i(B),
            n(A, "no-route"),
        ],
        "{a:?}"
    );
}
