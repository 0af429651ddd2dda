//! The fuzz harnesses of `ndnlab_wire::fuzz` on stable: the checked-in corpus, then
//! a fixed-seed proptest of random and mutated inputs (`fuzz/` runs them under
//! cargo-fuzz).

use ndnlab_testkit::fuzzing::check;
use ndnlab_wire::fuzz;

#[test]
fn packet() {
    check("packet", 3000, 256, &[], fuzz::packet);
}

#[test]
fn lp_packet() {
    check("lp_packet", 3000, 256, &[], fuzz::lp_packet);
}

#[test]
fn name_uri() {
    check(
        "name_uri",
        3000,
        128,
        &[b"/a/b%00c/seg=3/v=1/32=x".to_vec()],
        fuzz::name_uri,
    );
}
