//! The consumer core's window on a fake clock: Interests count by their
//! departure, whatever the time of their answer.

use bytes::BytesMut;
use ndnlab_proto::lp::{LinkSender, LpFields};
use ndnlab_wire::Data;

use super::*;

const MS: Nanos = 1_000_000;

fn name_of(wire: &Bytes) -> Name {
    match Packet::decode(wire.clone()) {
        Ok(Packet::Interest(i)) => i.name().clone(),
        other => panic!("not an Interest: {other:?}"),
    }
}

fn data(name: &Name, bytes: usize) -> Bytes {
    Data::builder(name.clone())
        .content(vec![7u8; bytes])
        .sign_digest()
}

fn nack(interest: &Bytes) -> Bytes {
    let f = LpFields {
        nack: Some(150),
        ..Default::default()
    };
    let mut b = BytesMut::new();
    LinkSender::new(None, 0).encode_stream(&f, interest, &mut b);
    b.freeze()
}

/// Polls at `now` and returns the one Interest sent (window 1), if any.
fn send(c: &mut ConsumerCore, now: Nanos) -> Option<Bytes> {
    let mut out = Vec::new();
    c.poll(now, &mut out);
    assert!(out.len() <= 1, "window 1");
    out.pop()
}

#[test]
fn the_window_counts_interests_by_their_departure() {
    let spec: AppSpec =
        toml::from_str("window = 1\nlifetime_ms = 100\ncatalogue = 1000\n").unwrap();
    let names = Names::new(&spec, None, 1);
    // the window: 1 s .. 2 s
    let span = Span {
        open: 1000 * MS,
        close: 2000 * MS,
    };
    let mut c = ConsumerCore::new(&spec, names, 7, span, 0);
    // sent at 0.9 s, before the window, answered inside it: not counted,
    // neither its Data, nor its bytes, nor its delay
    let i1 = send(&mut c, 900 * MS).unwrap();
    c.on_frame(1050 * MS, data(&name_of(&i1), 999));
    // sent at 1.05 s, answered 30 ms later with 500 bytes
    let i2 = send(&mut c, 1050 * MS).unwrap();
    c.on_frame(1080 * MS, data(&name_of(&i2), 500));
    // sent at 1.08 s, Nacked
    let i3 = send(&mut c, 1080 * MS).unwrap();
    c.on_frame(1090 * MS, nack(&i3));
    // sent at 1.09 s, unanswered: given up past its 100 ms lifetime
    let _i4 = send(&mut c, 1090 * MS).unwrap();
    assert!(send(&mut c, 1150 * MS).is_none(), "the window is full");
    // at 1.3 s the sweep gives it up, and the next leaves; answered in 10 ms
    let i5 = send(&mut c, 1300 * MS).unwrap();
    c.on_frame(1310 * MS, data(&name_of(&i5), 500));
    // sent at 1.995 s, answered 55 ms after the close (within its lifetime)
    let i6 = send(&mut c, 1995 * MS).unwrap();
    assert!(!c.is_done());
    c.on_frame(2050 * MS, data(&name_of(&i6), 500));
    // nothing leaves after the close; the consumer is done
    assert!(send(&mut c, 2050 * MS).is_none());
    assert!(c.is_done());
    let s = c.into_stats();
    assert_eq!(
        (s.interests, s.data, s.nacks, s.timeouts),
        (5, 3, 1, 1),
        "{s:?}"
    );
    assert_eq!(s.bytes, 1500);
    assert_eq!(s.delay_us.len(), 3);
    // each Data's time from its Interest, placed by its departure
    assert_eq!(
        s.samples,
        vec![(0.05, 30_000), (0.3, 10_000), (0.995, 55_000)]
    );
}

/// A rate consumer with a `count` whose Interests all go unanswered: once the
/// count is sent it wakes only for the sweep that gives them up (under `sim`
/// a wake-up in the past would hold virtual time still), and is done when the
/// last one's lifetime is over.
#[test]
fn a_rate_count_all_sent_wakes_for_its_lifetimes_only() {
    let spec: AppSpec = toml::from_str(
        "pattern = \"constant\"\nrate = 50.0\ncount = 3\nlifetime_ms = 100\ncatalogue = 1000\n",
    )
    .unwrap();
    let names = Names::new(&spec, None, 1);
    let span = Span {
        open: 1000 * MS,
        close: 3000 * MS,
    };
    let mut c = ConsumerCore::new(&spec, names, 7, span, 0);
    let mut now = 0;
    let mut sent = 0;
    while !c.is_done() {
        let mut out = Vec::new();
        c.poll(now, &mut out);
        sent += out.len();
        let Some(next) = c.next_wakeup() else {
            break;
        };
        assert!(next > now, "a wake-up at {next} ns, now {now} ns");
        now = next;
        assert!(now < span.close, "not done by the close: {now} ns");
    }
    assert!(c.is_done());
    // the last of the 3 (sent at 1.04 s) given up by a sweep soon after 1.14 s
    assert!(now < 1300 * MS, "done at {now} ns");
    assert_eq!(sent, 3);
    let s = c.into_stats();
    assert_eq!((s.interests, s.data, s.timeouts), (3, 0, 3));
}
