//! Chow-Robbins sequential intervals and fixed-N Student-t intervals for
//! expectations, on distributions of known mean.

mod common;

use common::uniform;
use ndnlab_smc::{check_expectation, check_probability, Method, SmcError, Spec};

fn exponential(stream: u64, mean: f64) -> impl Fn(u64) -> f64 + Sync {
    move |i| -mean * (1.0 - uniform(stream, i)).ln()
}

// 400 repetitions at a nominal 90%: the standard error of the coverage is
// 0.015; the tolerance is 0.05.
#[test]
fn sequential_interval_covers_the_mean_at_about_the_nominal_rate() {
    let spec = Spec {
        method: Method::ChowRobbins,
        alpha: 0.1,
        delta: 0.1,
        ..Spec::default()
    };
    let mut covered = 0;
    for rep in 0..400 {
        let out = check_expectation(&spec, exponential(9_000 + rep, 1.0), 1).unwrap();
        assert!(out.runs >= spec.min_runs);
        assert!(out.interval.half_width() <= 0.1);
        covered += u32::from(out.interval.contains(1.0));
    }
    let rate = f64::from(covered) / 400.0;
    eprintln!("Chow-Robbins coverage of an exponential mean at nominal 0.9: {rate}");
    assert!((rate - 0.9).abs() <= 0.05, "coverage {rate}");
}

#[test]
fn fixed_runs_give_a_student_t_interval() {
    let spec = Spec {
        method: Method::ChowRobbins,
        alpha: 0.05,
        runs: Some(10),
        ..Spec::default()
    };
    let out = check_expectation(&spec, |i| i as f64, 2).unwrap();
    // 0..9: mean 4.5, s = sqrt(55/6), half-width t(0.975, 9) * s / sqrt(10).
    assert_eq!(out.runs, 10);
    assert!((out.mean - 4.5).abs() < 1e-12);
    assert!((out.sd - (55.0f64 / 6.0).sqrt()).abs() < 1e-12);
    let half = 2.262157 * (55.0f64 / 6.0).sqrt() / 10f64.sqrt();
    assert!((out.interval.half_width() - half).abs() < 1e-5, "{out}");
}

#[test]
fn the_sequential_rule_is_reproducible_across_threads_and_stated() {
    let spec = Spec {
        method: Method::ChowRobbins,
        delta: 0.05,
        ..Spec::default()
    };
    let one = check_expectation(&spec, exponential(3, 1.0), 1).unwrap();
    let two = check_expectation(&spec, exponential(3, 1.0), 2).unwrap();
    assert_eq!(one, two);
    assert!(
        one.rule
            .starts_with("Chow-Robbins sequential 90% interval: stop at the first n >= 30"),
        "{}",
        one.rule
    );
}

#[test]
fn constant_values_stop_at_the_least_run_count() {
    // s = 0: the 1/n term keeps the rule from stopping before n_min and then
    // z * sqrt(1/n^2) <= delta holds at once.
    let spec = Spec {
        method: Method::ChowRobbins,
        delta: 0.1,
        ..Spec::default()
    };
    let out = check_expectation(&spec, |_| 3.0, 1).unwrap();
    assert_eq!(out.runs, 30);
    assert_eq!(out.mean, 3.0);
}

#[test]
fn errors_name_the_problem() {
    let spec = Spec {
        method: Method::ChowRobbins,
        ..Spec::default()
    };
    let err = check_expectation(&spec, |i| if i == 5 { f64::NAN } else { 1.0 }, 1).unwrap_err();
    assert!(
        matches!(err, SmcError::NonFinite { run: 5, value } if value.is_nan()),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "run 5 returned NaN, which is not a finite number"
    );
    let err = check_expectation(
        &Spec {
            method: Method::Wilson,
            ..Spec::default()
        },
        |_| 1.0,
        1,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--method wilson: estimates the probability of a Boolean property"),
        "{err}"
    );
    let spec = Spec {
        method: Method::ChowRobbins,
        runs: Some(1),
        ..Spec::default()
    };
    assert_eq!(
        check_expectation(&spec, |_| 1.0, 1)
            .unwrap_err()
            .to_string(),
        "--runs: an interval for an expectation needs at least 2 runs"
    );
    let spec = Spec {
        method: Method::ChowRobbins,
        delta: 0.001,
        max_runs: 500,
        ..Spec::default()
    };
    let err = check_expectation(&spec, exponential(1, 1.0), 1).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--max-runs: chow-robbins did not meet its stopping rule within 500 runs"),
        "{err}"
    );
}

#[test]
fn a_boolean_property_can_use_chow_robbins() {
    let spec = Spec {
        method: Method::ChowRobbins,
        delta: 0.05,
        ..Spec::default()
    };
    let out = check_probability(&spec, |i| uniform(77, i) < 0.3, 2).unwrap();
    assert_eq!(out.method, "chow-robbins");
    assert!((out.estimate - 0.3).abs() < 0.08);
    assert_eq!(
        out.successes as f64,
        (out.estimate * out.runs as f64).round()
    );
}
