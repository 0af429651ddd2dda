//! Importance splitting on a birth-death chain whose probability of reaching
//! level L before 0 is known in closed form (gambler's ruin).

use ndnlab_smc::splitting::{estimate, trajectory_seed, Splittable, SplittingSpec};

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
    let p = ruin(0.3, 20);
    assert!((p - 5.8e-8).abs() < 0.1e-8, "{p}");
}

// The true value must lie within 3 reported relative errors of the estimate
// in at least 9 of 10 seeds.
#[test]
fn fixed_levels_estimate_the_ruin_probability_within_their_relative_error() {
    let truth = ruin(0.3, 20);
    let mut within = 0;
    for seed in 0..10 {
        let out = estimate(&Chain::new(0.3), &fixed_spec(seed), 2).unwrap();
        let re = out.relative_error.unwrap();
        eprintln!(
            "fixed seed {seed}: estimate {:.3e} relative error {re:.3} truth {truth:.3e}",
            out.estimate
        );
        assert_eq!(out.levels.len(), 19);
        assert_eq!(out.runs, 19_000);
        assert!(re > 0.05 && re < 0.5, "relative error {re}");
        within += u32::from((out.estimate - truth).abs() <= 3.0 * re * out.estimate);
    }
    assert!(within >= 9, "{within} of 10 seeds within 3 relative errors");
}

#[test]
fn adaptive_levels_estimate_the_ruin_probability_within_their_relative_error() {
    let truth = ruin(0.3, 20);
    let mut within = 0;
    for seed in 0..10 {
        let spec = SplittingSpec {
            effort: 1000,
            seed,
            ..SplittingSpec::new(20.0)
        };
        let out = estimate(&Chain::new(0.3), &spec, 2).unwrap();
        let re = out.relative_error.unwrap();
        eprintln!(
            "adaptive seed {seed}: estimate {:.3e} relative error {re:.3} levels {} runs {} replays {}",
            out.estimate,
            out.levels.len(),
            out.runs,
            out.replays
        );
        assert!(out.adaptive);
        assert_eq!(out.levels.last().unwrap().level, 20.0);
        assert!(out.levels.windows(2).all(|w| w[0].level < w[1].level));
        within += u32::from((out.estimate - truth).abs() <= 3.0 * re * out.estimate);
    }
    assert!(within >= 9, "{within} of 10 seeds within 3 relative errors");
}

#[test]
fn conditional_probabilities_match_the_chain() {
    // From level i, the chance to reach i+1 before 0 is ruin(i+1) / ruin(i).
    let out = estimate(&Chain::new(0.3), &fixed_spec(1), 1).unwrap();
    for (k, level) in out.levels.iter().enumerate() {
        let i = k as i32 + 1;
        let exact = ruin(0.3, i + 1) / ruin(0.3, i);
        assert!(
            (level.probability - exact).abs() < 0.06,
            "level {}: {} against {exact}",
            level.level,
            level.probability
        );
    }
}

#[test]
fn results_are_deterministic_and_independent_of_threads() {
    let a = estimate(&Chain::new(0.3), &fixed_spec(5), 1).unwrap();
    let b = estimate(&Chain::new(0.3), &fixed_spec(5), 2).unwrap();
    let c = estimate(&Chain::new(0.3), &fixed_spec(5), 3).unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    let spec = SplittingSpec {
        effort: 500,
        seed: 9,
        ..SplittingSpec::new(20.0)
    };
    let a = estimate(&Chain::new(0.3), &spec, 1).unwrap();
    let b = estimate(&Chain::new(0.3), &spec, 2).unwrap();
    assert_eq!(a, b);
    assert_ne!(
        a,
        estimate(&Chain::new(0.3), &SplittingSpec { seed: 10, ..spec }, 2).unwrap()
    );
}

#[test]
fn outcome_renders_and_serialises() {
    let out = estimate(&Chain::new(0.3), &fixed_spec(2), 2).unwrap();
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
    let chain = Chain::new(0.3);
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
