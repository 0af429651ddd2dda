//! The laboratory's commands with the real binary, in one test binary: `ndnlab
//! run` (the default experiment, resume, shards, bad files), the `processes`
//! runner and Ctrl-C, `ndnlab topo`, `ndnlab merge`, and every shipped example.

mod examples;
mod merge;
mod processes;
mod run;
mod topo;
