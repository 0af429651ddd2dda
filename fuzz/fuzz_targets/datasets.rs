//! A dataset kind and any payload into `decode_records`.
//! The harness is `ndnlab_proto::fuzz::datasets` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_proto::fuzz::datasets(data));
