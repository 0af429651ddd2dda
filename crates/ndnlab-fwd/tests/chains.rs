//! Forwarders chained over UDP and TCP on 127.0.0.1 (each an in-process daemon with
//! its own runtime and sockets), with raw Rust apps on their Unix sockets: a 100 KB
//! Data fragmented over UDP, three hops over TCP, and a producer that dies
//! mid-transfer. (The same scenarios with separate `ndnlab fwd` processes are in
//! crates/ndnlab/tests/fwd_chain.rs.)

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::TestFwd;
use ndnlab_fwd::mgmt::client::MgmtClient;
use ndnlab_fwd::mgmt::params::ControlParameters as P;
use ndnlab_wire::{Data, Interest, Name, Packet};

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn with_ip(kind: &str) -> impl FnOnce(&mut ndnlab_fwd::FwdConfig) {
    let kind = kind.to_string();
    move |c| {
        if kind == "udp" {
            c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        } else {
            c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        }
    }
}

/// On `from`, a face toward `to`'s listener and a route for `prefix` through it.
fn link(from: &TestFwd, to: &TestFwd, scheme: &str, prefix: &str) -> u64 {
    let mut c = from.client();
    let r = c
        .command(
            "faces",
            "create",
            &P {
                uri: Some(to.listener(scheme)),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    let face = r.body.unwrap().face_id.unwrap();
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(n(prefix)),
                face_id: Some(face),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    face
}

/// Fetches `prefix/0..count` one at a time; returns the Data received.
fn fetch(c: &mut MgmtClient, prefix: &str, count: usize, size: usize) -> usize {
    let mut got = 0;
    for i in 0..count {
        let name = n(&format!("{prefix}/{i}"));
        let wire = Interest::builder(name.clone())
            .nonce(i as u32 ^ 0xABCD)
            .lifetime_ms(1000)
            .build();
        c.send_raw(&wire).unwrap();
        match c.recv_data(&name) {
            Ok(d) => {
                assert_eq!(d.content().len(), size);
                got += 1;
            }
            Err(_) => break,
        }
    }
    got
}

#[test]
fn data_of_100kb_is_fragmented_over_udp() {
    let a = TestFwd::start("udpA", with_ip("udp"));
    let b = TestFwd::start("udpB", with_ip("udp"));
    link(&a, &b, "udp4", "/big");
    let prod = common::producer(&b, "/big", 100_000, 20);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/big", 20, 100_000), 20);
    assert_eq!(prod.join().unwrap(), 20);
}

#[test]
fn three_forwarders_over_tcp_and_udp() {
    let a = TestFwd::start("c3A", with_ip("tcp"));
    let b = TestFwd::start("c3B", |c| {
        c.forwarder.threads = 2; // Data come back by PIT token to the right shard
        c.forwarder.dispatch_components = 2;
        c.faces.tcp.listen = vec!["127.0.0.1:0".parse().unwrap()];
        c.faces.udp.listen = vec!["127.0.0.1:0".parse().unwrap()];
    });
    let c = TestFwd::start("c3C", with_ip("udp"));
    link(&a, &b, "tcp4", "/chain");
    link(&b, &c, "udp4", "/chain");
    let prod = common::producer(&c, "/chain", 8000, 200);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/chain", 200, 8000), 200);
    assert_eq!(prod.join().unwrap(), 200);
}

#[test]
fn producer_dying_mid_transfer_is_cleaned_up() {
    let a = TestFwd::start("dieA", with_ip("udp"));
    let b = TestFwd::start("dieB", with_ip("udp"));
    link(&a, &b, "udp4", "/die");
    // The producer serves 30 Data, then its connection closes mid-transfer.
    let prod = common::producer(&b, "/die", 1000, 30);
    let mut cons = a.client();
    assert_eq!(fetch(&mut cons, "/die", 100, 1000), 30);
    assert_eq!(prod.join().unwrap(), 30);
    // B dropped the dead face's route...
    let mut cb = b.client();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let rib = ndnlab_fwd::mgmt::dataset::decode_records(
            ndnlab_fwd::mgmt::dataset::DatasetKind::Rib,
            &cb.dataset("rib", "list").unwrap(),
        )
        .unwrap();
        if !rib.iter().any(|r| r.text("name") == Some("/die")) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "route of the dead producer still there"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // ...and a new producer takes over the prefix.
    let prod2 = common::producer(&b, "/die", 1000, 10);
    let mut cons2 = a.client();
    assert_eq!(fetch(&mut cons2, "/die/again", 10, 1000), 10);
    assert_eq!(prod2.join().unwrap(), 10);
}

#[test]
fn local_fields_carry_incoming_face_id() {
    let f = TestFwd::start("lf", |_| {});
    // The producer's face id, from its own registration.
    let mut pc = f.client();
    let reg = pc
        .command(
            "rib",
            "register",
            &P {
                name: Some(n("/lf")),
                ..Default::default()
            },
        )
        .unwrap();
    let producer_face = reg.body.unwrap().face_id.unwrap();
    let content = Bytes::from_static(b"hello");
    let prod = std::thread::spawn(move || loop {
        match pc.recv_packet(Duration::from_secs(5)) {
            Ok(Some(Packet::Lp(lp))) => {
                let Some(i) = lp.fragment().and_then(|x| Interest::decode(x).ok()) else {
                    continue;
                };
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .sign_digest();
                let mut b = ndnlab_wire::LpPacket::builder().fragment(d);
                if let Some(t) = lp.pit_token_bytes() {
                    b = b.pit_token(t);
                }
                pc.send_raw(&b.build()).unwrap();
                return;
            }
            Ok(Some(Packet::Interest(i))) => {
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .sign_digest();
                pc.send_raw(&d).unwrap();
                return;
            }
            _ => return,
        }
    });
    // The consumer turns LocalFields on for its own face.
    let mut c = f.client();
    let r = c
        .command(
            "faces",
            "update",
            &P {
                flags: Some(1),
                mask: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    assert_eq!(r.body.unwrap().flags.unwrap() & 1, 1);
    let name = n("/lf/1");
    c.send_raw(
        &Interest::builder(name.clone())
            .nonce(99)
            .lifetime_ms(2000)
            .build(),
    )
    .unwrap();
    let got = loop {
        match c.recv_packet(Duration::from_secs(5)).unwrap() {
            Some(Packet::Lp(lp)) => break lp,
            Some(_) => continue,
            None => panic!("no Data"),
        }
    };
    assert_eq!(got.incoming_face_id(), Some(producer_face));
    assert!(Data::decode(got.fragment().unwrap()).unwrap().name() == &name);
    prod.join().unwrap();
}
