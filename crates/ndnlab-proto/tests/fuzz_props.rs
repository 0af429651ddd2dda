//! The fuzz harnesses of `ndnlab_proto::fuzz` on stable: the checked-in corpus,
//! then a fixed-seed proptest of random and mutated inputs (`fuzz/` runs them under
//! cargo-fuzz).

use ndnlab_proto::fuzz;
use ndnlab_testkit::fuzzing::check;

#[test]
fn lp_reassembly() {
    check("lp_reassembly", 2000, 512, &[], fuzz::lp_reassembly);
}

#[test]
fn control_parameters() {
    check(
        "control_parameters",
        3000,
        256,
        &[],
        fuzz::control_parameters,
    );
}

#[test]
fn control_response() {
    check("control_response", 3000, 256, &[], fuzz::control_response);
}

#[test]
fn datasets() {
    check("datasets", 3000, 256, &[], fuzz::datasets);
}

#[test]
fn framing() {
    // a TLV claiming 2^64 - 1 bytes: the regression of `framing::next_frame`
    let huge = vec![
        9, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,
    ];
    check("framing", 3000, 256, &[huge], fuzz::framing);
}
