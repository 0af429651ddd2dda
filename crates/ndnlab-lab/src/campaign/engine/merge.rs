//! The directories of a sharded campaign (one per slice) joined into one, as
//! an unsharded run would have written it: every slice must hold the same
//! manifest, and every id is taken once. A finished row is taken over an
//! unfinished one of the same id (a run that failed in one slice and
//! succeeded in another); two finished rows of one id mean the slices
//! overlap, and the merge is refused, naming the ids and the directories.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::{write_atomic, Store};

/// What a merge found.
#[derive(Debug, Clone)]
pub struct Merged<R> {
    /// Every row, in id order.
    pub rows: Vec<R>,
    /// Each slice and how many rows came from it.
    pub slices: Vec<(PathBuf, usize)>,
    /// Ids of the design no slice holds, in order.
    pub missing: Vec<usize>,
    /// The manifest every slice holds.
    pub manifest: String,
}

/// Merges the slices `dirs` of the campaign `store` describes into `out`
/// (which must not hold rows already), writing there the manifest and the
/// rows. With `complete`, ids no slice holds are an error naming them, and
/// nothing is written.
pub fn merge<S: Store>(
    store: &S,
    dirs: &[PathBuf],
    out: &Path,
    complete: bool,
) -> anyhow::Result<Merged<S::Row>> {
    let Some(first) = dirs.first() else {
        bail!("name at least one directory to merge");
    };
    if out.join(store.rows_file()).exists() {
        bail!(
            "{} already holds results; merge into a new or empty directory",
            out.display()
        );
    }
    let first_manifest = first.join(store.manifest_file());
    let ids: BTreeSet<usize> = store.ids().into_iter().collect();
    let noun = store.noun();
    let mut manifest = None;
    let mut by_id: BTreeMap<usize, (S::Row, usize)> = BTreeMap::new();
    let mut twice = Vec::new();
    for (k, d) in dirs.iter().enumerate() {
        let path = d.join(store.manifest_file());
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: not a campaign directory", d.display()))?;
        if let Some(what) = store.differs(&text, &path)? {
            bail!(
                "{} and {}: {what}; only slices of one campaign can be merged",
                first_manifest.display(),
                path.display()
            );
        }
        manifest.get_or_insert(text);
        let Some(rows) = store.read(d)? else {
            bail!("{}: no {}", d.display(), store.rows_file());
        };
        for row in rows {
            let id = store.id(&row);
            if !ids.contains(&id) {
                bail!(
                    "{}: {} is not one of the campaign's {} {noun}s",
                    d.display(),
                    store.label(id),
                    ids.len()
                );
            }
            match by_id.get(&id) {
                Some((prev, from)) if store.finished(prev) && store.finished(&row) => {
                    twice.push(format!(
                        "{} (in {} and {})",
                        store.label(id),
                        dirs[*from].display(),
                        d.display()
                    ));
                }
                Some((prev, _)) if store.finished(prev) => {}
                _ => {
                    by_id.insert(id, (row, k));
                }
            }
        }
    }
    if !twice.is_empty() {
        bail!(
            "{} {noun}(s) found twice, the slices overlap: {}",
            twice.len(),
            twice.join("; ")
        );
    }
    let missing: Vec<usize> = ids
        .iter()
        .copied()
        .filter(|id| !by_id.contains_key(id))
        .collect();
    if complete && !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|&id| store.label(id)).collect();
        let slices: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        bail!(
            "{} of {} {noun}s are in no slice of {} (run their shard again, with --resume, and merge): {}",
            missing.len(),
            ids.len(),
            slices.join(", "),
            names.join("; ")
        );
    }
    let slices = dirs
        .iter()
        .enumerate()
        .map(|(k, d)| (d.clone(), by_id.values().filter(|(_, f)| *f == k).count()))
        .collect();
    let manifest = manifest.expect("at least one slice");
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    write_atomic(&out.join(store.manifest_file()), &manifest)?;
    let rows: Vec<S::Row> = by_id.into_values().map(|(r, _)| r).collect();
    store.write(out, &rows)?;
    Ok(Merged {
        rows,
        slices,
        missing,
        manifest,
    })
}
