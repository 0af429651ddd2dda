//! `ndnlab model merge DIR... --out DIR`: the directories of a sharded
//! exploration (`model explore --shard I/N --out DIR`, one per slice) joined
//! into one, as an unsharded run would have written it, like the laboratory's
//! `ndnlab merge`. Every slice must hold the same exploration (its
//! `explore.toml`); every grid point must be found exactly once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::points::{self, Row};
use super::{Manifest, MANIFEST};
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
/// `points.csv`).
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Merged> {
    let Some(first_dir) = dirs.first() else {
        return Err(Error::Usage("name at least one directory to merge".into()));
    };
    if out.join(points::FILE).exists() {
        return Err(Error::Usage(format!(
            "{} already holds results; merge into a new or empty directory",
            out.display()
        )));
    }
    let first = Manifest::load(first_dir)?;
    let mut by_point: BTreeMap<usize, (Row, &PathBuf)> = BTreeMap::new();
    let mut slices = Vec::new();
    let mut twice = Vec::new();
    for d in dirs {
        let m = Manifest::load(d)?;
        if let Some(what) = first.difference(&m) {
            return Err(Error::Usage(format!(
                "{} and {}: {what} differs; only slices of one exploration can be merged",
                first_dir.join(MANIFEST).display(),
                d.join(MANIFEST).display()
            )));
        }
        let csv = d.join(points::FILE);
        let rows = if csv.exists() {
            points::read(&csv, &first.grid)?
        } else {
            Vec::new()
        };
        slices.push((d.clone(), rows.len()));
        for r in rows {
            if let Some((_, other)) = by_point.get(&r.point) {
                twice.push(format!(
                    "{} (in {} and {})",
                    first.grid.label(&r.levels),
                    other.display(),
                    d.display()
                ));
            } else {
                by_point.insert(r.point, (r, d));
            }
        }
    }
    if !twice.is_empty() {
        return Err(Error::Usage(format!(
            "{} point(s) found twice, the slices overlap: {}",
            twice.len(),
            twice.join("; ")
        )));
    }
    let missing: Vec<String> = (0..first.grid.len())
        .filter(|i| !by_point.contains_key(i))
        .map(|i| first.grid.label(&first.grid.point(i).levels))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "{} of {} points are in no slice (run their shard again, with --resume, and merge): {}",
            missing.len(),
            first.grid.len(),
            missing.join("; ")
        )));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::File {
        path: out.to_path_buf(),
        message: e.to_string(),
    })?;
    let path = out.join(MANIFEST);
    std::fs::write(&path, first.to_toml()).map_err(|e| Error::File {
        path,
        message: e.to_string(),
    })?;
    let rows: Vec<Row> = by_point.into_values().map(|(r, _)| r).collect();
    points::write_sorted(&out.join(points::FILE), &first.grid, &rows)?;
    Ok(Merged {
        out: out.to_path_buf(),
        slices,
        rows,
        manifest: first,
    })
}
