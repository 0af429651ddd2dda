//! What `ndnlab run` and `ndnlab merge` print: the run matrix, the summary
//! table per design point, and the same as JSON.

use std::fmt::Write;
use std::path::Path;

use super::{point_means, Campaign, Summary};
use crate::design;
use crate::merge::MergeSummary;

/// The metrics of the summary table, in its column order.
pub const COLUMNS: &[&str] = &[
    "data_per_sec",
    "throughput_mbps",
    "satisfaction",
    "delay_p50_us",
    "delay_p99_us",
    "cs_hit_ratio",
];

impl Campaign {
    /// The run matrix (`ndnlab run --dry-run`): id, replicate, seed and levels
    /// of each run, then the count.
    pub fn matrix(&self) -> String {
        let mut s = String::from("run\treplicate\tseed\tlevels\n");
        for r in &self.runs {
            let _ = writeln!(
                s,
                "{}\t{}\t{}\t{}",
                r.id,
                r.replicate,
                r.seed,
                design::describe(&r.levels)
            );
        }
        let _ = writeln!(s, "{} runs ({})", self.runs.len(), self.file);
        s
    }
}

impl Summary {
    /// The summary as `ndnlab run --json` prints it, the results in `out`.
    pub fn json(&self, out: &Path) -> serde_json::Value {
        let means = point_means(&self.rows);
        serde_json::json!({
            "out": out,
            "runs": self.rows.len(),
            "skipped": self.skipped,
            "failed": self.failed,
            "not_applicable": self.not_applicable,
            "report": self.report,
            "points": means.iter().map(|(levels, ok, m)| serde_json::json!({
                "levels": levels, "ok": ok, "means": m,
            })).collect::<Vec<_>>(),
        })
    }

    /// The summary table: per design point the runs that succeeded and the
    /// means of [`COLUMNS`]; then the counts and where the results are.
    pub fn table(&self, out: &Path) -> String {
        let means = point_means(&self.rows);
        let width = means
            .iter()
            .map(|(l, _, _)| l.len())
            .max()
            .unwrap_or(0)
            .max(5);
        let head: String = COLUMNS.iter().map(|c| format!(" {c:>16}")).collect();
        let mut s = format!("{:<width$} {:>4}{head}\n", "point", "ok");
        for (levels, ok, m) in &means {
            let label = if levels.is_empty() { "(all)" } else { levels };
            let vals: String = COLUMNS
                .iter()
                .map(|c| {
                    m.get(*c)
                        .map_or(format!(" {:>16}", "-"), |v| format!(" {v:>16.2}"))
                })
                .collect();
            let _ = writeln!(s, "{label:<width$} {ok:>4}{vals}");
        }
        let _ = writeln!(
            s,
            "{} runs, {} failed, {} skipped (not applicable), {} resumed; results in {}",
            self.rows.len(),
            self.failed,
            self.not_applicable,
            self.skipped,
            out.display()
        );
        if let Some(r) = &self.report {
            let _ = writeln!(s, "report: {}", r.display());
        }
        s
    }
}

impl MergeSummary {
    /// What `ndnlab merge` prints: each slice's runs, the counts, the runs
    /// no slice holds, the report.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (dir, n) in &self.slices {
            let _ = writeln!(s, "{}: {n} runs", dir.display());
        }
        let _ = writeln!(
            s,
            "{} of {} runs merged ({} failed, {} skipped) into {}",
            self.merged,
            self.expected,
            self.failed,
            self.skipped,
            self.out.display()
        );
        if !self.missing.is_empty() {
            let ids: Vec<String> = self.missing.iter().map(|i| i.to_string()).collect();
            let _ = writeln!(
                s,
                "missing runs (no slice holds them): {}; run their shard again and merge",
                ids.join(", ")
            );
        }
        if let Some(r) = &self.report {
            let _ = writeln!(s, "report: {}", r.display());
        }
        s
    }
}

/// A campaign's progress on `bar` ([`super::engine::bar`]): the runs done,
/// the point running, a line for each run that failed or was skipped.
pub fn on_bar(bar: &indicatif::ProgressBar) -> impl FnMut(super::Progress) + '_ {
    move |p| match p {
        super::Progress::Start { run, done, .. } => {
            bar.set_position(done as u64);
            bar.set_message(design::describe(&run.levels));
        }
        super::Progress::Done { ok, skipped, .. } => {
            bar.inc(1);
            if skipped {
                bar.println("a run was skipped: the runner cannot carry out its point (see logs/)");
            } else if !ok {
                bar.println("a run failed (see logs/)");
            }
        }
    }
}
