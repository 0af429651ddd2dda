//! Property tests: encode -> decode -> encode is the identity for arbitrary
//! names, Interests, Data and LpPackets; decoders never panic on any input.

use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{
    tlv, Component, Data, DigestSha256, Interest, LpPacket, LpPacketBuilder, NackReason, Name,
    Packet,
};
use proptest::prelude::*;

fn component() -> impl Strategy<Value = (u64, Vec<u8>)> {
    prop_oneof![
        4 => proptest::collection::vec(any::<u8>(), 0..12).prop_map(|v| (8u64, v)),
        1 => proptest::collection::vec(any::<u8>(), 32..=32).prop_map(|v| (1u64, v)),
        1 => (prop::sample::select(vec![50u64, 52, 54, 56, 58]), any::<u64>())
            .prop_map(|(t, n)| {
                let mut v = Vec::new();
                tlv::put_nni(&mut v, n);
                (t, v)
            }),
        // typed numbers in non-shortest form must print as `N=%..`, not `seg=N`
        1 => (prop::sample::select(vec![50u64, 52, 54, 56, 58]), prop::sample::select(vec![1usize, 2, 4, 8]), any::<[u8; 8]>())
            .prop_map(|(t, n, b)| (t, b[..n].to_vec())),
        1 => (3u64..=0xFFFF, proptest::collection::vec(any::<u8>(), 0..300))
            .prop_filter("not a digest type", |(t, _)| *t != 2),
    ]
}

fn name() -> impl Strategy<Value = Name> {
    proptest::collection::vec(component(), 0..20)
        .prop_map(|cs| cs.iter().map(|(t, v)| Component::new(*t, v)).collect())
}

fn nonempty_name() -> impl Strategy<Value = Name> {
    name().prop_filter("non-empty", |n| !n.is_empty())
}

#[derive(Debug, Clone)]
struct InterestFields {
    name: Name,
    cbp: bool,
    mbf: bool,
    hints: Vec<Name>,
    nonce: Option<u32>,
    lifetime: Option<u64>,
    hop: Option<u8>,
    params: Option<Vec<u8>>,
    signed: bool,
}

fn interest_fields() -> impl Strategy<Value = InterestFields> {
    (
        nonempty_name(),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(name(), 0..3),
        any::<Option<u32>>(),
        any::<Option<u64>>(),
        any::<Option<u8>>(),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..600)),
        any::<bool>(),
    )
        .prop_map(
            |(name, cbp, mbf, hints, nonce, lifetime, hop, params, signed)| InterestFields {
                name,
                cbp,
                mbf,
                hints,
                nonce,
                lifetime,
                hop,
                params,
                signed,
            },
        )
}

fn build_interest(f: &InterestFields) -> Bytes {
    let mut b = Interest::builder(f.name.clone())
        .can_be_prefix(f.cbp)
        .must_be_fresh(f.mbf)
        .forwarding_hint(f.hints.clone());
    if let Some(n) = f.nonce {
        b = b.nonce(n);
    }
    if let Some(l) = f.lifetime {
        b = b.lifetime_ms(l);
    }
    if let Some(h) = f.hop {
        b = b.hop_limit(h);
    }
    if let Some(p) = &f.params {
        b = b.app_params(p.clone());
    }
    if f.signed {
        b.signature_seq_num(1).sign(&DigestSha256).unwrap()
    } else {
        b.build()
    }
}

fn without_digest(n: &Name) -> Name {
    n.iter().filter(|c| !c.is_params_digest()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn name_uri_roundtrip(n in name()) {
        let uri = n.to_string();
        let back: Name = uri.parse().unwrap();
        prop_assert_eq!(&back, &n);
        prop_assert_eq!(back.to_string(), uri);
        prop_assert_eq!(Name::decode(n.to_wire()).unwrap(), n);
    }

    #[test]
    fn name_order_is_consistent(a in name(), b in name()) {
        let ab = a.cmp(&b);
        prop_assert_eq!(ab.reverse(), b.cmp(&a));
        prop_assert_eq!(ab == std::cmp::Ordering::Equal, a == b);
        if a.is_prefix_of(&b) {
            prop_assert!(a <= b);
            prop_assert_eq!(a.prefix_hash(a.len()), b.prefix_hash(a.len()));
        }
    }

    #[test]
    fn interest_roundtrip(f in interest_fields()) {
        let wire = build_interest(&f);
        let i = Interest::decode(wire.clone()).unwrap();
        prop_assert_eq!(without_digest(i.name()), without_digest(&f.name));
        prop_assert_eq!(i.can_be_prefix(), f.cbp);
        prop_assert_eq!(i.must_be_fresh(), f.mbf);
        prop_assert_eq!(i.forwarding_hint(), &f.hints[..]);
        prop_assert_eq!(i.nonce(), f.nonce);
        prop_assert_eq!(i.lifetime_field(), f.lifetime);
        prop_assert_eq!(i.hop_limit(), f.hop);
        prop_assert_eq!(i.is_signed(), f.signed);
        let params = f.params.clone().or(if f.signed { Some(vec![]) } else { None });
        prop_assert_eq!(i.app_params().map(|b| b.to_vec()), params);
        // re-encode from the decoded fields
        let g = InterestFields {
            name: i.name().clone(),
            cbp: i.can_be_prefix(),
            mbf: i.must_be_fresh(),
            hints: i.forwarding_hint().to_vec(),
            nonce: i.nonce(),
            lifetime: i.lifetime_field(),
            hop: i.hop_limit(),
            params: i.app_params().map(|b| b.to_vec()),
            signed: i.is_signed(),
        };
        prop_assert_eq!(build_interest(&g), wire);
    }

    #[test]
    fn interest_rewrites_keep_the_rest(f in interest_fields(), nonce in any::<u32>(), hop in any::<u8>(), life in any::<u64>()) {
        let mut i = Interest::decode(build_interest(&f)).unwrap();
        i.set_nonce(nonce);
        i.set_hop_limit(hop);
        i.set_lifetime_ms(life);
        let j = Interest::decode(i.wire().clone()).unwrap();
        prop_assert_eq!(j.nonce(), Some(nonce));
        prop_assert_eq!(j.hop_limit(), Some(hop));
        prop_assert_eq!(j.lifetime_field(), Some(life));
        prop_assert_eq!(j.name(), i.name());
        prop_assert_eq!(j.forwarding_hint(), i.forwarding_hint());
        prop_assert_eq!(j.app_params(), i.app_params());
    }

    #[test]
    fn data_roundtrip(
        n in name(),
        content in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..9000)),
        ct in proptest::option::of(0u64..2000),
        fresh in any::<Option<u64>>(),
        fb in proptest::option::of(component()),
    ) {
        let build = |n: Name, content: Option<Vec<u8>>, ct: Option<u64>, fresh: Option<u64>, fb: Option<(u64, Vec<u8>)>| {
            let mut b = Data::builder(n);
            if let Some(c) = content { b = b.content(c); }
            if let Some(c) = ct { b = b.content_type(c); }
            if let Some(f) = fresh { b = b.freshness_ms(f); }
            if let Some((t, v)) = &fb { b = b.final_block_id(Component::new(*t, v)); }
            b.sign(&DigestSha256).unwrap()
        };
        let wire = build(n.clone(), content.clone(), ct, fresh, fb.clone());
        let d = Data::decode(wire.clone()).unwrap();
        prop_assert_eq!(d.name(), &n);
        prop_assert_eq!(d.has_content(), content.is_some());
        prop_assert_eq!(d.content_slice(), content.as_deref().unwrap_or(&[]));
        prop_assert_eq!(d.content_type(), ct.unwrap_or(0));
        prop_assert_eq!(d.freshness_period(), fresh.map(Duration::from_millis));
        prop_assert_eq!(d.final_block_id().map(|c| (c.typ, c.value.to_vec())), fb.clone());
        prop_assert!(DigestSha256::verify(d.signed_portion(), d.signature_value()));
        let again = build(
            d.name().clone(),
            d.has_content().then(|| d.content().to_vec()),
            ct.map(|_| d.content_type()),
            d.freshness_period().map(|x| x.as_millis() as u64),
            d.final_block_id().map(|c| (c.typ, c.value.to_vec())),
        );
        prop_assert_eq!(again, wire);
    }

    #[test]
    fn lp_roundtrip(
        seq in any::<Option<u64>>(), fi in any::<Option<u64>>(), fc in any::<Option<u64>>(),
        token in proptest::option::of(proptest::collection::vec(any::<u8>(), 1..=32)),
        nack in proptest::option::of((
            prop_oneof![Just(0u64), Just(50), Just(100), Just(150), any::<u64>()],
            any::<bool>(),
        )),
        inf in any::<Option<u64>>(), nhf in any::<Option<u64>>(), cp in any::<Option<u64>>(),
        cm in any::<Option<u64>>(), acks in proptest::collection::vec(any::<u64>(), 0..4),
        tx in any::<Option<u64>>(), nd in any::<bool>(),
        frag in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..1500)),
    ) {
        let b = LpPacketBuilder {
            sequence: seq, frag_index: fi, frag_count: fc,
            pit_token: token.map(Bytes::from),
            nack: nack.map(|(code, _)| NackReason::from_code(code)),
            // an explicit NackReason 0 is kept apart from an absent NackReason
            nack_reason_zero: nack.is_some_and(|(code, zero)| code == 0 && zero),
            incoming_face_id: inf, next_hop_face_id: nhf, cache_policy: cp, congestion_mark: cm,
            acks, tx_sequence: tx, non_discovery: nd,
            prefix_announcement: None,
            fragment: frag.map(Bytes::from),
        };
        let wire = b.build();
        prop_assert_eq!(wire.len(), b.encoded_len());
        let lp = LpPacket::decode(wire.clone()).unwrap();
        prop_assert_eq!(lp.to_builder(), b);
        prop_assert_eq!(lp.to_builder().build(), wire);
    }

    #[test]
    fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let b = Bytes::from(bytes);
        let _ = Packet::decode(b.clone());
        let _ = Interest::decode(b.clone());
        let _ = Data::decode(b.clone());
        let _ = LpPacket::decode(b.clone());
        let _ = Name::decode(b.clone());
        let _ = Name::from_value(b.clone());
        for e in tlv::elements(&b) {
            if e.is_err() { break; }
        }
        if let Ok(s) = std::str::from_utf8(&b) {
            let _ = Name::from_uri(s);
        }
    }

    #[test]
    fn mutated_packets_never_panic(f in interest_fields(), pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let wire = build_interest(&f);
        let lp = LpPacket::builder().pit_token(vec![1u8; 3]).fragment(wire.clone()).build();
        for w in [wire, lp] {
            let mut v = w.to_vec();
            let i = pos.index(v.len());
            v[i] = byte;
            let m = Bytes::from(v);
            if let Ok(p) = Packet::decode(m.clone()) {
                // accessors of any accepted packet are total
                match p {
                    Packet::Interest(i) => { let _ = (i.name().to_string(), i.nonce(), i.lifetime(), i.signed_portion(), i.app_params()); }
                    Packet::Data(d) => { let _ = (d.name().to_string(), d.content(), d.signed_portion(), d.final_block_id()); }
                    Packet::Lp(l) => { let _ = (l.fragment(), l.pit_token(), l.acks()); }
                }
            }
            let _ = Packet::decode(m.slice(..cut.index(m.len())));
        }
    }
}
