//! Any bytes into `LpPacket::decode` (re-encoding round trip, PIT token rewrite).
//! The harness is `ndnlab_wire::fuzz::lp_packet` (also run on stable by the crate's property test).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ndnlab_wire::fuzz::lp_packet(data));
