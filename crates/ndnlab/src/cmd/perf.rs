//! `ndnlab perf server|client`: NDNperf-style throughput measurement.

use clap::Subcommand;
use ndnlab_lab::app::tools::{block_on, perf};

/// NDNperf-style throughput measurement.
#[derive(Subcommand, Debug)]
pub enum PerfCmd {
    /// Answer Interests with fresh signed Data from a signing pool.
    Server(perf::server::ServerArgs),
    /// Request Data through windowed pipelines and report throughput and RTT.
    Client(perf::client::ClientArgs),
}

pub fn run(cmd: PerfCmd) -> anyhow::Result<()> {
    match cmd {
        PerfCmd::Server(a) => block_on(2, perf::server::run(a))?,
        PerfCmd::Client(a) => block_on(2, perf::client::run(a))?.map(|_| ()),
    }
}
