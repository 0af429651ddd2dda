//! The answers: what a probability or expectation check found, with the
//! stopping rule in words and the run count, as `serde::Serialize` for
//! `--json` and `Display` for the human table.

use crate::intervals::Interval;
use serde::Serialize;
use std::fmt;

/// SPRT's verdict on "P >= theta".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SprtDecision {
    /// `accept "P >= theta"` or `reject "P >= theta"`.
    pub decision: String,
    /// True when "P >= theta" was accepted.
    pub accepted: bool,
    /// The threshold.
    pub theta: f64,
    /// Half-width of the indifference region.
    pub indifference: f64,
    /// Type I error: probability of rejecting when P >= theta + indifference.
    pub alpha: f64,
    /// Type II error: probability of accepting when P <= theta - indifference.
    pub beta: f64,
    /// The log-likelihood ratio ln(L(p1)/L(p0)) at the stop.
    pub llr: f64,
    /// Reject when the LLR reaches ln((1-beta)/alpha).
    pub reject_bound: f64,
    /// Accept when the LLR falls to ln(beta/(1-alpha)).
    pub accept_bound: f64,
}

/// The answer to a Boolean property.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbabilityOutcome {
    /// The method's name (`--method` spelling).
    pub method: String,
    /// The stopping rule in words, with the numbers.
    pub rule: String,
    /// Runs used.
    pub runs: u64,
    /// Runs that satisfied the property.
    pub successes: u64,
    /// The point estimate of P (successes / runs; the posterior mean for Bayes).
    pub estimate: f64,
    /// The interval around it (none for SPRT, whose stopping biases it).
    pub interval: Option<Interval>,
    /// SPRT's decision.
    pub sprt: Option<SprtDecision>,
}

/// The answer to a numeric property.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectationOutcome {
    /// The method's name (`--method` spelling).
    pub method: String,
    /// The stopping rule in words, with the numbers.
    pub rule: String,
    /// Runs used.
    pub runs: u64,
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator).
    pub sd: f64,
    /// Confidence interval of the mean.
    pub interval: Interval,
}

fn percent(c: f64) -> String {
    let p = c * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{p:.2}%")
    }
}

impl fmt::Display for ProbabilityOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "method     {}", self.method)?;
        writeln!(f, "rule       {}", self.rule)?;
        writeln!(f, "runs       {}", self.runs)?;
        writeln!(f, "successes  {}", self.successes)?;
        writeln!(f, "estimate   {:.6}", self.estimate)?;
        if let Some(i) = &self.interval {
            writeln!(
                f,
                "interval   [{:.6}, {:.6}] at {}",
                i.lo,
                i.hi,
                percent(i.confidence)
            )?;
        }
        if let Some(s) = &self.sprt {
            writeln!(f, "decision   {}", s.decision)?;
            writeln!(
                f,
                "test       theta = {}, indifference = {}, alpha = {}, beta = {}",
                s.theta, s.indifference, s.alpha, s.beta
            )?;
            writeln!(
                f,
                "LLR        {:.4} (accept at <= {:.4}, reject at >= {:.4})",
                s.llr, s.accept_bound, s.reject_bound
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for ExpectationOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "method     {}", self.method)?;
        writeln!(f, "rule       {}", self.rule)?;
        writeln!(f, "runs       {}", self.runs)?;
        writeln!(f, "mean       {}", self.mean)?;
        writeln!(f, "sd         {}", self.sd)?;
        let i = &self.interval;
        writeln!(
            f,
            "interval   [{}, {}] at {}",
            i.lo,
            i.hi,
            percent(i.confidence)
        )
    }
}
