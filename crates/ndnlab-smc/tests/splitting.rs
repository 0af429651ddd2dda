//! Importance splitting on a birth-death chain whose probability of reaching
//! level L before 0 is known in closed form (gambler's ruin).

use ndnlab_smc::splitting::{
    estimate, trajectory_seed, Splittable, SplittingOutcome, SplittingSpec,
};
use ndnlab_testkit::binomial_interval;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The chain's probability of a step up.
const UP: f64 = 0.3;

/// A walk on 0..=L: up with probability `up`, down otherwise; the run ends at 0.
#[derive(Clone)]
struct Chain {
    state: i64,
    up: f64,
    rng: u64,
}

impl Chain {
    fn new(up: f64) -> Chain {
        Chain {
            state: 1,
            up,
            rng: 0,
        }
    }

    fn step(&mut self) {
        self.rng = trajectory_seed(self.rng, 1, 2);
        let u = (self.rng >> 11) as f64 / (1u64 << 53) as f64;
        self.state += if u < self.up { 1 } else { -1 };
    }
}

impl Splittable for Chain {
    fn reseed(&mut self, seed: u64) {
        self.rng = seed;
    }
    fn score(&self) -> f64 {
        self.state as f64
    }
    fn run_until(&mut self, level: f64) -> bool {
        while self.state > 0 && (self.state as f64) < level {
            self.step();
        }
        self.state as f64 >= level
    }
    fn run_max(&mut self, cap: f64) -> f64 {
        let mut max = self.state as f64;
        while self.state > 0 && max < cap {
            self.step();
            max = max.max(self.state as f64);
        }
        max
    }
}

/// P(reach L before 0 | start at 1) = (1 - r) / (1 - r^L), r = q/p.
fn ruin(up: f64, l: i32) -> f64 {
    let r = (1.0 - up) / up;
    (1.0 - r) / (1.0 - r.powi(l))
}

fn fixed_spec(seed: u64) -> SplittingSpec {
    SplittingSpec {
        levels: Some((2..20).map(f64::from).collect()),
        effort: 1000,
        seed,
        ..SplittingSpec::new(20.0)
    }
}

#[test]
fn the_closed_form_is_about_6e_minus_8() {
    let p = ruin(UP, 20);
    assert!((p - 5.8e-8).abs() < 0.1e-8, "{p}");
}

/// Replicates of the whole estimate: seeds 0..R, one estimate per seed, the
/// seeds spread over two threads (each estimate on one thread: an estimate
/// does not depend on its thread count).
fn replicates(spec: impl Fn(u64) -> SplittingSpec + Sync, r: u64) -> Vec<SplittingOutcome> {
    let one = |seed: u64| estimate(&Chain::new(UP), &spec(seed), 1).unwrap();
    std::thread::scope(|scope| {
        let second = scope.spawn(|| (r / 2..r).map(one).collect::<Vec<_>>());
        let mut v: Vec<_> = (0..r / 2).map(one).collect();
        v.extend(second.join().unwrap());
        v
    })
}

/// The exact relative variance Var(P^)/P² of one estimate given the levels
/// it climbed. From level a the chain reaches b before 0 with probability
/// q = ruin(b) / ruin(a), and every trajectory that reaches b is then in state
/// b exactly (it moves by ±1): the N trajectories of a stage are independent
/// draws from one state, so the stage's count is Binomial(N, q) and the
/// stages are independent given the levels. Then E[P^] = Π q_k = P and
/// E[P^²] = Π (q_k² + q_k (1 - q_k) / N), so
/// Var(P^) / P² = Π (1 + (1 - q_k) / (N q_k)) - 1.
/// The adaptive estimator's levels come from its pilots alone, independent
/// of the counts, so the same holds given the levels it chose.
fn relative_variance(out: &SplittingOutcome) -> f64 {
    let mut from = 1;
    let mut product = 1.0;
    for l in &out.levels {
        let to = l.level as i32;
        let q = ruin(UP, to) / ruin(UP, from);
        product *= 1.0 + (1.0 - q) / (l.started as f64 * q);
        from = to;
    }
    product - 1.0
}

/// The confidence of every check below: a correct estimator fails one of
/// them with probability about 0.1% (for the fixed seeds, never or always).
const CONFIDENCE: f64 = 0.999;
/// Replicates per estimator, and trajectories per level in each.
const R: u64 = 200;
const EFFORT: u64 = 500;

/// R independent estimates P^_1..P^_R of P = ruin(UP, 20) against the truth:
///
/// 1. Bias. Their mean has variance Σ_i Var(P^_i) / R², with Var(P^_i) the
///    exact variance above (given replicate i's levels). By the central
///    limit theorem (R = 200 independent terms of relative sd ≈ 0.23),
///    |mean - P| <= z · sqrt(Σ_i Var(P^_i)) / R with probability CONFIDENCE,
///    z = Φ⁻¹((1 + CONFIDENCE) / 2) = 3.29: about 5% of P here. The same
///    with the replicates' empirical sd s: |mean - P| <= t_{R-1} · s / √R.
/// 2. The reported relative error. A product of independent stage frequencies
///    has a logarithm that is a sum of independent terms, near normal with
///    sd ≈ RE, so [P^ e^(-1.96 RE), P^ e^(1.96 RE)] is a 95% interval. The
///    number of replicates whose own interval covers P is then
///    Binomial(R, 0.95), and must fall in its CONFIDENCE acceptance region
///    ([179, 198] for R = 200). A relative error too small by a third (a 95%
///    interval that covers 80%) lands far below it.
fn assert_unbiased_and_calibrated(name: &str, outs: &[SplittingOutcome]) {
    let truth = ruin(UP, 20);
    let r = outs.len() as f64;
    let normal = Normal::new(0.0, 1.0).unwrap();
    let z = normal.inverse_cdf((1.0 + CONFIDENCE) / 2.0);
    let t = StudentsT::new(0.0, 1.0, r - 1.0)
        .unwrap()
        .inverse_cdf((1.0 + CONFIDENCE) / 2.0);
    let z95 = normal.inverse_cdf(0.975);
    for o in outs {
        // every replicate climbed to the target (no stage came back empty)
        assert_eq!(o.levels.last().unwrap().level, 20.0, "{name}: {o}");
    }
    let estimates: Vec<f64> = outs.iter().map(|o| o.estimate).collect();
    let mean = estimates.iter().sum::<f64>() / r;
    let exact_sd_of_mean = outs
        .iter()
        .map(|o| relative_variance(o) * truth * truth)
        .sum::<f64>()
        .sqrt()
        / r;
    let s = (estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (r - 1.0)).sqrt();
    let covered = outs
        .iter()
        .filter(|o| (o.estimate.ln() - truth.ln()).abs() <= z95 * o.relative_error.unwrap())
        .count() as u64;
    let (lo, hi) = binomial_interval(outs.len() as u64, 0.95, CONFIDENCE);
    let mean_re = outs.iter().map(|o| o.relative_error.unwrap()).sum::<f64>() / r;
    let exact_re = (outs.iter().map(relative_variance).sum::<f64>() / r).sqrt();
    eprintln!(
        "{name}: {} replicates, mean/P {:.4} (allowed ±{:.4} exact, ±{:.4} empirical), \
         sd/P {:.4} (exact {exact_re:.4}, mean reported RE {mean_re:.4}), \
         95% intervals covering P: {covered} (allowed {lo}..={hi})",
        outs.len(),
        mean / truth,
        z * exact_sd_of_mean / truth,
        t * s / r.sqrt() / truth,
        s / truth,
    );
    assert!(
        (mean - truth).abs() <= z * exact_sd_of_mean,
        "{name}: mean {mean:.4e} against P {truth:.4e}: {:.2} exact sds of the mean off",
        (mean - truth) / exact_sd_of_mean
    );
    assert!(
        (mean - truth).abs() <= t * s / r.sqrt(),
        "{name}: mean {mean:.4e} against P {truth:.4e}: {:.2} empirical sds of the mean off",
        (mean - truth) / (s / r.sqrt())
    );
    assert!(
        (lo..=hi).contains(&covered),
        "{name}: {covered} of {} 95% intervals cover P; a calibrated relative error gives {lo}..={hi}",
        outs.len()
    );
}

#[test]
fn fixed_levels_are_unbiased_and_their_relative_error_calibrated() {
    let outs = replicates(
        |seed| SplittingSpec {
            effort: EFFORT,
            ..fixed_spec(seed)
        },
        R,
    );
    for o in &outs {
        assert_eq!(o.levels.len(), 19);
        assert_eq!((o.runs, o.pilots), (19 * EFFORT, 0));
    }
    assert_unbiased_and_calibrated("fixed levels", &outs);
}

#[test]
fn adaptive_levels_are_unbiased_and_their_relative_error_calibrated() {
    let outs = replicates(
        |seed| SplittingSpec {
            effort: EFFORT,
            seed,
            ..SplittingSpec::new(20.0)
        },
        R,
    );
    for o in &outs {
        assert!(o.adaptive);
        assert!(o.levels.windows(2).all(|w| w[0].level < w[1].level), "{o}");
        let n = o.levels.len() as u64;
        assert_eq!((o.runs, o.pilots), (n * EFFORT, n * EFFORT));
    }
    assert_unbiased_and_calibrated("adaptive levels", &outs);
}

#[test]
fn conditional_probabilities_match_the_chain() {
    // From level i the chance to reach i+1 before 0 is q_i = ruin(i+1) /
    // ruin(i), and a stage's count is Binomial(1000, q_i) (see
    // relative_variance): each of the 19 counts must lie in its acceptance
    // region at 1 - 0.001/19, so that all 19 do with probability 99.9%.
    let out = estimate(&Chain::new(UP), &fixed_spec(1), 1).unwrap();
    let each = 1.0 - (1.0 - CONFIDENCE) / out.levels.len() as f64;
    for (k, level) in out.levels.iter().enumerate() {
        let i = k as i32 + 1;
        let exact = ruin(UP, i + 1) / ruin(UP, i);
        let (lo, hi) = binomial_interval(level.started, exact, each);
        assert!(
            (lo..=hi).contains(&level.reached),
            "level {}: {} of {} reached it, Binomial({}, {exact:.4}) allows {lo}..={hi}",
            level.level,
            level.reached,
            level.started,
            level.started,
        );
    }
}

#[test]
fn results_are_deterministic_and_independent_of_threads() {
    let a = estimate(&Chain::new(UP), &fixed_spec(5), 1).unwrap();
    let b = estimate(&Chain::new(UP), &fixed_spec(5), 2).unwrap();
    let c = estimate(&Chain::new(UP), &fixed_spec(5), 3).unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    let spec = SplittingSpec {
        effort: 500,
        seed: 9,
        ..SplittingSpec::new(20.0)
    };
    let a = estimate(&Chain::new(UP), &spec, 1).unwrap();
    let b = estimate(&Chain::new(UP), &spec, 2).unwrap();
    assert_eq!(a, b);
    assert_ne!(
        a,
        estimate(&Chain::new(UP), &SplittingSpec { seed: 10, ..spec }, 2).unwrap()
    );
}

#[test]
fn outcome_renders_and_serialises() {
    let out = estimate(&Chain::new(UP), &fixed_spec(2), 2).unwrap();
    let text = out.to_string();
    assert!(
        text.contains("method          splitting (fixed levels)"),
        "{text}"
    );
    assert!(
        out.rule
            .contains("relative error = sqrt(sum (1 - p_k)/(N p_k)), N = 1000"),
        "{}",
        out.rule
    );
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["levels"].as_array().unwrap().len(), 19);
}

#[test]
fn bad_options_and_dead_ends_are_clear_errors() {
    let chain = Chain::new(UP);
    let bad = |spec: SplittingSpec| estimate(&chain, &spec, 1).unwrap_err().to_string();
    assert_eq!(
        bad(SplittingSpec {
            effort: 1,
            ..SplittingSpec::new(20.0)
        }),
        "--runs: 1 trajectories per level; splitting needs at least 2"
    );
    assert_eq!(
        bad(SplittingSpec {
            levels: Some(vec![3.0, 2.0]),
            ..SplittingSpec::new(20.0)
        }),
        "--levels: level 2 = 2 does not increase on 3"
    );
    assert_eq!(
        bad(SplittingSpec {
            levels: Some(vec![25.0]),
            ..SplittingSpec::new(20.0)
        }),
        "--levels: level 1 = 25 is not a finite number below the target 20"
    );
    assert_eq!(
        bad(SplittingSpec {
            keep: 1.0,
            ..SplittingSpec::new(20.0)
        }),
        "--keep: 1 is not strictly between 0 and 1"
    );
    assert_eq!(
        bad(SplittingSpec::new(1.0)),
        "splitting: the initial state's score 1 already reaches the target 1"
    );
    // A chain that never goes up: no trajectory rises above the start.
    let err = estimate(
        &Chain::new(0.0),
        &SplittingSpec {
            effort: 10,
            ..SplittingSpec::new(20.0)
        },
        1,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("splitting: stage 1: none of the 10 trajectories rose above the level 1"),
        "{err}"
    );
    // With fixed levels a dead end is an estimate of 0 with no relative error.
    let out = estimate(
        &Chain::new(0.0),
        &SplittingSpec {
            effort: 10,
            ..fixed_spec(0)
        },
        1,
    )
    .unwrap();
    assert_eq!(out.estimate, 0.0);
    assert_eq!(out.relative_error, None);
}
