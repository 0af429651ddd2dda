//! Typed errors: every variant names the column, the line or the cell at fault.

use thiserror::Error;

/// Why a table could not be analysed. Line numbers count from 1 and include the
/// header, so they match what an editor shows.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnalysisError {
    /// The text is not well-formed CSV (a row with the wrong number of fields, bad UTF-8, ...).
    #[error("malformed CSV at line {line}: {message}")]
    Csv { line: u64, message: String },
    /// The table has no header row or no data rows.
    #[error("the table is empty: {0}")]
    Empty(String),
    /// A named column does not exist.
    #[error("no column named {column:?} (columns: {available})")]
    MissingColumn { column: String, available: String },
    /// A column given twice, in the header or in the arguments.
    #[error("column {0:?} is given twice")]
    DuplicateColumn(String),
    /// A cell of a numeric column does not hold a finite number.
    #[error("column {column:?}, line {line}: {value:?} is not a number")]
    NotANumber {
        column: String,
        line: usize,
        value: String,
    },
    /// A log transform met a value that is zero or negative.
    #[error("column {column:?}, line {line}: {value} is not positive, so the log transform cannot apply")]
    NotPositive {
        column: String,
        line: usize,
        value: f64,
    },
    /// A two-level analysis met a factor without exactly two levels.
    #[error(
        "factor {factor:?} has {count} level(s) ({levels}); a two-level design needs exactly 2"
    )]
    NotTwoLevels {
        factor: String,
        count: usize,
        levels: String,
    },
    /// A factor with a single level cannot explain any variation.
    #[error("factor {factor:?} has the single level {level:?}; a factor needs at least 2 levels")]
    SingleLevel { factor: String, level: String },
    /// The cells of the design do not all hold the same number of observations.
    #[error("unbalanced design: cell {cell} has {found} observation(s) (first at line {line}) but cell {reference} has {expected}; every cell needs the same number of replicates")]
    Unbalanced {
        cell: String,
        found: usize,
        line: usize,
        reference: String,
        expected: usize,
    },
    /// A combination of levels that the design needs has no observation.
    #[error("the design has no observation for {cell}; {what}")]
    MissingCell { cell: String, what: String },
    /// An error term needs at least two replicates per cell.
    #[error("{what} needs at least 2 replicates per cell, but {cell} has {found}")]
    TooFewReplicates {
        what: String,
        cell: String,
        found: usize,
    },
    /// The same replicate id appears twice within one cell.
    #[error("column {column:?}, line {line}: replicate {value:?} appears twice in cell {cell}")]
    DuplicateReplicate {
        column: String,
        line: usize,
        value: String,
        cell: String,
    },
    /// The cells observed form neither a full 2^k design nor a regular fraction.
    #[error("the {runs} level combinations are neither a full 2^{k} design nor a regular 2^(k-p) fraction: factor {factor:?} is not a product of the basic factors {basic}")]
    IrregularFraction {
        runs: usize,
        k: usize,
        factor: String,
        basic: String,
    },
    /// A generator of a fractional design could not be parsed.
    #[error("bad generator {generator:?}: {why}")]
    BadGenerator { generator: String, why: String },
    /// A parameter is out of range.
    #[error("{0}")]
    BadParameter(String),
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, AnalysisError>;
