//! Probability of a Boolean property: Chernoff-Hoeffding, Clopper-Pearson,
//! Wilson and Bayes estimates (fixed or sequential) and Wald's SPRT, driven
//! over seeded runs by [`crate::driver::drive`].

use crate::driver::drive;
use crate::error::{Result, SmcError};
use crate::expectation::check_expectation_with_progress;
use crate::intervals::{beta_credible, clopper_pearson, hoeffding_half_width, wilson, Interval};
use crate::outcome::{ProbabilityOutcome, SprtDecision};
use crate::spec::{Method, Spec};

/// Estimates P(run satisfies the property). `run(i)` performs run number
/// `i` (seeded from `i`) and says whether it satisfied the property. Runs are
/// evaluated on `threads` workers; the outcome does not depend on `threads`.
pub fn check_probability<F>(spec: &Spec, run: F, threads: usize) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    check_probability_with_progress(spec, run, threads, &mut |_| {})
}

/// [`check_probability`] with a hook called with the number of runs done
/// after every batch (for a progress bar).
pub fn check_probability_with_progress<F>(
    spec: &Spec,
    run: F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    spec.validate()?;
    match spec.method {
        Method::Chernoff => chernoff(spec, &run, threads, on_progress),
        Method::ClopperPearson | Method::Wilson | Method::Bayes => match spec.runs {
            Some(n) => fixed_interval(spec, n, &run, threads, on_progress),
            None => sequential_interval(spec, &run, threads, on_progress),
        },
        Method::Sprt => sprt(spec, &run, threads, on_progress),
        Method::ChowRobbins => {
            // The probability is the expectation of the property's indicator.
            let e = check_expectation_with_progress(spec, |i| f64::from(u8::from(run(i))), threads, on_progress)?;
            Ok(ProbabilityOutcome {
                method: e.method,
                rule: e.rule,
                runs: e.runs,
                successes: (e.mean * e.runs as f64).round() as u64,
                estimate: e.mean,
                interval: Some(Interval { lo: e.interval.lo.max(0.0), hi: e.interval.hi.min(1.0), ..e.interval }),
                sprt: None,
            })
        }
        Method::Splitting => Err(SmcError::WrongMethod {
            method: "splitting",
            reason: "importance splitting drives a model that implements `Splittable` (splitting::estimate), not independent runs".into(),
        }),
    }
}

fn count<F>(n: u64, run: &F, threads: usize, on_progress: &mut dyn FnMut(u64)) -> Result<u64>
where
    F: Fn(u64) -> bool + Sync,
{
    let mut k = 0;
    drive(run, threads, n, on_progress, |_, ok| {
        k += u64::from(ok);
        Ok(false)
    })?;
    Ok(k)
}

fn chernoff<F>(
    spec: &Spec,
    run: &F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    let (n, rule) = match spec.runs {
        None => {
            let n = spec.chernoff_runs();
            let rule = format!(
                "Chernoff-Hoeffding: N = ceil(ln(2/{a})/(2*{d}^2)) = {n} runs, fixed in advance",
                a = spec.alpha,
                d = spec.delta
            );
            (n, rule)
        }
        Some(n) => {
            let rule = format!(
                "Chernoff-Hoeffding: N = {n} runs fixed by --runs; half-width sqrt(ln(2/{a})/(2*{n})) = {h:.4}",
                a = spec.alpha,
                h = hoeffding_half_width(n, spec.alpha)
            );
            (n, rule)
        }
    };
    let k = count(n, run, threads, on_progress)?;
    let p = k as f64 / n as f64;
    let h = hoeffding_half_width(n, spec.alpha);
    Ok(ProbabilityOutcome {
        method: Method::Chernoff.name().into(),
        rule,
        runs: n,
        successes: k,
        estimate: p,
        interval: Some(Interval {
            lo: (p - h).max(0.0),
            hi: (p + h).min(1.0),
            confidence: 1.0 - spec.alpha,
        }),
        sprt: None,
    })
}

/// The interval and point estimate of an interval method after `k` of `n`.
fn estimate(spec: &Spec, k: u64, n: u64) -> (f64, Interval) {
    match spec.method {
        Method::ClopperPearson => (k as f64 / n as f64, clopper_pearson(k, n, spec.alpha)),
        Method::Wilson => (k as f64 / n as f64, wilson(k, n, spec.alpha)),
        Method::Bayes => {
            let (a, b) = (spec.prior.0 + k as f64, spec.prior.1 + (n - k) as f64);
            (a / (a + b), beta_credible(a, b, spec.alpha))
        }
        _ => unreachable!("only interval methods reach here"),
    }
}

fn interval_words(spec: &Spec) -> String {
    let c = format!("{}%", (1.0 - spec.alpha) * 100.0);
    match spec.method {
        Method::ClopperPearson => format!("exact Clopper-Pearson {c} interval"),
        Method::Wilson => format!("Wilson score {c} interval"),
        Method::Bayes => format!(
            "equal-tailed {c} credible interval of the Beta({}, {}) prior's posterior",
            spec.prior.0, spec.prior.1
        ),
        _ => unreachable!("only interval methods reach here"),
    }
}

fn fixed_interval<F>(
    spec: &Spec,
    n: u64,
    run: &F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    let k = count(n, run, threads, on_progress)?;
    let (p, interval) = estimate(spec, k, n);
    Ok(ProbabilityOutcome {
        method: spec.method.name().into(),
        rule: format!("{} over N = {n} runs fixed by --runs", interval_words(spec)),
        runs: n,
        successes: k,
        estimate: p,
        interval: Some(interval),
        sprt: None,
    })
}

fn sequential_interval<F>(
    spec: &Spec,
    run: &F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    let mut k = 0u64;
    let mut last = None;
    let n = drive(run, threads, spec.max_runs, on_progress, |i, ok| {
        k += u64::from(ok);
        let (p, interval) = estimate(spec, k, i + 1);
        let stop = interval.half_width() <= spec.delta;
        last = Some((p, interval));
        Ok(stop)
    })?;
    let (p, interval) = last.expect("max_runs >= 1");
    if interval.half_width() > spec.delta {
        return Err(SmcError::MaxRunsReached {
            method: spec.method.name(),
            max_runs: spec.max_runs,
            state: format!(
                "half-width {:.6} > delta {}",
                interval.half_width(),
                spec.delta
            ),
        });
    }
    let as_uppaal = if spec.method == Method::ClopperPearson {
        " (as UPPAAL-SMC)"
    } else {
        ""
    };
    Ok(ProbabilityOutcome {
        method: spec.method.name().into(),
        rule: format!(
            "sequential{as_uppaal}: run until the {}'s half-width <= {}; stopped after {n} runs",
            interval_words(spec),
            spec.delta
        ),
        runs: n,
        successes: k,
        estimate: p,
        interval: Some(interval),
        sprt: None,
    })
}

fn sprt<F>(
    spec: &Spec,
    run: &F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<ProbabilityOutcome>
where
    F: Fn(u64) -> bool + Sync,
{
    let (p0, p1) = spec.sprt_hypotheses()?;
    let theta = spec.theta.expect("validated");
    let (alpha, beta) = (spec.alpha, spec.beta);
    let reject_bound = ((1.0 - beta) / alpha).ln();
    let accept_bound = (beta / (1.0 - alpha)).ln();
    let (up, down) = ((p1 / p0).ln(), ((1.0 - p1) / (1.0 - p0)).ln());
    let (mut llr, mut k) = (0.0f64, 0u64);
    let n = drive(run, threads, spec.max_runs, on_progress, |_, ok| {
        if ok {
            k += 1;
            llr += up;
        } else {
            llr += down;
        }
        Ok(llr >= reject_bound || llr <= accept_bound)
    })?;
    let accepted = llr <= accept_bound;
    if !accepted && llr < reject_bound {
        return Err(SmcError::MaxRunsReached {
            method: "sprt",
            max_runs: spec.max_runs,
            state: format!(
                "log-likelihood ratio {llr:.4} still inside ({accept_bound:.4}, {reject_bound:.4})"
            ),
        });
    }
    let verdict = if accepted { "accept" } else { "reject" };
    Ok(ProbabilityOutcome {
        method: "sprt".into(),
        rule: format!(
            "Wald SPRT of H0: P >= {p0} against H1: P <= {p1} (theta = {theta} ± {ind}): stop when the \
             log-likelihood ratio leaves (ln({beta}/(1-{alpha})), ln((1-{beta})/{alpha})) = ({accept_bound:.4}, {reject_bound:.4}); \
             stopped after {n} runs",
            ind = spec.indifference
        ),
        runs: n,
        successes: k,
        estimate: k as f64 / n as f64,
        interval: None,
        sprt: Some(SprtDecision {
            decision: format!("{verdict} \"P >= {theta}\""),
            accepted,
            theta,
            indifference: spec.indifference,
            alpha,
            beta,
            llr,
            reject_bound,
            accept_bound,
        }),
    })
}
