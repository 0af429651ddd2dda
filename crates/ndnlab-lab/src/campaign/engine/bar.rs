//! The progress bar of a campaign's command (indicatif, on standard error).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` jobs called `what` ("run", "point"; or nothing), the
/// message after it; a spinner counting them when `len` is unknown (`None`); hidden when
/// `hidden` (under `--json`).
pub fn bar(len: Option<u64>, hidden: bool, what: &str) -> ProgressBar {
    let b = if hidden {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(len.unwrap_or(0))
    };
    let what = if what.is_empty() {
        String::new()
    } else {
        format!("{what} ")
    };
    let template = match len {
        Some(_) => format!("{{bar:30}} {what}{{pos}}/{{len}} eta {{eta}} {{msg}}"),
        None => format!("{{spinner}} {what}{{pos}} {{elapsed}}"),
    };
    b.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
    b
}
