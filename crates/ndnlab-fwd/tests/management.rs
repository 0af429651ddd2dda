//! NFD management protocol against the forwarder running in this process: every
//! command and dataset round-trips, non-local faces get 403, garbage gets 400, and
//! the daemon survives 100,000 random management Interests.

mod common;

use std::io::{Read, Write};
use std::net::UdpSocket;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use bytes::Bytes;
use common::RawFace;
use common::TestFwd;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind, Record};
use ndnlab_proto::mgmt::params::{ControlParameters as P, ControlResponse};
use ndnlab_wire::{Data, Interest, Name, Packet};
use rand::{Rng, SeedableRng};

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn records(c: &mut RawFace, module: &str, ds: &str, kind: DatasetKind) -> Vec<Record> {
    decode_records(kind, &c.dataset(module, ds).unwrap()).unwrap()
}

fn ok(r: ControlResponse) -> P {
    assert_eq!(r.code, 200, "{} {}", r.code, r.text);
    r.body.expect("a ControlParameters body")
}

#[test]
fn every_command_and_dataset_round_trips() {
    let fwd = TestFwd::start("mgmt", |c| {
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let mut c = fwd.client();

    // faces/create toward a UDP peer (a plain socket), then update, query, destroy.
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    let uri = format!("udp4://{}", peer.local_addr().unwrap());
    let body = ok(c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(uri.clone()),
                ..Default::default()
            },
        )
        .unwrap());
    let face = body.face_id.unwrap();
    assert!(face >= 256);
    assert_eq!(body.uri.as_deref(), Some(uri.as_str()));
    assert_eq!(body.face_persistency, Some(0));
    let dup = c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(uri.clone()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(dup.code, 409);
    assert_eq!(dup.body.unwrap().face_id, Some(face));
    let upd = ok(c
        .command(
            "faces",
            "update",
            &P {
                face_id: Some(face),
                flags: Some(0),
                mask: Some(4),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!(upd.flags, Some(0));
    let faces = records(&mut c, "faces", "list", DatasetKind::Faces);
    assert!(faces
        .iter()
        .any(|r| r.num("faceId") == Some(face) && r.text("remote") == Some(uri.as_str())));
    let channels = records(&mut c, "faces", "channels", DatasetKind::Channels);
    assert!(channels.iter().any(|r| r
        .text("local")
        .is_some_and(|l| l.starts_with("udp4://127.0.0.1:"))));
    assert!(channels
        .iter()
        .any(|r| r.text("local").is_some_and(|l| l.starts_with("unix://"))));

    // faces/query with a FaceQueryFilter { UriScheme "udp4" }.
    let mut filter = ndnlab_fwd::mgmt::codec::TlvWriter::new();
    filter.nested(150, |w| {
        w.string(131, "udp4");
    });
    let mut b = Name::builder();
    b.push_generic(b"localhost")
        .push_generic(b"nfd")
        .push_generic(b"faces")
        .push_generic(b"query");
    b.push_generic(&filter.finish());
    let q = decode_records(DatasetKind::Faces, &c.fetch_segmented(b.build()).unwrap()).unwrap();
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].num("faceId"), Some(face));

    // fib add/remove.
    ok(c.command(
        "fib",
        "add-nexthop",
        &P {
            name: Some(n("/f")),
            face_id: Some(face),
            cost: Some(7),
            ..Default::default()
        },
    )
    .unwrap());
    let fib = records(&mut c, "fib", "list", DatasetKind::Fib);
    let e = fib
        .iter()
        .find(|r| r.text("name") == Some("/f"))
        .expect("fib entry");
    assert_eq!(e.all("nexthop").next().unwrap().num("cost"), Some(7));
    ok(c.command(
        "fib",
        "remove-nexthop",
        &P {
            name: Some(n("/f")),
            face_id: Some(face),
            ..Default::default()
        },
    )
    .unwrap());
    assert!(!records(&mut c, "fib", "list", DatasetKind::Fib)
        .iter()
        .any(|r| r.text("name") == Some("/f")));

    // rib register/unregister with defaults filled in.
    let reg = ok(c
        .command(
            "rib",
            "register",
            &P {
                name: Some(n("/r")),
                face_id: Some(face),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!(
        (reg.origin, reg.cost, reg.flags),
        (Some(0), Some(0), Some(1))
    );
    let rib = records(&mut c, "rib", "list", DatasetKind::Rib);
    assert!(rib.iter().any(|r| r.text("name") == Some("/r")));
    // The requesting face is the default FaceId.
    let own = ok(c
        .command(
            "rib",
            "register",
            &P {
                name: Some(n("/mine")),
                ..Default::default()
            },
        )
        .unwrap());
    assert!(own.face_id.unwrap() >= 256 && own.face_id != Some(face));
    ok(c.command(
        "rib",
        "unregister",
        &P {
            name: Some(n("/r")),
            face_id: Some(face),
            ..Default::default()
        },
    )
    .unwrap());
    assert!(!records(&mut c, "rib", "list", DatasetKind::Rib)
        .iter()
        .any(|r| r.text("name") == Some("/r")));
    let gone = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(n("/x")),
                face_id: Some(999_999),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(gone.code, 410);

    // strategy-choice set/unset/list.
    let s = ok(c
        .command(
            "strategy-choice",
            "set",
            &P {
                name: Some(n("/s")),
                strategy: Some(n("/localhost/nfd/strategy/multicast")),
                ..Default::default()
            },
        )
        .unwrap());
    assert!(s
        .strategy
        .unwrap()
        .to_string()
        .starts_with("/localhost/nfd/strategy/multicast/v="));
    let sc = records(&mut c, "strategy-choice", "list", DatasetKind::Strategy);
    assert!(sc.iter().any(|r| r.text("name") == Some("/s")));
    assert!(sc.iter().any(|r| r.text("name") == Some("/")));
    let bad = c
        .command(
            "strategy-choice",
            "set",
            &P {
                name: Some(n("/s")),
                strategy: Some(n("/nope")),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(bad.code, 404);
    ok(c.command(
        "strategy-choice",
        "unset",
        &P {
            name: Some(n("/s")),
            ..Default::default()
        },
    )
    .unwrap());
    assert_eq!(
        c.command(
            "strategy-choice",
            "unset",
            &P {
                name: Some(n("/")),
                ..Default::default()
            }
        )
        .unwrap()
        .code,
        400
    );

    // cs config/erase/info.
    let cfg = ok(c
        .command(
            "cs",
            "config",
            &P {
                capacity: Some(500),
                flags: Some(0),
                mask: Some(1),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!((cfg.capacity, cfg.flags), (Some(500), Some(2)));
    let info = records(&mut c, "cs", "info", DatasetKind::Cs);
    assert_eq!(info[0].num("capacity"), Some(500));
    assert_eq!(info[0].num("flags"), Some(2));
    let er = ok(c
        .command(
            "cs",
            "erase",
            &P {
                name: Some(n("/")),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!(er.count, Some(0));
    // With a Count, all of it is erased in one command: no Capacity, which nfdc
    // would read as "stopped at the per-command limit, ask again".
    let er = ok(c
        .command(
            "cs",
            "erase",
            &P {
                name: Some(n("/")),
                count: Some(10),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!((er.count, er.capacity), (Some(0), None));

    // status/general.
    let st = records(&mut c, "status", "general", DatasetKind::General);
    assert!(st[0].text("version").unwrap().starts_with("ndnlab"));
    assert!(st[0].num("nFibEntries").unwrap() >= 1);

    // faces/destroy (and its face event reaches a subscriber).
    let mut sub = fwd.client();
    let ev = Interest::builder(n("/localhost/nfd/faces/events"))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .lifetime_ms(4000)
        .nonce(7)
        .build();
    sub.send_raw(&ev).unwrap();
    // The manager takes a face's management Interests in order, one at a time, so
    // once a later request from `sub` is answered its subscription is registered.
    let barrier = records(&mut sub, "status", "general", DatasetKind::General);
    assert!(!barrier.is_empty());
    ok(c.command(
        "faces",
        "destroy",
        &P {
            face_id: Some(face),
            ..Default::default()
        },
    )
    .unwrap());
    let d = sub.recv_data(&n("/localhost/nfd/faces/events")).unwrap();
    // Exactly the management protocol's fields, in order (ndn-cxx's FaceMonitor
    // rejects any other field between LinkType and Flags).
    let content = d.content();
    let outer = ndnlab_wire::tlv::read_element(&content, 0, content.len()).unwrap();
    assert_eq!(outer.typ, 192);
    let types: Vec<u64> = ndnlab_wire::tlv::Elements::new(&content, outer.value.clone())
        .map(|e| e.unwrap().typ)
        .collect();
    assert_eq!(types, [193, 105, 114, 129, 132, 133, 134, 108]);
    let recs = decode_records(DatasetKind::FaceEvent, &content).unwrap();
    assert_eq!(recs[0].num("kind"), Some(2));
    assert_eq!(recs[0].num("faceId"), Some(face));
    assert!(!records(&mut c, "faces", "list", DatasetKind::Faces)
        .iter()
        .any(|r| r.num("faceId") == Some(face)));
}

#[test]
fn non_local_face_gets_403() {
    let fwd = TestFwd::start("mgmt403", |c| {
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()]
    });
    let addr = fwd
        .listener("udp4")
        .trim_start_matches("udp4://")
        .to_string();
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let wire = ndnlab_app::client::mgmt::command_interest(
        "rib",
        "register",
        &P {
            name: Some(n("/evil")),
            ..Default::default()
        },
    );
    sock.send_to(&wire, &addr).unwrap();
    let mut buf = [0u8; 9000];
    let (len, _) = sock.recv_from(&mut buf).expect("a reply");
    let Ok(Packet::Data(d)) = Packet::decode(Bytes::copy_from_slice(&buf[..len])) else {
        panic!("expected Data")
    };
    assert_eq!(
        d.name(),
        Interest::decode(wire).unwrap().name(),
        "reply has exactly the Interest's name"
    );
    let r = ControlResponse::decode(&d.content()).unwrap();
    assert_eq!(r.code, 403);
    assert!(r.body.is_some(), "error replies carry ControlParameters");
    let mut c = fwd.client();
    assert!(!records(&mut c, "rib", "list", DatasetKind::Rib)
        .iter()
        .any(|r| r.text("name") == Some("/evil")));
}

#[test]
fn garbage_parameters_get_400_with_reason() {
    let fwd = TestFwd::start("mgmt400", |_| {});
    let mut c = fwd.client();
    for (params, want) in [
        (&[0x68, 0x03, 0x69, 0x03, 0x01][..], "malformed"),
        (
            &[0x68, 0x05, 0x69, 0x03, 0x01, 0x02, 0x03][..],
            "NonNegativeInteger",
        ),
        (&[0x07, 0x00][..], "ControlParameters"),
        (&b"hello"[..], "malformed"),
    ] {
        let mut b = Name::builder();
        b.push_generic(b"localhost")
            .push_generic(b"nfd")
            .push_generic(b"rib")
            .push_generic(b"register")
            .push_generic(params);
        let wire = Interest::builder(b.build())
            .app_params(Bytes::new())
            .signature_time(1)
            .signature_nonce(Bytes::from_static(&[1, 2, 3, 4]))
            .nonce(1)
            .sign(&ndnlab_wire::DigestSha256)
            .unwrap();
        let name = Interest::decode(wire.clone()).unwrap().name().clone();
        c.send_raw(&wire).unwrap();
        let d: Data = c.recv_data(&name).unwrap();
        assert_eq!(d.name(), &name);
        let r = ControlResponse::decode(&d.content()).unwrap();
        assert_eq!(r.code, 400, "{params:?}");
        assert!(r.text.contains(want), "{} should mention {want}", r.text);
        assert!(r.body.is_some());
    }
    // Missing Name in rib/register.
    let r = c.command("rib", "register", &P::default()).unwrap();
    assert_eq!(r.code, 400);
    assert!(r.text.contains("Name"));
    // A bad DigestSha256 is refused.
    let mut wire = ndnlab_app::client::mgmt::command_interest(
        "rib",
        "register",
        &P {
            name: Some(n("/a")),
            ..Default::default()
        },
    )
    .to_vec();
    let last = wire.len() - 1;
    wire[last] ^= 0xFF;
    if let Ok(i) = Interest::decode(Bytes::from(wire.clone())) {
        c.send_raw(&wire).unwrap();
        let d = c.recv_data(i.name()).unwrap();
        assert_eq!(ControlResponse::decode(&d.content()).unwrap().code, 403);
    }
}

#[test]
fn survives_100k_random_management_interests() {
    let fwd = TestFwd::start("mgmtfuzz", |_| {});
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    let stream = UnixStream::connect(&fwd.socket).unwrap();
    let mut reader = stream.try_clone().unwrap();
    let drain = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0usize;
        reader
            .set_read_timeout(Some(Duration::from_secs(3)))
            .unwrap();
        while let Ok(k) = reader.read(&mut buf) {
            if k == 0 {
                break;
            }
            total += k;
        }
        total
    });
    let modules = [
        "faces",
        "fib",
        "rib",
        "cs",
        "strategy-choice",
        "status",
        "x",
    ];
    let verbs = [
        "create",
        "update",
        "destroy",
        "add-nexthop",
        "remove-nexthop",
        "register",
        "unregister",
        "set",
        "unset",
        "config",
        "erase",
        "list",
        "general",
        "info",
        "query",
        "events",
        "channels",
        "?",
    ];
    let mut w = stream;
    let mut out = Vec::with_capacity(1 << 20);
    for i in 0..100_000u32 {
        let mut b = Name::builder();
        b.push_generic(if rng.gen_bool(0.9) {
            b"localhost"
        } else {
            b"localhop"
        })
        .push_generic(b"nfd");
        b.push_generic(modules[rng.gen_range(0..modules.len())].as_bytes());
        b.push_generic(verbs[rng.gen_range(0..verbs.len())].as_bytes());
        match rng.gen_range(0..4) {
            0 => {}
            1 => {
                let len = rng.gen_range(0..40);
                let v: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                b.push_generic(&v);
            }
            _ => {
                // Valid TLV shell with random fields inside.
                let p = P {
                    name: rng
                        .gen_bool(0.7)
                        .then(|| n(&format!("/z/{}", rng.gen_range(0..50)))),
                    // Never our own face id (>= 256): faces/destroy on it would legitimately close us.
                    face_id: rng.gen_bool(0.5).then(|| rng.gen_range(0..256)),
                    cost: rng.gen_bool(0.3).then(|| rng.gen()),
                    flags: rng.gen_bool(0.3).then(|| rng.gen_range(0..8)),
                    mask: rng.gen_bool(0.3).then(|| rng.gen_range(0..8)),
                    capacity: rng.gen_bool(0.1).then(|| rng.gen_range(0..100_000)),
                    count: rng.gen_bool(0.1).then(|| rng.gen_range(0..10)),
                    expiration_period: rng.gen_bool(0.1).then(|| rng.gen_range(0..10_000)),
                    uri: rng.gen_bool(0.05).then(|| "udp4://127.0.0.1:9".to_string()),
                    strategy: rng
                        .gen_bool(0.1)
                        .then(|| n("/localhost/nfd/strategy/best-route")),
                    ..Default::default()
                };
                b.push_generic(&p.encode());
                if rng.gen_bool(0.3) {
                    b.push_segment(rng.gen_range(0..3));
                }
            }
        }
        let mut ib = Interest::builder(b.build())
            .nonce(i)
            .lifetime_ms(100)
            .can_be_prefix(rng.gen_bool(0.3));
        let wire = if rng.gen_bool(0.5) {
            ib = ib
                .app_params(Bytes::new())
                .signature_time(i as u64)
                .signature_nonce(Bytes::from(i.to_be_bytes().to_vec()));
            ib.sign(&ndnlab_wire::DigestSha256).unwrap()
        } else {
            ib.build()
        };
        out.extend_from_slice(&wire);
        if out.len() > 256 * 1024 {
            w.write_all(&out).unwrap();
            out.clear();
        }
    }
    w.write_all(&out).unwrap();
    // Still alive and serving: once the forwarder has taken in every fuzzed
    // Interest, a fresh client gets status and can register.
    let mut c = fwd.client();
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(60), || {
            records(&mut c, "faces", "list", DatasetKind::Faces)
                .iter()
                .any(|r| r.num("nInInterests").unwrap_or(0) >= 100_000)
        }),
        "the fuzzing face's Interests were never all received"
    );
    let st = records(&mut c, "status", "general", DatasetKind::General);
    assert!(st[0].text("version").is_some());
    ok(c.command(
        "rib",
        "register",
        &P {
            name: Some(n("/after")),
            ..Default::default()
        },
    )
    .unwrap());
    drop(w);
    let got = drain.join().unwrap();
    assert!(got > 0, "the fuzzing face got replies");
}

/// faces/create's flags and congestion fields, and faces/update as NFD does it:
/// 400 for malformed requests, 404 for an unknown face, 409 listing exactly the
/// invalid fields, otherwise every change applied and the face's properties back.
#[test]
fn faces_create_and_update_follow_nfd() {
    let fwd = TestFwd::start("mgmtupd", |c| {
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let mut c = fwd.client();
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    let uri = format!("udp4://{}", peer.local_addr().unwrap());
    let cmd = |c: &mut RawFace, verb: &str, p: P| c.command("faces", verb, &p).unwrap();

    // create: LpReliability (bit 1) on, congestion parameters set.
    let body = ok(cmd(
        &mut c,
        "create",
        P {
            uri: Some(uri.clone()),
            flags: Some(2),
            mask: Some(2),
            base_congestion_marking_interval: Some(50_000_000),
            default_congestion_threshold: Some(10_000),
            ..Default::default()
        },
    ));
    let face = body.face_id.unwrap();
    assert_eq!(body.flags.unwrap() & 2, 2, "reliability on");
    assert_eq!(body.base_congestion_marking_interval, Some(50_000_000));
    assert_eq!(body.default_congestion_threshold, Some(10_000));
    assert_eq!(body.mtu, Some(1452));
    // create refusals, checked before a face exists.
    let local_fields_on_udp = cmd(
        &mut c,
        "create",
        P {
            uri: Some("udp4://127.0.0.1:9".into()),
            flags: Some(1),
            mask: Some(1),
            ..Default::default()
        },
    );
    assert_eq!(
        local_fields_on_udp.code, 406,
        "{}",
        local_fields_on_udp.text
    );
    let with_local_uri = cmd(
        &mut c,
        "create",
        P {
            uri: Some("udp4://127.0.0.1:11".into()),
            local_uri: Some("udp4://127.0.0.1:6363".into()),
            ..Default::default()
        },
    );
    assert_eq!(with_local_uri.code, 406, "{}", with_local_uri.text);
    assert_eq!(
        with_local_uri.text,
        "Unicast UDP faces cannot be created with a LocalUri"
    );
    // NFD checks the request before looking for an existing face: a LocalUri on
    // the face just created is still 406, not 409.
    let again_with_local_uri = cmd(
        &mut c,
        "create",
        P {
            uri: Some(uri.clone()),
            local_uri: Some("udp4://127.0.0.1:6363".into()),
            ..Default::default()
        },
    );
    assert_eq!(again_with_local_uri.code, 406);
    let tiny_mtu = cmd(
        &mut c,
        "create",
        P {
            uri: Some("udp4://127.0.0.1:12".into()),
            mtu: Some(63),
            ..Default::default()
        },
    );
    assert_eq!(
        (tiny_mtu.code, tiny_mtu.text.as_str()),
        (406, "Override MTU cannot be less than 64")
    );
    let again = cmd(
        &mut c,
        "create",
        P {
            uri: Some(uri.clone()),
            ..Default::default()
        },
    );
    assert_eq!(
        (again.code, again.text.as_str()),
        (409, "Face with remote URI already exists")
    );
    assert_eq!(again.body.unwrap().face_id, Some(face));
    let tcp = fwd.listener("tcp4");
    let reliability_on_tcp = cmd(
        &mut c,
        "create",
        P {
            uri: Some(tcp.clone()),
            flags: Some(2),
            mask: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(reliability_on_tcp.code, 406, "{}", reliability_on_tcp.text);
    let flags_without_mask = cmd(
        &mut c,
        "create",
        P {
            uri: Some("udp4://127.0.0.1:10".into()),
            flags: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(flags_without_mask.code, 400);
    assert!(flags_without_mask.text.contains("Mask"));
    // A loopback TCP face is local: LocalFields may be enabled at creation.
    let tcp_face = ok(cmd(
        &mut c,
        "create",
        P {
            uri: Some(tcp),
            flags: Some(1),
            mask: Some(1),
            ..Default::default()
        },
    ));
    assert_eq!(tcp_face.flags.unwrap() & 1, 1);

    // update: malformed (400) and unknown face (404).
    for (p, code) in [
        (
            P {
                face_id: Some(face),
                flags: Some(1),
                ..Default::default()
            },
            400,
        ),
        (
            P {
                face_id: Some(face),
                face_persistency: Some(7),
                ..Default::default()
            },
            400,
        ),
        (
            P {
                face_id: Some(face),
                mask: Some(8),
                flags: Some(8),
                ..Default::default()
            },
            400,
        ),
        (
            P {
                face_id: Some(999_999),
                ..Default::default()
            },
            404,
        ),
    ] {
        let r = cmd(&mut c, "update", p.clone());
        assert_eq!(r.code, code, "{p:?}: {}", r.text);
        assert!(r.body.is_some());
    }
    // 409: persistent -> on-demand, LocalFields on a non-local face, a bad Mtu; the
    // body names exactly those fields, and nothing else changed.
    let r = cmd(
        &mut c,
        "update",
        P {
            face_id: Some(face),
            face_persistency: Some(1),
            flags: Some(1 | 4),
            mask: Some(1 | 4),
            mtu: Some(63),
            ..Default::default()
        },
    );
    assert_eq!(r.code, 409, "{}", r.text);
    assert!(
        r.text.starts_with("Invalid properties specified"),
        "{}",
        r.text
    );
    let b = r.body.unwrap();
    assert_eq!(b.face_persistency, Some(1));
    assert_eq!((b.flags, b.mask), (Some(1), Some(1)));
    assert_eq!(b.mtu, Some(63));
    assert_eq!(b.uri, None);
    let list = records(&mut c, "faces", "list", DatasetKind::Faces);
    let rec = list.iter().find(|r| r.num("faceId") == Some(face)).unwrap();
    assert_eq!(rec.num("persistency"), Some(0));
    assert_eq!(
        rec.num("flags").unwrap() & 4,
        4,
        "marking unchanged by a refused update"
    );

    // 200: every change at once; the body is the face without its URIs.
    let b = ok(cmd(
        &mut c,
        "update",
        P {
            face_id: Some(face),
            face_persistency: Some(2),
            flags: Some(0),
            mask: Some(2 | 4),
            mtu: Some(1200),
            base_congestion_marking_interval: Some(20_000_000),
            default_congestion_threshold: Some(5000),
            ..Default::default()
        },
    ));
    assert_eq!(b.face_id, Some(face));
    assert_eq!(b.uri, None);
    assert_eq!(b.face_persistency, Some(2));
    assert_eq!(b.flags.unwrap() & (2 | 4), 0);
    assert_eq!(b.mtu, Some(1200));
    assert_eq!(b.base_congestion_marking_interval, Some(20_000_000));
    assert_eq!(b.default_congestion_threshold, Some(5000));
    let list = records(&mut c, "faces", "list", DatasetKind::Faces);
    let rec = list.iter().find(|r| r.num("faceId") == Some(face)).unwrap();
    assert_eq!(rec.num("persistency"), Some(2));
    assert_eq!(rec.num("mtu"), Some(1200));
    assert_eq!(rec.num("defaultCongestionThreshold"), Some(5000));
    // An override beyond the transport's MTU is accepted and clamped (NFD);
    // no face reports more than the largest NDN packet.
    let b = ok(cmd(
        &mut c,
        "update",
        P {
            face_id: Some(face),
            mtu: Some(100_000),
            ..Default::default()
        },
    ));
    assert_eq!(b.mtu, Some(8800));
    // A TCP face has no MTU to override: 406 at creation, 409 on update.
    let r = cmd(
        &mut c,
        "update",
        P {
            face_id: Some(tcp_face.face_id.unwrap()),
            mtu: Some(1400),
            ..Default::default()
        },
    );
    assert_eq!((r.code, r.body.unwrap().mtu), (409, Some(1400)));
    // Reliability back on.
    let b = ok(cmd(
        &mut c,
        "update",
        P {
            face_id: Some(face),
            flags: Some(2),
            mask: Some(2),
            ..Default::default()
        },
    ));
    assert_eq!(b.flags.unwrap() & 2, 2);

    // An on-demand UDP face (made by a datagram from a new peer) may become
    // persistent; the requesting Unix face may enable LocalFields (FaceId omitted)
    // but cannot change its persistency.
    let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
    let listener = fwd
        .listener("udp4")
        .trim_start_matches("udp4://")
        .to_string();
    let i = Interest::builder(n("/nowhere")).nonce(3).build();
    stranger.send_to(&i, &listener).unwrap();
    let stranger_uri = format!("udp4://{}", stranger.local_addr().unwrap());
    let mut on_demand = None;
    assert!(
        ndnlab_testkit::wait_until(Duration::from_secs(5), || {
            on_demand = records(&mut c, "faces", "list", DatasetKind::Faces)
                .iter()
                .find(|r| r.text("remote") == Some(stranger_uri.as_str()))
                .and_then(|r| r.num("faceId"));
            on_demand.is_some()
        }),
        "on-demand face for {stranger_uri} never listed"
    );
    let on_demand = on_demand.unwrap();
    let b = ok(cmd(
        &mut c,
        "update",
        P {
            face_id: Some(on_demand),
            face_persistency: Some(0),
            ..Default::default()
        },
    ));
    assert_eq!(b.face_persistency, Some(0));
    let b = ok(cmd(
        &mut c,
        "update",
        P {
            flags: Some(1),
            mask: Some(1),
            ..Default::default()
        },
    ));
    assert_eq!(
        b.flags.unwrap() & 1,
        1,
        "LocalFields on the requesting local face"
    );
    let r = cmd(
        &mut c,
        "update",
        P {
            face_persistency: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(r.code, 409, "a Unix face stays on-demand");
    // Reliability cannot be turned on for a Unix face.
    let r = cmd(
        &mut c,
        "update",
        P {
            flags: Some(2),
            mask: Some(2),
            ..Default::default()
        },
    );
    assert_eq!(r.code, 409);
    assert_eq!(r.body.unwrap().flags, Some(2));
}

/// A faces/query Name with a FaceQueryFilter of one LocalUri (129) or UriScheme (131).
fn face_query(typ: u64, value: &str) -> Name {
    let mut filter = ndnlab_fwd::mgmt::codec::TlvWriter::new();
    filter.nested(150, |w| {
        w.string(typ, value);
    });
    let mut b = Name::builder();
    b.push_generic(b"localhost")
        .push_generic(b"nfd")
        .push_generic(b"faces")
        .push_generic(b"query")
        .push_generic(&filter.finish());
    b.build()
}

#[test]
fn datasets_show_what_nfd_shows() {
    let fwd = TestFwd::start("mgmtnfd", |c| {
        c.faces.udp.listen = vec!["0.0.0.0:0".parse().unwrap()];
        c.faces.udp.idle_timeout_s = 600;
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let mut c = fwd.client();

    // The reserved faces, as NFD lists them.
    let faces = records(&mut c, "faces", "list", DatasetKind::Faces);
    let ids: Vec<u64> = faces.iter().filter_map(|r| r.num("faceId")).collect();
    assert_eq!(&ids[..3], &[1, 254, 255], "{ids:?}");
    for (r, uri) in faces
        .iter()
        .zip(["internal://", "contentstore://", "null://"])
    {
        assert_eq!(r.text("remote"), Some(uri));
        assert_eq!(r.text("local"), Some(uri));
        assert_eq!(r.num("scope"), Some(1));
        assert_eq!(r.num("persistency"), Some(2));
        assert_eq!(r.num("mtu"), Some(8800));
    }
    // A Unix face has no MTU of its own: it reports the largest NDN packet.
    let unix = faces
        .iter()
        .find(|r| r.text("remote").is_some_and(|u| u.starts_with("fd://")))
        .expect("the requesting Unix face");
    assert_eq!(unix.num("mtu"), Some(8800));

    // FIB: /localhost/nfd and /localhost/nfd/rib through the internal face.
    let fib = records(&mut c, "fib", "list", DatasetKind::Fib);
    for name in ["/localhost/nfd", "/localhost/nfd/rib"] {
        let e = fib
            .iter()
            .find(|r| r.text("name") == Some(name))
            .unwrap_or_else(|| panic!("{name} not in {fib:?}"));
        let hop = e.all("nexthop").next().unwrap();
        assert_eq!((hop.num("faceId"), hop.num("cost")), (Some(1), Some(0)));
    }

    // Management's own exchanges show in the forwarder's counters and on face 1:
    // every request so far (the datasets above and this one's first segment)
    // came in and went out to the internal face, and each earlier one's reply
    // came back.
    let st = &records(&mut c, "status", "general", DatasetKind::General)[0];
    let n_in = st.num("nInInterests").unwrap();
    assert!(n_in >= 3, "{st:?}");
    assert_eq!(st.num("nOutInterests"), Some(n_in));
    assert_eq!(st.num("nOutData"), Some(n_in - 1), "{st:?}");
    assert_eq!(st.num("nSatisfiedInterests"), Some(n_in - 1), "{st:?}");
    assert_eq!(st.num("nFibEntries"), Some(2));
    let internal = records(&mut c, "faces", "list", DatasetKind::Faces)
        .into_iter()
        .find(|r| r.num("faceId") == Some(1))
        .unwrap();
    assert_eq!(internal.num("nOutInterests"), Some(n_in + 1));
    assert_eq!(internal.num("nInData"), Some(n_in));

    // An on-demand UDP face on the 0.0.0.0 channel: its LocalUri is the real
    // address (a query by it finds it), and it reports when it will expire.
    let port = fwd.listener("udp4").rsplit(':').next().unwrap().to_string();
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    let i = Interest::builder(n("/nowhere")).nonce(9).build();
    peer.send_to(&i, format!("127.0.0.1:{port}")).unwrap();
    let local = format!("udp4://127.0.0.1:{port}");
    let remote = format!("udp4://{}", peer.local_addr().unwrap());
    let mut found = Vec::new();
    assert!(ndnlab_testkit::wait_until(Duration::from_secs(5), || {
        found = decode_records(
            DatasetKind::Faces,
            &c.fetch_segmented(face_query(129, &local)).unwrap(),
        )
        .unwrap();
        !found.is_empty()
    }));
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!(f.text("remote"), Some(remote.as_str()));
    assert_eq!(f.num("persistency"), Some(1));
    let left = f
        .num("expirationPeriod")
        .expect("on-demand UDP faces expire");
    assert!(left > 500_000 && left <= 600_000, "{left} ms");
    // A TCP face reports the largest NDN packet as its MTU and no expiry.
    let tcp = ok(c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(fwd.listener("tcp4")),
                ..Default::default()
            },
        )
        .unwrap());
    assert_eq!(tcp.mtu, Some(8800));
    let t = decode_records(
        DatasetKind::Faces,
        &c.fetch_segmented(face_query(131, "tcp4")).unwrap(),
    )
    .unwrap();
    assert!(t.iter().all(|r| r.num("expirationPeriod").is_none()));
    assert!(t.iter().all(|r| r.num("mtu") == Some(8800)));
}
