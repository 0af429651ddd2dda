//! [`StrategyChoiceError`]: why a strategy instance name or a StrategyChoice command
//! is refused, with NFD's reasons.

/// Errors of StrategyChoice management commands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategyChoiceError {
    /// The strategy name is not a Name URI at all.
    #[error("malformed strategy name {0}")]
    BadName(String),
    /// No registered strategy matches the name (NFD: "Strategy not registered", 404):
    /// an unknown strategy, or a version above the registered one.
    #[error("strategy {0} is not registered")]
    NotRegistered(String),
    /// The registered strategy refuses the requested (lower) version, as NFD's
    /// constructor does (409).
    #[error("{strategy} does not support version {version}")]
    UnsupportedVersion {
        /// NFD's class name (`AsfStrategy`).
        strategy: &'static str,
        /// Requested version.
        version: u64,
    },
    /// Parameters given to a strategy that takes none (random, access,
    /// self-learning; 409).
    #[error("{strategy} does not accept parameters")]
    NoParameters {
        /// NFD's class name (`RandomStrategy`).
        strategy: &'static str,
    },
    /// Malformed, unknown or out-of-range strategy parameters.
    #[error("bad parameters for strategy {strategy}: {reason}")]
    BadParameters {
        /// Short strategy name.
        strategy: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The root prefix's strategy cannot be unset.
    #[error("cannot unset the strategy of the root prefix")]
    CannotUnsetRoot,
    /// A `/localhost` prefix... is fine in NFD; kept for prefixes too long for the table.
    #[error("prefix too long ({0} components)")]
    PrefixTooLong(usize),
}
