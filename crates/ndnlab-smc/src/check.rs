//! One entry point for a parsed property: a Boolean property is checked as a
//! probability, a numeric one as an expectation, over runs that return the
//! run's observables.

use crate::error::Result;
use crate::expectation::check_expectation_with_progress;
use crate::outcome::{ExpectationOutcome, ProbabilityOutcome};
use crate::probability::check_probability_with_progress;
use crate::property::{Kind, Observables, Property};
use crate::spec::Spec;
use serde::Serialize;
use std::fmt;

/// The answer for a property of either kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    /// A Boolean property's probability.
    Probability(ProbabilityOutcome),
    /// A numeric property's expectation.
    Expectation(ExpectationOutcome),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Probability(p) => p.fmt(f),
            Outcome::Expectation(e) => e.fmt(f),
        }
    }
}

/// Checks `property` over runs: `observe(i)` performs run `i` (seeded from
/// `i`) and returns its observables, indexed like the `known` list the
/// property was parsed against. `on_progress` gets the runs done after every
/// batch.
pub fn check_property<F, O>(
    spec: &Spec,
    property: &Property,
    observe: F,
    threads: usize,
    on_progress: &mut dyn FnMut(u64),
) -> Result<Outcome>
where
    F: Fn(u64) -> O + Sync,
    O: Observables,
{
    match property.kind() {
        Kind::Boolean => check_probability_with_progress(
            spec,
            |i| property.eval_bool(&observe(i)),
            threads,
            on_progress,
        )
        .map(Outcome::Probability),
        Kind::Numeric => check_expectation_with_progress(
            spec,
            |i| property.eval_num(&observe(i)),
            threads,
            on_progress,
        )
        .map(Outcome::Expectation),
    }
}
