//! Any bytes as a certificate file into `Certificate::decode`.
//! The harness is `ndnlab_security::fuzz::certificate` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_security::fuzz::certificate(data));
