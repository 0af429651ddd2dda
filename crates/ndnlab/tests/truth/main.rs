//! The truth experiments: `experiments/truth/*.toml`, whose answers are known
//! in closed form, run with the real binary under `sim`, `inproc` and
//! `processes` (`netns` where namespaces can be made), each metric checked
//! against its known answer within a tolerance derived in the test. A test
//! binary of their own, so that their real-time runs share the machine with
//! no other test's (`cargo test` runs test binaries one after another, and
//! [`harness::real_time`] keeps them one at a time inside this one).

#[path = "../lab_common/mod.rs"]
mod lab_common;

mod cache;
mod delay;
mod download;
mod harness;
mod loss;
mod marks;
mod producer;
mod rate;
mod retransmissions;
mod verify;
