//! What the user asked for: the method and its confidence parameters
//! (`--method`, `--alpha`, `--delta`, `--runs`, SPRT's `--theta`,
//! `--indifference`, `--beta`, the `--max-runs` cap and the Bayes prior),
//! checked once by [`Spec::validate`].

use crate::error::{Result, SmcError};
use serde::{Deserialize, Serialize};

/// A statistical model checking method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Chernoff-Hoeffding: a run count fixed in advance from alpha and delta.
    Chernoff,
    /// Exact Clopper-Pearson interval; sequential without `--runs` (as UPPAAL-SMC).
    ClopperPearson,
    /// Wilson score interval; sequential without `--runs`.
    Wilson,
    /// Beta posterior with an equal-tailed credible interval; sequential without `--runs`.
    Bayes,
    /// Wald's sequential probability ratio test of "P >= theta".
    Sprt,
    /// Chow-Robbins sequential confidence interval for an expectation (as PRISM's CI).
    ChowRobbins,
    /// Importance splitting for rare events (as Plasma Lab).
    Splitting,
}

impl Method {
    /// Every method, in the order the documentation lists them.
    pub const ALL: [Method; 7] = [
        Method::Chernoff,
        Method::ClopperPearson,
        Method::Wilson,
        Method::Bayes,
        Method::Sprt,
        Method::ChowRobbins,
        Method::Splitting,
    ];

    /// Parses a `--method` value: exactly `chernoff`, `clopper-pearson`,
    /// `wilson`, `bayes`, `sprt`, `chow-robbins` or `splitting`.
    pub fn parse(text: &str) -> Result<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == text)
            .ok_or_else(|| SmcError::UnknownMethod(text.to_string()))
    }

    /// The name `parse` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Method::Chernoff => "chernoff",
            Method::ClopperPearson => "clopper-pearson",
            Method::Wilson => "wilson",
            Method::Bayes => "bayes",
            Method::Sprt => "sprt",
            Method::ChowRobbins => "chow-robbins",
            Method::Splitting => "splitting",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = SmcError;
    fn from_str(s: &str) -> Result<Method> {
        Method::parse(s)
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The checking request. Build it with `Spec { method, ..Spec::default() }`
/// and call [`Spec::validate`] (the `check_*` functions call it too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The method.
    pub method: Method,
    /// Probability that the answer is wrong (1 - confidence); SPRT's type I error.
    pub alpha: f64,
    /// Precision: the half-width of the interval.
    pub delta: f64,
    /// A fixed run count instead of the method's own (not for SPRT).
    pub runs: Option<u64>,
    /// SPRT: the threshold of "P >= theta".
    pub theta: Option<f64>,
    /// SPRT: half-width of the indifference region around theta.
    pub indifference: f64,
    /// SPRT: type II error.
    pub beta: f64,
    /// Safety cap for sequential methods; reaching it is an error.
    pub max_runs: u64,
    /// Chow-Robbins: the least number of runs before the rule may stop (n_min).
    pub min_runs: u64,
    /// Bayes: the Beta(a, b) prior.
    pub prior: (f64, f64),
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            method: Method::Chernoff,
            alpha: 0.1,
            delta: 0.1,
            runs: None,
            theta: None,
            indifference: 0.01,
            beta: 0.1,
            max_runs: 1_000_000,
            min_runs: 30,
            prior: (1.0, 1.0),
        }
    }
}

fn bad(option: &'static str, reason: String) -> SmcError {
    SmcError::BadOption { option, reason }
}

fn open_unit(option: &'static str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 && v < 1.0 {
        Ok(())
    } else {
        Err(bad(option, format!("{v} is not strictly between 0 and 1")))
    }
}

impl Spec {
    /// Checks every option the method uses; the error names the option.
    pub fn validate(&self) -> Result<()> {
        open_unit("--alpha", self.alpha)?;
        if !(self.delta.is_finite() && self.delta > 0.0) {
            return Err(bad(
                "--delta",
                format!("{} is not a positive number", self.delta),
            ));
        }
        if self.runs == Some(0) {
            return Err(bad("--runs", "0 runs; give at least 1".into()));
        }
        if self.max_runs == 0 {
            return Err(bad("--max-runs", "0 runs; give at least 1".into()));
        }
        let interval_method = matches!(
            self.method,
            Method::Chernoff | Method::ClopperPearson | Method::Wilson | Method::Bayes
        );
        if interval_method && self.delta >= 0.5 {
            return Err(bad(
                "--delta",
                format!(
                    "{} is a half-width of at least 0.5, which says nothing about a probability",
                    self.delta
                ),
            ));
        }
        if self.method == Method::Bayes {
            let (a, b) = self.prior;
            if !(a.is_finite() && a > 0.0 && b.is_finite() && b > 0.0) {
                return Err(bad(
                    "--prior",
                    format!("Beta({a}, {b}) needs both parameters positive and finite"),
                ));
            }
        }
        if self.method == Method::Sprt {
            self.sprt_hypotheses()?;
            if self.runs.is_some() {
                return Err(bad(
                    "--runs",
                    "SPRT decides its own run count; use --max-runs to cap it".into(),
                ));
            }
        }
        Ok(())
    }

    /// SPRT's (p0, p1) = (theta + indifference, theta - indifference), checked
    /// to lie strictly inside (0, 1).
    pub fn sprt_hypotheses(&self) -> Result<(f64, f64)> {
        let theta = self.theta.ok_or_else(|| {
            bad(
                "--theta",
                "SPRT needs the threshold of \"P >= theta\"".into(),
            )
        })?;
        open_unit("--theta", theta)?;
        open_unit("--beta", self.beta)?;
        if !(self.indifference.is_finite() && self.indifference > 0.0) {
            return Err(bad(
                "--indifference",
                format!("{} is not a positive number", self.indifference),
            ));
        }
        let (p0, p1) = (theta + self.indifference, theta - self.indifference);
        if p0 >= 1.0 {
            return Err(bad(
                "--indifference",
                format!("theta + indifference = {theta} + {} = {p0} reaches 1: the test's H0 would be P = 1; lower --theta or --indifference", self.indifference),
            ));
        }
        if p1 <= 0.0 {
            return Err(bad(
                "--indifference",
                format!("theta - indifference = {theta} - {} = {p1} reaches 0: the test's H1 would be P = 0; raise --theta or lower --indifference", self.indifference),
            ));
        }
        Ok((p0, p1))
    }

    /// The Chernoff-Hoeffding run count for this spec's alpha and delta.
    pub fn chernoff_runs(&self) -> u64 {
        chernoff_runs(self.alpha, self.delta)
    }
}

/// Parses a comma-separated list of numbers for `option` (e.g. `--prior 2,3`
/// or `--levels 2,4,8`); the error names the option and the bad item.
pub fn parse_numbers(option: &'static str, text: &str) -> Result<Vec<f64>> {
    text.split(',')
        .enumerate()
        .map(|(i, item)| {
            let item = item.trim();
            item.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    bad(
                        option,
                        format!("item {} `{item}` of `{text}` is not a finite number", i + 1),
                    )
                })
        })
        .collect()
}

/// Parses `--prior a,b` into the Bayes prior Beta(a, b).
pub fn parse_prior(text: &str) -> Result<(f64, f64)> {
    match parse_numbers("--prior", text)?.as_slice() {
        [a, b] => Ok((*a, *b)),
        _ => Err(bad("--prior", format!("`{text}` is not two numbers a,b"))),
    }
}

/// Chernoff-Hoeffding run count: N = ceil(ln(2/alpha) / (2 delta^2)), the
/// number of runs after which the estimate is within delta of the true
/// probability with probability at least 1 - alpha (alpha = delta = 0.1 → 150).
pub fn chernoff_runs(alpha: f64, delta: f64) -> u64 {
    let n = (2.0 / alpha).ln() / (2.0 * delta * delta);
    // Guard against 149.99999999 → 150 style rounding noise before the ceiling.
    let rounded = n.round();
    if (n - rounded).abs() < 1e-9 {
        rounded as u64
    } else {
        n.ceil() as u64
    }
}
