//! The fuzz harnesses of `ndnlab_security::fuzz` on stable: the checked-in corpus,
//! then a fixed-seed proptest of random and mutated inputs (`fuzz/` runs them under
//! cargo-fuzz).

use ndnlab_security::fuzz;
use ndnlab_testkit::fuzzing::check;

#[test]
fn certificate() {
    check("certificate", 2000, 256, &[], fuzz::certificate);
}

#[test]
fn key_locator_chain() {
    let seed = fuzz::key_locator_chain_seed();
    assert!(
        fuzz::key_locator_chain_accepts(&seed),
        "the seed chain validates"
    );
    // `NDNLAB_FUZZ_SEEDS=fuzz/corpus` writes the seeds of the two targets there.
    if let Ok(dir) = std::env::var("NDNLAB_FUZZ_SEEDS") {
        let dir = std::path::Path::new(&dir);
        let (data_len, _) = split_first_tlv(&seed);
        std::fs::create_dir_all(dir.join("key_locator_chain")).unwrap();
        std::fs::create_dir_all(dir.join("certificate")).unwrap();
        std::fs::write(dir.join("key_locator_chain/seed-chain"), &seed).unwrap();
        std::fs::write(dir.join("certificate/seed-cert"), &seed[data_len..]).unwrap();
    }
    check(
        "key_locator_chain",
        1000,
        256,
        &[seed],
        fuzz::key_locator_chain,
    );
}

/// Length of the first TLV of `b`, and the rest.
fn split_first_tlv(b: &[u8]) -> (usize, &[u8]) {
    let mut pos = 0;
    let _ = ndnlab_wire::tlv::read_varnum(b, &mut pos).unwrap();
    let len = ndnlab_wire::tlv::read_varnum(b, &mut pos).unwrap() as usize;
    (pos + len, &b[pos + len..])
}
