//! NFD 24.07's strategies through the daemon: `strategy-choice/set` with NFD's names,
//! self-learning learning a route from a PrefixAnnouncement carried by a Data (NDNLPv2
//! field 848) over UDP faces, NonDiscovery (844) on the Interests that follow it, and
//! `rib/announce`.

mod common;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{RawFace, TestFwd};
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind, Record};
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_wire::{Data, DigestSha256, Interest, LpPacket, Name, Packet, PrefixAnnouncement};

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn set(c: &mut RawFace, prefix: &str, strategy: &str) -> (u64, String, Option<P>) {
    let r = c
        .command(
            "strategy-choice",
            "set",
            &P {
                name: Some(n(prefix)),
                strategy: Some(n(strategy)),
                ..Default::default()
            },
        )
        .unwrap();
    (r.code, r.text, r.body)
}

fn rib(c: &mut RawFace) -> Vec<Record> {
    decode_records(DatasetKind::Rib, &c.dataset("rib", "list").unwrap()).unwrap()
}

/// The routes of `prefix` in rib/list, waiting up to 5 s for one to appear.
fn routes_of(c: &mut RawFace, prefix: &str) -> Vec<Record> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let found: Vec<Record> = rib(c)
            .into_iter()
            .filter(|r| r.text("name") == Some(prefix))
            .flat_map(|r| r.all("route").cloned().collect::<Vec<_>>())
            .collect();
        if !found.is_empty() || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A plain UDP socket with a face toward it (faces/create); returns both.
fn udp_peer(c: &mut RawFace) -> (UdpSocket, u64) {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let r = c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(format!("udp4://{}", s.local_addr().unwrap())),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    (s, r.body.unwrap().face_id.unwrap())
}

/// The next LpPacket (or bare packet, as an LpPacket-less `None` fields) on `s`
/// carrying a network packet: its fields and the packet.
fn recv(s: &UdpSocket) -> (Option<LpPacket>, Packet) {
    let mut buf = vec![0u8; 65536];
    loop {
        let (len, _) = s.recv_from(&mut buf).expect("a packet from the forwarder");
        let wire = Bytes::copy_from_slice(&buf[..len]);
        match Packet::decode(wire).unwrap() {
            Packet::Lp(lp) => {
                let Some(frag) = lp.fragment() else { continue };
                let inner = Packet::decode(frag).unwrap();
                return (Some(lp), inner);
            }
            p => return (None, p),
        }
    }
}

fn daemon_addr(fwd: &TestFwd) -> String {
    fwd.listener("udp4")
        .trim_start_matches("udp4://")
        .to_string()
}

#[test]
fn nfd_strategy_names_through_management() {
    let fwd = TestFwd::start("nfd-strategies", |_| {});
    let mut c = fwd.client();
    for (short, full) in [
        ("best-route", "best-route/v=5"),
        ("multicast", "multicast/v=5"),
        ("asf", "asf/v=5"),
        ("random", "random/v=1"),
        ("access", "access/v=1"),
        ("self-learning", "self-learning/v=1"),
    ] {
        let prefix = format!("/{short}");
        let (code, text, body) = set(&mut c, &prefix, &format!("/localhost/nfd/strategy/{short}"));
        assert_eq!(code, 200, "{short}: {text}");
        let want = format!("/localhost/nfd/strategy/{full}");
        assert_eq!(body.unwrap().strategy.unwrap().to_string(), want);
        let listed = decode_records(
            DatasetKind::Strategy,
            &c.dataset("strategy-choice", "list").unwrap(),
        )
        .unwrap();
        assert!(
            listed
                .iter()
                .any(|r| r.text("name") == Some(prefix.as_str())
                    && r.text("strategy") == Some(want.as_str())),
            "{listed:?}"
        );
    }
    // NFD 24.07's answers for versions it does not run.
    let (code, text, _) = set(&mut c, "/x", "/localhost/nfd/strategy/asf/v=4");
    assert_eq!(
        (code, text.as_str()),
        (
            409,
            "Error instantiating strategy: AsfStrategy does not support version 4"
        )
    );
    let (code, text, _) = set(&mut c, "/x", "/localhost/nfd/strategy/self-learning/v=2");
    assert_eq!((code, text.as_str()), (404, "Strategy not registered"));
    let (code, text, _) = set(&mut c, "/x", "/localhost/nfd/strategy/access/v=1/a~1");
    assert_eq!(
        (code, text.as_str()),
        (
            409,
            "Error instantiating strategy: AccessStrategy does not accept parameters"
        )
    );
}

#[test]
fn self_learning_learns_a_route_from_a_prefix_announcement() {
    let fwd = TestFwd::start("self-learning", |c| {
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let _ = daemon_addr(&fwd);
    let mut c = fwd.client();
    let (code, text, _) = set(&mut c, "/sl", "/localhost/nfd/strategy/self-learning/v=1");
    assert_eq!(code, 200, "{text}");
    let (consumer, consumer_face) = udp_peer(&mut c);
    let (producer, producer_face) = udp_peer(&mut c);
    let daemon = {
        // Where the faces send from: the UDP channel's address.
        daemon_addr(&fwd)
    };

    // A discovery Interest without a route is broadcast: the producer gets it, unmarked.
    let i = Interest::builder(n("/sl/file/1"))
        .nonce(1)
        .lifetime_ms(2000)
        .build();
    consumer.send_to(&i, &daemon).unwrap();
    let (lp, p) = recv(&producer);
    let Packet::Interest(got) = p else {
        panic!("expected the Interest, got {p:?}")
    };
    assert_eq!(got.name(), &n("/sl/file/1"));
    let lp = lp.expect("an LpPacket with our PIT token");
    assert!(
        !lp.non_discovery(),
        "a broadcast discovery Interest is unmarked"
    );

    // The producer answers with a PrefixAnnouncement for /sl.
    let ann = PrefixAnnouncement::builder(&n("/sl"), 60_000, None, 1).sign_digest();
    let data = Data::builder(n("/sl/file/1"))
        .content(&b"hello"[..])
        .sign_digest();
    let reply = LpPacket::builder()
        .pit_token(lp.pit_token_bytes().unwrap())
        .prefix_announcement(ann.clone())
        .fragment(data.clone())
        .build();
    producer.send_to(&reply, &daemon).unwrap();
    // The consumer gets the Data with the announcement.
    let (lp, p) = recv(&consumer);
    assert!(
        matches!(p, Packet::Data(ref d) if d.name() == &n("/sl/file/1")),
        "{p:?}"
    );
    assert_eq!(lp.and_then(|l| l.prefix_announcement()), Some(ann));

    // The RIB has a route toward the producer: origin prefix announcement, cost 2048.
    let routes = routes_of(&mut c, "/sl");
    assert_eq!(routes.len(), 1, "{routes:?}");
    let r = &routes[0];
    assert_eq!(
        (
            r.num("faceId"),
            r.num("origin"),
            r.num("cost"),
            r.num("flags")
        ),
        (Some(producer_face), Some(129), Some(2048), Some(1))
    );
    assert!(r.num("expirationPeriod").is_some_and(|ms| ms <= 60_000));

    // The next discovery Interest follows the route, marked NonDiscovery.
    let i = Interest::builder(n("/sl/file/2")).nonce(2).build();
    consumer.send_to(&i, &daemon).unwrap();
    let (lp, p) = recv(&producer);
    assert!(
        matches!(p, Packet::Interest(ref x) if x.name() == &n("/sl/file/2")),
        "{p:?}"
    );
    assert!(lp.expect("LpPacket").non_discovery());
    assert_ne!(consumer_face, producer_face);
}

#[test]
fn rib_announce_adds_a_route_toward_the_requesting_face() {
    let fwd = TestFwd::start("rib-announce", |_| {});
    let mut c = fwd.client();
    let ann = PrefixAnnouncement::builder(&n("/announced/prefix"), 10_000, None, 3).sign_digest();
    let cmd = Interest::builder(n("/localhost/nfd/rib/announce"))
        .app_params(ann)
        .sign_view(&DigestSha256)
        .unwrap();
    c.send_raw(cmd.wire()).unwrap();
    let d = c.recv_data(cmd.name()).unwrap();
    let r = ndnlab_proto::mgmt::decode_response(&d.content()).unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    let body = r.body.unwrap();
    assert_eq!(body.name, Some(n("/announced/prefix")));
    assert_eq!(
        (body.origin, body.cost, body.flags),
        (Some(129), Some(2048), Some(1))
    );
    assert!(body
        .expiration_period
        .is_some_and(|ms| ms > 9_000 && ms <= 10_000));
    let face = body.face_id.unwrap();
    let routes = routes_of(&mut c, "/announced/prefix");
    assert_eq!(routes.len(), 1, "{routes:?}");
    assert_eq!(
        (routes[0].num("faceId"), routes[0].num("origin")),
        (Some(face), Some(129))
    );

    // Not a prefix announcement: 400; too long a prefix: 414.
    let bad = Interest::builder(n("/localhost/nfd/rib/announce"))
        .app_params(Data::builder(n("/not/an/announcement")).sign_digest())
        .sign_view(&DigestSha256)
        .unwrap();
    c.send_raw(bad.wire()).unwrap();
    let r =
        ndnlab_proto::mgmt::decode_response(&c.recv_data(bad.name()).unwrap().content()).unwrap();
    assert_eq!(r.code, 400, "{}", r.text);
    let deep = n(&"/c".repeat(33));
    let long = Interest::builder(n("/localhost/nfd/rib/announce"))
        .app_params(PrefixAnnouncement::builder(&deep, 10_000, None, 1).sign_digest())
        .sign_view(&DigestSha256)
        .unwrap();
    c.send_raw(long.wire()).unwrap();
    let r =
        ndnlab_proto::mgmt::decode_response(&c.recv_data(long.name()).unwrap().content()).unwrap();
    assert_eq!(
        (r.code, r.text.as_str()),
        (414, "Route prefix cannot exceed 32 components")
    );
}
