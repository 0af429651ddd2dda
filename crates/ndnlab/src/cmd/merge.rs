//! `ndnlab merge DIR... --out DIR`: the slices of a sharded campaign (`ndnlab
//! run --shard I/N`) joined into one result directory, then its report.

use std::path::PathBuf;

use clap::Args;

/// Join the output directories of a sharded campaign.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The slices' output directories (`ndnlab run --shard I/N --out DIR`).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The merged directory (new or empty).
    #[arg(long)]
    out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: MergeArgs) -> anyhow::Result<()> {
    let s = ndnlab_lab::merge::merge(&a.dirs, &a.out)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", s.text());
    }
    Ok(())
}
