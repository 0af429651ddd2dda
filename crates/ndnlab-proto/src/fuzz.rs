//! Fuzz harnesses of the protocol decoders (NDNLPv2 reassembly, ControlParameters,
//! ControlResponse, status datasets), one function per target. The cargo-fuzz
//! targets in `fuzz/fuzz_targets/` and the stable property tests
//! (`tests/fuzz_props.rs`) call the same functions: one harness, two drivers.

use arbitrary::Unstructured;
use bytes::Bytes;

use crate::lp::{
    LinkReceiver, LinkSender, LpFields, Nanos, MAX_PARTIALS, MAX_REASSEMBLY_BYTES,
    REASSEMBLY_TIMEOUT,
};
use crate::mgmt::codec::TlvWriter;
use crate::mgmt::dataset::{decode_records, DatasetKind};
use crate::mgmt::params::tt;
use crate::mgmt::{ControlParameters, ControlResponse};

/// A sequence of link events on one [`LinkReceiver`]: raw frames, fragment
/// sequences of a real packet (cut by [`LinkSender`], delivered in any order with
/// losses and duplicates), time advances. Checks: the held partial packets and
/// bytes stay within [`MAX_PARTIALS`] and [`MAX_REASSEMBLY_BYTES`]; a packet whose
/// fragments all arrive on an idle link comes out whole and unchanged; once the
/// reassembly timeout has passed, nothing is held.
pub fn lp_reassembly(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut rx = LinkReceiver::new();
    let mut tx = LinkSender::new(None, u.arbitrary().unwrap_or(0));
    let mut now: Nanos = 0;
    while !u.is_empty() {
        match u.int_in_range(0..=3u8).unwrap_or(0) {
            0 => {
                let frame: &[u8] = u.arbitrary().unwrap_or_default();
                let _ = rx.receive(now, Bytes::copy_from_slice(frame));
            }
            1 => {
                let len = u.int_in_range(0..=20_000usize).unwrap_or(0);
                let mtu = u.int_in_range(64..=9000usize).unwrap_or(1500);
                let pkt = data_packet(len);
                let fields = LpFields {
                    pit_token: Some(Bytes::from_static(&[7; 8])),
                    ..Default::default()
                };
                let mut frags = Vec::new();
                tx.encode_with_mtu(Some(mtu), &fields, &pkt, &mut frags);
                let idle = rx.partials() == 0;
                let mut order: Vec<usize> = (0..frags.len()).collect();
                // losses, duplicates and reordering chosen by the input
                let mut all = true;
                for i in 0..order.len() {
                    let j = u.int_in_range(i..=order.len() - 1).unwrap_or(i);
                    order.swap(i, j);
                }
                let mut got = Vec::new();
                for &i in &order {
                    let copies = u.int_in_range(0..=2u8).unwrap_or(1);
                    all &= copies > 0;
                    for _ in 0..copies {
                        if let Ok(Some(p)) = rx.receive(now, frags[i].clone()) {
                            got.push(p);
                        }
                    }
                }
                if idle && all && frags.len() <= 256 && pkt.len() <= MAX_REASSEMBLY_BYTES {
                    // (a duplicated unfragmented packet comes out twice)
                    assert!(
                        !got.is_empty(),
                        "no packet out of {} fragments",
                        frags.len()
                    );
                    assert!(frags.len() == 1 || got.len() == 1, "{} packets", got.len());
                    for (f, p) in &got {
                        assert_eq!((f, p), (&fields, &pkt));
                    }
                }
            }
            2 => now = now.saturating_add(u.int_in_range(0..=600u64).unwrap_or(0) * 1_000_000),
            _ => rx.expire(now),
        }
        assert!(rx.partials() <= MAX_PARTIALS);
        assert!(rx.buffered_bytes() <= MAX_REASSEMBLY_BYTES);
    }
    rx.expire(now.saturating_add(REASSEMBLY_TIMEOUT + 1));
    assert_eq!((rx.partials(), rx.buffered_bytes()), (0, 0));
}

/// One period of the payload pattern: byte `i` is `i * 31 mod 251`.
const PATTERN: [u8; 251] = {
    let mut p = [0u8; 251];
    let mut i = 0;
    while i < 251 {
        p[i] = (i * 31 % 251) as u8;
        i += 1;
    }
    p
};

/// A Data-typed TLV of `len` value bytes (reassembly does not look inside).
/// The payload is copied a period at a time: filled byte by byte, it took most
/// of each execution under coverage instrumentation.
fn data_packet(len: usize) -> Bytes {
    let mut v = Vec::with_capacity(len + 9);
    ndnlab_wire::tlv::put_header(&mut v, ndnlab_wire::tlv::types::DATA, len);
    let body = v.len();
    while v.len() < body + len {
        let n = (body + len - v.len()).min(PATTERN.len());
        v.extend_from_slice(&PATTERN[..n]);
    }
    Bytes::from(v)
}

/// Any bytes into [`ControlParameters::decode`]: accepted parameters encode and
/// decode back to themselves.
pub fn control_parameters(data: &[u8]) {
    let Ok(p) = ControlParameters::decode(&Bytes::copy_from_slice(data)) else {
        return;
    };
    let mut w = TlvWriter::new();
    w.nested(tt::CONTROL_PARAMETERS, |w| p.encode_fields(w));
    let again = ControlParameters::decode(&w.finish()).expect("encoded parameters decode");
    assert_eq!(again, p);
}

/// Any bytes into [`ControlResponse::decode`]: an accepted response encodes and
/// decodes back to itself.
pub fn control_response(data: &[u8]) {
    let Ok(r) = ControlResponse::decode(&Bytes::copy_from_slice(data)) else {
        return;
    };
    let again = ControlResponse::decode(&r.encode()).expect("encoded response decodes");
    assert_eq!(again, r);
}

/// The first byte picks a dataset (general, faces, channels, FIB, RIB, CS,
/// strategy choice, face events), the rest is its payload, into
/// [`decode_records`]; every record's accessors are total.
pub fn datasets(data: &[u8]) {
    let Some((&k, payload)) = data.split_first() else {
        return;
    };
    let kinds = [
        DatasetKind::General,
        DatasetKind::Faces,
        DatasetKind::Channels,
        DatasetKind::Fib,
        DatasetKind::Rib,
        DatasetKind::Cs,
        DatasetKind::Strategy,
        DatasetKind::FaceEvent,
    ];
    let kind = kinds[k as usize % kinds.len()];
    let Ok(records) = decode_records(kind, &Bytes::copy_from_slice(payload)) else {
        return;
    };
    for r in &records {
        for (key, _) in &r.0 {
            let _ = (r.get(key), r.num(key), r.text(key), r.all(key).count());
        }
    }
}

/// A byte stream (cut into chunks as the input says) into the TLV stream framing
/// of Unix, TCP and WebSocket faces ([`crate::framing::next_frame`]): every frame
/// is one whole TLV of at most [`crate::framing::MAX_FRAME`] bytes whose header
/// says its length; a bad header or a length up to 2^64 - 1 is an error, never a
/// panic or a bogus frame.
pub fn framing(data: &[u8]) {
    use crate::framing::{make_room, next_frame, MAX_FRAME};
    let mut u = Unstructured::new(data);
    let mut buf = bytes::BytesMut::new();
    while !u.is_empty() {
        // The read loops' refill: the bytes held stay, with room for the next read
        // and for the whole of a frame begun.
        let held = buf.to_vec();
        make_room(&mut buf, 256, 16);
        assert_eq!(buf.as_ref(), &held[..]);
        assert!(buf.capacity() - buf.len() >= 16);
        let n = u.int_in_range(1..=64usize).unwrap_or(1);
        let chunk = u.bytes(n.min(u.len())).unwrap_or_default();
        buf.extend_from_slice(chunk);
        loop {
            match next_frame(&mut buf) {
                Ok(Some(f)) => {
                    assert!(f.len() <= MAX_FRAME);
                    let mut pos = 0;
                    let _ = ndnlab_wire::tlv::read_varnum(&f, &mut pos).expect("type");
                    let len = ndnlab_wire::tlv::read_varnum(&f, &mut pos).expect("length");
                    assert_eq!(pos as u64 + len, f.len() as u64, "one whole TLV");
                }
                Ok(None) => break,
                Err(_) => {
                    buf.clear(); // the face closes its connection
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_payload_pattern_repeats_every_251_bytes() {
        for len in [0, 1, 250, 251, 252, 600, 20_000] {
            let p = super::data_packet(len);
            let body = &p[p.len() - len..];
            assert!(body
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (i * 31 % 251) as u8));
            assert_eq!(p[0], 6, "a Data type");
        }
    }
}
