//! Any UTF-8 as an experiment file (parse, validate, list runs).
//! The harness is `ndnlab_lab::fuzz::experiment` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_lab::fuzz::experiment(data));
