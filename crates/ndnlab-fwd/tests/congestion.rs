//! Congestion marks reach an application on a Unix socket: a consumer asks for
//! 2000 Data of 8 KB at once, stops reading for 400 ms, then reads slowly, so the
//! forwarder's send queue toward it stays far above the 64 KiB threshold for much
//! more than the 100 ms marking interval; some Data arrive in LpPackets carrying
//! CongestionMark (NFD's CoDel-style marking, on by default on local faces).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::TestFwd;
use ndnlab_fwd::mgmt::params::ControlParameters as P;
use ndnlab_wire::{Data, Interest, Name, Packet};

const COUNT: usize = 2000;

#[test]
fn marks_reach_a_consumer_whose_face_is_flooded() {
    let fwd = TestFwd::start("cmark", |_| {});
    let mut prod = fwd.client();
    let r = prod
        .command(
            "rib",
            "register",
            &P {
                name: Some(Name::from_uri("/flood").unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200, "{}", r.text);
    let content = Bytes::from(vec![7u8; 8000]);
    let producer = std::thread::spawn(move || {
        let mut served = 0;
        while served < COUNT {
            match prod.recv_packet(Duration::from_secs(10)) {
                Ok(Some(Packet::Interest(i))) => {
                    let d = Data::builder(i.name().clone())
                        .content(content.clone())
                        .freshness_ms(0)
                        .sign_digest();
                    prod.send_raw(&d).unwrap();
                    served += 1;
                }
                // Interests come in LpPackets with a PIT token: echo it.
                Ok(Some(Packet::Lp(lp))) => {
                    let Some(i) = lp.fragment().and_then(|f| Interest::decode(f).ok()) else {
                        continue;
                    };
                    let d = Data::builder(i.name().clone())
                        .content(content.clone())
                        .freshness_ms(0)
                        .sign_digest();
                    let mut b = ndnlab_wire::LpPacket::builder().fragment(d);
                    if let Some(t) = lp.pit_token_bytes() {
                        b = b.pit_token(t);
                    }
                    prod.send_raw(&b.build()).unwrap();
                    served += 1;
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        served
    });

    let mut cons = fwd.client();
    for i in 0..COUNT {
        let wire = Interest::builder(Name::from_uri(&format!("/flood/{i}")).unwrap())
            .nonce(i as u32 ^ 0x5A5A)
            .lifetime_ms(10_000)
            .build();
        cons.send_raw(&wire).unwrap();
    }
    // The consumer does not read: the queue toward it builds up.
    std::thread::sleep(Duration::from_millis(400));
    let (mut data, mut marked) = (0, 0);
    while data < COUNT {
        // A slow reader (2000 pkt/s): the queue stays above the threshold for
        // about a second while the writer keeps dequeuing, so CoDel marks.
        std::thread::sleep(Duration::from_micros(500));
        match cons.recv_packet(Duration::from_secs(10)).unwrap() {
            Some(Packet::Data(_)) => data += 1,
            Some(Packet::Lp(lp)) => {
                if lp.fragment().is_some_and(|f| Data::decode(f).is_ok()) {
                    data += 1;
                    if lp.congestion_mark().unwrap_or(0) > 0 {
                        marked += 1;
                    }
                }
            }
            Some(_) => {}
            None => break,
        }
    }
    assert_eq!(producer.join().unwrap(), COUNT);
    assert_eq!(data, COUNT, "every Data arrives (the queue holds them all)");
    assert!(marked >= 1, "no CongestionMark reached the consumer");
    // CoDel marks sparsely: one per interval/sqrt(n), not every packet.
    assert!(marked < COUNT / 10, "{marked} of {COUNT} Data marked");
}
