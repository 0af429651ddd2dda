//! An `arbitrary` event sequence into the forwarder core, with its invariants.
//! The harness is `ndnlab_core::fuzz::core_events` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_core::fuzz::core_events(data));
