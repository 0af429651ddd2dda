//! Running an exploration: every point of the grid (or of one shard, the
//! points whose index is I modulo N) checked with the same seed, so a point's
//! row is what `ndnlab model check --set KEY=LEVEL... --seed S` prints.
//!
//! Each point is a job of the campaign engine (`crate::campaign::engine`),
//! its id the point's index in the grid. Points are independent: they are
//! spread over the worker threads, each point's runs on `threads / points`
//! threads when there are fewer points left than threads; the first point
//! that fails stops the exploration. A point's result depends only on its
//! levels and the seed, never on the thread count or the order points
//! finish; each finished point is appended to `points.csv` at once (a killed
//! run loses only the points in progress), and the file is rewritten in
//! point order at the end.
//! The observables' means ([`KEPT`]) come from the same runs as the check.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use ndnlab_model::smc::{check_property, Outcome, Property, Spec};

use super::points::{Points, Row, KEPT};
use super::{Manifest, Point};
use crate::campaign::engine::{in_shard, Event, Job, Session};
use ndnlab_model::dataplane::check::parse_property;
use ndnlab_model::dataplane::runs::run_seed;
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

/// One point of the grid, a job of the campaign engine.
struct PointJob<'a> {
    m: &'a Manifest,
    point: &'a Point,
    resolved: Resolved,
    property: &'a Property,
    spec: &'a Spec,
    /// Threads for the point's runs.
    inner: usize,
}

impl Job for PointJob<'_> {
    type Row = Row;

    fn id(&self) -> usize {
        self.point.index
    }

    fn run(&self) -> anyhow::Result<Row> {
        let (m, p) = (self.m, self.point);
        let row = check_point(
            &self.resolved,
            self.property,
            self.spec,
            m.seed,
            self.inner,
            p,
        )
        .map_err(|e| Error::Usage(format!("{}: {e}", m.grid.label(&p.levels))))?;
        Ok(row)
    }
}

/// Runs the exploration `m` on the campaign engine ([`Session`], with
/// [`Points`] as its store). `progress(done, total)` counts this shard's
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
        .filter(|p| in_shard(p.index, opts.shard))
        .collect();
    let store = Points::new(m);
    let ids: Vec<usize> = mine.iter().map(|p| p.index).collect();
    let session = Session::open(&store, opts.out, opts.resume, &ids).map_err(usage)?;
    let todo: Vec<&Point> = mine.iter().filter(|p| !session.is_done(p.index)).collect();
    let threads = opts.threads.max(1);
    let workers = threads.min(todo.len().max(1));
    let inner = (threads / workers).max(1);
    // Resolve every point first: a bad level fails now, not hours in.
    let jobs = todo
        .iter()
        .map(|p| {
            let resolved = m
                .grid
                .apply(&m.model, p)
                .and_then(|s| s.resolve())
                .map_err(|e| Error::Usage(format!("{}: {e}", m.grid.label(&p.levels))))?;
            Ok(PointJob {
                m,
                point: p,
                resolved,
                property: &property,
                spec: &spec,
                inner,
            })
        })
        .collect::<Result<Vec<PointJob>>>()?;
    let jobs: Vec<&PointJob> = jobs.iter().collect();
    let skipped = session.resumed();
    let total = mine.len() as u64;
    progress(skipped as u64, total);
    let mut runs = 0;
    let ran = session
        .run(&jobs, workers, &mut |e| {
            if let Event::Done { row, done, .. } = e {
                runs += row.runs;
                progress(done as u64, total);
            }
            Ok(())
        })
        .map_err(usage)?;
    Ok(Ran {
        complete: ran.rows.len() == m.grid.len(),
        points: mine.len(),
        checked: ran.ran,
        skipped,
        runs,
        wall_s: t0.elapsed().as_secs_f64(),
        rows: ran.rows,
    })
}

/// An engine error as the model's: its message, whole.
pub(super) fn usage(e: anyhow::Error) -> Error {
    match e.downcast::<Error>() {
        Ok(e) => e,
        Err(e) => Error::Usage(format!("{e:#}")),
    }
}
