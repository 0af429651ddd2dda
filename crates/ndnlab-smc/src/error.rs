//! The one error type of the model checker: bad options, bad properties and
//! sequential runs that hit their cap. Every message names the option or the
//! position it is about.

use thiserror::Error;

/// Everything that can go wrong in `ndnlab-smc`.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SmcError {
    /// `--method` named no known method.
    #[error("--method: unknown method `{0}`; expected one of chernoff, clopper-pearson, wilson, bayes, sprt, chow-robbins, splitting")]
    UnknownMethod(String),
    /// An option is out of its range or contradicts another one.
    #[error("{option}: {reason}")]
    BadOption {
        /// The option as the user spells it, e.g. `--alpha`.
        option: &'static str,
        /// Why the value is refused, with the value.
        reason: String,
    },
    /// The method cannot answer this kind of question (e.g. SPRT on an expectation).
    #[error("--method {method}: {reason}")]
    WrongMethod {
        /// The method's name.
        method: &'static str,
        /// What it cannot do and what to use instead.
        reason: String,
    },
    /// A sequential method ran `--max-runs` runs without meeting its stopping rule.
    #[error("--max-runs: {method} did not meet its stopping rule within {max_runs} runs ({state}); raise --max-runs or relax --delta")]
    MaxRunsReached {
        /// The method's name.
        method: &'static str,
        /// The cap that was hit.
        max_runs: u64,
        /// Where the rule stood when it was hit, in words.
        state: String,
    },
    /// A run returned a value the method cannot use (NaN or infinite).
    #[error("run {run} returned {value}, which is not a finite number")]
    NonFinite {
        /// The run index.
        run: u64,
        /// The value returned.
        value: f64,
    },
    /// The property text does not parse.
    #[error("property, column {column}: {message}")]
    Syntax {
        /// 1-based column (in characters) of the offending token.
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// The property names an observable the model does not produce.
    #[error(
        "property, column {column}: unknown identifier `{name}`{context}; known names: {known}"
    )]
    UnknownIdentifier {
        /// 1-based column of the identifier.
        column: usize,
        /// The identifier.
        name: String,
        /// Empty, or ` (in alias ...)` when the name came from an alias.
        context: String,
        /// The known observables and aliases, comma separated.
        known: String,
    },
    /// The property mixes Boolean and numeric expressions wrongly.
    #[error("property, column {column}: {message}")]
    Type {
        /// 1-based column of the operator or operand.
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// Importance splitting could not make progress.
    #[error("splitting: {0}")]
    Splitting(String),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SmcError>;
