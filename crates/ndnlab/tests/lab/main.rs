//! The laboratory's commands with the real binary, in one test binary: `ndnlab
//! run` (the default experiment, resume, shards, bad files), the `processes`
//! and `netns` runners, their agreement with `inproc`, the `sim` runner, Ctrl-C, `ndnlab topo`,
//! `ndnlab merge`, and every shipped example.

mod agreement;
mod cleanup;
mod examples;
mod forwarder_knobs;
mod links;
mod merge;
mod netns;
mod nfd;
mod processes;
mod run;
mod sim;
mod topo;
mod truth_cache;
mod truth_delay;
mod truth_download;
mod truth_loss;
mod truth_producer;
mod truth_rate;
mod truth_run;
mod truth_verify;

/// Runs the `ndnlab` binary under test with `args`.
fn ndnlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .output()
        .expect("run ndnlab")
}
