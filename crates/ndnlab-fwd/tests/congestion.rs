//! Congestion marks reach an application on a Unix socket: a consumer asks for
//! 2000 Data of 8 KB at once and reads nothing until the producer has answered them
//! all, then reads them one per 0.5 ms or slower, so the forwarder's send queue
//! toward it stays above the 64 KiB threshold for at least a second, ten times the
//! 100 ms marking interval: some Data arrive in LpPackets carrying CongestionMark
//! (NFD's CoDel-style marking, on by default on local faces). How many are marked
//! depends on how long the reading took, which the test measures and bounds; the
//! marking schedule itself is tested with a fake clock in ndnlab-proto's
//! `lp::congestion`.

mod common;

use std::time::{Duration, Instant};

use common::TestFwd;
use ndnlab_wire::{Data, Interest, Name, Packet};

const COUNT: usize = 2000;

#[test]
fn marks_reach_a_consumer_whose_face_is_flooded() {
    let fwd = TestFwd::start("cmark", |_| {});
    let t0 = Instant::now();
    let producer = common::producer(&fwd, "/flood", 8000, COUNT);

    let mut cons = fwd.client();
    for i in 0..COUNT {
        let wire = Interest::builder(Name::from_uri(&format!("/flood/{i}")).unwrap())
            .nonce(i as u32 ^ 0x5A5A)
            .lifetime_ms(10_000)
            .build();
        cons.send_raw(&wire).unwrap();
    }
    // The consumer does not read until every Data left the producer: the queue
    // toward it builds up.
    assert_eq!(producer.join().unwrap(), COUNT);
    let (mut data, mut marked) = (0, 0);
    while data < COUNT {
        // A slow reader (at most 2000 pkt/s, this sleep only paces it): the queue
        // stays above the threshold for a second or more while the writer keeps
        // dequeuing, so CoDel marks.
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
    let elapsed = t0.elapsed();
    assert_eq!(data, COUNT, "every Data arrives (the queue holds them all)");
    assert!(marked >= 1, "no CongestionMark reached the consumer");
    // CoDel marks sparsely: nothing in the first interval, then one per
    // interval/sqrt(n+1); within `elapsed` no more than that schedule allows.
    let most = most_marks(Duration::from_millis(100), elapsed);
    assert!(
        marked <= most && marked < COUNT,
        "{marked} of {COUNT} Data marked in {elapsed:?} (at most {most})"
    );
}

/// The most marks CoDel's schedule (first after `interval`, the n-th
/// interval/sqrt(n) after the one before) fits in `elapsed`, plus one for rounding.
fn most_marks(interval: Duration, elapsed: Duration) -> usize {
    let (interval, elapsed) = (interval.as_secs_f64(), elapsed.as_secs_f64());
    let (mut at, mut n) = (interval, 0);
    while at <= elapsed {
        n += 1;
        at += interval / ((n + 1) as f64).sqrt();
    }
    n + 1
}

/// What the forwarder queues in the kernel counts too (SIOCOUTQ, as NFD's stream
/// transports count it): 40 Data of 3000 bytes fit in a Unix socket's send buffer,
/// so the face's own queue stays empty while the consumer reads nothing. Asked for
/// one every 10 ms, they pass the 64 KiB threshold after about 16 and stay above
/// it for the 100 ms interval while more are sent: some are marked.
#[test]
fn unsent_socket_bytes_count_toward_marking() {
    const N: usize = 40;
    let fwd = TestFwd::start("cmarkq", |_| {});
    let producer = common::producer(&fwd, "/outq", 3000, N);
    let mut cons = fwd.client();
    for i in 0..N {
        let wire = Interest::builder(Name::from_uri(&format!("/outq/{i}")).unwrap())
            .nonce(i as u32 ^ 0x0A0A)
            .lifetime_ms(10_000)
            .build();
        cons.send_raw(&wire).unwrap();
        // Paces the requests; the test's outcome needs only that they span more
        // than the interval after the threshold is passed.
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(producer.join().unwrap(), N);
    let (mut data, mut marked) = (0, 0);
    while data < N {
        match cons.recv_packet(Duration::from_secs(10)).unwrap() {
            Some(Packet::Data(_)) => data += 1,
            Some(Packet::Lp(lp)) => {
                if lp.fragment().is_some_and(|f| Data::decode(f).is_ok()) {
                    data += 1;
                    marked += (lp.congestion_mark().unwrap_or(0) > 0) as usize;
                }
            }
            Some(_) => {}
            None => break,
        }
    }
    assert_eq!(data, N);
    assert!(marked >= 1, "no mark although the socket held over 64 KiB");
}
