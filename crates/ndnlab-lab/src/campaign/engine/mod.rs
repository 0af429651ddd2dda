//! The campaign engine: what `ndnlab run`, `ndnlab model explore` and
//! `ndnlab model validate` share. A campaign is a list of [`Job`]s, each with
//! an id that is the same in every run of the campaign and in every shard of
//! it (a run of an experiment's design, a point of a model's grid, a measured
//! configuration), each giving one row; a [`Store`] keeps the rows in the
//! campaign's directory.
//!
//! - [`shard`]: `--shard I/N`, the jobs whose id is I modulo N;
//! - [`pool`]: [`execute`], the jobs on worker threads, every start and every
//!   finished row seen on the calling thread, stopping at the first error;
//! - [`session`]: a campaign into its directory: the manifest written, or
//!   checked under `--resume` (a changed design is refused), the rows done read
//!   back and their jobs skipped, each finished row appended at once, every row
//!   written whole, in id order, at the end ([`write_atomic`]);
//! - [`merge`]: the directories of a sharded campaign joined: every slice with
//!   the same manifest, every id exactly once;
//! - [`bar`]: the progress bar of the commands that run a campaign.
//!
//! The results do not depend on the number of workers: rows are kept and
//! written in id order, whatever order the jobs finish in.

pub mod bar;
pub mod merge;
pub mod pool;
pub mod session;
pub mod shard;

use std::path::{Path, PathBuf};

use anyhow::Context;

pub use bar::bar;
pub use merge::{merge, Merged};
pub use pool::{execute, Msg};
pub use session::{Event, Ran, Session};
pub use shard::{in_shard, parse_shard};

/// One job of a campaign.
pub trait Job: Sync {
    type Row: Send;
    /// The job's id: stable across runs and shards of the campaign.
    fn id(&self) -> usize;
    /// Runs the job. An error stops the campaign; a job that may fail
    /// without stopping it returns a row saying so.
    fn run(&self) -> anyhow::Result<Self::Row>;
}

/// Where a campaign keeps its rows: a manifest (what makes two directories
/// one campaign) and a rows file.
pub trait Store {
    type Row;
    /// The manifest's file name (`experiment.toml`, `explore.toml`).
    fn manifest_file(&self) -> &'static str;
    /// The rows' file name (`results.csv`, `points.csv`).
    fn rows_file(&self) -> &'static str;
    /// This campaign's manifest.
    fn manifest(&self) -> String;
    /// What differs between this campaign and the manifest `text` read from
    /// `path` ("--seed differs"); `None` when it is the same campaign.
    fn differs(&self, text: &str, path: &Path) -> anyhow::Result<Option<String>>;
    /// Whether a directory that holds rows is started over without
    /// `--resume` (true) or refused (false).
    fn restart_without_resume(&self) -> bool {
        false
    }
    /// The id of the job a row is the result of.
    fn id(&self, row: &Self::Row) -> usize;
    /// Whether a row is final: `--resume` skips its job, and a merge takes it
    /// over a row of the same id that is not. Every row is, by default.
    fn finished(&self, _row: &Self::Row) -> bool {
        true
    }
    /// Every id of the campaign's design, all shards together.
    fn ids(&self) -> Vec<usize>;
    /// The job `id` as messages name it ("run 3", "threads=1 queue=256").
    fn label(&self, id: usize) -> String;
    /// What a job is called in counts ("run", "point").
    fn noun(&self) -> &'static str;
    /// Writes what else `dir` holds, once the manifest is in place and the
    /// rows done are read, before any job runs.
    fn open(&self, _dir: &Path) -> anyhow::Result<()> {
        Ok(())
    }
    /// The rows of `dir`; `None` without a rows file.
    fn read(&self, dir: &Path) -> anyhow::Result<Option<Vec<Self::Row>>>;
    /// Records a row as it finishes; `all` is every row so far, this one
    /// last.
    fn append(&self, dir: &Path, row: &Self::Row, all: &[Self::Row]) -> anyhow::Result<()>;
    /// Writes every row (given in id order) whole, through [`write_atomic`].
    fn write(&self, dir: &Path, rows: &[Self::Row]) -> anyhow::Result<()>;
}

/// Writes `bytes` to `path` through a temporary file beside it renamed over
/// it, so that `path` is always whole: the old contents or the new.
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp: PathBuf = path.with_file_name(name);
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

#[cfg(test)]
mod tests;
