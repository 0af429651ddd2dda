//! Running an exploration: every point of the grid (or of one shard, the
//! points whose index is I modulo N) checked with the same seed, so a point's
//! row is what `ndnlab model check --set KEY=LEVEL... --seed S` prints.
//!
//! Points are independent: they are spread over the worker threads, each
//! point's runs on `threads / points` threads when there are fewer points
//! left than threads. A point's result depends only on its levels and the
//! seed, never on the thread count or the order points finish; each finished
//! point is appended to `points.csv` at once (a killed run loses only the
//! points in progress), and the file is rewritten in point order at the end.
//! The observables' means ([`KEPT`]) come from the same runs as the check.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use ndnlab_model::smc::{check_property, Outcome, Property, Spec};

use super::points::{self, Appender, Row, KEPT};
use super::{Manifest, Point, MANIFEST};
use ndnlab_model::dataplane::check::parse_property;
use ndnlab_model::dataplane::runs::{par_map, run_seed};
use ndnlab_model::dataplane::simulate;
use ndnlab_model::dataplane::Resolved;
use ndnlab_model::dataplane::NAMES;
use ndnlab_model::dataplane::{Error, Result};

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct Options<'a> {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Only the points with index % N == I.
    pub shard: Option<(usize, usize)>,
    /// The exploration directory (none: results in memory only).
    pub out: Option<&'a Path>,
    /// Skip the points `points.csv` already holds.
    pub resume: bool,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Every row the directory now holds (this shard's), in point order.
    pub rows: Vec<Row>,
    /// Points of this shard, points checked now, points found done.
    pub points: usize,
    pub checked: usize,
    pub skipped: usize,
    /// Model runs made now (over all points).
    pub runs: u64,
    pub wall_s: f64,
    /// Whether the rows cover the whole grid.
    pub complete: bool,
}

/// Checks one point: the property over seeded runs of `r`, and the mean of
/// each kept observable over those same runs.
pub fn check_point(
    r: &Resolved,
    property: &Property,
    spec: &Spec,
    seed: u64,
    threads: usize,
    point: &Point,
) -> Result<Row> {
    let kept: Vec<usize> = KEPT
        .iter()
        .map(|k| {
            NAMES
                .iter()
                .position(|n| n == k)
                .expect("a known observable")
        })
        .collect();
    // Runs beyond the check's last batch may be made; only 0..runs count.
    let seen: Mutex<BTreeMap<u64, Vec<f64>>> = Mutex::new(BTreeMap::new());
    let outcome = check_property(
        spec,
        property,
        |i| {
            let v = simulate(r, run_seed(seed, i), 0).0.values();
            let k: Vec<f64> = kept.iter().map(|&j| v[j]).collect();
            seen.lock().expect("no run panicked").insert(i, k);
            v
        },
        threads,
        &mut |_| {},
    )
    .map_err(|e| Error::Usage(e.to_string()))?;
    let (runs, successes, estimate, interval, method) = match outcome {
        Outcome::Probability(p) => (
            p.runs,
            Some(p.successes),
            p.estimate,
            p.interval.map(|i| (i.lo, i.hi, i.confidence)),
            p.method,
        ),
        Outcome::Expectation(e) => (
            e.runs,
            None,
            e.mean,
            Some((e.interval.lo, e.interval.hi, e.interval.confidence)),
            e.method,
        ),
    };
    let seen = seen.into_inner().expect("no run panicked");
    let means = (0..KEPT.len())
        .map(|j| {
            let xs: Vec<f64> = seen
                .range(..runs)
                .map(|(_, v)| v[j])
                .filter(|x| x.is_finite())
                .collect();
            if xs.is_empty() {
                f64::NAN
            } else {
                xs.iter().sum::<f64>() / xs.len() as f64
            }
        })
        .collect();
    Ok(Row {
        point: point.index,
        levels: point.levels.clone(),
        runs,
        successes,
        estimate,
        interval,
        method,
        means,
    })
}

/// Prepares the directory: writes the manifest, or checks it against the
/// one there; returns the rows already done (under `resume`).
fn prepare(dir: &Path, m: &Manifest, resume: bool) -> Result<Vec<Row>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::File {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let csv = dir.join(points::FILE);
    let manifest = dir.join(MANIFEST);
    if csv.exists() && !resume {
        return Err(Error::Usage(format!(
            "{} exists: add --resume to carry on with it, or give a new --out",
            csv.display()
        )));
    }
    if manifest.exists() && (resume || csv.exists()) {
        let old = Manifest::load(dir)?;
        if let Some(what) = m.difference(&old) {
            return Err(Error::Usage(format!(
                "{}: {what} differs from the exploration this directory holds; \
                 resume with the same options, or give a new --out",
                manifest.display()
            )));
        }
    } else {
        std::fs::write(&manifest, m.to_toml()).map_err(|e| Error::File {
            path: manifest.clone(),
            message: e.to_string(),
        })?;
    }
    if csv.exists() {
        points::read(&csv, &m.grid)
    } else {
        Ok(Vec::new())
    }
}

/// Runs the exploration `m`. `progress(done, total)` counts this shard's
/// points, those found done included.
pub fn explore(m: &Manifest, opts: &Options, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<Ran> {
    let t0 = Instant::now();
    let property = parse_property(&m.property)?;
    let spec = m.spec()?;
    m.grid.check(&m.model)?;
    let mine: Vec<Point> = m
        .grid
        .points()
        .into_iter()
        .filter(|p| opts.shard.map_or(true, |(i, n)| p.index % n == i))
        .collect();
    let done = match opts.out {
        Some(dir) => prepare(dir, m, opts.resume)?,
        None => Vec::new(),
    };
    let todo: Vec<&Point> = mine
        .iter()
        .filter(|p| !done.iter().any(|r| r.point == p.index))
        .collect();
    // Resolve every point first: a bad level fails now, not hours in.
    let resolved = todo
        .iter()
        .map(|p| {
            m.grid
                .apply(&m.model, p)
                .and_then(|s| s.resolve())
                .map_err(|e| Error::Usage(format!("{}: {e}", m.grid.label(&p.levels))))
        })
        .collect::<Result<Vec<Resolved>>>()?;
    let appender = match opts.out {
        Some(dir) => Some(Appender::open(&dir.join(points::FILE), &m.grid)?),
        None => None,
    };
    let threads = opts.threads.max(1);
    let workers = threads.min(todo.len().max(1));
    let inner = (threads / workers).max(1);
    let skipped = mine.len() - todo.len();
    let total = mine.len() as u64;
    progress(skipped as u64, total);
    let results = par_map(
        todo.len() as u64,
        workers,
        |k| {
            let k = k as usize;
            let row = check_point(&resolved[k], &property, &spec, m.seed, inner, todo[k])
                .map_err(|e| Error::Usage(format!("{}: {e}", m.grid.label(&todo[k].levels))))?;
            if let Some(a) = &appender {
                a.append(&row)?;
            }
            Ok(row)
        },
        &|d| progress(skipped as u64 + d, total),
    );
    let mut rows = done;
    let mut runs = 0;
    for r in results {
        let r: Row = r?;
        runs += r.runs;
        rows.push(r);
    }
    rows.sort_by_key(|r| r.point);
    if let Some(dir) = opts.out {
        points::write_sorted(&dir.join(points::FILE), &m.grid, &rows)?;
    }
    Ok(Ran {
        complete: rows.len() == m.grid.len(),
        points: mine.len(),
        checked: todo.len(),
        skipped,
        runs,
        wall_s: t0.elapsed().as_secs_f64(),
        rows,
    })
}
