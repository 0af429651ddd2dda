//! Congestion marks reach an application on a Unix socket: a consumer asks for
//! 2000 Data of 8 KB at once, stops reading for 400 ms, then reads slowly, so the
//! forwarder's send queue toward it stays far above the 64 KiB threshold for much
//! more than the 100 ms marking interval; some Data arrive in LpPackets carrying
//! CongestionMark (NFD's CoDel-style marking, on by default on local faces).

mod common;

use std::time::Duration;

use common::TestFwd;
use ndnlab_wire::{Data, Interest, Name, Packet};

const COUNT: usize = 2000;

#[test]
fn marks_reach_a_consumer_whose_face_is_flooded() {
    let fwd = TestFwd::start("cmark", |_| {});
    let producer = common::producer(&fwd, "/flood", 8000, COUNT);

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
