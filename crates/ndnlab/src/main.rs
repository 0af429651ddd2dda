//! `ndnlab`: the one binary of the NDN forwarder and performance laboratory.
//!
//! Each subcommand is a user's verb and lives in its own module under `cmd/`:
//! the module exposes a clap `Args`/`Subcommand` type and a `run` function.
//! Errors bubble up as `anyhow::Error`, are printed with their cause chain and
//! make the process exit with status 1 (clap's own usage errors exit with 2).

mod cmd;

use clap::{Parser, Subcommand};

/// NDN forwarder and performance laboratory.
#[derive(Parser, Debug)]
#[command(name = "ndnlab", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Decode and encode NDN packets (like ndn-tools' ndndissect).
    #[command(subcommand)]
    Packet(cmd::packet::PacketCmd),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Packet(c) => cmd::packet::run(c),
    };
    if let Err(e) = result {
        eprintln!("ndnlab: error: {e:#}");
        std::process::exit(1);
    }
}
