//! `ndnlab ping PREFIX` / `ndnlab ping server PREFIX` (ndnping naming).

use clap::{Args, Subcommand};
use ndnlab_lab::app::tools::{block_on, ping};

/// Reachability and RTT test.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct PingCmd {
    #[command(subcommand)]
    pub server: Option<PingSub>,
    #[command(flatten)]
    pub client: ping::PingArgs,
}

#[derive(Subcommand, Debug)]
pub enum PingSub {
    /// Answer pings under PREFIX/ping.
    Server(ping::PingServerArgs),
}

pub fn run(cmd: PingCmd) -> anyhow::Result<()> {
    match cmd.server {
        Some(PingSub::Server(a)) => block_on(1, ping::serve(a))?.map(|_| ()),
        None => block_on(1, ping::run(cmd.client))?.map(|_| ()),
    }
}
