//! Fuzz harnesses of the wire decoders, one function per target. The cargo-fuzz
//! targets in `fuzz/fuzz_targets/` and the stable property tests
//! (`tests/fuzz_props.rs`) call the same functions: one harness, two drivers.
//! Each takes any bytes and panics only when an invariant breaks.

use bytes::Bytes;

use crate::{LpPacket, Nack, Name, Packet};

/// Any bytes into [`Packet::decode`]: accessors are total, hot-field rewrites of an
/// Interest re-decode to the same name, and the fragment of an LpPacket decodes or
/// fails cleanly.
pub fn packet(data: &[u8]) {
    let Ok(p) = Packet::decode(Bytes::copy_from_slice(data)) else {
        return;
    };
    match p {
        Packet::Interest(mut i) => {
            let name = i.name().clone();
            let _ = (
                name.to_string(),
                i.lifetime(),
                i.signed_portion(),
                i.app_params(),
            );
            i.set_hop_limit(1);
            i.set_nonce(2);
            i.set_lifetime_ms(3);
            let j = Packet::decode(i.wire().clone()).expect("rewritten Interest decodes");
            let Packet::Interest(j) = j else {
                panic!("kind changed")
            };
            assert_eq!(j.name(), &name);
            assert_eq!(
                (j.hop_limit(), j.nonce(), j.lifetime_field()),
                (Some(1), Some(2), Some(3))
            );
        }
        Packet::Data(d) => {
            let _ = (
                d.name().to_string(),
                d.content(),
                d.signed_portion(),
                d.final_block_id(),
            );
            let _ = d.full_name();
        }
        Packet::Lp(lp) => {
            let _ = Nack::from_lp(&lp);
            if let Some(f) = lp.fragment() {
                let _ = Packet::decode(f);
            }
        }
    }
}

/// Any bytes into [`LpPacket::decode`]: an accepted packet re-encodes from its
/// fields into a packet with the same fields, and its PIT token rewrites in place.
pub fn lp_packet(data: &[u8]) {
    let Ok(lp) = LpPacket::decode(Bytes::copy_from_slice(data)) else {
        return;
    };
    let b = lp.to_builder();
    let again = LpPacket::decode(b.build()).expect("re-encoded LpPacket decodes");
    assert_eq!(again.to_builder(), b);
    let mut t = again;
    t.set_pit_token(&[1, 2, 3]);
    assert_eq!(t.pit_token(), Some(&[1u8, 2, 3][..]));
}

/// Any UTF-8 into [`Name::from_uri`]: an accepted name prints to a canonical URI
/// that parses back to the same name and prints identically, and its encoding
/// decodes to it.
pub fn name_uri(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(n) = Name::from_uri(s) else {
        return;
    };
    let uri = n.to_string();
    let back = Name::from_uri(&uri).expect("canonical URI parses");
    assert_eq!(back, n);
    assert_eq!(back.to_string(), uri);
    assert_eq!(Name::decode(n.to_wire()).expect("encoded name decodes"), n);
}
