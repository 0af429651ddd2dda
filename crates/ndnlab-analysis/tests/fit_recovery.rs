//! Recovery of known parameters: samples of 10^4 values drawn from each
//! candidate family with known parameters, several seeds each. The fit must
//! recover the parameters within the stated tolerances and choose the right
//! family in at least 95% of the trials.

use ndnlab_analysis::fit::{fit_sample, Dist, Family, FitOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;

const N: usize = 10_000;
const SEEDS: [u64; 3] = [1, 2, 3];

/// The distributions drawn from, and the relative tolerance on each parameter
/// (absolute, relative to the scale, for a location).
fn truths() -> Vec<(Dist, f64)> {
    vec![
        (
            Dist::Normal {
                mean: 500.0,
                sd: 40.0,
            },
            0.05,
        ),
        (
            Dist::Lognormal {
                mu: 5.0,
                sigma: 0.6,
            },
            0.05,
        ),
        (
            Dist::Gamma {
                shape: 3.2,
                scale: 41.0,
            },
            0.06,
        ),
        (
            Dist::Weibull {
                shape: 1.6,
                scale: 200.0,
                location: 0.0,
            },
            0.05,
        ),
        (
            Dist::Weibull {
                shape: 2.5,
                scale: 300.0,
                location: 1000.0,
            },
            0.10,
        ),
        (
            Dist::Exponential {
                scale: 80.0,
                location: 0.0,
            },
            0.05,
        ),
        (
            Dist::Exponential {
                scale: 120.0,
                location: 400.0,
            },
            0.05,
        ),
    ]
}

fn close(got: f64, want: f64, tol: f64, scale: f64) -> bool {
    if want == 0.0 {
        (got - want).abs() <= tol * scale
    } else {
        ((got - want) / want).abs() <= tol
    }
}

#[test]
fn recovers_family_and_parameters() {
    let opts = FitOptions {
        diagnostics: false,
        ..FitOptions::default()
    };
    let (mut trials, mut right) = (0, 0);
    let mut report = Vec::new();
    for (truth, tol) in truths() {
        for seed in SEEDS {
            let mut rng = StdRng::seed_from_u64(seed);
            let x = truth.sample_n(&mut rng, N);
            let t = std::time::Instant::now();
            let fit = fit_sample(&x, &opts).unwrap();
            eprintln!("{} seed {seed}: {:?}", truth.family().name(), t.elapsed());
            trials += 1;
            let ok_family = fit.chosen.family() == truth.family();
            if ok_family {
                right += 1;
                let scale = truth
                    .params()
                    .iter()
                    .find(|p| p.0 == "scale")
                    .map(|p| p.1)
                    .unwrap_or(1.0);
                for ((name, want), (_, got)) in truth.params().iter().zip(fit.chosen.params()) {
                    assert!(
                        close(got, *want, tol, scale),
                        "seed {seed}, {}: {name} {got} not within {tol} of {want}\n{}",
                        truth.family().name(),
                        fit.verdict
                    );
                }
            }
            report.push(format!(
                "{} seed {seed}: {}",
                truth.family().name(),
                fit.verdict
            ));
        }
    }
    eprintln!(
        "right family in {right} of {trials} trials:\n{}",
        report.join("\n")
    );
    assert!(
        right as f64 >= 0.95 * trials as f64,
        "right family in {right} of {trials} trials:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_mixture_falls_back_to_boxcox_or_empirical() {
    let mut rng = StdRng::seed_from_u64(7);
    let a = Dist::Normal {
        mean: 100.0,
        sd: 5.0,
    }
    .sample_n(&mut rng, 3000);
    let b = Dist::Normal {
        mean: 300.0,
        sd: 5.0,
    }
    .sample_n(&mut rng, 3000);
    let x: Vec<f64> = a.into_iter().chain(b).collect();
    let fit = fit_sample(&x, &FitOptions::default()).unwrap();
    assert_eq!(fit.chosen.family(), Family::Empirical, "{}", fit.verdict);
    assert!(
        fit.verdict.contains("no family reached PPCC"),
        "{}",
        fit.verdict
    );
}

#[test]
fn a_transformed_normal_is_found_by_boxcox() {
    let mut rng = StdRng::seed_from_u64(11);
    let truth = Dist::BoxcoxNormal {
        lambda: -1.0,
        mean: 0.9,
        sd: 0.02,
    };
    let x = truth.sample_n(&mut rng, 5000);
    let fit = fit_sample(&x, &FitOptions::default()).unwrap();
    let bc = fit.boxcox.as_ref().unwrap();
    assert!((bc.lambda + 1.0).abs() < 0.3, "λ {}", bc.lambda);
    assert!(bc.ppcc > 0.999);
}
