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
    assert!(fuzz::key_locator_chain_accepts(&seed), "the seed chain validates");
    check("key_locator_chain", 1000, 256, &[seed], fuzz::key_locator_chain);
}
