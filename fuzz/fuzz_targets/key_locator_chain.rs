//! A packet and the certificates served for its KeyLocator chain into `Validator`.
//! The harness is `ndnlab_security::fuzz::key_locator_chain` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_security::fuzz::key_locator_chain(data));
