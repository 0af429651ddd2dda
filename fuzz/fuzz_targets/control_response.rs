//! Any bytes into `ControlResponse::decode` (round trip).
//! The harness is `ndnlab_proto::fuzz::control_response` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_proto::fuzz::control_response(data));
