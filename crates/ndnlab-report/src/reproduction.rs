//! The page of `ndnlab reproduce`: every paper of the seed directories, its
//! question and answer beside ndnlab's, and per experiment file the
//! comparison with the paper ([`crate::compare_html`]). The types here are
//! what the lab fills in and what `reproduce.json` holds; `reference.csv`
//! gathers every comparison row with its seed and file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compare::{Comparison, Counterpart, Row, COLUMNS};
use crate::compare_html::html_section;
use crate::figure::Figure;
use crate::html::{esc, table, STYLE};
use crate::text::num;
use crate::ReportError;

/// `paper.toml`'s `[paper]`: the paper a seed directory reproduces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    pub authors: String,
    pub title: String,
    pub venue: String,
    pub year: u32,
    /// The question the paper asks.
    pub question: String,
    /// The paper's own answer.
    pub answer: String,
    /// What the paper measured on.
    pub testbed: String,
    /// What ndnlab runs instead, and why.
    pub substitute: String,
}

impl Paper {
    /// Authors, "title", venue and year.
    pub fn citation(&self) -> String {
        format!(
            "{}, \"{}\", {}, {}",
            self.authors, self.title, self.venue, self.year
        )
    }
}

/// How one experiment file went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every run finished (some may be not applicable) and the comparison was made.
    Ok,
    /// The file could not be loaded, a run failed, or the comparison could not be made.
    Failed,
    /// Not run on this machine (NFD not installed).
    Skipped,
}

/// One experiment file (`*.toml`, a campaign) or model file (`*.model`).
#[derive(Debug, Clone, Serialize)]
pub struct FileResult {
    /// The file's stem (`fig3-window`).
    pub file: String,
    pub path: PathBuf,
    /// `campaign` or `model`.
    pub kind: &'static str,
    pub outcome: Outcome,
    /// Why it failed or was skipped.
    pub message: Option<String>,
    /// Its output directory.
    pub out: PathBuf,
    /// Its own page, relative to the reproduction's directory.
    pub report: Option<String>,
    pub runs_ok: usize,
    pub runs_failed: usize,
    pub runs_skipped: usize,
    /// The `[reference]` figure and finding.
    pub figure: Option<String>,
    pub finding: Option<String>,
    /// The comparison rows (also in the file's reference.csv).
    pub rows: Vec<Row>,
    #[serde(skip)]
    pub comparison: Option<Comparison>,
}

/// Counts over a set of comparison rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    pub points: usize,
    pub measured: usize,
    pub interpolated: usize,
    /// Shapes not reached within the measured levels (a lower bound).
    pub beyond: usize,
    pub missing: usize,
    /// Points whose runs were all skipped (NFD not installed, say).
    pub skipped: usize,
    /// Rows with a ratio within the band ([`within_band`]).
    pub within: usize,
    pub median_ratio: Option<f64>,
    pub min_ratio: Option<f64>,
    pub max_ratio: Option<f64>,
}

/// The ratio band a point without the paper's error must fall in.
pub const RATIO_BAND: (f64, f64) = (0.5, 2.0);

/// Whether ndnlab's number agrees with the paper's: within the paper's error
/// when it gives one, else a ratio within [`RATIO_BAND`].
pub fn within_band(r: &Row) -> bool {
    match (r.paper, r.ndnlab, r.paper_error, r.ratio) {
        (Some(p), Some(n), Some(e), _) if e > 0.0 => (n - p).abs() <= e,
        (_, _, _, Some(q)) => (RATIO_BAND.0..=RATIO_BAND.1).contains(&q),
        _ => false,
    }
}

impl Tally {
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Tally {
        let mut t = Tally::default();
        let mut ratios = Vec::new();
        for r in rows {
            t.points += 1;
            match r.counterpart {
                Counterpart::Measured => t.measured += 1,
                Counterpart::Interpolated => t.interpolated += 1,
                Counterpart::Beyond => t.beyond += 1,
                Counterpart::Missing => t.missing += 1,
                Counterpart::Skipped => t.skipped += 1,
            }
            if within_band(r) {
                t.within += 1;
            }
            if let Some(q) = r.ratio.filter(|q| q.is_finite()) {
                ratios.push(q);
            }
        }
        ratios.sort_by(f64::total_cmp);
        if !ratios.is_empty() {
            let n = ratios.len();
            t.median_ratio = Some(if n % 2 == 1 {
                ratios[n / 2]
            } else {
                (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
            });
            t.min_ratio = ratios.first().copied();
            t.max_ratio = ratios.last().copied();
        }
        t
    }
}

impl FileResult {
    pub fn tally(&self) -> Tally {
        Tally::of(&self.rows)
    }
}

/// One seed directory and its files.
#[derive(Debug, Clone, Serialize)]
pub struct SeedResult {
    /// `seed000`.
    pub seed: String,
    pub dir: PathBuf,
    pub paper: Paper,
    pub files: Vec<FileResult>,
}

/// Everything `ndnlab reproduce` did.
#[derive(Debug, Clone, Serialize)]
pub struct Reproduction {
    pub out: PathBuf,
    pub experiments: PathBuf,
    pub quick: bool,
    /// The command line, as typed.
    pub command: String,
    /// `results::machine()`: cpu_model, cores, kernel, version, commit.
    pub machine: serde_json::Value,
    pub seeds: Vec<SeedResult>,
}

fn ratio_cell(v: Option<f64>) -> String {
    v.map(|r| format!("{r:.2}")).unwrap_or_else(|| "-".into())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError {
    let path = path.to_path_buf();
    move |source| ReportError::Io { path, source }
}

impl Reproduction {
    /// Whether anything failed.
    pub fn failed(&self) -> bool {
        self.seeds
            .iter()
            .flat_map(|s| &s.files)
            .any(|f| f.outcome == Outcome::Failed)
    }

    /// `reference.csv`: every comparison row of every file, after its seed and
    /// file.
    pub fn reference_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut head = vec!["seed", "file"];
        head.extend(COLUMNS.iter().take(COLUMNS.len() - 1));
        head.push("within_band");
        let _ = w.write_record(&head);
        for s in &self.seeds {
            for f in &s.files {
                for r in &f.rows {
                    let mut record = vec![s.seed.clone(), f.file.clone()];
                    record.extend(r.fields());
                    record.push(within_band(r).to_string());
                    let _ = w.write_record(&record);
                }
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The page and the figures it inlines.
    pub fn page(&self) -> Result<(String, Vec<Figure>), ReportError> {
        let mut html =
            String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        html +=
            &format!("<title>ndnlab reproduce</title>\n<style>{STYLE}</style>\n</head>\n<body>\n");
        html += "<h1>Reproductions of the seed papers</h1>\n";
        html += &format!(
            "<p>{} scale. A point agrees when ndnlab's number is within the paper's error, or, \
             where the paper gives none, within a ratio of {} to {} of the paper's.</p>\n",
            if self.quick {
                "Quick (<code>--quick</code>)"
            } else {
                "Full"
            },
            num(RATIO_BAND.0),
            num(RATIO_BAND.1)
        );
        html += &self.summary_table();
        let mut figures = Vec::new();
        for s in &self.seeds {
            html += &self.seed_section(s, &mut figures)?;
        }
        html += "<h2>Machine and command</h2>\n";
        let m = &self.machine;
        let field = |k: &str| {
            m.get(k)
                .map(|v| v.to_string().trim_matches('"').to_string())
        };
        html += &format!(
            "<p>CPU: {}, {} cores; kernel {}; ndnlab {} (commit {}).</p>\n<pre>{}</pre>\n",
            esc(&field("cpu_model").unwrap_or_default()),
            esc(&field("cores").unwrap_or_default()),
            esc(&field("kernel").unwrap_or_default()),
            esc(&field("ndnlab_version").unwrap_or_default()),
            esc(&field("commit").unwrap_or_default()),
            esc(&self.command)
        );
        html += "</body>\n</html>\n";
        Ok((html, figures))
    }

    fn summary_table(&self) -> String {
        let head: Vec<String> = [
            "paper",
            "files",
            "reproduced",
            "failed",
            "skipped",
            "reference points",
            "with a counterpart",
            "agreeing",
            "median ratio",
        ]
        .map(String::from)
        .to_vec();
        let rows: Vec<Vec<String>> = self
            .seeds
            .iter()
            .map(|s| {
                let count = |o: Outcome| s.files.iter().filter(|f| f.outcome == o).count();
                let t = Tally::of(s.files.iter().flat_map(|f| &f.rows));
                vec![
                    format!("{} ({}, {})", s.paper.title, s.seed, s.paper.year),
                    s.files.len().to_string(),
                    count(Outcome::Ok).to_string(),
                    count(Outcome::Failed).to_string(),
                    count(Outcome::Skipped).to_string(),
                    t.points.to_string(),
                    (t.measured + t.interpolated + t.beyond).to_string(),
                    t.within.to_string(),
                    ratio_cell(t.median_ratio),
                ]
            })
            .collect();
        table(&head, &rows, 1)
    }

    fn seed_section(
        &self,
        s: &SeedResult,
        figures: &mut Vec<Figure>,
    ) -> Result<String, ReportError> {
        let p = &s.paper;
        let mut html = format!(
            "<h2 id=\"{}\">{}: {}</h2>\n<p>{}</p>\n",
            esc(&s.seed),
            esc(&s.seed),
            esc(&p.title),
            esc(&p.citation())
        );
        html += &format!(
            "<p><b>Question.</b> {}</p>\n<p><b>The paper's answer.</b> {}</p>\n",
            esc(&p.question),
            esc(&p.answer)
        );
        html += "<p><b>ndnlab's answer on this machine.</b> The findings checked, the paper's numbers beside ndnlab's:</p>\n";
        let head: Vec<String> = [
            "file",
            "figure",
            "outcome",
            "points",
            "with a counterpart",
            "agreeing",
            "median ratio",
            "ratio range",
        ]
        .map(String::from)
        .to_vec();
        let rows: Vec<Vec<String>> = s
            .files
            .iter()
            .map(|f| {
                let t = f.tally();
                vec![
                    f.file.clone(),
                    f.figure.clone().unwrap_or_default(),
                    outcome_text(f),
                    t.points.to_string(),
                    (t.measured + t.interpolated + t.beyond).to_string(),
                    t.within.to_string(),
                    ratio_cell(t.median_ratio),
                    match (t.min_ratio, t.max_ratio) {
                        (Some(a), Some(b)) => format!("{a:.2} - {b:.2}"),
                        _ => "-".into(),
                    },
                ]
            })
            .collect();
        html += &table(&head, &rows, 3);
        let shapes: Vec<Vec<String>> = s
            .files
            .iter()
            .flat_map(|f| f.rows.iter().filter(|r| r.kind == "shape"))
            .map(|r| {
                vec![
                    r.figure.clone(),
                    r.label.clone(),
                    r.paper.map(num).unwrap_or_else(|| "-".into()),
                    r.ndnlab.map(num).unwrap_or_else(|| "-".into()),
                ]
            })
            .collect();
        if !shapes.is_empty() {
            let head: Vec<String> = ["figure", "shape", "paper", "ndnlab"]
                .map(String::from)
                .to_vec();
            html += &table(&head, &shapes, 2);
        }
        html += &format!(
            "<p><b>Testbed.</b> {}</p>\n<p><b>ndnlab instead.</b> {}</p>\n",
            esc(&p.testbed),
            esc(&p.substitute)
        );
        for f in &s.files {
            html += &format!(
                "<h3 id=\"{}-{}\">{}: {}</h3>\n",
                esc(&s.seed),
                esc(&f.file),
                esc(&f.file),
                esc(f.figure.as_deref().unwrap_or(""))
            );
            if let Some(finding) = &f.finding {
                html += &format!("<p><b>Finding.</b> {}</p>\n", esc(finding));
            }
            if let Some(m) = &f.message {
                html += &format!("<p class=\"note\">{}</p>\n", esc(m));
            }
            if let Some(c) = &f.comparison {
                let id = format!("{}-{}-", s.seed, f.file);
                let sec = html_section(c, &id, figures.len())?;
                html += &sec.html;
                figures.extend(sec.figures);
            }
            if let Some(link) = &f.report {
                html += &format!(
                    "<p><a href=\"{}\">This file's own report</a> ({} runs ok, {} failed, {} not applicable).</p>\n",
                    esc(link),
                    f.runs_ok,
                    f.runs_failed,
                    f.runs_skipped
                );
            }
        }
        Ok(html)
    }

    /// Writes `out/index.html`, `out/figures/*.svg|png`, `out/reproduce.json`
    /// and `out/reference.csv`; returns the page's path.
    pub fn write(&self) -> Result<PathBuf, ReportError> {
        let (html, figures) = self.page()?;
        let fig_dir = self.out.join("figures");
        std::fs::create_dir_all(&fig_dir).map_err(io(&fig_dir))?;
        for f in &figures {
            f.save(&fig_dir).map_err(|e| ReportError::Io {
                path: e.path,
                source: e.error,
            })?;
        }
        let index = self.out.join("index.html");
        std::fs::write(&index, html).map_err(io(&index))?;
        let json = self.out.join("reproduce.json");
        let text = serde_json::to_string_pretty(self).map_err(|e| ReportError::Parse {
            path: json.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&json, text + "\n").map_err(io(&json))?;
        let csv = self.out.join("reference.csv");
        std::fs::write(&csv, self.reference_csv()).map_err(io(&csv))?;
        Ok(index)
    }
}

fn outcome_text(f: &FileResult) -> String {
    match f.outcome {
        Outcome::Ok => "reproduced".into(),
        Outcome::Failed => "FAILED".into(),
        Outcome::Skipped => "skipped".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(paper: f64, ndnlab: Option<f64>, error: Option<f64>) -> Row {
        Row {
            figure: "Fig. 1".into(),
            kind: "series",
            label: "a".into(),
            metric: "throughput_mbps".into(),
            x: String::new(),
            where_: String::new(),
            paper: Some(paper),
            paper_error: error,
            unit: "Mbit/s".into(),
            ndnlab,
            ndnlab_ci_lo: None,
            ndnlab_ci_hi: None,
            ratio: ndnlab.map(|n| n / paper),
            counterpart: if ndnlab.is_some() {
                Counterpart::Measured
            } else {
                Counterpart::Missing
            },
            source: "text".into(),
            note: String::new(),
        }
    }

    #[test]
    fn tally_counts_and_median() {
        let rows = [
            row(10.0, Some(12.0), Some(1.0)), // outside the error
            row(10.0, Some(10.5), Some(1.0)), // inside
            row(10.0, Some(30.0), None),      // ratio 3: outside the band
            row(10.0, None, None),
        ];
        let t = Tally::of(&rows);
        assert_eq!((t.points, t.measured, t.missing, t.within), (4, 3, 1, 1));
        assert_eq!(t.median_ratio, Some(1.2));
        assert_eq!((t.min_ratio, t.max_ratio), (Some(1.05), Some(3.0)));
    }
}
