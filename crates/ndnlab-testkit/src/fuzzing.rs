//! The stable driver of the fuzz harnesses: every crate's `fuzz` module holds its
//! harnesses (`fn(&[u8])`), cargo-fuzz drives them on nightly (`fuzz/`), and
//! [`check`] drives the same functions in the normal test suite: it replays the
//! checked-in corpus `fuzz/corpus/<target>/`, then runs a deterministic proptest
//! (fixed seed, no persistence) of random inputs and mutations of the corpus.

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The checked-in corpus of a cargo-fuzz target (empty if there is none).
pub fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_file())
                .filter_map(|e| {
                    let bytes = std::fs::read(e.path()).ok()?;
                    Some((e.file_name().to_string_lossy().into_owned(), bytes))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Replays `target`'s corpus and `seeds` through `harness`, then `cases` inputs of
/// a fixed-seed proptest: random bytes (up to `max_len`) and byte-level mutations
/// (flip, set, insert, delete, truncate) of the corpus and the seeds. A failing input
/// is shrunk and reported in hex.
pub fn check(target: &str, cases: u32, max_len: usize, seeds: &[Vec<u8>], harness: impl Fn(&[u8])) {
    let mut pool: Vec<Vec<u8>> = seeds.to_vec();
    for (name, bytes) in corpus(target) {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness(&bytes)));
        assert!(r.is_ok(), "{target}: corpus file {name} fails");
        pool.push(bytes);
    }
    for s in seeds {
        harness(s);
    }
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let n = pool.len();
    let mutation = (
        0..n,
        prop::collection::vec((0u8..5, any::<u16>(), any::<u8>()), 1..8),
    )
        .prop_map(move |(i, ops)| (i, ops));
    let strategy = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..max_len).prop_map(Input::Raw),
        mutation.prop_map(|(i, ops)| Input::Mutated(i, ops)),
    ];
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    let result = runner.run(&strategy, |input| {
        let bytes = input.bytes(&pool);
        harness(&bytes);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{target}: {e}");
    }
}

/// A generated input: random bytes, or a corpus entry with mutations.
#[derive(Debug, Clone)]
enum Input {
    Raw(Vec<u8>),
    Mutated(usize, Vec<(u8, u16, u8)>),
}

impl Input {
    fn bytes(&self, pool: &[Vec<u8>]) -> Vec<u8> {
        match self {
            Input::Raw(b) => b.clone(),
            Input::Mutated(i, ops) => {
                let mut b = pool[*i].clone();
                for &(op, pos, val) in ops {
                    let at = if b.is_empty() {
                        0
                    } else {
                        pos as usize % b.len()
                    };
                    match op {
                        0 if !b.is_empty() => b[at] ^= 1 << (val % 8),
                        1 if !b.is_empty() => b[at] = val,
                        2 => b.insert(at, val),
                        3 if !b.is_empty() => {
                            b.remove(at);
                        }
                        _ => b.truncate(at),
                    }
                }
                b
            }
        }
    }
}
