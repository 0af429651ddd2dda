//! The fuzz harness of the experiment file on stable: the checked-in corpus, then a
//! fixed-seed proptest of random and mutated inputs (`fuzz/` runs it under
//! cargo-fuzz).

use ndnlab_lab::fuzz;
use ndnlab_testkit::fuzzing::check;

#[test]
fn experiment() {
    let default = include_bytes!("../src/default.toml").to_vec();
    let factorial = include_bytes!("../../../experiments/seed001/table5-factorial.toml").to_vec();
    check(
        "experiment",
        600,
        256,
        &[default, factorial],
        fuzz::experiment,
    );
}

/// A design of a billion runs is refused by validation, naming the keys, instead of
/// listing its runs (found by the `experiment` fuzz target's harness).
#[test]
fn huge_designs_are_refused() {
    let base = include_str!("../src/default.toml");
    assert!(base.contains("\nrepetitions = 3\n"));
    let text = base.replacen("\nrepetitions = 3\n", "\nrepetitions = 1000000000\n", 1);
    let e = ndnlab_lab::experiment::parse(&text, "big.toml").unwrap_err();
    assert!(e.to_string().contains("more than 1000000 runs"), "{e}");
}
