//! Any bytes into `Packet::decode` (accessors total, hot-field rewrites re-decode).
//! The harness is `ndnlab_wire::fuzz::packet` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_wire::fuzz::packet(data));
