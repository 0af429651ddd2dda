//! Any bytes into `Packet::decode`; accepted packets must have total accessors,
//! survive hot-field rewrites, and re-decode to the same fields.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use ndnlab_wire::{Nack, Packet};

fuzz_target!(|data: &[u8]| {
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
});
