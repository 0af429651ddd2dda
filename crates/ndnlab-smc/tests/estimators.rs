//! Run counts, interval coverage, the Bayes posterior and sequential stopping
//! of the probability estimators, on seeded Bernoulli sources.

mod common;

use common::{bernoulli, uniform};
use ndnlab_smc::intervals::{clopper_pearson, wilson};
use ndnlab_smc::{check_probability, chernoff_runs, Method, SmcError, Spec};
use ndnlab_testkit::binomial_interval;
use statrs::distribution::{Binomial, Discrete};

#[test]
fn chernoff_counts_match_the_formula() {
    // N = ceil(ln(2/alpha) / (2 delta^2)).
    let cases = [
        (0.1, 0.1, 150),
        (0.05, 0.05, 738),
        (0.01, 0.01, 26492),
        (0.05, 0.1, 185),
        (0.1, 0.01, 14979),
    ];
    for (alpha, delta, n) in cases {
        assert_eq!(
            chernoff_runs(alpha, delta),
            n,
            "alpha {alpha} delta {delta}"
        );
        let f: f64 = (2.0f64 / alpha).ln() / (2.0 * delta * delta);
        assert_eq!(n, f.ceil() as u64);
    }
}

#[test]
fn chernoff_outcome_uses_150_runs_for_sbip_settings() {
    let spec = Spec::default();
    let out = check_probability(&spec, bernoulli(1, 0.8), 2).unwrap();
    assert_eq!(out.runs, 150);
    assert_eq!(out.method, "chernoff");
    assert_eq!(
        out.rule,
        "Chernoff-Hoeffding: N = ceil(ln(2/0.1)/(2*0.1^2)) = 150 runs, fixed in advance"
    );
    let i = out.interval.unwrap();
    assert!((i.confidence - 0.9).abs() < 1e-12);
    assert!(i.half_width() <= 0.1 + 1e-12);
}

type IntervalFn = fn(u64, u64, f64) -> ndnlab_smc::Interval;

/// How many of `trials` seeded Binomial(n, p) draws have a 95% interval
/// that covers p.
fn covered(p: f64, n: u64, trials: u64, interval: IntervalFn) -> u64 {
    (0..trials)
        .filter(|&t| {
            let k = (0..n).filter(|&i| uniform(1000 + t, i) < p).count() as u64;
            interval(k, n, 0.05).contains(p)
        })
        .count() as u64
}

/// The exact coverage of a 95% interval at (p, n): the probability of the
/// counts k whose interval covers p, Σ_k C(n, k) p^k (1 - p)^(n - k).
fn exact_coverage(p: f64, n: u64, interval: IntervalFn) -> f64 {
    let b = Binomial::new(p, n).unwrap();
    (0..=n)
        .filter(|&k| interval(k, n, 0.05).contains(p))
        .map(|k| b.pmf(k))
        .sum()
}

// Known answers first: the exact coverage of each interval at each (p, n).
// Clopper-Pearson guarantees at least the nominal 95%; Wilson's oscillates
// around it, within 0.035 at these p and n. Then the seeded trials: the number
// of 2000 whose interval covers p is Binomial(2000, exact coverage), and must
// lie in its acceptance region at 1 - 0.001/24, so that all 24 counts (12
// points, two methods) do with probability 99.9% (Bonferroni).
#[test]
fn clopper_pearson_and_wilson_cover_at_the_nominal_rate() {
    let trials = 2000;
    let each = 1.0 - 0.001 / 24.0;
    for &p in &[0.1, 0.3, 0.5, 0.85] {
        for &n in &[30u64, 100, 300] {
            let cp = exact_coverage(p, n, clopper_pearson);
            let w = exact_coverage(p, n, wilson);
            assert!(
                cp >= 0.95 - 1e-9,
                "Clopper-Pearson p {p} n {n}: exact coverage {cp}"
            );
            assert!(
                (w - 0.95).abs() <= 0.035,
                "Wilson p {p} n {n}: exact coverage {w}"
            );
            for (name, exact, interval) in [
                ("Clopper-Pearson", cp, clopper_pearson as IntervalFn),
                ("Wilson", w, wilson),
            ] {
                let got = covered(p, n, trials, interval);
                let (lo, hi) = binomial_interval(trials, exact, each);
                eprintln!(
                    "p {p} n {n}: {name} exact coverage {exact:.4}, {got} of {trials} trials (allowed {lo}..={hi})"
                );
                assert!(
                    (lo..=hi).contains(&got),
                    "{name} p {p} n {n}: {got} of {trials} covered, Binomial({trials}, {exact:.4}) allows {lo}..={hi}"
                );
            }
        }
    }
}

#[test]
fn bayes_posterior_matches_the_closed_form() {
    // Uniform prior, n failures: posterior Beta(1, n+1), whose quantile q is
    // 1 - (1-q)^(1/(n+1)); n successes: Beta(n+1, 1), quantile q^(1/(n+1)).
    let n = 40u64;
    let spec = Spec {
        method: Method::Bayes,
        runs: Some(n),
        ..Spec::default()
    };
    let none = check_probability(&spec, |_| false, 1).unwrap();
    let e = 1.0 / (n as f64 + 1.0);
    assert!((none.estimate - 1.0 / (n as f64 + 2.0)).abs() < 1e-12);
    let i = none.interval.unwrap();
    assert!((i.lo - (1.0 - 0.95f64.powf(e))).abs() < 1e-9, "{i:?}");
    assert!((i.hi - (1.0 - 0.05f64.powf(e))).abs() < 1e-9, "{i:?}");
    let all = check_probability(&spec, |_| true, 1).unwrap();
    let i = all.interval.unwrap();
    assert!((all.estimate - (n as f64 + 1.0) / (n as f64 + 2.0)).abs() < 1e-12);
    assert!(
        (i.lo - 0.05f64.powf(e)).abs() < 1e-9 && (i.hi - 0.95f64.powf(e)).abs() < 1e-9,
        "{i:?}"
    );
    // A Beta(2, 3) prior and 7 of 20: posterior mean (2+7)/(2+3+20).
    let spec = Spec {
        method: Method::Bayes,
        runs: Some(20),
        prior: (2.0, 3.0),
        ..Spec::default()
    };
    let out = check_probability(&spec, |i| i < 7, 2).unwrap();
    assert_eq!(out.successes, 7);
    assert!((out.estimate - 9.0 / 25.0).abs() < 1e-12);
}

#[test]
fn sequential_interval_methods_stop_at_the_requested_half_width() {
    for method in [Method::ClopperPearson, Method::Wilson, Method::Bayes] {
        for (stream, p) in [(7, 0.5), (8, 0.05), (9, 0.97)] {
            let spec = Spec {
                method,
                delta: 0.05,
                alpha: 0.05,
                ..Spec::default()
            };
            let out = check_probability(&spec, bernoulli(stream, p), 2).unwrap();
            let i = out.interval.unwrap();
            assert!(i.half_width() <= 0.05, "{method} p {p}: {out}");
            // The step before stopping was still too wide: the rule stopped at the first chance.
            let prev = Spec {
                runs: Some(out.runs - 1),
                ..spec.clone()
            };
            let before = check_probability(&prev, bernoulli(stream, p), 1).unwrap();
            assert!(
                before.interval.unwrap().half_width() > 0.05,
                "{method} p {p}"
            );
            assert!(out.rule.contains("sequential"), "{}", out.rule);
        }
    }
}

#[test]
fn sequential_clopper_pearson_needs_14_runs_when_every_run_succeeds() {
    // k = n: the interval is [(alpha/2)^(1/n), 1]; its half-width first drops
    // to 0.1 or below at n = 14 (0.05^(1/14) = 0.807), against Chernoff's 150.
    let spec = Spec {
        method: Method::ClopperPearson,
        ..Spec::default()
    };
    let out = check_probability(&spec, |_| true, 2).unwrap();
    assert_eq!(out.runs, 14);
    assert!((out.interval.unwrap().lo - 0.05f64.powf(1.0 / 14.0)).abs() < 1e-9);
}

#[test]
fn sequential_methods_report_the_cap() {
    let spec = Spec {
        method: Method::ClopperPearson,
        delta: 0.01,
        max_runs: 100,
        ..Spec::default()
    };
    let err = check_probability(&spec, bernoulli(3, 0.5), 2).unwrap_err();
    assert!(
        matches!(err, SmcError::MaxRunsReached { max_runs: 100, .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("--max-runs: clopper-pearson did not meet"),
        "{err}"
    );
}

#[test]
fn outcomes_do_not_depend_on_the_thread_count() {
    let specs = [
        Spec::default(),
        Spec {
            method: Method::ClopperPearson,
            delta: 0.03,
            ..Spec::default()
        },
        Spec {
            method: Method::Wilson,
            delta: 0.03,
            ..Spec::default()
        },
        Spec {
            method: Method::Bayes,
            delta: 0.03,
            ..Spec::default()
        },
        Spec {
            method: Method::Sprt,
            theta: Some(0.6),
            indifference: 0.02,
            ..Spec::default()
        },
        Spec {
            method: Method::ChowRobbins,
            delta: 0.03,
            ..Spec::default()
        },
        Spec {
            method: Method::Wilson,
            runs: Some(777),
            ..Spec::default()
        },
    ];
    for spec in specs {
        let one = check_probability(&spec, bernoulli(11, 0.63), 1).unwrap();
        for threads in [2, 3, 8] {
            let many = check_probability(&spec, bernoulli(11, 0.63), threads).unwrap();
            assert_eq!(one, many, "{} with {threads} threads", spec.method);
        }
    }
}

#[test]
fn progress_reaches_the_run_count() {
    let spec = Spec {
        method: Method::Wilson,
        delta: 0.02,
        ..Spec::default()
    };
    let mut seen = Vec::new();
    let out = ndnlab_smc::check_probability_with_progress(&spec, bernoulli(5, 0.4), 2, &mut |d| {
        seen.push(d)
    })
    .unwrap();
    assert_eq!(seen.last(), Some(&out.runs));
    assert!(seen.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn methods_parse_exactly() {
    for m in Method::ALL {
        assert_eq!(Method::parse(m.name()).unwrap(), m);
    }
    let names: Vec<_> = Method::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        [
            "chernoff",
            "clopper-pearson",
            "wilson",
            "bayes",
            "sprt",
            "chow-robbins",
            "splitting"
        ]
    );
    let err = Method::parse("Wilson").unwrap_err();
    assert_eq!(
        err.to_string(),
        "--method: unknown method `Wilson`; expected one of chernoff, clopper-pearson, wilson, bayes, sprt, chow-robbins, splitting"
    );
}

#[test]
fn validation_names_the_option() {
    let cases: Vec<(Spec, &str)> = vec![
        (Spec { alpha: 0.0, ..Spec::default() }, "--alpha: 0 is not strictly between 0 and 1"),
        (Spec { alpha: 1.5, ..Spec::default() }, "--alpha: 1.5 is not strictly between 0 and 1"),
        (Spec { delta: -0.1, ..Spec::default() }, "--delta: -0.1 is not a positive number"),
        (Spec { delta: 0.5, ..Spec::default() }, "--delta: 0.5 is a half-width of at least 0.5, which says nothing about a probability"),
        (Spec { runs: Some(0), ..Spec::default() }, "--runs: 0 runs; give at least 1"),
        (Spec { max_runs: 0, ..Spec::default() }, "--max-runs: 0 runs; give at least 1"),
        (Spec { method: Method::Bayes, prior: (0.0, 1.0), ..Spec::default() }, "--prior: Beta(0, 1) needs both parameters positive and finite"),
        (Spec { method: Method::Sprt, ..Spec::default() }, "--theta: SPRT needs the threshold of \"P >= theta\""),
        (Spec { method: Method::Sprt, theta: Some(1.0), ..Spec::default() }, "--theta: 1 is not strictly between 0 and 1"),
        (Spec { method: Method::Sprt, theta: Some(0.5), beta: 0.0, ..Spec::default() }, "--beta: 0 is not strictly between 0 and 1"),
        (Spec { method: Method::Sprt, theta: Some(0.5), indifference: 0.0, ..Spec::default() }, "--indifference: 0 is not a positive number"),
        (
            Spec { method: Method::Sprt, theta: Some(0.99), indifference: 0.01, ..Spec::default() },
            "--indifference: theta + indifference = 0.99 + 0.01 = 1 reaches 1: the test's H0 would be P = 1; lower --theta or --indifference",
        ),
        (
            Spec { method: Method::Sprt, theta: Some(0.05), indifference: 0.05, ..Spec::default() },
            "--indifference: theta - indifference = 0.05 - 0.05 = 0 reaches 0: the test's H1 would be P = 0; raise --theta or lower --indifference",
        ),
        (Spec { method: Method::Sprt, theta: Some(0.5), runs: Some(10), ..Spec::default() }, "--runs: SPRT decides its own run count; use --max-runs to cap it"),
    ];
    for (spec, message) in cases {
        assert_eq!(spec.validate().unwrap_err().to_string(), message);
        assert_eq!(
            check_probability(&spec, |_| true, 1)
                .unwrap_err()
                .to_string(),
            message
        );
    }
    let err = check_probability(
        &Spec {
            method: Method::Splitting,
            ..Spec::default()
        },
        |_| true,
        1,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("--method splitting: importance splitting drives a model"),
        "{err}"
    );
}

#[test]
fn outcomes_serialise_and_display() {
    let out = check_probability(&Spec::default(), bernoulli(2, 0.5), 1).unwrap();
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["method"], "chernoff");
    assert_eq!(json["runs"], 150);
    assert_eq!(json["interval"]["confidence"], 0.9);
    let text = out.to_string();
    assert!(text.contains("runs       150"), "{text}");
    assert!(text.contains("at 90%"), "{text}");
}

#[test]
fn option_lists_parse_with_clear_errors() {
    assert_eq!(ndnlab_smc::parse_prior("2, 3").unwrap(), (2.0, 3.0));
    assert_eq!(
        ndnlab_smc::parse_numbers("--levels", "2,4.5,8").unwrap(),
        vec![2.0, 4.5, 8.0]
    );
    assert_eq!(
        ndnlab_smc::parse_prior("2").unwrap_err().to_string(),
        "--prior: `2` is not two numbers a,b"
    );
    assert_eq!(
        ndnlab_smc::parse_numbers("--levels", "2,x,8")
            .unwrap_err()
            .to_string(),
        "--levels: item 2 `x` of `2,x,8` is not a finite number"
    );
}
