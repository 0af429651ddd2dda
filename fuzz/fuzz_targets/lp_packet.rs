//! Any bytes into `LpPacket::decode`; an accepted packet re-encodes from its
//! fields into a packet with the same fields.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use ndnlab_wire::LpPacket;

fuzz_target!(|data: &[u8]| {
    let Ok(lp) = LpPacket::decode(Bytes::copy_from_slice(data)) else {
        return;
    };
    let b = lp.to_builder();
    let again = LpPacket::decode(b.build()).expect("re-encoded LpPacket decodes");
    assert_eq!(again.to_builder(), b);
    let mut t = again;
    t.set_pit_token(&[1, 2, 3]);
    assert_eq!(t.pit_token(), Some(&[1u8, 2, 3][..]));
});
