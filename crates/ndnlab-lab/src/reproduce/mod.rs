//! `ndnlab reproduce`: every experiment file of the seed directories
//! (`experiments/seedNNN/`, one paper each, described by its `paper.toml`)
//! run as a campaign exactly as `ndnlab run` runs it, every model file
//! (`*.model`, [`model`]) explored as `ndnlab model explore` does, each into
//! `OUT/<seed>/<file stem>/`, then one page gathering the papers' numbers
//! beside ndnlab's (`ndnlab_report::reproduction`).
//!
//! Without NFD installed, a file whose every point runs NFD is skipped with a
//! message; in a file that runs NFD at some levels only, the NFD points are
//! skipped runs and the rest runs. A file that fails does not stop the others.

pub mod model;
pub mod seeds;

use std::path::{Path, PathBuf};

use ndnlab_report::experiment::load_dir;
use ndnlab_report::reproduction::{FileResult, Outcome, Reproduction, SeedResult};
use ndnlab_report::ReportOptions;

use crate::campaign::{self, Campaign};
use seeds::{Item, SeedDir};

/// What to reproduce and where.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The experiments directory ([`seeds::experiments_dir`]).
    pub experiments: Option<PathBuf>,
    /// Seed names (`000`, `seed000`, `0`, `all`); empty: all.
    pub seeds: Vec<String>,
    /// Default `results/reproduce`, `results/reproduce-quick` under `quick`.
    pub out: Option<PathBuf>,
    pub quick: bool,
    pub resume: bool,
    pub jobs: Option<usize>,
    /// The command line, for the page.
    pub command: String,
}

impl Options {
    pub fn out_dir(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| {
            PathBuf::from(if self.quick {
                "results/reproduce-quick"
            } else {
                "results/reproduce"
            })
        })
    }
}

/// What `reproduce` reports while it works.
#[derive(Debug, Clone)]
pub enum Progress<'a> {
    /// A file starts: `steps` runs or grid points.
    File {
        seed: &'a str,
        file: &'a str,
        steps: u64,
    },
    /// Steps done in the current file.
    Step { done: u64 },
    /// A file ended (its message when it failed or was skipped).
    Ended {
        seed: &'a str,
        file: &'a str,
        outcome: Outcome,
        message: Option<&'a str>,
    },
}

/// Whether NFD is installed (the way the runners find it).
pub fn nfd_installed() -> bool {
    crate::runner::daemons::nfd::binary().is_some()
}

/// How to install NFD, for the skip message.
pub const NFD_HINT: &str =
    "put `nfd` on the PATH or set NDNLAB_NFD to its binary; docs/LAB.md, NFD nodes";

/// Whether every run of a loaded campaign runs NFD nodes (without NFD, the
/// file is skipped; a file that runs NFD at some levels of a factor runs its
/// other points, and its NFD points are skipped one by one).
fn only_nfd(c: &Campaign) -> bool {
    let nfd = |e: &crate::experiment::Experiment| {
        e.forwarder.kind == "nfd" || e.nodes.values().any(|n| n.kind.as_deref() == Some("nfd"))
    };
    !c.runs.is_empty()
        && c.runs
            .iter()
            .all(|r| c.point(&r.levels).is_ok_and(|e| nfd(&e)))
}

/// A selected seed directory, its paper and its files in order.
pub type Planned = (SeedDir, ndnlab_report::reproduction::Paper, Vec<Item>);

/// Finds, selects and loads the seed directories (without running anything):
/// the experiments directory and the seeds.
pub fn plan(opts: &Options) -> anyhow::Result<(PathBuf, Vec<Planned>)> {
    let dir = seeds::experiments_dir(opts.experiments.as_deref());
    let known = seeds::list(&dir).map_err(anyhow::Error::msg)?;
    if known.is_empty() {
        anyhow::bail!("{}: no seed directories (seedNNN/)", dir.display());
    }
    let chosen = seeds::select(&known, &opts.seeds).map_err(anyhow::Error::msg)?;
    let mut out = Vec::new();
    for s in chosen {
        let paper = seeds::paper(&s.dir).map_err(anyhow::Error::msg)?;
        let items = seeds::items(&s.dir).map_err(anyhow::Error::msg)?;
        out.push((s, paper, items));
    }
    Ok((dir, out))
}

/// Runs every file of the selected seeds and writes the page; the
/// reproduction says what ran, failed and was skipped.
pub fn reproduce(
    opts: &Options,
    progress: &mut dyn FnMut(Progress),
) -> anyhow::Result<(Reproduction, PathBuf)> {
    let (experiments, plan) = plan(opts)?;
    let out = opts.out_dir();
    std::fs::create_dir_all(&out).map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let mut seeds_done = Vec::new();
    for (s, paper, items) in plan {
        let mut files = Vec::new();
        for item in &items {
            let stem = item.stem();
            let dir = out.join(&s.name).join(&stem);
            let mut f = match item {
                Item::Campaign(p) => run_campaign(opts, &s.name, &stem, p, &dir, progress),
                Item::Model(p) => run_model(opts, &s.name, &stem, p, &dir, progress),
            };
            f.report = f
                .report
                .take()
                .map(|r| format!("{}/{}/{}", s.name, stem, r));
            progress(Progress::Ended {
                seed: &s.name,
                file: &stem,
                outcome: f.outcome,
                message: f.message.as_deref(),
            });
            files.push(f);
        }
        seeds_done.push(SeedResult {
            seed: s.name.clone(),
            dir: s.dir.clone(),
            paper,
            files,
        });
    }
    let r = Reproduction {
        out: out.clone(),
        experiments,
        quick: opts.quick,
        command: opts.command.clone(),
        machine: crate::results::machine(),
        seeds: seeds_done,
    };
    let index = r.write()?;
    Ok((r, index))
}

fn empty(stem: &str, path: &Path, kind: &'static str, out: &Path) -> FileResult {
    FileResult {
        file: stem.to_string(),
        path: path.to_path_buf(),
        kind,
        outcome: Outcome::Failed,
        message: None,
        out: out.to_path_buf(),
        report: None,
        runs_ok: 0,
        runs_failed: 0,
        runs_skipped: 0,
        figure: None,
        finding: None,
        rows: Vec::new(),
        comparison: None,
    }
}

fn run_campaign(
    opts: &Options,
    seed: &str,
    stem: &str,
    path: &Path,
    out: &Path,
    progress: &mut dyn FnMut(Progress),
) -> FileResult {
    let mut f = empty(stem, path, "campaign", out);
    let mut copts = campaign::Options {
        out: out.to_path_buf(),
        quick: opts.quick,
        resume: opts.resume,
        jobs: opts.jobs,
        ..Default::default()
    };
    let c = match Campaign::load(Some(path), &copts) {
        Ok(c) => c,
        Err(e) => {
            f.message = Some(format!("{seed}/{stem}: {e}"));
            return f;
        }
    };
    if let Some(r) = &c.exp.reference {
        f.figure = Some(r.figure.clone());
        f.finding = Some(r.finding.clone());
    }
    if only_nfd(&c) && !nfd_installed() {
        f.outcome = Outcome::Skipped;
        f.message = Some(format!(
            "{seed}/{stem}: NFD not installed ({NFD_HINT}); skipped"
        ));
        return f;
    }
    copts.out = out.to_path_buf();
    progress(Progress::File {
        seed,
        file: stem,
        steps: c.runs.len() as u64,
    });
    let summary = c.run(&copts, &mut |p| {
        if let campaign::Progress::Start { done, .. } = p {
            progress(Progress::Step { done: done as u64 });
        }
    });
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            f.message = Some(format!("{seed}/{stem}: {e:#}"));
            return f;
        }
    };
    f.runs_ok = summary.rows.iter().filter(|r| r.status == "ok").count();
    f.runs_failed = summary.failed;
    f.runs_skipped = summary.not_applicable;
    f.report = summary
        .report
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    match load_dir(out).and_then(|d| ndnlab_report::compare(&d, &ReportOptions::default())) {
        Ok(c) => {
            if let Some(c) = c {
                f.rows = c.rows.clone();
                f.comparison = Some(c);
            }
        }
        Err(e) => {
            f.message = Some(format!("{seed}/{stem}: the comparison with the paper: {e}"));
            return f;
        }
    }
    if summary.failed > 0 {
        f.message = Some(format!(
            "{seed}/{stem}: {} of {} runs failed (see {}/logs/)",
            summary.failed,
            summary.rows.len(),
            out.display()
        ));
    } else {
        f.outcome = Outcome::Ok;
    }
    f
}

fn run_model(
    opts: &Options,
    seed: &str,
    stem: &str,
    path: &Path,
    out: &Path,
    progress: &mut dyn FnMut(Progress),
) -> FileResult {
    let mut f = empty(stem, path, "model", out);
    let m = match model::ModelFile::load(path, opts.quick) {
        Ok(m) => m,
        Err(e) => {
            f.message = Some(format!("{seed}/{stem}: {e:#}"));
            return f;
        }
    };
    if let Some(r) = &m.reference {
        f.figure = Some(r.figure.clone());
        f.finding = Some(r.finding.clone());
    }
    let points = m
        .manifest()
        .map(|(mf, _)| mf.grid.len() as u64)
        .unwrap_or(0);
    progress(Progress::File {
        seed,
        file: stem,
        steps: points,
    });
    let threads = opts
        .jobs
        .unwrap_or_else(ndnlab_model::dataplane::runs::default_threads);
    let done = std::sync::atomic::AtomicU64::new(0);
    let ran = m.run(out, opts.resume, threads, &|d, _| {
        done.store(d, std::sync::atomic::Ordering::Relaxed);
    });
    progress(Progress::Step {
        done: done.load(std::sync::atomic::Ordering::Relaxed),
    });
    match ran {
        Ok((n, c)) => {
            f.runs_ok = n;
            if let Some(c) = c {
                f.rows = c.rows.clone();
                f.comparison = Some(c);
            }
            f.outcome = Outcome::Ok;
        }
        Err(e) => f.message = Some(format!("{seed}/{stem}: {e:#}")),
    }
    f
}
