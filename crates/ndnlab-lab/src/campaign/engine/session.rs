//! A campaign into its directory: [`Session::open`] writes the manifest, or
//! under `--resume` checks it and reads back the rows done; [`Session::run`]
//! runs the jobs not done, records each row as it finishes and writes every
//! row, in id order, at the end.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::pool::{execute, Msg};
use super::{write_atomic, Job, Store};

/// A campaign's progress, for a progress bar and for the caller's own
/// bookkeeping; `done` counts the rows so far, those found done included, of
/// `total` jobs.
pub enum Event<'a, J: Job + ?Sized> {
    /// A job starts.
    Start {
        job: &'a J,
        done: usize,
        total: usize,
    },
    /// A job finished with `row` (already recorded in the directory).
    Done {
        row: &'a J::Row,
        done: usize,
        total: usize,
    },
}

/// What a campaign did.
#[derive(Debug, Clone)]
pub struct Ran<R> {
    /// Every row, those found done included, in id order.
    pub rows: Vec<R>,
    /// Rows found done (`--resume`).
    pub resumed: usize,
    /// Jobs run now.
    pub ran: usize,
}

/// A campaign's directory, open: the rows found done.
pub struct Session<'s, S: Store> {
    store: &'s S,
    dir: Option<PathBuf>,
    rows: Vec<S::Row>,
}

impl<'s, S: Store> Session<'s, S> {
    /// Opens `dir` (none: rows in memory only) for the jobs `ids` (this
    /// shard's). Without `resume` a directory that holds rows is refused,
    /// unless the store starts it over; under `resume` its manifest must be
    /// this campaign's, and its finished rows of `ids` are kept.
    pub fn open(
        store: &'s S,
        dir: Option<&Path>,
        resume: bool,
        ids: &[usize],
    ) -> anyhow::Result<Self> {
        let Some(dir) = dir else {
            return Ok(Session {
                store,
                dir: None,
                rows: Vec::new(),
            });
        };
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let manifest = dir.join(store.manifest_file());
        let rows_path = dir.join(store.rows_file());
        if rows_path.exists() && !resume && !store.restart_without_resume() {
            bail!(
                "{} exists: add --resume to carry on with it, or give a new --out",
                rows_path.display()
            );
        }
        let kept = resume
            && manifest.exists()
            && {
                let old = std::fs::read_to_string(&manifest)
                    .with_context(|| format!("reading {}", manifest.display()))?;
                if let Some(what) = store.differs(&old, &manifest)? {
                    bail!(
                    "{} and this campaign: {what}; --resume needs the same campaign, or give a new --out",
                    manifest.display()
                );
                }
                true
            };
        if !kept {
            write_atomic(&manifest, store.manifest())?;
        }
        let ids: BTreeSet<usize> = ids.iter().copied().collect();
        let mut rows = if resume {
            store.read(dir)?.unwrap_or_default()
        } else {
            Vec::new()
        };
        rows.retain(|r| store.finished(r) && ids.contains(&store.id(r)));
        store.open(dir)?;
        Ok(Session {
            store,
            dir: Some(dir.to_path_buf()),
            rows,
        })
    }

    /// Whether the job `id` is done (found under `--resume`).
    pub fn is_done(&self, id: usize) -> bool {
        self.rows.iter().any(|r| self.store.id(r) == id)
    }

    /// The rows found done.
    pub fn resumed(&self) -> usize {
        self.rows.len()
    }

    /// Runs the jobs not done on `workers` threads ([`execute`]: fail-fast),
    /// appending each row to the directory as it finishes; `on` sees each
    /// start and row, and an error from it stops the campaign like a job's.
    /// Then every row is written, in id order.
    pub fn run<J: Job<Row = S::Row> + ?Sized>(
        self,
        jobs: &[&J],
        workers: usize,
        on: &mut dyn FnMut(Event<'_, J>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Ran<S::Row>> {
        let Session {
            store,
            dir,
            mut rows,
        } = self;
        let resumed = rows.len();
        let done: BTreeSet<usize> = rows.iter().map(|r| store.id(r)).collect();
        let pending: Vec<&J> = jobs
            .iter()
            .copied()
            .filter(|j| !done.contains(&j.id()))
            .collect();
        let total = resumed + pending.len();
        execute(&pending, workers, &mut |msg| match msg {
            Msg::Start(i) => on(Event::Start {
                job: pending[i],
                done: rows.len(),
                total,
            }),
            Msg::Done(_, row) => {
                rows.push(row);
                let row = rows.last().expect("just pushed");
                if let Some(dir) = &dir {
                    store.append(dir, row, &rows)?;
                }
                on(Event::Done {
                    row,
                    done: rows.len(),
                    total,
                })
            }
        })?;
        rows.sort_by_key(|r| store.id(r));
        if let Some(dir) = &dir {
            store.write(dir, &rows)?;
        }
        Ok(Ran {
            rows,
            resumed,
            ran: pending.len(),
        })
    }
}
