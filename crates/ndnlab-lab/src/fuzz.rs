//! Fuzz harness of the experiment file. The cargo-fuzz target
//! `fuzz/fuzz_targets/experiment.rs` and the stable property test
//! (`tests/fuzz_props.rs`) call the same function: one harness, two drivers.

use crate::design;
use crate::experiment;

/// Any UTF-8 as an experiment file: parsing and validation fail with a message
/// (never a panic); an accepted experiment lists its runs (at most
/// [`design::MAX_RUNS`]) and its first points apply to the document.
pub fn experiment(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((doc, exp)) = experiment::parse(text, "fuzz.toml") else {
        return;
    };
    let Ok(runs) = design::runs(&exp) else {
        return;
    };
    assert!(runs.len() as u64 <= design::MAX_RUNS);
    for r in runs.iter().take(2) {
        let _ = design::describe(&r.levels);
        let _ = design::apply(&doc, &r.levels, "fuzz.toml");
    }
}
