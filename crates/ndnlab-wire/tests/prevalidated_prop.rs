//! Property tests for `Data::decode_prevalidated`: on bytes `Data::decode` accepted
//! it yields the same view (with or without a name hint, right or wrong); on any
//! other bytes it never panics, and neither do the accessors of what it returns.

use bytes::Bytes;
use ndnlab_wire::{Component, Data, DigestSha256, Name, SignatureInfo};
use proptest::prelude::*;

fn component() -> impl Strategy<Value = (u64, Vec<u8>)> {
    prop_oneof![
        4 => proptest::collection::vec(any::<u8>(), 0..12).prop_map(|v| (8u64, v)),
        1 => proptest::collection::vec(any::<u8>(), 32..=32).prop_map(|v| (1u64, v)),
        1 => (3u64..=0xFFFF, proptest::collection::vec(any::<u8>(), 0..40))
            .prop_filter("not a digest type", |(t, _)| *t != 2),
    ]
}

fn name() -> impl Strategy<Value = Name> {
    proptest::collection::vec(component(), 0..24)
        .prop_map(|cs| cs.iter().map(|(t, v)| Component::new(*t, v)).collect())
}

type Fields = (
    Name,
    Option<Vec<u8>>,
    Option<u64>,
    Option<u64>,
    Option<(u64, Vec<u8>)>,
    Option<Name>,
    bool,
);

fn fields() -> impl Strategy<Value = Fields> {
    (
        name(),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..300)),
        proptest::option::of(0u64..2000),
        any::<Option<u64>>(),
        proptest::option::of(component()),
        proptest::option::of(name()),
        any::<bool>(),
    )
}

fn build(f: &Fields) -> Bytes {
    let (n, content, ct, fresh, fb, key, empty_meta) = f;
    let mut b = Data::builder(n.clone()).empty_meta_info(*empty_meta);
    if let Some(c) = content {
        b = b.content(c.clone());
    }
    if let Some(c) = ct {
        b = b.content_type(*c);
    }
    if let Some(x) = fresh {
        b = b.freshness_ms(*x);
    }
    if let Some((t, v)) = fb {
        b = b.final_block_id(Component::new(*t, v));
    }
    if let Some(k) = key {
        b = b.signature_info(SignatureInfo::new(0).with_key_name(k.clone()));
    }
    b.sign(&DigestSha256).unwrap()
}

/// Everything a view records, compared on fresh views (lazy caches not yet filled).
fn same_view(a: &Data, b: &Data) -> Result<(), TestCaseError> {
    prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let comps = |d: &Data| {
        d.name()
            .iter()
            .map(|c| (c.typ, c.value.to_vec()))
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(comps(a), comps(b));
    prop_assert_eq!(a.signature_info(), b.signature_info());
    prop_assert_eq!(a.signed_portion(), b.signed_portion());
    prop_assert_eq!(a.signature_value(), b.signature_value());
    prop_assert_eq!(a.to_builder().sign_digest(), b.to_builder().sign_digest());
    Ok(())
}

/// Calls every accessor (none may panic).
fn touch(d: &Data) {
    let _ = (d.name().to_string(), d.name().prefix_hash(d.name().len()));
    let _ = (d.content(), d.content_slice(), d.content_type_field());
    let _ = (d.freshness_period(), d.final_block_id(), d.signature_type());
    let _ = (d.signature_info(), d.signature_value(), d.signed_portion());
    let _ = (
        d.implicit_digest(),
        d.full_name(),
        d.to_builder().sign_digest(),
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn equals_decode_on_accepted_bytes(f in fields(), other in name()) {
        let wire = build(&f);
        for hint in [None, Some(&f.0), Some(&other)] {
            let strict = Data::decode(wire.clone()).unwrap();
            let fast = Data::decode_prevalidated(wire.clone(), hint).unwrap();
            same_view(&strict, &fast)?;
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), hint in name()) {
        let b = Bytes::from(bytes);
        for h in [None, Some(&hint)] {
            if let Ok(d) = Data::decode_prevalidated(b.clone(), h) {
                touch(&d);
            }
        }
    }

    #[test]
    fn mutated_data_never_panics(
        f in fields(),
        pos in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let wire = build(&f);
        let mut v = wire.to_vec();
        let i = pos.index(v.len());
        v[i] = byte;
        let m = Bytes::from(v);
        for w in [m.clone(), m.slice(..cut.index(m.len()))] {
            for h in [None, Some(&f.0)] {
                let fast = Data::decode_prevalidated(w.clone(), h);
                if let Ok(strict) = Data::decode(w.clone()) {
                    let fast = fast.as_ref().expect("prevalidated accepts what decode accepts");
                    same_view(&strict, fast)?;
                }
                if let Ok(d) = &fast {
                    touch(d);
                }
            }
        }
    }
}
