//! The laboratory's commands with the real binary, in one test binary: `ndnlab
//! run` (the default experiment, resume, shards, bad files), the `processes`
//! and `netns` runners, their agreement with `inproc`, the `sim` runner, Ctrl-C, `ndnlab topo`,
//! `ndnlab merge`, and every shipped example.

mod agreement;
mod cleanup;
mod examples;
mod forwarder_knobs;
#[path = "../lab_common/mod.rs"]
mod lab_common;
mod links;
mod merge;
mod netns;
mod nfd;
mod processes;
mod run;
mod sim;
mod topo;

/// Runs the `ndnlab` binary under test with `args`.
fn ndnlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .output()
        .expect("run ndnlab")
}
