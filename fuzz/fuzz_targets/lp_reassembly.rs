//! Link events into `LinkReceiver`: raw frames, fragment sequences lost, duplicated and reordered, time (bounds, timeouts).
//! The harness is `ndnlab_proto::fuzz::lp_reassembly` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_proto::fuzz::lp_reassembly(data));
