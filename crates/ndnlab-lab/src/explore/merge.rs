//! `ndnlab model merge DIR... --out DIR`: the directories of a sharded
//! exploration (`model explore --shard I/N --out DIR`, one per slice) joined
//! into one, as an unsharded run would have written it, like the laboratory's
//! `ndnlab merge`, on the same engine (`crate::campaign::engine::merge`).
//! Every slice must hold the same exploration (its `explore.toml`); every
//! grid point must be found exactly once.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::points::{Points, Row};
use super::run::usage;
use super::Manifest;
use crate::campaign::engine;
use ndnlab_model::dataplane::{Error, Result};

/// What a merge did.
#[derive(Debug, Clone, Serialize)]
pub struct Merged {
    pub out: PathBuf,
    /// Each slice and the points it held.
    pub slices: Vec<(PathBuf, usize)>,
    /// Every point, in point order.
    pub rows: Vec<Row>,
    pub manifest: Manifest,
}

/// Merges the exploration directories `dirs` into `out` (new, or without a
/// `points.csv`), through the campaign engine's merge with every point
/// required.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Merged> {
    let Some(first_dir) = dirs.first() else {
        return Err(Error::Usage("name at least one directory to merge".into()));
    };
    let first = Manifest::load(first_dir)?;
    let merged = engine::merge(&Points::new(&first), dirs, out, true).map_err(usage)?;
    Ok(Merged {
        out: out.to_path_buf(),
        slices: merged.slices,
        rows: merged.rows,
        manifest: first,
    })
}
