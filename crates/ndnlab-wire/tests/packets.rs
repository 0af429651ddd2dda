//! Annotated hex vectors, hand-encoded from packet format v0.3 and NDNLPv2,
//! plus one vector per decode error.

use std::time::Duration;

use bytes::Bytes;
use ndnlab_wire::{
    sig_type, Data, DecodeError, DigestSha256, Interest, KeyLocator, LpPacket, Nack, NackReason,
    Name, OwnedComponent, Packet,
};
use sha2::{Digest, Sha256};

/// Hex with spaces, newlines and `#` comments allowed.
fn hx(s: &str) -> Bytes {
    let clean: String = s
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<String>()
        .split_whitespace()
        .collect();
    Bytes::from(hex::decode(clean).expect("vector hex"))
}

fn name(s: &str) -> Name {
    s.parse().unwrap()
}

const INTEREST_FULL: &str = "
05 1b                    # Interest, 27 bytes
   07 08                 #   Name
      08 03 6e 64 6e     #     'ndn'
      08 01 61           #     'a'
   21 00                 #   CanBePrefix
   12 00                 #   MustBeFresh
   0a 04 01 02 03 04     #   Nonce 0x01020304
   0c 02 03 e8           #   InterestLifetime 1000 ms
   22 01 40              #   HopLimit 64
";

#[test]
fn interest_all_simple_fields() {
    let wire = hx(INTEREST_FULL);
    let i = Interest::decode(wire.clone()).unwrap();
    assert_eq!(i.name(), &name("/ndn/a"));
    assert!(i.can_be_prefix() && i.must_be_fresh());
    assert_eq!(i.nonce(), Some(0x01020304));
    assert_eq!(i.lifetime(), Duration::from_millis(1000));
    assert_eq!(i.hop_limit(), Some(64));
    assert!(i.app_params().is_none() && !i.is_signed());
    let built = Interest::builder(name("/ndn/a"))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .nonce(0x01020304)
        .lifetime_ms(1000)
        .hop_limit(64)
        .build();
    assert_eq!(built, wire);
}

#[test]
fn interest_minimal_defaults() {
    // 05 05 | 07 03 08 01 61
    let i = Interest::decode(hx("05 05 07 03 08 01 61")).unwrap();
    assert_eq!(i.lifetime(), Duration::from_secs(4));
    assert_eq!(i.nonce(), None);
    assert_eq!(i.hop_limit(), None);
    assert!(!i.can_be_prefix());
}

#[test]
fn interest_forwarding_hint() {
    let wire = hx("
05 10                    # Interest
   07 03 08 01 61        #   Name /a
   1e 09                 #   ForwardingHint
      07 03 08 01 62     #     Name /b
      07 02 08 00        #     Name /... (one empty component)
   ");
    let i = Interest::decode(wire.clone()).unwrap();
    assert_eq!(i.forwarding_hint(), &[name("/b"), name("/...")]);
    let b = Interest::builder(name("/a"))
        .forwarding_hint([name("/b"), name("/...")])
        .build();
    assert_eq!(b, wire);
}

#[test]
fn interest_app_params_digest() {
    // 05 2e | 07 27 (08 01 61 | 02 20 <sha256(24 02 ca fe)>) | 24 02 ca fe
    let digest = Sha256::digest([0x24, 0x02, 0xca, 0xfe]);
    let wire = hx(&format!(
        "05 2b 07 25 08 01 61 02 20 {} 24 02 ca fe",
        hex::encode(digest)
    ));
    let i = Interest::decode(wire.clone()).unwrap();
    assert_eq!(i.app_params().unwrap().as_ref(), &[0xca, 0xfe]);
    assert_eq!(i.params_digest().unwrap().as_slice(), digest.as_slice());
    assert_eq!(i.name().len(), 2);
    let b = Interest::builder(name("/a"))
        .app_params(vec![0xca, 0xfe])
        .build();
    assert_eq!(b, wire);
    // the digest is recomputed when the name already carries a stale one
    let stale = i.name().clone();
    let b2 = Interest::builder(stale)
        .app_params(vec![0xca, 0xfe])
        .build();
    assert_eq!(b2, wire);
    // a wrong digest is rejected
    let mut bad = wire.to_vec();
    bad[10] ^= 1;
    assert_eq!(
        Interest::decode(Bytes::from(bad)).unwrap_err(),
        DecodeError::ParamsDigestMismatch
    );
    // params without the digest component, and the reverse
    assert_eq!(
        Interest::decode(hx("05 09 07 03 08 01 61 24 02 ca fe")).unwrap_err(),
        DecodeError::ParamsDigestMissing
    );
    let only_digest = format!("05 27 07 25 08 01 61 02 20 {}", hex::encode(digest));
    assert_eq!(
        Interest::decode(hx(&only_digest)).unwrap_err(),
        DecodeError::ParamsDigestMissing
    );
}

#[test]
fn interest_params_digest_kept_in_place() {
    // the spec allows the ParametersSha256DigestComponent anywhere in the name
    let stale = Name::builder()
        .push_generic(b"mid")
        .push_owned(&OwnedComponent::params_digest([7; 32]))
        .push_generic(b"tail")
        .build();
    let digest = Sha256::digest([0x24, 0x02, 0xca, 0xfe]);
    let wire = hx(&format!(
        "05 33 07 2d 08 03 6d 69 64 02 20 {} 08 04 74 61 69 6c 24 02 ca fe",
        hex::encode(digest)
    ));
    let b = Interest::builder(stale.clone())
        .app_params(vec![0xca, 0xfe])
        .build();
    assert_eq!(b, wire);
    let i = Interest::decode(b).unwrap();
    assert!(i.name().get(1).unwrap().is_params_digest());
    // without ApplicationParameters the component is dropped
    let plain = Interest::builder(stale.clone()).build_view().unwrap();
    assert_eq!(plain.name(), &name("/mid/tail"));
    // signed: the digest stays at index 1, the signed portion skips it
    let i = Interest::builder(stale)
        .app_params(&b"p"[..])
        .signature_seq_num(1)
        .sign_view(&DigestSha256)
        .unwrap();
    assert_eq!(i.name().len(), 3);
    assert!(i.name().get(1).unwrap().is_params_digest());
    let portion = i.signed_portion().unwrap();
    assert!(portion.starts_with(&hx("08 03 6d 69 64 08 04 74 61 69 6c 24 01 70 2c")));
    assert!(DigestSha256::verify(&portion, i.signature_value().unwrap()));
}

#[test]
fn signed_interest_v03() {
    let wire = Interest::builder(name("/cmd/x"))
        .nonce(9)
        .app_params(&b"p"[..])
        .signature_nonce(&[1u8, 2, 3, 4, 5, 6, 7, 8][..])
        .signature_time(1_700_000_000_000)
        .signature_seq_num(3)
        .sign(&DigestSha256)
        .unwrap();
    let i = Interest::decode(wire).unwrap();
    let si = i.signature_info().unwrap();
    assert_eq!(si.sig_type, sig_type::DIGEST_SHA256);
    assert_eq!(si.nonce.as_deref(), Some(&[1u8, 2, 3, 4, 5, 6, 7, 8][..]));
    assert_eq!(si.time, Some(1_700_000_000_000));
    assert_eq!(si.seq_num, Some(3));
    let portion = i.signed_portion().unwrap();
    // name components without the digest, then ApplicationParameters + InterestSignatureInfo
    assert!(portion.starts_with(&hx("08 03 63 6d 64 08 01 78 24 01 70 2c")));
    assert!(DigestSha256::verify(&portion, i.signature_value().unwrap()));
    // last name component is the params digest over params + sig info + sig value
    assert!(i.name().last().unwrap().is_params_digest());
}

const DATA_VECTOR: &str = "
06 36                    # Data, 54 bytes
   07 03 08 01 61        #   Name /a
   14 04                 #   MetaInfo
      19 02 03 e8        #     FreshnessPeriod 1000 ms
   15 02 68 69           #   Content 'hi'
   16 03 1b 01 00        #   SignatureInfo: SignatureType 0 (DigestSha256)
   17 20                 #   SignatureValue: SHA-256 of the signed portion
";

#[test]
fn data_digest_sha256() {
    let signed = hx("07 03 08 01 61 14 04 19 02 03 e8 15 02 68 69 16 03 1b 01 00");
    let sig = Sha256::digest(&signed);
    let wire = hx(&format!("{DATA_VECTOR} {}", hex::encode(sig)));
    let d = Data::decode(wire.clone()).unwrap();
    assert_eq!(d.name(), &name("/a"));
    assert_eq!(d.freshness_period(), Some(Duration::from_millis(1000)));
    assert_eq!(d.content_type(), 0);
    assert_eq!(d.content().as_ref(), b"hi");
    assert_eq!(d.signed_portion(), signed.as_ref());
    assert!(DigestSha256::verify(
        d.signed_portion(),
        d.signature_value()
    ));
    assert_eq!(
        d.implicit_digest().as_slice(),
        Sha256::digest(&wire).as_slice()
    );
    let b = Data::builder(name("/a"))
        .freshness_ms(1000)
        .content(&b"hi"[..])
        .sign(&DigestSha256)
        .unwrap();
    assert_eq!(b, wire);
    // full name and exact-match by implicit digest
    let full = d.full_name();
    assert!(d.matches_name(&full, false));
    assert!(d.matches_name(&name("/a"), false));
    assert!(d.matches_name(&name("/"), true));
    assert!(!d.matches_name(&name("/"), false));
}

#[test]
fn data_to_builder_keeps_meta_info_as_written() {
    // MetaInfo with no field (python-ndn writes one), ContentType 0 written or
    // not, no MetaInfo at all: each is rebuilt as it came
    let shapes = [
        Data::builder(name("/a")).empty_meta_info(true),
        Data::builder(name("/a")).content_type(0).content(&b"x"[..]),
        Data::builder(name("/a"))
            .freshness_ms(5)
            .content(Bytes::new()),
        Data::builder(name("/a")),
    ];
    for (k, b) in shapes.into_iter().enumerate() {
        let wire = b.sign_digest();
        let d = Data::decode(wire.clone()).unwrap();
        assert_eq!(d.has_meta_info(), k < 3, "shape {k}");
        assert_eq!(d.content_type_field(), (k == 1).then_some(0), "shape {k}");
        assert_eq!(d.to_builder().sign_digest(), wire, "shape {k}");
    }
    assert_eq!(
        &Data::builder(name("/a"))
            .empty_meta_info(true)
            .sign_digest()[..9],
        &hx("06 2e 07 03 08 01 61 14 00")[..]
    );
}

#[test]
fn data_meta_info_and_key_locator() {
    let fb = ndnlab_wire::OwnedComponent::segment(9);
    let si = ndnlab_wire::SignatureInfo::new(sig_type::SHA256_WITH_ECDSA)
        .with_key_name(name("/k/KEY/1"));
    struct Fake(ndnlab_wire::SignatureInfo);
    impl ndnlab_wire::Signer for Fake {
        fn signature_info(&self) -> ndnlab_wire::SignatureInfo {
            self.0.clone()
        }
        fn sign(&self, _: &[u8]) -> Result<Vec<u8>, ndnlab_wire::SignError> {
            Ok(vec![0x30; 70])
        }
    }
    let wire = Data::builder(name("/a/seg=0"))
        .content_type(ndnlab_wire::content_type::KEY)
        .freshness(Duration::from_secs(10))
        .final_block_id(fb.as_component())
        .content(vec![7u8; 300])
        .sign(&Fake(si.clone()))
        .unwrap();
    let d = Data::decode(wire).unwrap();
    assert_eq!(d.content_type(), 2);
    assert_eq!(d.final_block_id().unwrap().as_segment(), Some(9));
    assert_eq!(d.content().len(), 300);
    assert_eq!(d.signature_info(), &si);
    assert_eq!(
        d.signature_info().key_locator,
        Some(KeyLocator::Name(name("/k/KEY/1")))
    );
    assert_eq!(d.signature_value(), &[0x30; 70][..]);
}

#[test]
fn lp_nack_with_pit_token() {
    let wire = hx("
64 1b                        # LpPacket, 27 bytes
   62 04 aa bb cc dd         #   PitToken
   fd 03 20 05               #   Nack
      fd 03 21 01 96         #     NackReason 150 (NoRoute)
   50 0a                     #   Fragment
      05 08 07 03 08 01 61   #     Interest /a
      0a 01 00               #     (garbage: Nonce of 1 byte, checked only when decoded)
   ");
    let lp = LpPacket::decode(wire.clone()).unwrap();
    assert_eq!(lp.pit_token(), Some(&[0xaa, 0xbb, 0xcc, 0xdd][..]));
    assert_eq!(lp.nack(), Some(NackReason::NoRoute));
    assert_eq!(
        Nack::from_lp(&lp).unwrap_err(),
        DecodeError::BadLength { offset: 7 }
    );
    let good = Interest::builder(name("/a")).nonce(1).build();
    let nack = Nack::new(Interest::decode(good).unwrap(), NackReason::NoRoute);
    let enc = nack
        .to_lp_builder()
        .pit_token(vec![0xaa, 0xbb, 0xcc, 0xdd])
        .build();
    let back = Nack::from_lp(&LpPacket::decode(enc).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(back, nack);
}

#[test]
fn lp_nack_reason_zero_and_absent() {
    // an explicit NackReason 0 and an absent NackReason both mean "none", and
    // each re-encodes as it came
    let zero = hx("64 0b  fd 03 20 05 fd 03 21 01 00  50 00");
    let absent = hx("64 06  fd 03 20 00  50 00");
    for (wire, explicit) in [(zero, true), (absent, false)] {
        let lp = LpPacket::decode(wire.clone()).unwrap();
        assert_eq!(lp.nack(), Some(NackReason::None));
        assert_eq!(lp.nack_reason_zero(), explicit);
        assert_eq!(lp.to_builder().build(), wire);
        let b = LpPacket::builder()
            .nack(NackReason::None)
            .nack_reason_zero(explicit)
            .fragment(Bytes::new());
        assert_eq!(b.build(), wire);
    }
    // the flag does not affect other reasons
    let b = LpPacket::builder().nack(NackReason::NoRoute);
    assert_eq!(b.clone().nack_reason_zero(true).build(), b.build());
}

#[test]
fn lp_all_fields_and_unknown_rule() {
    let b = LpPacket::builder()
        .sequence(0x0102030405060708)
        .frag_index(1)
        .frag_count(3)
        .pit_token(vec![1u8; 8])
        .nack(NackReason::Congestion)
        .incoming_face_id(300)
        .next_hop_face_id(301)
        .cache_policy(1)
        .congestion_mark(1)
        .ack(5)
        .ack(6)
        .tx_sequence(7)
        .non_discovery(true)
        .prefix_announcement(hx("06 00"))
        .fragment(vec![0xee; 3]);
    let wire = b.build();
    let lp = LpPacket::decode(wire.clone()).unwrap();
    assert_eq!(lp.sequence(), Some(0x0102030405060708));
    assert_eq!((lp.frag_index(), lp.frag_count()), (Some(1), Some(3)));
    assert_eq!(lp.incoming_face_id(), Some(300));
    assert_eq!(lp.next_hop_face_id(), Some(301));
    assert!(lp.no_cache());
    assert_eq!(lp.congestion_mark(), Some(1));
    assert_eq!(lp.acks(), &[5, 6]);
    assert_eq!(lp.tx_sequence(), Some(7));
    assert!(lp.non_discovery());
    assert_eq!(lp.prefix_announcement().unwrap().as_ref(), &[6, 0]);
    assert_eq!(lp.fragment().unwrap().as_ref(), &[0xee; 3]);
    assert_eq!(lp.to_builder(), b);
    assert_eq!(lp.to_builder().build(), wire);

    // 804 = 0x324: in 800..=959 with low bits 00 -> ignored
    let lp = LpPacket::decode(hx("64 07 fd 03 24 00 50 01 ff")).unwrap();
    assert_eq!(lp.fragment().unwrap().as_ref(), &[0xff]);
    // 805 -> critical
    assert_eq!(
        LpPacket::decode(hx("64 04 fd 03 25 00")).unwrap_err(),
        DecodeError::UnknownCritical {
            typ: 805,
            offset: 2
        }
    );
    // 964 = 0x3c4: outside 800..=959 -> critical
    assert!(LpPacket::decode(hx("64 04 fd 03 c4 00")).is_err());
    // field after the Fragment
    assert!(matches!(
        LpPacket::decode(hx("64 05 50 00 62 01 01")).unwrap_err(),
        DecodeError::OutOfOrder { typ: 98, .. }
    ));
    // Sequence must be 8 bytes
    assert_eq!(
        LpPacket::decode(hx("64 03 51 01 00")).unwrap_err(),
        DecodeError::BadLength { offset: 2 }
    );
}

#[test]
fn evolvability() {
    // type 128 written as 'fd 00 80' is non-minimal: rejected
    let wire = hx("05 0d 07 03 08 01 61 fd 00 80 01 00 22 01 05");
    assert_eq!(
        Interest::decode(wire).unwrap_err(),
        DecodeError::NonMinimalVarNumber { offset: 7 }
    );
    // unknown non-critical (type 128 = 0x80, even > 31) is skipped and kept
    let wire = hx("05 0b 07 03 08 01 61 80 01 00 22 01 05");
    let i = Interest::decode(wire.clone()).unwrap();
    assert_eq!(i.hop_limit(), Some(5));
    assert_eq!(i.wire(), &wire);
    // unknown critical: odd type 129, and a reserved type 11 (<= 31)
    assert_eq!(
        Interest::decode(hx("05 08 07 03 08 01 61 81 01 00")).unwrap_err(),
        DecodeError::UnknownCritical {
            typ: 129,
            offset: 7
        }
    );
    assert_eq!(
        Interest::decode(hx("05 07 07 03 08 01 61 0b 00")).unwrap_err(),
        DecodeError::UnknownCritical { typ: 11, offset: 7 }
    );
    // also in Data
    assert_eq!(
        Data::decode(hx("06 0e 07 03 08 01 61 83 00 16 03 1b 01 00 17 00")).unwrap_err(),
        DecodeError::UnknownCritical {
            typ: 131,
            offset: 7
        }
    );
    let d = Data::decode(hx("06 0e 07 03 08 01 61 82 00 16 03 1b 01 00 17 00")).unwrap();
    assert_eq!(d.signature_value(), b"");
}

#[test]
fn every_decode_error_has_a_vector() {
    let cases: &[(&str, DecodeError, &str)] = &[
        ("05 05 07 03 08 01", DecodeError::Truncated { offset: 0 }, "truncated"),
        ("05 fd 00 05 07 03 08 01 61", DecodeError::NonMinimalVarNumber { offset: 1 }, "non-minimal-varnum"),
        ("05 06 07 03 08 01 61 0a", DecodeError::Truncated { offset: 8 }, "truncated"),
        ("05 07 07 03 08 01 61 00 00", DecodeError::InvalidType { typ: 0, offset: 7 }, "invalid-type"),
        ("05 09 07 03 08 01 61 0a 02 00 00", DecodeError::BadLength { offset: 7 }, "bad-length"),
        ("05 00", DecodeError::Missing { field: "Name" }, "missing-field"),
        ("05 02 08 00", DecodeError::Unexpected { expected: 7, got: 8, offset: 2 }, "unexpected-type"),
        ("05 02 07 00", DecodeError::EmptyName, "empty-name"),
        ("05 0a 07 03 08 01 61 0c 03 00 00 01", DecodeError::BadNonNegativeInteger { offset: 9 }, "bad-nni"),
        ("05 0a 07 03 08 01 61 22 01 01 21 00", DecodeError::OutOfOrder { typ: 33, offset: 10 }, "out-of-order"),
        ("05 0b 07 03 08 01 61 22 01 01 22 01 01", DecodeError::OutOfOrder { typ: 34, offset: 10 }, "out-of-order"),
        ("05 05 07 03 08 01 61 00", DecodeError::TrailingBytes { offset: 7 }, "trailing-bytes"),
        ("06 05 07 03 08 01 61", DecodeError::Missing { field: "SignatureInfo" }, "missing-field"),
        ("06 0a 07 03 08 01 61 16 03 1b 01 00", DecodeError::Missing { field: "SignatureValue" }, "missing-field"),
        (
            "06 27 07 03 08 01 61 16 1e 1b 01 00 fd 00 fd 17 fd 00 fe 0f 32 30 32 34 31 33 30 31 54 30 30 30 30 30 30 fd 00 ff 00 17 00",
            DecodeError::BadValue { field: "NotBefore", offset: 20 },
            "bad-value",
        ),
    ];
    for (h, want, reason) in cases {
        let got = Packet::decode(hx(h)).unwrap_err();
        assert_eq!(&got, want, "{h}");
        assert_eq!(got.reason(), *reason);
    }
}

#[test]
fn rewrite_in_place_unique_buffer() {
    let wire = hx(INTEREST_FULL);
    let mut i = Interest::decode(wire).unwrap();
    let before = i.wire().as_ptr();
    i.set_nonce(0xdeadbeef);
    i.set_hop_limit(3);
    i.set_lifetime_ms(200);
    assert_eq!(
        i.wire().as_ptr(),
        before,
        "unique buffer rewritten without copy"
    );
    assert_eq!(i.nonce(), Some(0xdeadbeef));
    assert_eq!(i.hop_limit(), Some(3));
    assert_eq!(i.lifetime(), Duration::from_millis(200));
    assert_eq!(i.name(), &name("/ndn/a"));
    assert_eq!(Interest::decode(i.wire().clone()).unwrap(), i);
}

#[test]
fn rewrite_copies_shared_buffer() {
    let wire = hx(INTEREST_FULL);
    let keep = wire.clone();
    let mut i = Interest::decode(wire).unwrap();
    i.set_hop_limit(9);
    assert_eq!(keep, hx(INTEREST_FULL), "the other holder sees no change");
    assert_eq!(i.hop_limit(), Some(9));
}

#[test]
fn rewrite_inserts_and_resizes() {
    let mut i = Interest::decode(hx("05 05 07 03 08 01 61")).unwrap();
    i.set_hop_limit(7);
    i.set_nonce(1);
    i.set_lifetime_ms(100_000); // inserted, 4-byte NNI
    assert_eq!(
        i.wire(),
        &hx("05 14 07 03 08 01 61 0a 04 00 00 00 01 0c 04 00 01 86 a0 22 01 07")
    );
    i.set_lifetime_ms(5); // fits in place (non-minimal NNI kept)
    assert_eq!(i.lifetime_field(), Some(5));
    let mut j = Interest::decode(hx("05 08 07 03 08 01 61 0c 01 05")).unwrap();
    j.set_lifetime_ms(4000); // grows from 1 to 2 bytes
    assert_eq!(j.wire(), &hx("05 09 07 03 08 01 61 0c 02 0f a0"));
}

#[test]
fn lp_pit_token_rewrite() {
    let wire = LpPacket::builder()
        .pit_token(vec![1u8; 4])
        .fragment(hx("06 00"))
        .build();
    let mut lp = LpPacket::decode(wire).unwrap();
    lp.set_pit_token(&[9, 9, 9, 9]);
    assert_eq!(lp.pit_token(), Some(&[9u8, 9, 9, 9][..]));
    lp.set_pit_token(&[1, 2]);
    assert_eq!(lp.pit_token(), Some(&[1u8, 2][..]));
    assert_eq!(lp.fragment().unwrap().as_ref(), &[6, 0]);
}

/// The hand-written seeds of the fuzz corpus (named for what they hold), not the
/// inputs fuzzing added (named by their hash) or kept regressions (`regress-*`),
/// which may be invalid on purpose.
fn seeds(dir: std::path::PathBuf) -> impl Iterator<Item = std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let hashed = name.len() == 40 && name.bytes().all(|b| b.is_ascii_hexdigit());
            !hashed && !name.starts_with("regress-")
        })
}

#[test]
fn fuzz_corpus_seeds_are_valid() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let mut n = 0;
    for (dir, f) in [
        (
            "packet",
            (|b| Packet::decode(b).map(drop)) as fn(Bytes) -> Result<(), DecodeError>,
        ),
        ("lp_packet", |b| LpPacket::decode(b).map(drop)),
    ] {
        for p in seeds(root.join(dir)) {
            f(Bytes::from(std::fs::read(&p).unwrap())).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            n += 1;
        }
    }
    for p in seeds(root.join("name_uri")) {
        Name::from_uri(&std::fs::read_to_string(&p).unwrap()).unwrap();
        n += 1;
    }
    assert!(n >= 12);
}
