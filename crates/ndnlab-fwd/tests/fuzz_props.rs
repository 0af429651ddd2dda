//! The fuzz harness of the configuration file on stable: the checked-in corpus,
//! then a fixed-seed proptest of random and mutated inputs (`fuzz/` runs it under
//! cargo-fuzz).

use ndnlab_fwd::config::fuzz;
use ndnlab_testkit::fuzzing::check;

#[test]
fn fwd_config() {
    let example = include_bytes!("../fwd.example.toml").to_vec();
    check("fwd_config", 1500, 256, &[example], fuzz::fwd_config);
}
