//! Any UTF-8 as the daemon configuration file (parse and validate).
//! The harness is `ndnlab_fwd::config::fuzz::fwd_config` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_fwd::config::fuzz::fwd_config(data));
