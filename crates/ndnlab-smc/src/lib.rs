//! Statistical model checking (SMC) for ndnlab's stochastic models.
//!
//! The caller supplies runs: `run(i)` simulates run number `i`, seeded from
//! `i`, and reports whether a Boolean property held (a probability) or the
//! value of a numeric one (an expectation). This crate decides how many runs
//! to make and what they show, with the confidence the user asked for:
//!
//! * [`spec`]: the method and its options (`--alpha`, `--delta`, `--runs`,
//!   SPRT's `--theta`/`--indifference`/`--beta`, `--max-runs`, the Bayes prior).
//! * [`probability`]: Chernoff-Hoeffding, Clopper-Pearson, Wilson, Bayes
//!   (fixed or sequential) and Wald's SPRT.
//! * [`expectation`]: Chow-Robbins sequential intervals and fixed-N Student-t.
//! * [`splitting`]: importance splitting for rare events, with fixed or
//!   adaptive levels, over a model implementing [`Splittable`].
//! * [`property`]: the expression language properties are written in.
//! * [`intervals`]: the interval formulas; [`driver`]: parallel batches
//!   consumed in run-index order, so results do not depend on the thread count.
//!
//! alpha is the probability that the answer is wrong (1 - confidence) and
//! delta the half-width of the interval, as in SBIP: alpha = delta = 0.1 gives
//! Chernoff-Hoeffding's N = ceil(ln(2/alpha)/(2 delta²)) = 150 runs.
//! docs/SMC.md describes every method and the language for users.
//!
//! ```
//! use ndnlab_smc::{check_property, Method, Outcome, Property, Spec};
//!
//! // The model's observables, in the order its runs report them.
//! let known = ["unsatisfied", "latency_p99"];
//! let property = Property::parse("all-satisfied and latency_p99 <= 2ms", &known).unwrap();
//! let spec = Spec { method: Method::ClopperPearson, alpha: 0.1, delta: 0.1, ..Spec::default() };
//! // A stand-in for a seeded simulation: run i loses an Interest when i % 10 == 0.
//! let run = |i: u64| [if i % 10 == 0 { 1.0 } else { 0.0 }, 1.5e6];
//! let outcome = check_property(&spec, &property, run, 2, &mut |_done| {}).unwrap();
//! let Outcome::Probability(p) = outcome else { unreachable!() };
//! assert!(p.interval.unwrap().half_width() <= 0.1);
//! println!("{p}");
//! ```

pub mod check;
pub mod driver;
pub mod error;
pub mod expectation;
pub mod intervals;
pub mod outcome;
pub mod probability;
pub mod property;
pub mod spec;
pub mod splitting;

pub use check::{check_property, Outcome};
pub use error::{Result, SmcError};
pub use expectation::{check_expectation, check_expectation_with_progress};
pub use intervals::Interval;
pub use outcome::{ExpectationOutcome, ProbabilityOutcome, SprtDecision};
pub use probability::{check_probability, check_probability_with_progress};
pub use property::{Aliases, Kind, Observables, Property};
pub use spec::{chernoff_runs, parse_numbers, parse_prior, Method, Spec};
pub use splitting::{Splittable, SplittingLevel, SplittingOutcome, SplittingSpec};
