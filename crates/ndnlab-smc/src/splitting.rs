//! Importance splitting for rare events (as Plasma Lab): the probability that
//! a run's score reaches a target level, estimated as the product of the
//! conditional probabilities of climbing from one level to the next.
//!
//! * **Fixed levels** (`levels: Some(..)`): fixed-effort multilevel splitting.
//!   At each level, `effort` trajectories start from the states that reached
//!   the previous level (round-robin over them) and run until the next level or
//!   the end of the run; p_k = reached / effort.
//! * **Adaptive levels** (`levels: None`): at each stage `effort` pilot
//!   trajectories run to their end and report the highest score they saw; the
//!   next level is the (1 - keep) quantile of those maxima (so about `keep` of
//!   them pass it). Then `effort` other trajectories, independent of the
//!   pilots, start from the previous level's states (round-robin) and run
//!   until the new level or the end of the run, as with fixed levels: p_k is
//!   the fraction of those that reached it, and the states they reached it in
//!   start the next stage. The pilots only place the level, so given the
//!   levels the stages are fixed-effort splitting and the product is unbiased.
//!   Counting p_k on the pilots themselves (adaptive multilevel splitting as
//!   in Cérou and Guyader, "Adaptive multilevel splitting for rare event
//!   analysis", 2007) costs no second batch, but on a discrete score the
//!   level it picks is where the pilots' count came out high: on the
//!   gambler's-ruin chain of tests/splitting.rs that estimator is 25% high at
//!   500 trajectories per stage and 10% high at 1000.
//!
//! Estimate: P = p_1 · p_2 · ... · p_m. Relative error (the standard
//! approximation for independent stages):
//! RE = sqrt( Σ_k (1 - p_k) / (effort · p_k) ).
//! Everything is deterministic given `seed`: trajectory j of stage k is
//! reseeded with a hash of (seed, k, j) (the pilots of adaptive stage k with
//! one of (seed, 2^32 + k, j)), whatever the number of threads.

use crate::driver::evaluate_batch;
use crate::error::{Result, SmcError};
use serde::Serialize;
use std::fmt;

/// A model importance splitting can drive. Cloning a model clones the state
/// of a run in progress.
pub trait Splittable: Clone + Send + Sync {
    /// Replaces the random stream for the rest of this run.
    fn reseed(&mut self, seed: u64);
    /// The current importance score (the rare event is score >= target).
    fn score(&self) -> f64;
    /// Runs until the score reaches `level` (true) or the run ends (false).
    fn run_until(&mut self, level: f64) -> bool;
    /// Runs until the run ends or the score reaches `cap`; returns the highest
    /// score seen (adaptive levels only).
    fn run_max(&mut self, cap: f64) -> f64;
}

/// What to estimate and how hard to try.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplittingSpec {
    /// The rare event: the score reaches this level.
    pub target: f64,
    /// Intermediate levels, strictly increasing and below `target`; `None`
    /// chooses them adaptively.
    pub levels: Option<Vec<f64>>,
    /// Trajectories per level.
    pub effort: u64,
    /// Adaptive levels: the fraction of pilot trajectories meant to pass each level.
    pub keep: f64,
    /// Adaptive levels: the most stages before giving up.
    pub max_levels: usize,
    /// Seed of the whole estimate.
    pub seed: u64,
}

impl SplittingSpec {
    /// Adaptive levels, 1000 trajectories per level, keep 0.2, seed 0.
    pub fn new(target: f64) -> SplittingSpec {
        SplittingSpec {
            target,
            levels: None,
            effort: 1000,
            keep: 0.2,
            max_levels: 200,
            seed: 0,
        }
    }

    /// Splitting driven by a [`Spec`](crate::Spec): `--runs` (default 1000)
    /// becomes the effort per level; the levels are adaptive.
    pub fn from_spec(spec: &crate::Spec, target: f64, seed: u64) -> SplittingSpec {
        SplittingSpec {
            effort: spec.runs.unwrap_or(1000),
            seed,
            ..SplittingSpec::new(target)
        }
    }

    /// Checks the options; the error names the option.
    pub fn validate(&self) -> Result<()> {
        let bad = |option, reason: String| Err(SmcError::BadOption { option, reason });
        if !self.target.is_finite() {
            return bad("--target", format!("{} is not a finite level", self.target));
        }
        if self.effort < 2 {
            return bad(
                "--runs",
                format!(
                    "{} trajectories per level; splitting needs at least 2",
                    self.effort
                ),
            );
        }
        if !(self.keep > 0.0 && self.keep < 1.0) {
            return bad(
                "--keep",
                format!("{} is not strictly between 0 and 1", self.keep),
            );
        }
        if self.max_levels == 0 {
            return bad("--max-levels", "0 levels; give at least 1".into());
        }
        if let Some(levels) = &self.levels {
            for (i, l) in levels.iter().enumerate() {
                if !l.is_finite() || *l >= self.target {
                    return bad(
                        "--levels",
                        format!(
                            "level {} = {l} is not a finite number below the target {}",
                            i + 1,
                            self.target
                        ),
                    );
                }
                if i > 0 && *l <= levels[i - 1] {
                    return bad(
                        "--levels",
                        format!(
                            "level {} = {l} does not increase on {}",
                            i + 1,
                            levels[i - 1]
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// One level's climb.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplittingLevel {
    /// The level climbed to.
    pub level: f64,
    /// Trajectories started (the effort).
    pub started: u64,
    /// Trajectories that reached the level.
    pub reached: u64,
    /// reached / started: the conditional probability of this level.
    pub probability: f64,
}

/// The answer of importance splitting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplittingOutcome {
    /// Always `splitting`.
    pub method: String,
    /// The scheme and the relative-error formula in words.
    pub rule: String,
    /// Estimated probability of reaching the target.
    pub estimate: f64,
    /// sqrt(Σ (1 - p_k)/(effort · p_k)); `None` when the estimate is 0.
    pub relative_error: Option<f64>,
    /// Whether the levels were chosen adaptively.
    pub adaptive: bool,
    /// Trajectories simulated to estimate the level probabilities.
    pub runs: u64,
    /// Pilot trajectories run to place the levels (adaptive only).
    pub pilots: u64,
    /// The levels and their conditional probabilities, in order.
    pub levels: Vec<SplittingLevel>,
}

impl fmt::Display for SplittingOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "method          splitting ({} levels)",
            if self.adaptive { "adaptive" } else { "fixed" }
        )?;
        writeln!(f, "rule            {}", self.rule)?;
        writeln!(f, "runs            {} (+{} pilots)", self.runs, self.pilots)?;
        writeln!(f, "estimate        {:.6e}", self.estimate)?;
        match self.relative_error {
            Some(re) => writeln!(f, "relative error  {re:.4}")?,
            None => writeln!(f, "relative error  undefined (estimate 0)")?,
        }
        writeln!(
            f,
            "{:>6} {:>14} {:>8} {:>8} {:>12}",
            "stage", "level", "started", "reached", "p_k"
        )?;
        for (k, l) in self.levels.iter().enumerate() {
            writeln!(
                f,
                "{:>6} {:>14} {:>8} {:>8} {:>12.6}",
                k + 1,
                l.level,
                l.started,
                l.reached,
                l.probability
            )?;
        }
        Ok(())
    }
}

/// SplitMix64: the seed of trajectory `j` in stage `k`.
pub fn trajectory_seed(seed: u64, stage: u64, j: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    mix(seed ^ mix(stage.wrapping_mul(0x1_0000_0001) ^ mix(j)))
}

/// Estimates P(score reaches `spec.target`) from the state `initial`.
pub fn estimate<M: Splittable>(
    initial: &M,
    spec: &SplittingSpec,
    threads: usize,
) -> Result<SplittingOutcome> {
    spec.validate()?;
    if initial.score() >= spec.target {
        return Err(SmcError::Splitting(format!(
            "the initial state's score {} already reaches the target {}",
            initial.score(),
            spec.target
        )));
    }
    match &spec.levels {
        Some(levels) => fixed(initial, spec, levels, threads),
        None => adaptive(initial, spec, threads),
    }
}

fn relative_error(levels: &[SplittingLevel], effort: u64) -> Option<f64> {
    if levels.iter().any(|l| l.reached == 0) {
        return None;
    }
    let s: f64 = levels
        .iter()
        .map(|l| (1.0 - l.probability) / (effort as f64 * l.probability))
        .sum();
    Some(s.sqrt())
}

fn finish(
    spec: &SplittingSpec,
    adaptive: bool,
    levels: Vec<SplittingLevel>,
    pilots: u64,
) -> SplittingOutcome {
    let estimate = levels.iter().map(|l| l.probability).product();
    let scheme = if adaptive {
        format!(
            "adaptive multilevel splitting: {} trajectories per stage, each level the {} quantile of the maxima of {} other pilot trajectories",
            spec.effort,
            1.0 - spec.keep,
            spec.effort
        )
    } else {
        format!(
            "fixed-effort multilevel splitting: {} trajectories per level over {} levels",
            spec.effort,
            levels.len()
        )
    };
    SplittingOutcome {
        method: "splitting".into(),
        rule: format!(
            "{scheme}; P = product of p_k; relative error = sqrt(sum (1 - p_k)/(N p_k)), N = {}",
            spec.effort
        ),
        estimate,
        relative_error: relative_error(&levels, spec.effort),
        adaptive,
        runs: spec.effort * levels.len() as u64,
        pilots,
        levels,
    }
}

/// One level's climb: `effort` trajectories from `starts` (round-robin), those
/// of stage `stream` reseeded from (seed, stream, j), run until `level`;
/// returns the level's count and the states that reached it.
fn climb<M: Splittable>(
    starts: &[M],
    spec: &SplittingSpec,
    stream: u64,
    level: f64,
    threads: usize,
) -> (SplittingLevel, Vec<M>) {
    let results = evaluate_batch(0, spec.effort, threads, &|j| {
        let mut m = starts[(j % starts.len() as u64) as usize].clone();
        m.reseed(trajectory_seed(spec.seed, stream, j));
        m.run_until(level).then_some(m)
    });
    let reached: Vec<M> = results.into_iter().flatten().collect();
    let count = SplittingLevel {
        level,
        started: spec.effort,
        reached: reached.len() as u64,
        probability: reached.len() as f64 / spec.effort as f64,
    };
    (count, reached)
}

fn fixed<M: Splittable>(
    initial: &M,
    spec: &SplittingSpec,
    levels: &[f64],
    threads: usize,
) -> Result<SplittingOutcome> {
    let mut ladder = levels.to_vec();
    ladder.push(spec.target);
    let mut starts = vec![initial.clone()];
    let mut done = Vec::new();
    for (k, &level) in ladder.iter().enumerate() {
        let (count, reached) = climb(&starts, spec, k as u64, level, threads);
        done.push(count);
        if reached.is_empty() {
            break;
        }
        starts = reached;
    }
    Ok(finish(spec, false, done, 0))
}

/// The seed stream of stage `k`'s pilots in adaptive splitting: apart from
/// the streams `0..max_levels` of the counting trajectories.
fn pilot_stream(k: u64) -> u64 {
    (1 << 32) + k
}

fn adaptive<M: Splittable>(
    initial: &M,
    spec: &SplittingSpec,
    threads: usize,
) -> Result<SplittingOutcome> {
    let mut starts = vec![initial.clone()];
    let mut current = initial.score();
    let mut done = Vec::new();
    let mut pilots = 0u64;
    for k in 0..spec.max_levels as u64 {
        let from = &starts;
        let maxima = evaluate_batch(0, spec.effort, threads, &|j| {
            let mut m = from[(j % from.len() as u64) as usize].clone();
            m.reseed(trajectory_seed(spec.seed, pilot_stream(k), j));
            m.run_max(spec.target)
        });
        pilots += spec.effort;
        if let Some((j, m)) = maxima.iter().enumerate().find(|(_, m)| m.is_nan()) {
            return Err(SmcError::Splitting(format!(
                "stage {}: trajectory {j} reported the score {m}",
                k + 1
            )));
        }
        let mut sorted = maxima;
        sorted.sort_by(f64::total_cmp);
        let q = ((1.0 - spec.keep) * spec.effort as f64).floor() as usize;
        let mut level = sorted[q.min(sorted.len() - 1)].min(spec.target);
        if level <= current {
            // Too many ties at the current level: take the least score above it.
            match sorted.iter().find(|&&m| m > current) {
                Some(&m) => level = m.min(spec.target),
                None => {
                    return Err(SmcError::Splitting(format!(
                        "stage {}: none of the {} trajectories rose above the level {current}; raise the effort (--runs) or use fixed --levels",
                        k + 1,
                        spec.effort
                    )))
                }
            }
        }
        let (count, reached) = climb(&starts, spec, k, level, threads);
        done.push(count);
        if level >= spec.target || reached.is_empty() {
            return Ok(finish(spec, true, done, pilots));
        }
        starts = reached;
        current = level;
    }
    Err(SmcError::Splitting(format!(
        "--max-levels: {} adaptive stages did not reach the target {} (last level {current})",
        spec.max_levels, spec.target
    )))
}
