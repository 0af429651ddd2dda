//! `ndnlab traffic client|server`: request generator and its server.

use clap::Subcommand;
use ndnlab_lab::app::tools::{block_on, traffic};

/// Traffic generator (Poisson, constant rate, bursts; several patterns).
#[derive(Subcommand, Debug)]
pub enum TrafficCmd {
    /// Send Interests following the patterns; report per-pattern statistics.
    Client(traffic::client::ClientArgs),
    /// Answer the generator's Interests.
    Server(traffic::server::ServerArgs),
}

pub fn run(cmd: TrafficCmd) -> anyhow::Result<()> {
    match cmd {
        TrafficCmd::Client(a) => block_on(2, traffic::client::run(a))?.map(|_| ()),
        TrafficCmd::Server(a) => block_on(2, traffic::server::run(a))?.map(|_| ()),
    }
}
