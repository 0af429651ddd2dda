//! `ndnlab packet`: decode and encode NDN packets.

use clap::Subcommand;

/// Decode and encode NDN packets.
#[derive(Subcommand, Debug)]
pub enum PacketCmd {
    /// Print the TLV structure of a packet.
    Decode,
}

pub fn run(_cmd: PacketCmd) -> anyhow::Result<()> {
    anyhow::bail!("not yet implemented")
}
