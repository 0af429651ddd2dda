//! Durations read from the wire at their extremes (0, 1, the largest exact
//! nanosecond count, 2^63-1 ms, 2^64-1 ms) through a forwarder running in this
//! process: a route's ExpirationPeriod, an Interest's lifetime in the PIT and in a
//! notification subscription, a Data's FreshnessPeriod in the CS. Long ones clamp
//! (or mean "never", as NFD's RIB reads 2^63-1 ms); none wraps into the past.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{RawFace, TestFwd};
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::{ControlParameters as P, ControlResponse};
use ndnlab_wire::{Data, Interest, Name, Packet};

/// The largest period in milliseconds whose nanoseconds fit in a u64.
const LARGEST_EXACT_MS: u64 = u64::MAX / 1_000_000;
/// One past it: a product that wraps to 448 us when computed modulo 2^64.
const WRAPS_MS: u64 = LARGEST_EXACT_MS + 1;
/// ndn-cxx's `time::milliseconds::max()`, what nfd-autoreg registers with.
const NEVER_MS: u64 = i64::MAX as u64;

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn ok(r: ControlResponse) -> P {
    assert_eq!(r.code, 200, "{} {}", r.code, r.text);
    r.body.expect("a ControlParameters body")
}

fn register(c: &mut RawFace, prefix: &str, face: Option<u64>, expires_ms: Option<u64>) -> P {
    ok(c.command(
        "rib",
        "register",
        &P {
            name: Some(n(prefix)),
            face_id: face,
            expiration_period: expires_ms,
            ..Default::default()
        },
    )
    .unwrap())
}

#[test]
fn route_expiration_periods_at_the_extremes() {
    let fwd = TestFwd::start("wire-durations-rib", |_| {});
    let mut c = fwd.client();
    let mut app = fwd.client();
    let face = register(&mut app, "/app", None, None).face_id;
    let cases = [
        ("/e/0", 0),
        ("/e/1", 1),
        ("/e/30s", 30_000),
        ("/e/pow40", 1 << 40),
        ("/e/largest-exact", LARGEST_EXACT_MS),
        ("/e/wraps", WRAPS_MS),
        ("/e/never", NEVER_MS),
        ("/e/u64max", u64::MAX),
    ];
    for (prefix, ms) in cases {
        let body = register(&mut c, prefix, face, Some(ms));
        assert_eq!(
            body.expiration_period,
            Some(ms),
            "{prefix}: echoed as given"
        );
    }
    let rib = decode_records(DatasetKind::Rib, &c.dataset("rib", "list").unwrap()).unwrap();
    let left = |prefix: &str| {
        rib.iter()
            .find(|r| r.text("name") == Some(prefix))
            .map(|r| r.all("route").next().unwrap().num("expirationPeriod"))
    };
    // 0 and 1 ms are due at once: gone, or listed with nothing left.
    for p in ["/e/0", "/e/1"] {
        assert!(
            matches!(left(p), None | Some(Some(0))),
            "{p}: {:?}",
            left(p)
        );
    }
    let s30 = left("/e/30s")
        .flatten()
        .expect("30 s is listed with its expiry");
    assert!((20_000..=30_000).contains(&s30), "{s30} ms");
    let big = left("/e/pow40")
        .flatten()
        .expect("2^40 ms is listed with its expiry");
    assert!(((1 << 40) - 10_000..=1 << 40).contains(&big), "{big} ms");
    // Past the clock's range, or ndn-cxx's max: never expires (no ExpirationPeriod,
    // which nfdc and `ndnlab ctl route list` show as expires=never).
    for p in ["/e/largest-exact", "/e/wraps", "/e/never", "/e/u64max"] {
        assert_eq!(left(p), Some(None), "{p} never expires");
    }
}

/// The next Interest the forwarder sends `producer`, and its PIT token if any.
fn next_interest(producer: &mut RawFace, what: &str) -> (Interest, Option<Bytes>) {
    loop {
        match producer.recv_packet(Duration::from_secs(5)) {
            Ok(Some(Packet::Interest(i))) => return (i, None),
            Ok(Some(Packet::Lp(lp))) => {
                if let Some(Ok(i)) = lp.fragment().map(Interest::decode) {
                    return (i, lp.pit_token_bytes());
                }
            }
            Ok(Some(_)) => {}
            other => panic!("{what}: no Interest reached the producer: {other:?}"),
        }
    }
}

/// Sends Data `d` from `producer`, echoing the PIT token.
fn answer(producer: &mut RawFace, token: Option<Bytes>, d: Bytes) {
    let mut lp = ndnlab_wire::LpPacket::builder().fragment(d);
    if let Some(t) = token {
        lp = lp.pit_token(t);
    }
    producer.send_raw(&lp.build()).unwrap();
}

/// A consumer's Interest with `lifetime_ms` is answered by a producer that
/// waits `wait` before replying: the Data must come back (the PIT entry lives).
fn answered_after(fwd: &TestFwd, name: &str, lifetime_ms: u64, wait: Duration) -> Option<Data> {
    let mut producer = fwd.client();
    register(&mut producer, name, None, None);
    let mut consumer = fwd.client();
    let i = Interest::builder(n(name))
        .lifetime_ms(lifetime_ms)
        .nonce(lifetime_ms as u32 ^ 0x5a5a)
        .build();
    consumer.send_raw(&i).unwrap();
    let (got, token) = next_interest(&mut producer, name);
    assert_eq!(got.lifetime_field(), Some(lifetime_ms));
    // The wait is what a wrapped lifetime (448 us) would not survive.
    std::thread::sleep(wait);
    let d = Data::builder(got.name().clone())
        .content(&b"late"[..])
        .sign_digest();
    answer(&mut producer, token, d);
    consumer.recv_data(&n(name)).ok()
}

#[test]
fn interest_lifetimes_past_the_clock_clamp_in_the_pit() {
    let fwd = TestFwd::start("wire-durations-pit", |_| {});
    for (k, ms) in [WRAPS_MS, NEVER_MS, u64::MAX].into_iter().enumerate() {
        let name = format!("/pit/{k}");
        let d = answered_after(&fwd, &name, ms, Duration::from_millis(50));
        assert!(d.is_some(), "{ms} ms: the PIT entry expired early");
    }
    let d = answered_after(&fwd, "/pit/exact", LARGEST_EXACT_MS, Duration::ZERO);
    assert!(d.is_some());
}

#[test]
fn a_notification_subscription_with_the_longest_lifetime_is_served() {
    let fwd = TestFwd::start("wire-durations-events", |c| {
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let mut c = fwd.client();
    let mut sub = fwd.client();
    let ev = Interest::builder(n("/localhost/nfd/faces/events"))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .lifetime_ms(u64::MAX)
        .nonce(9)
        .build();
    sub.send_raw(&ev).unwrap();
    // The manager takes a face's Interests in order: once this is answered, the
    // subscription is registered.
    let barrier = decode_records(
        DatasetKind::General,
        &sub.dataset("status", "general").unwrap(),
    )
    .unwrap();
    assert!(!barrier.is_empty());
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    ok(c.command(
        "faces",
        "create",
        &P {
            uri: Some(format!("udp4://{}", peer.local_addr().unwrap())),
            ..Default::default()
        },
    )
    .unwrap());
    let d = sub.recv_data(&n("/localhost/nfd/faces/events"));
    assert!(d.is_ok(), "the subscriber got no face event: {d:?}");
    // The manager still answers.
    let st = decode_records(
        DatasetKind::General,
        &c.dataset("status", "general").unwrap(),
    );
    assert!(!st.unwrap().is_empty());
}

#[test]
fn freshness_periods_past_the_clock_stay_fresh_in_the_cs() {
    let fwd = TestFwd::start("wire-durations-cs", |_| {});
    let mut producer = fwd.client();
    register(&mut producer, "/cs", None, None);
    let mut consumer = fwd.client();
    for (k, ms) in [WRAPS_MS, NEVER_MS, u64::MAX].into_iter().enumerate() {
        let name = n(&format!("/cs/{k}"));
        let first = Interest::builder(name.clone())
            .must_be_fresh(true)
            .nonce(100 + k as u32)
            .build();
        consumer.send_raw(&first).unwrap();
        let (got, token) = next_interest(&mut producer, &format!("{ms} ms"));
        let d = Data::builder(got.name().clone())
            .content(&b"fresh"[..])
            .freshness_ms(ms)
            .sign_digest();
        answer(&mut producer, token, d);
        consumer.recv_data(&name).expect("the first Data");
        // Longer than a wrapped FreshnessPeriod (448 us) lasts.
        std::thread::sleep(Duration::from_millis(20));
        let again = Interest::builder(name.clone())
            .must_be_fresh(true)
            .nonce(200 + k as u32)
            .build();
        consumer.send_raw(&again).unwrap();
        // The producer never answers a second time: Data here came from the CS.
        let hit = consumer.recv_data(&name);
        assert!(hit.is_ok(), "{ms} ms: the cached Data went stale: {hit:?}");
    }
}
