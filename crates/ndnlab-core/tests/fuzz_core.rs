//! The core's fuzz harness (`ndnlab_core::fuzz`) on stable: the checked-in corpus,
//! then a fixed-seed proptest of random and mutated event sequences (`fuzz/` runs
//! it under cargo-fuzz as the `core` target).

use ndnlab_core::fuzz;
use ndnlab_testkit::fuzzing::check;

#[test]
fn core_events() {
    check("core", 1500, 1024, &[], fuzz::core_events);
}
