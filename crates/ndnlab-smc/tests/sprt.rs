//! Wald's SPRT on synthetic Bernoulli sources: right decisions, error rates
//! within alpha and beta at the edges of the indifference region, and far
//! fewer runs than Chernoff-Hoeffding when the answer is clear-cut.

mod common;

use common::bernoulli;
use ndnlab_smc::{check_probability, Method, Spec};

fn spec() -> Spec {
    Spec {
        method: Method::Sprt,
        theta: Some(0.5),
        indifference: 0.05,
        alpha: 0.05,
        beta: 0.05,
        ..Spec::default()
    }
}

/// (rejections of "P >= theta", mean runs) over `reps` seeded repetitions.
fn repeat(p: f64, reps: u64) -> (f64, f64) {
    let spec = spec();
    let (mut rejected, mut runs) = (0u64, 0u64);
    for rep in 0..reps {
        let out = check_probability(&spec, bernoulli(50_000 + rep, p), 1).unwrap();
        let d = out.sprt.unwrap();
        rejected += u64::from(!d.accepted);
        runs += out.runs;
    }
    (rejected as f64 / reps as f64, runs as f64 / reps as f64)
}

#[test]
fn decides_clear_cases_correctly_with_few_runs() {
    let chernoff = ndnlab_smc::chernoff_runs(0.05, 0.05) as f64;
    let (rejected, runs) = repeat(0.75, 300);
    eprintln!("p 0.75: rejected {rejected}, mean runs {runs}, Chernoff {chernoff}");
    assert_eq!(rejected, 0.0, "p = 0.75 is well above theta = 0.5");
    assert!(
        runs < chernoff / 10.0,
        "mean runs {runs} against Chernoff's {chernoff}"
    );
    let (rejected, runs) = repeat(0.25, 300);
    eprintln!("p 0.25: rejected {rejected}, mean runs {runs}");
    assert_eq!(rejected, 1.0, "p = 0.25 is well below theta = 0.5");
    assert!(
        runs < chernoff / 10.0,
        "mean runs {runs} against Chernoff's {chernoff}"
    );
}

// At p = theta + indifference the type I error (rejecting) must be <= alpha,
// at p = theta - indifference the type II error (accepting) <= beta; 1000
// repetitions give a standard error of 0.007, so the tolerance is 0.02.
#[test]
fn error_rates_stay_within_alpha_and_beta_at_the_edges() {
    let (rejected, runs) = repeat(0.55, 1000);
    eprintln!("p 0.55: type I error {rejected}, mean runs {runs}");
    assert!(rejected <= 0.05 + 0.02, "type I error {rejected}");
    let (rejected, runs) = repeat(0.45, 1000);
    eprintln!("p 0.45: type II error {}, mean runs {runs}", 1.0 - rejected);
    assert!(
        1.0 - rejected <= 0.05 + 0.02,
        "type II error {}",
        1.0 - rejected
    );
}

#[test]
fn reports_the_decision_and_the_bounds() {
    let out = check_probability(&spec(), bernoulli(1, 0.9), 2).unwrap();
    let d = out.sprt.clone().unwrap();
    assert_eq!(d.decision, "accept \"P >= 0.5\"");
    assert!(d.llr <= d.accept_bound);
    assert!((d.reject_bound - (0.95f64 / 0.05).ln()).abs() < 1e-12);
    assert!((d.accept_bound - (0.05f64 / 0.95).ln()).abs() < 1e-12);
    assert!(out.interval.is_none());
    assert!(
        out.rule
            .starts_with("Wald SPRT of H0: P >= 0.55 against H1: P <= 0.45"),
        "{}",
        out.rule
    );
    let text = out.to_string();
    assert!(text.contains("decision   accept \"P >= 0.5\""), "{text}");
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["sprt"]["theta"], 0.5);
    let out = check_probability(&spec(), bernoulli(1, 0.1), 2).unwrap();
    assert_eq!(out.sprt.unwrap().decision, "reject \"P >= 0.5\"");
}

#[test]
fn the_cap_is_an_error() {
    let spec = Spec {
        max_runs: 20,
        indifference: 0.01,
        ..spec()
    };
    let err = check_probability(&spec, bernoulli(4, 0.5), 1).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--max-runs: sprt did not meet its stopping rule within 20 runs"),
        "{err}"
    );
}
