//! Expectation of a numeric property: the Chow-Robbins sequential confidence
//! interval (as PRISM's CI method with no sample count given), or a Student-t
//! interval over a run count fixed by `--runs`.

use crate::driver::drive;
use crate::error::{Result, SmcError};
use crate::intervals::{normal_quantile, student_quantile, Interval};
use crate::outcome::ExpectationOutcome;
use crate::spec::{Method, Spec};

/// Welford's running mean and variance.
#[derive(Debug, Clone, Copy, Default)]
struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Sample variance with n - 1 in the denominator (0 for one value).
    fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
}

/// Estimates E[value of the run]. `run(i)` performs run number `i` (seeded
/// from `i`) and returns the property's value. The outcome does not depend on
/// `threads`.
pub fn check_expectation<F>(spec: &Spec, run: F, threads: usize) -> Result<ExpectationOutcome>
where
    F: Fn(u64) -> f64 + Sync,
{
    check_expectation_with_progress(spec, run, threads, &mut |_| {})
}

/// [`check_expectation`] with a hook called with the number of runs done
/// after every batch.
pub fn check_expectation_with_progress<F>(
    spec: &Spec,
    run: F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ExpectationOutcome>
where
    F: Fn(u64) -> f64 + Sync,
{
    spec.validate()?;
    if spec.method != Method::ChowRobbins {
        return Err(SmcError::WrongMethod {
            method: spec.method.name(),
            reason: "estimates the probability of a Boolean property; for a numeric property use \
                     --method chow-robbins (sequential, or fixed with --runs N)"
                .into(),
        });
    }
    let mut m = Moments::default();
    let push = |m: &mut Moments, i: u64, x: f64| -> Result<()> {
        if !x.is_finite() {
            return Err(SmcError::NonFinite { run: i, value: x });
        }
        m.push(x);
        Ok(())
    };
    match spec.runs {
        Some(n) => {
            if n < 2 {
                return Err(SmcError::BadOption {
                    option: "--runs",
                    reason: "an interval for an expectation needs at least 2 runs".into(),
                });
            }
            drive(&run, threads, n, on_progress, |i, x| {
                push(&mut m, i, x).map(|_| false)
            })?;
            let t = student_quantile(1.0 - spec.alpha / 2.0, (n - 1) as f64);
            let sd = m.variance().sqrt();
            let half = t * sd / (n as f64).sqrt();
            Ok(ExpectationOutcome {
                method: Method::ChowRobbins.name().into(),
                rule: format!(
                    "Student-t {}% interval over N = {n} runs fixed by --runs: mean ± t(n-1) * s / sqrt(n)",
                    (1.0 - spec.alpha) * 100.0
                ),
                runs: n,
                mean: m.mean,
                sd,
                interval: Interval { lo: m.mean - half, hi: m.mean + half, confidence: 1.0 - spec.alpha },
            })
        }
        None => {
            let z = normal_quantile(1.0 - spec.alpha / 2.0);
            let n_min = spec.min_runs.max(2);
            let delta = spec.delta;
            let mut met = false;
            let n = drive(&run, threads, spec.max_runs, on_progress, |i, x| {
                push(&mut m, i, x)?;
                let nf = m.n as f64;
                met = m.n >= n_min && z * ((m.variance() + 1.0 / nf) / nf).sqrt() <= delta;
                Ok(met)
            })?;
            let sd = m.variance().sqrt();
            if !met {
                return Err(SmcError::MaxRunsReached {
                    method: "chow-robbins",
                    max_runs: spec.max_runs,
                    state: format!(
                        "z * sqrt((s^2 + 1/n)/n) = {:.6} > delta {delta}",
                        z * ((m.variance() + 1.0 / n as f64) / n as f64).sqrt()
                    ),
                });
            }
            let half = z * sd / (n as f64).sqrt();
            Ok(ExpectationOutcome {
                method: Method::ChowRobbins.name().into(),
                rule: format!(
                    "Chow-Robbins sequential {}% interval: stop at the first n >= {n_min} with \
                     z * sqrt((s_n^2 + 1/n)/n) <= {delta} (z = {z:.4}); stopped after {n} runs",
                    (1.0 - spec.alpha) * 100.0
                ),
                runs: n,
                mean: m.mean,
                sd,
                interval: Interval {
                    lo: m.mean - half,
                    hi: m.mean + half,
                    confidence: 1.0 - spec.alpha,
                },
            })
        }
    }
}
