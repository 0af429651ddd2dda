//! Statistics of performance experiments, after Jain, *The Art of Computer
//! Systems Performance Analysis* (ch. 12-13 and 17-22).
//!
//! This crate is the analysis layer of the laboratory: it turns a table of
//! results (one row per run, factor columns and metric columns) into summaries
//! and factorial analyses. It does no I/O: it parses CSV text or a reader that
//! the caller hands it, and returns plain serialisable values that the report
//! layer (`ndnlab-report`) draws and prints and the CLI shows. Distributions come
//! from `statrs`.
//!
//! * [`summary`]: mean, standard deviation, Student-t confidence interval of the
//!   mean, median and percentiles; summaries per group of rows.
//! * [`twolevel`]: 2^k, 2^k r and 2^(k-p) designs: sign table, effects, sums of
//!   squares, allocation of variation, confidence intervals of effects, alias
//!   structure, Lenth's pseudo standard error and (half-)normal plot data.
//! * [`anova`]: general full factorial designs with any number of levels:
//!   ANOVA table, F tests, effects with confidence intervals.
//! * [`means`]: main-effects and interaction data for any design.
//! * [`residuals`]: residuals against predicted values and normal QQ data.
//! * [`che`]: Che's approximation of an LRU cache's hit ratio under Zipf (or
//!   any) popularity.
//! * [`fit`]: distributions fitted to latency samples: maximum likelihood,
//!   probability plot correlation coefficients and shape sweeps, Anderson-Darling,
//!   Kolmogorov-Smirnov, Box-Cox, and the choice among the candidates.
//!
//! Every analysis takes a [`Dataset`]: one response (optionally log-transformed
//! for a multiplicative model) under the levels of the chosen factor columns.
//! Failures are typed ([`AnalysisError`]) and name the column, line or cell.

pub mod anova;
pub mod che;
pub mod dataset;
pub mod dist;
pub mod error;
pub mod fit;
pub mod levels;
pub mod means;
pub mod residuals;
pub mod summary;
pub mod table;
pub mod twolevel;

pub use anova::{analyze_anova, AnovaAnalysis};
pub use dataset::{Dataset, Factor, Transform};
pub use error::{AnalysisError, Result};
pub use summary::{group_summaries, summarize, GroupSummary, Summary};
pub use table::Table;
pub use twolevel::{analyze_two_level, TwoLevelAnalysis};
