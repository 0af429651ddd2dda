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
        return Ok(());
    }
    for (dir, n) in &s.slices {
        println!("{}: {n} runs", dir.display());
    }
    println!(
        "{} of {} runs merged ({} failed, {} skipped) into {}",
        s.merged,
        s.expected,
        s.failed,
        s.skipped,
        s.out.display()
    );
    if !s.missing.is_empty() {
        let ids: Vec<String> = s.missing.iter().map(|i| i.to_string()).collect();
        println!(
            "missing runs (no slice holds them): {}; run their shard again and merge",
            ids.join(", ")
        );
    }
    if let Some(r) = &s.report {
        println!("report: {}", r.display());
    }
    Ok(())
}
