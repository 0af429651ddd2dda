//! Any UTF-8 into `Name::from_uri` (canonical URI round trip).
//! The harness is `ndnlab_wire::fuzz::name_uri` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_wire::fuzz::name_uri(data));
