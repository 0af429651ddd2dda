//! Figures, text tables and the HTML report of an experiment.
//!
//! This is the presentation layer above `ndnlab-analysis`: it turns analyses
//! into human tables for the terminal, figures (SVG and PNG, drawn with
//! plotters and a font embedded in the binary) and one self-contained HTML page
//! per experiment directory. The laboratory and the CLI use it; the statistics
//! themselves live in `ndnlab-analysis`.

pub mod charts;
pub mod compare;
pub mod compare_html;
pub mod csvplot;
pub mod experiment;
pub mod figure;
pub mod findings;
pub mod html;
pub mod levels;
pub mod plots;
pub mod reference;
pub mod report;
pub mod reproduction;
pub mod shares;
pub mod style;
pub mod text;

use std::path::PathBuf;

pub use compare::{compare, Comparison};
pub use report::{build, write_report, Report, ReportOptions};

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file is not valid TOML or JSON.
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    /// The analysis of a file failed.
    #[error("{}: {source}", path.display())]
    Analysis {
        path: PathBuf,
        source: ndnlab_analysis::AnalysisError,
    },
    /// A figure could not be drawn.
    #[error("drawing a figure failed: {0}")]
    Plot(String),
}
