//! A byte stream in chunks into the TLV stream framing of Unix, TCP and WebSocket faces.
//! The harness is `ndnlab_proto::fuzz::framing` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_proto::fuzz::framing(data));
