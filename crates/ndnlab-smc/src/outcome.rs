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

/// Six significant digits, in scientific notation outside [1e-3, 1e6).
fn num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if (1e-3..1e6).contains(&v.abs()) {
        let digits = (5 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
        let s = format!("{v:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{v:.5e}")
    }
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
        writeln!(f, "mean       {}", num(self.mean))?;
        writeln!(f, "sd         {}", num(self.sd))?;
        let i = &self.interval;
        writeln!(
            f,
            "interval   [{}, {}] at {}",
            num(i.lo),
            num(i.hi),
            percent(i.confidence)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(24.499999999999), "24.5");
        assert_eq!(num(0.995), "0.995");
        assert_eq!(num(-3.25), "-3.25");
        assert_eq!(num(123456.7), "123457");
        assert_eq!(num(1.2e6), "1.20000e6");
        assert_eq!(num(2.5e-5), "2.50000e-5");
        assert_eq!(percent(0.9), "90%");
        assert_eq!(percent(0.995), "99.50%");
    }
}
