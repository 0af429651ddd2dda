//! Link service tests: encoding, fragmentation, reassembly, drops.

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};
use ndnlab_wire::DecodeError;

use super::*;

fn data(len: usize) -> Bytes {
    let mut b = BytesMut::new();
    tlv::put_header(&mut b, t::DATA, len);
    b.extend((0..len).map(|i| i as u8));
    b.freeze()
}

#[test]
fn bare_packets_pass_through() {
    let d = data(10);
    let mut rx = LinkReceiver::new();
    let (f, p) = rx.receive(0, d.clone()).unwrap().unwrap();
    assert!(f.is_empty());
    assert_eq!(p, d);
    let mut tx = LinkSender::new(None, 0);
    let mut out = BytesMut::new();
    tx.encode_stream(&LpFields::default(), &d, &mut out);
    assert_eq!(out.as_ref(), d.as_ref());
}

#[test]
fn fields_are_in_increasing_order_and_round_trip() {
    let d = data(20);
    let fields = LpFields {
        pit_token: Some(Bytes::from_static(&[1, 2, 3, 4])),
        nack: Some(150),
        incoming_face_id: Some(300),
        no_cache: true,
        congestion_mark: 1,
        ..Default::default()
    };
    let mut out = BytesMut::new();
    LinkSender::new(None, 0).encode_stream(&fields, &d, &mut out);
    let frame = out.freeze();
    let el = tlv::read_element(&frame, 0, frame.len()).unwrap();
    let types: Vec<u64> = tlv::Elements::new(&frame, el.value.clone())
        .map(|e| e.unwrap().typ)
        .collect();
    assert_eq!(types, vec![98, 800, 812, 820, 832, 80]);
    let (f, p) = LinkReceiver::new().receive(0, frame).unwrap().unwrap();
    assert_eq!(f, fields);
    assert_eq!(p, d);
}

#[test]
fn stream_header_plus_packet_equals_encode_stream() {
    let d = data(9000);
    let tx = LinkSender::new(None, 0);
    for fields in [
        LpFields::default(),
        LpFields {
            pit_token: Some(Bytes::from_static(&[1, 2, 3, 4, 5, 6, 7, 8])),
            ..Default::default()
        },
        LpFields {
            pit_token: Some(Bytes::from_static(&[7; 32])),
            incoming_face_id: Some(70_000),
            congestion_mark: 1,
            ..Default::default()
        },
    ] {
        let mut whole = BytesMut::new();
        LinkSender::new(None, 0).encode_stream(&fields, &d, &mut whole);
        let mut header = BytesMut::new();
        tx.encode_stream_header(&fields, d.len(), &mut header);
        if fields.is_empty() {
            assert!(header.is_empty());
        }
        header.extend_from_slice(&d);
        assert_eq!(header, whole);
    }
}

#[test]
fn fragments_of_a_packet_share_one_contiguous_buffer() {
    let d = data(65_536);
    let fields = LpFields {
        pit_token: Some(Bytes::from_static(&[9; 8])),
        ..Default::default()
    };
    let mut frags = Vec::new();
    LinkSender::new(Some(1452), 1).encode_datagrams(&fields, &d, &mut frags);
    assert!(frags.len() > 40);
    for w in frags.windows(2) {
        assert!(w[0].len() <= 1452);
        // The next fragment starts where this one ends.
        assert_eq!(w[0].as_ptr().wrapping_add(w[0].len()), w[1].as_ptr());
    }
    let mut rx = LinkReceiver::new();
    let mut got = None;
    for f in frags {
        got = rx.receive(0, f).unwrap().or(got);
    }
    let (f, p) = got.expect("reassembled");
    assert_eq!((f, p), (fields, d));
}

#[test]
fn nack_always_has_reason() {
    let d = data(4);
    let mut out = BytesMut::new();
    let fields = LpFields {
        nack: Some(0),
        ..Default::default()
    };
    LinkSender::new(None, 0).encode_stream(&fields, &d, &mut out);
    // LpPacket(100) Nack(800 = FD 03 20) len 3 { NackReason(801 = FD 03 21) len 1 00 }
    assert_eq!(
        &out[2..10],
        &[0xFD, 0x03, 0x20, 0x05, 0xFD, 0x03, 0x21, 0x01]
    );
}

#[test]
fn fragments_and_reassembles_out_of_order() {
    let d = data(100_000);
    let fields = LpFields {
        pit_token: Some(Bytes::from_static(&[9; 8])),
        ..Default::default()
    };
    let mut tx = LinkSender::new(Some(1452), 77);
    let mut frags = Vec::new();
    tx.encode_datagrams(&fields, &d, &mut frags);
    assert!(frags.len() > 60);
    assert!(frags.iter().all(|f| f.len() <= 1452));
    let mut rx = LinkReceiver::new();
    let last = frags.pop().unwrap();
    frags.reverse();
    for f in frags {
        assert_eq!(rx.receive(1, f).unwrap(), None);
    }
    let (f, p) = rx.receive(2, last).unwrap().unwrap();
    assert_eq!(p, d);
    assert_eq!(f, fields);
    assert_eq!(rx.partials(), 0);
}

#[test]
fn partials_time_out() {
    let d = data(5000);
    let mut frags = Vec::new();
    LinkSender::new(Some(1452), 0).encode_datagrams(&LpFields::default(), &d, &mut frags);
    let mut rx = LinkReceiver::new();
    assert_eq!(rx.receive(0, frags[0].clone()).unwrap(), None);
    rx.expire(REASSEMBLY_TIMEOUT + 1);
    assert_eq!(rx.partials(), 0);
    assert_eq!(rx.reassembly_timeouts, 1);
}

#[test]
fn unknown_fields() {
    // ignorable field 804 (low bits 00) then Fragment
    let d = data(2);
    let mut b = BytesMut::new();
    let inner = 4 + tlv::tlv_len(80, d.len());
    tlv::put_header(&mut b, 100, inner);
    tlv::put_header(&mut b, 804, 0);
    tlv::put_tlv(&mut b, 80, &d);
    assert!(LinkReceiver::new()
        .receive(0, b.freeze())
        .unwrap()
        .is_some());
    let mut b = BytesMut::new();
    tlv::put_header(&mut b, 100, inner);
    tlv::put_header(&mut b, 805, 0);
    tlv::put_tlv(&mut b, 80, &d);
    assert!(matches!(
        LinkReceiver::new().receive(0, b.freeze()),
        Err(LpDrop::Decode(DecodeError::UnknownCritical {
            typ: 805,
            ..
        }))
    ));
    let e = LinkReceiver::new()
        .receive(0, Bytes::from_static(&[100, 3, 1, 2]))
        .unwrap_err();
    assert!(matches!(e, LpDrop::Decode(DecodeError::Truncated { .. })));
    assert_eq!(e.reason(), "lp-truncated");
    assert_eq!(
        LinkReceiver::new().receive(0, Bytes::from_static(&[9, 0])),
        Err(LpDrop::UnknownPacketType)
    );
}

#[test]
fn random_frames_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    let mut rx = LinkReceiver::new();
    for i in 0..20_000u64 {
        let len = rng.gen_range(0..64);
        let mut v: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if !v.is_empty() && rng.gen_bool(0.5) {
            v[0] = 100; // LpPacket
            if v.len() > 1 {
                v[1] = (v.len() - 2).min(252) as u8;
            }
        }
        let _ = rx.receive(i, Bytes::from(v));
    }
    assert!(rx.partials() <= MAX_PARTIALS);
}

#[test]
fn every_drop_reason_has_its_own_label() {
    let drops = [
        LpDrop::UnknownPacketType,
        LpDrop::BadFragment,
        LpDrop::ReassemblyFull,
        LpDrop::Decode(DecodeError::Truncated { offset: 0 }),
        LpDrop::Decode(DecodeError::BadLength { offset: 0 }),
        LpDrop::Decode(DecodeError::NonMinimalVarNumber { offset: 0 }),
        LpDrop::Decode(DecodeError::InvalidType { typ: 0, offset: 0 }),
        LpDrop::Decode(DecodeError::UnknownCritical { typ: 0, offset: 0 }),
        LpDrop::Decode(DecodeError::Missing { field: "x" }),
        LpDrop::Decode(DecodeError::Unexpected {
            expected: 0,
            got: 0,
            offset: 0,
        }),
        LpDrop::Decode(DecodeError::BadNonNegativeInteger { offset: 0 }),
        LpDrop::Decode(DecodeError::OutOfOrder { typ: 0, offset: 0 }),
        LpDrop::Decode(DecodeError::TrailingBytes { offset: 0 }),
        LpDrop::Decode(DecodeError::EmptyName),
    ];
    let idx: Vec<usize> = drops.iter().map(LpDrop::index).collect();
    assert_eq!(idx, (0..LpDrop::REASONS.len()).collect::<Vec<_>>());
    assert_eq!(drops[7].reason(), "lp-unknown-critical");
}

/// A small Interest TLV (Name /a, Nonce).
fn interest_tlv() -> Bytes {
    Bytes::from_static(&[
        0x05, 0x0b, 0x07, 0x03, 0x08, 0x01, b'a', 0x0a, 0x04, 1, 2, 3, 4,
    ])
}

#[test]
fn non_discovery_bytes() {
    let i = interest_tlv();
    let fields = LpFields {
        non_discovery: true,
        ..Default::default()
    };
    assert!(!fields.is_empty());
    let mut out = BytesMut::new();
    LinkSender::new(None, 0).encode_stream(&fields, &i, &mut out);
    // LpPacket(100) len 19 { NonDiscovery(844 = FD 03 4C) len 0, Fragment(80) len 13 {...} }
    let mut want = vec![0x64, 0x13, 0xFD, 0x03, 0x4C, 0x00, 0x50, 0x0D];
    want.extend_from_slice(&i);
    assert_eq!(out.as_ref(), &want[..]);
    let (f, p) = LinkReceiver::new()
        .receive(0, out.freeze())
        .unwrap()
        .unwrap();
    assert_eq!((f, p), (fields, i));
}

#[test]
fn prefix_announcement_bytes() {
    let pa = ndnlab_wire::PrefixAnnouncement::builder(
        &ndnlab_wire::Name::from_uri("/p").unwrap(),
        10_000,
        None,
        1,
    )
    .sign_digest();
    let d = data(6);
    let fields = LpFields {
        pit_token: Some(Bytes::from_static(&[7; 8])),
        prefix_announcement: Some(Box::new(pa.clone())),
        ..Default::default()
    };
    let mut out = BytesMut::new();
    LinkSender::new(None, 0).encode_stream(&fields, &d, &mut out);
    // PitToken(98) len 8, PrefixAnnouncement(848 = FD 03 50) len |pa| {pa}, Fragment(80).
    let mut want_inner = vec![0x62, 0x08];
    want_inner.extend_from_slice(&[7; 8]);
    want_inner.extend_from_slice(&[0xFD, 0x03, 0x50, pa.len() as u8]);
    want_inner.extend_from_slice(&pa);
    want_inner.extend_from_slice(&[0x50, d.len() as u8]);
    want_inner.extend_from_slice(&d);
    let mut want = vec![0x64, want_inner.len() as u8];
    want.extend_from_slice(&want_inner);
    assert!(want_inner.len() < 253 && pa.len() < 253);
    assert_eq!(out.as_ref(), &want[..]);
    let (f, p) = LinkReceiver::new()
        .receive(0, out.freeze())
        .unwrap()
        .unwrap();
    assert_eq!(f.prefix_announcement.as_deref(), Some(&pa));
    assert_eq!((f, p), (fields, d));
}

#[test]
fn reliable_frames_keep_self_learning_fields_after_tx_sequence() {
    use super::reliability::{LpReliability, ReliabilityOptions};
    let i = interest_tlv();
    let fields = LpFields {
        pit_token: Some(Bytes::from_static(&[1, 2, 3, 4])),
        non_discovery: true,
        ..Default::default()
    };
    let mut frames = Vec::new();
    LinkSender::new(Some(1400), 5).reliable_frames(&fields, &i, 1400, &mut frames);
    let mut rel = LpReliability::new(ReliabilityOptions::default(), 1400, 9);
    let mut wire = Vec::new();
    rel.send(0, frames, &mut wire);
    let frame = wire.pop().unwrap();
    let el = tlv::read_element(&frame, 0, frame.len()).unwrap();
    let types: Vec<u64> = tlv::Elements::new(&frame, el.value.clone())
        .map(|e| e.unwrap().typ)
        .collect();
    assert_eq!(types, vec![81, 98, 840, 844, 80]);
    let (f, p) = LinkReceiver::new().receive(0, frame).unwrap().unwrap();
    assert_eq!((f, p), (fields, i));
}

#[test]
fn reassembly_holds_at_most_its_byte_bound() {
    let limits = ReassemblyLimits {
        max_partials: 1000,
        max_bytes: 20_000,
    };
    let mut rx = LinkReceiver::with_limits(limits);
    let mut tx = LinkSender::new(Some(1452), 0);
    let (mut full, mut held) = (0, 0);
    // 30 packets of 4 KB, each missing its last fragment: only ~20 KB is kept.
    for _ in 0..30 {
        let mut frags = Vec::new();
        tx.encode_datagrams(&LpFields::default(), &data(4000), &mut frags);
        for f in &frags[..frags.len() - 1] {
            match rx.receive(0, f.clone()) {
                Ok(_) => held += 1,
                Err(LpDrop::ReassemblyFull) => full += 1,
                Err(e) => panic!("{e:?}"),
            }
        }
    }
    assert!(held > 0 && full > 0, "held {held} full {full}");
    assert!(rx.buffered_bytes() <= limits.max_bytes);
    // Timed out partials give their bytes back.
    rx.expire(REASSEMBLY_TIMEOUT + 1);
    assert_eq!((rx.partials(), rx.buffered_bytes()), (0, 0));
    // Whole packets pass again.
    let mut frags = Vec::new();
    tx.encode_datagrams(&LpFields::default(), &data(4000), &mut frags);
    let mut got = None;
    for f in frags {
        got = rx.receive(1, f).unwrap().or(got);
    }
    assert!(got.is_some());
    assert_eq!(rx.buffered_bytes(), 0);
}

#[test]
fn any_later_frame_times_out_overdue_partials() {
    let d = data(5000);
    let mut frags = Vec::new();
    LinkSender::new(Some(1452), 0).encode_datagrams(&LpFields::default(), &d, &mut frags);
    let mut rx = LinkReceiver::new();
    assert_eq!(rx.receive(0, frags[0].clone()).unwrap(), None);
    assert!(rx.buffered_bytes() > 0);
    // a whole packet, not a fragment, arrives after the deadline
    let whole = data(10);
    assert!(rx.receive(REASSEMBLY_TIMEOUT + 1, whole).unwrap().is_some());
    assert_eq!((rx.partials(), rx.buffered_bytes()), (0, 0));
    assert_eq!(rx.reassembly_timeouts, 1);
}
