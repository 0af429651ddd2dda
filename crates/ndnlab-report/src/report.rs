//! The HTML report of an experiment directory: one self-contained page with,
//! in order, the findings (what explains the variation of each main metric),
//! the comparison with the paper (when experiment.toml has a `[reference]`), a
//! summary table per metric, the factorial analysis of each metric, the
//! samples, and at the end the experiment's configuration and the machine.
//! Figures are inlined as SVG. Metrics come in the declared order
//! (`experiment.metrics`, else `results.csv`'s).

use std::path::{Path, PathBuf};

use ndnlab_analysis::summary::group_summaries;
use ndnlab_analysis::{analyze_anova, analyze_two_level, means, Dataset, Table, Transform};

use crate::compare::{compare, Comparison};
use crate::experiment::{load_dir, ExperimentDir, Samples};
use crate::figure::{render, Figure, Plot};
use crate::html::{esc, figure_html, table, Section, STYLE};
use crate::plots::{ecdf, histogram, Legend, Lines};
use crate::style::with_unit;
use crate::text::{effect_rows, interval, num, p_value};
use crate::{charts, ReportError};

/// What the caller chooses.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Factor columns; `None` applies the directory rule (see [`crate::experiment`]).
    pub factors: Option<Vec<String>>,
    /// Significance level of every confidence interval and test.
    pub alpha: f64,
    /// Most series in one sample plot.
    pub max_series: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            factors: None,
            alpha: 0.05,
            max_series: 8,
        }
    }
}

/// A built report: the page and its figures.
#[derive(Debug, Clone)]
pub struct Report {
    pub html: String,
    pub figures: Vec<Figure>,
    /// The comparison with the paper, when the experiment has a `[reference]`.
    pub comparison: Option<Comparison>,
}

struct Builder {
    body: String,
    toc: Vec<(String, String)>,
    figures: Vec<Figure>,
}

impl Builder {
    fn section(&mut self, id: &str, title: &str) {
        self.toc.push((id.to_string(), title.to_string()));
        self.body += &format!("<h2 id=\"{}\">{}</h2>\n", esc(id), esc(title));
    }

    fn figure(&mut self, id: &str, caption: &str, plot: &impl Plot) -> Result<(), ReportError> {
        let f = render(id, caption, plot).map_err(ReportError::Plot)?;
        self.body += &figure_html(&f, self.figures.len() + 1);
        self.figures.push(f);
        Ok(())
    }

    fn append(&mut self, s: Section) {
        self.body += &s.html;
        self.figures.extend(s.figures);
    }

    fn note(&mut self, text: &str) {
        self.body += &format!("<p class=\"note\">{}</p>\n", esc(text));
    }
}

/// A file-name-safe form of a column name.
pub fn slug(s: &str) -> String {
    let mut o: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while o.contains("--") {
        o = o.replace("--", "-");
    }
    o.trim_matches('-').to_string()
}

fn flatten_json(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_json(&key, x, out);
            }
        }
        serde_json::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

fn flatten_toml(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::Table(m) => {
            for (k, x) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_toml(&key, x, out);
            }
        }
        toml::Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

fn pct(alpha: f64) -> String {
    format!(
        "{}%",
        num(100.0 * (1.0 - alpha))
            .trim_end_matches('0')
            .trim_end_matches('.')
    )
}

/// Builds the report of a loaded experiment directory.
pub fn build(exp: &ExperimentDir, opts: &ReportOptions) -> Result<Report, ReportError> {
    ndnlab_analysis::dist::check_alpha(opts.alpha).map_err(|source| ReportError::Analysis {
        path: exp.dir.join("results.csv"),
        source,
    })?;
    let factors = exp.factors(opts.factors.as_deref())?;
    let (ok, dropped) = exp.ok_rows();
    let metrics = exp.metrics(&ok, &factors);
    let conf = pct(opts.alpha);
    let mut b = Builder {
        body: String::new(),
        toc: Vec::new(),
        figures: Vec::new(),
    };

    let comparison = compare(exp, opts)?;
    let main = crate::findings::main_metrics(
        &metrics,
        &exp.declared_metrics(),
        comparison.as_ref().map(|c| &c.reference),
    );

    // Findings.
    b.section("findings", "Findings");
    if factors.is_empty() || ok.is_empty() {
        b.note("No factors, or no runs with status ok: no variation to explain.");
    } else {
        let s = crate::findings::findings_section(
            &ok,
            &factors,
            &main,
            opts.alpha,
            "",
            b.figures.len(),
        )?;
        b.append(s);
    }

    // The paper.
    if let Some(c) = &comparison {
        b.section("paper", "Comparison with the paper");
        let s = crate::compare_html::html_section(c, "paper-", b.figures.len())?;
        b.append(s);
    }

    // Summaries.
    b.section(
        "summary",
        &format!("Summary per metric ({conf} confidence intervals)"),
    );
    let by: Vec<&str> = factors.iter().map(String::as_str).collect();
    let ms: Vec<&str> = metrics.iter().map(String::as_str).collect();
    if ok.is_empty() || metrics.is_empty() {
        b.note("No runs with status ok, or no numeric metric: nothing to summarise.");
    } else {
        let groups =
            group_summaries(&ok, &by, &ms, opts.alpha).map_err(|source| ReportError::Analysis {
                path: exp.dir.join("results.csv"),
                source,
            })?;
        for m in &metrics {
            b.body += &format!("<h3>{}</h3>\n", esc(&with_unit(m)));
            let mut heads: Vec<String> = factors.clone();
            heads.extend(
                ["n", "mean", &format!("{conf} CI"), "sd", "median", "p95"]
                    .iter()
                    .map(|s| s.to_string()),
            );
            let rows: Vec<Vec<String>> = groups
                .iter()
                .filter(|g| &g.metric == m)
                .map(|g| {
                    let s = &g.summary;
                    let mut r: Vec<String> = g.group.iter().map(|x| x.1.clone()).collect();
                    r.extend([
                        s.n.to_string(),
                        num(s.mean),
                        interval(s.ci),
                        s.sd.map(num).unwrap_or_else(|| "-".into()),
                        num(s.median),
                        num(s.p95),
                    ]);
                    r
                })
                .collect();
            b.body += &table(&heads, &rows, factors.len());
        }
    }

    // The factorial analysis of each metric.
    if !factors.is_empty() && !ok.is_empty() {
        for m in &metrics {
            analyse_metric(&mut b, &ok, &factors, m, main.contains(m), opts)?;
        }
    }

    // Raw samples.
    if !exp.samples.is_empty() {
        b.section("samples", "Samples");
        samples_section(&mut b, exp, &factors, opts)?;
    }

    // The experiment.
    b.section("experiment", "Experiment and its configuration");
    let mut rows = vec![
        vec![
            "runs in results.csv".to_string(),
            exp.results.len().to_string(),
        ],
        vec![
            "runs analysed (status ok)".to_string(),
            ok.len().to_string(),
        ],
    ];
    if dropped > 0 {
        rows.push(vec![
            "runs left out (status not ok)".into(),
            dropped.to_string(),
        ]);
    }
    rows.push(vec!["factors".into(), factors.join(", ")]);
    rows.push(vec!["metrics".into(), metrics.join(", ")]);
    if let Some(e) = &exp.experiment {
        let mut kv = Vec::new();
        flatten_toml("", &toml::Value::Table(e.clone()), &mut kv);
        for (k, v) in kv {
            rows.push(vec![k, v]);
        }
    }
    b.body += &table(&["item".into(), "value".into()], &rows, 2);
    let ok_text: Vec<Vec<String>> = factors
        .iter()
        .filter_map(|f| ok.text(f).ok().map(|c| (f, c)))
        .map(|(f, c)| {
            vec![
                f.clone(),
                ndnlab_analysis::levels::ordered_levels(&c).join(", "),
            ]
        })
        .collect();
    if !ok_text.is_empty() {
        b.body += "<h3>Factors and their levels</h3>\n";
        b.body += &table(&["factor".into(), "levels".into()], &ok_text, 2);
    }

    // The machine.
    b.section("machine", "Machine");
    match &exp.machine {
        Some(m) => {
            let mut kv = Vec::new();
            flatten_json("", m, &mut kv);
            let rows: Vec<Vec<String>> = kv.into_iter().map(|(k, v)| vec![k, v]).collect();
            b.body += &table(&["item".into(), "value".into()], &rows, 2);
        }
        None => b.note("No machine.json in this directory."),
    }

    let title = format!("ndnlab report: {}", exp.name());
    let mut html =
        String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    html += &format!(
        "<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    html += &format!("<h1>{}</h1>\n", esc(&title));
    html += &format!(
        "<p class=\"note\">{} runs, {} factor(s), {} metric(s), {} figure(s). Analysis after Jain, <i>The Art of Computer Systems Performance Analysis</i>.</p>\n",
        ok.len(),
        factors.len(),
        metrics.len(),
        b.figures.len()
    );
    html += "<nav><ul>\n";
    for (id, t) in &b.toc {
        html += &format!("<li><a href=\"#{}\">{}</a></li>\n", esc(id), esc(t));
    }
    html += "</ul></nav>\n";
    html += &b.body;
    html += "</body>\n</html>\n";
    Ok(Report {
        html,
        figures: b.figures,
        comparison,
    })
}

fn analyse_metric(
    b: &mut Builder,
    ok: &Table,
    factors: &[String],
    metric: &str,
    in_findings: bool,
    opts: &ReportOptions,
) -> Result<(), ReportError> {
    let id = slug(metric);
    b.section(
        &format!("analysis-{id}"),
        &format!("Factorial analysis of {metric}"),
    );
    let fs: Vec<&str> = factors.iter().map(String::as_str).collect();
    let ds = match Dataset::from_table(ok, &fs, metric, Transform::None) {
        Ok(d) => d,
        Err(e) => {
            b.note(&format!("Not analysed: {e}."));
            return Ok(());
        }
    };
    let y_label = with_unit(metric);
    let conf = pct(opts.alpha);
    if in_findings {
        b.note(&format!(
            "The main effects on {metric} are drawn under Findings (Figure {}).",
            b.figures
                .iter()
                .position(|f| f.id == format!("{id}-main-effects"))
                .map(|i| (i + 1).to_string())
                .unwrap_or_else(|| "-".into())
        ));
    } else if let Ok(me) = means::main_effects(&ds, opts.alpha) {
        b.figure(
            &format!("{id}-main-effects"),
            &format!("Main effects on {metric}: mean and {conf} CI at each level of each factor; steeper lines, larger effects."),
            &charts::main_effects(&me, &y_label),
        )?;
    }
    if let Ok(its) = means::interactions(&ds, opts.alpha) {
        for it in its.iter().take(3) {
            b.figure(
                &format!("{id}-{}-by-{}", slug(&it.x_factor), slug(&it.series_factor)),
                &format!("{metric} against {} with {conf} CI error bars, one series per level of {}; non-parallel lines show an interaction.", it.x_factor, it.series_factor),
                &charts::interaction(it, &y_label),
            )?;
        }
    }
    let sst_zero = {
        let ys: Vec<f64> = ds.observations.iter().map(|o| o.y).collect();
        ys.iter().all(|&y| y == ys[0])
    };
    if sst_zero {
        b.note(&format!(
            "{metric} is the same in every run: there is no variation to allocate."
        ));
        return Ok(());
    }
    let two_level = ds.factors.iter().all(|f| f.levels.len() == 2);
    if two_level {
        match analyze_two_level(&ds, opts.alpha) {
            Ok(a) => {
                two_level_html(b, &a, &id)?;
                return Ok(());
            }
            Err(e) => b.note(&format!("Two-level analysis not possible: {e}.")),
        }
    }
    match analyze_anova(&ds, opts.alpha) {
        Ok(a) => anova_html(b, &a, &id)?,
        Err(e) => b.note(&format!("Analysis of variance not possible: {e}.")),
    }
    Ok(())
}

fn two_level_html(
    b: &mut Builder,
    a: &ndnlab_analysis::TwoLevelAnalysis,
    id: &str,
) -> Result<(), ReportError> {
    let design = if a.p == 0 {
        format!("2<sup>{}</sup>", a.k)
    } else {
        format!("2<sup>{}-{}</sup>", a.k, a.p)
    };
    b.body += &format!(
        "<p>A {design} design{}, {} runs. Effects q are half the change of the response from level -1 to level +1; the variation column is each term's share of the total variation (SST = {}).</p>\n",
        if a.replicates > 1 { format!(" with r = {} replicates", a.replicates) } else { " without replicates".into() },
        a.runs,
        esc(&num(a.sst))
    );
    let frows: Vec<Vec<String>> = a
        .factors
        .iter()
        .map(|f| {
            vec![
                f.symbol.clone(),
                f.name.clone(),
                f.low.clone(),
                f.high.clone(),
            ]
        })
        .collect();
    b.body += &table(
        &[
            "symbol".into(),
            "factor".into(),
            "level -1".into(),
            "level +1".into(),
        ],
        &frows,
        4,
    );
    if !a.generators.is_empty() {
        b.note(&format!(
            "Generators {}; defining relation {}; resolution {}. Each effect is confounded with its aliases.",
            a.generators.join(", "),
            a.defining_relation.join(", "),
            a.resolution.unwrap_or(0)
        ));
    }
    let conf = pct(a.alpha);
    let sig = if a.error.is_some() {
        format!("{conf} CI excludes 0")
    } else {
        "beyond Lenth's margin".into()
    };
    let heads: Vec<String> = [
        "term",
        "factors",
        "q",
        &format!("{conf} CI"),
        "SS",
        "variation",
        &sig,
        "aliases",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rows = effect_rows(a);
    if let Some(err) = &a.error {
        rows.push(vec![
            "error".into(),
            format!("df {}, s_e {}, s_q {}", err.df, num(err.s_e), num(err.s_q)),
            String::new(),
            String::new(),
            num(err.ss),
            format!("{:.2}%", err.percent),
            String::new(),
            String::new(),
        ]);
    }
    b.body += &table(&heads, &rows, 2);
    if let Some(l) = &a.lenth {
        b.note(&format!(
            "No replicates, so no error term: Lenth's pseudo standard error PSE = {} ({:.1} df) gives a margin of error {} (simultaneous {}). Effects beyond it are unlikely to be noise.",
            num(l.pse), l.df, num(l.me), num(l.sme)
        ));
    }
    b.body += "<h3>Top contributors to the variation</h3>\n";
    let top: Vec<Vec<String>> = a
        .top_contributors(5)
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                (i + 1).to_string(),
                e.term.clone(),
                e.label.clone(),
                format!("{:.1}%", e.percent),
            ]
        })
        .collect();
    b.body += &table(
        &[
            "rank".into(),
            "term".into(),
            "factors".into(),
            "variation".into(),
        ],
        &top,
        3,
    );
    b.figure(
        &format!("{id}-allocation"),
        &format!(
            "Allocation of variation of {}: share of SST per term (largest 15){}.",
            a.response,
            if a.error.is_some() {
                " and the error"
            } else {
                ""
            }
        ),
        &charts::two_level_allocation(a, 15),
    )?;
    if a.effects.len() >= 3 {
        b.figure(
            &format!("{id}-normal-effects"),
            &format!("Normal probability plot of the effects on {}: noise falls on the grey line (slope: standard error of an effect); labelled effects stand out.", a.response),
            &charts::normal_plot(a),
        )?;
    }
    if !a.residuals.is_empty() {
        let (vs, qq) = charts::residual_plots(&a.response, &a.residuals, &a.residual_qq);
        b.figure(
            &format!("{id}-residuals"),
            "Residuals against predicted values: no trend and an even spread support the model.",
            &vs,
        )?;
        b.figure(&format!("{id}-residual-qq"), "Normal quantile-quantile plot of the residuals: a straight line supports normal errors.", &qq)?;
    }
    Ok(())
}

fn anova_html(
    b: &mut Builder,
    a: &ndnlab_analysis::AnovaAnalysis,
    id: &str,
) -> Result<(), ReportError> {
    b.body += &format!(
        "<p>A full factorial design with {} observations, r = {} per cell{}.</p>\n",
        a.observations,
        a.replicates,
        a.error_is_interaction
            .as_ref()
            .map(|i| format!(
                "; with one observation per cell, the {i} interaction serves as the error"
            ))
            .unwrap_or_default()
    );
    let heads: Vec<String> = [
        "source",
        "SS",
        "variation",
        "df",
        "MS",
        "F",
        &format!("F[{}]", 1.0 - a.alpha),
        "p",
        "significant",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut rows: Vec<Vec<String>> = a
        .rows
        .iter()
        .chain(std::iter::once(&a.error))
        .map(|r| {
            vec![
                r.source.clone(),
                num(r.ss),
                format!("{:.2}%", r.percent),
                r.df.to_string(),
                num(r.ms),
                r.f.map(num).unwrap_or_default(),
                r.f_critical.map(num).unwrap_or_default(),
                p_value(r.p_value).replace('-', ""),
                match r.significant {
                    Some(true) => "yes".into(),
                    Some(false) => "no".into(),
                    None => String::new(),
                },
            ]
        })
        .collect();
    rows.push(vec![
        "total".into(),
        num(a.sst),
        "100%".into(),
        (a.observations - 1).to_string(),
    ]);
    b.body += &table(&heads, &rows, 1);
    let conf = pct(a.alpha);
    for te in a.effects.iter().filter(|t| t.factors.len() == 1) {
        b.body += &format!(
            "<h3>Effects of {} (standard error {})</h3>\n",
            esc(&te.source),
            esc(&num(te.se))
        );
        let rows: Vec<Vec<String>> = te
            .effects
            .iter()
            .map(|e| {
                vec![
                    e.levels.join(", "),
                    num(e.effect),
                    interval(Some(e.ci)),
                    if e.excludes_zero { "yes" } else { "no" }.into(),
                ]
            })
            .collect();
        b.body += &table(
            &[
                "level".into(),
                "effect".into(),
                format!("{conf} CI"),
                "CI excludes 0".into(),
            ],
            &rows,
            1,
        );
    }
    b.figure(
        &format!("{id}-allocation"),
        &format!(
            "Allocation of variation of {}: share of SST per factor, interaction and the error.",
            a.response
        ),
        &charts::anova_allocation(a),
    )?;
    let (vs, qq) = charts::residual_plots(&a.response, &a.residuals, &a.residual_qq);
    b.figure(
        &format!("{id}-residuals"),
        "Residuals against predicted values: no trend and an even spread support the model.",
        &vs,
    )?;
    b.figure(
        &format!("{id}-residual-qq"),
        "Normal quantile-quantile plot of the residuals: a straight line supports normal errors.",
        &qq,
    )?;
    Ok(())
}

/// The cell label of a run id, from results.csv.
fn run_label(exp: &ExperimentDir, factors: &[String], run: &str) -> Option<String> {
    let t = &exp.results;
    let ids = t.text("run_id").ok()?;
    let row = ids.iter().position(|r| *r == run)?;
    let parts: Vec<String> = factors
        .iter()
        .filter_map(|f| {
            let c = t.column_index(f).ok()?;
            Some(format!("{f}={}", t.cell(row, c)))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn samples_section(
    b: &mut Builder,
    exp: &ExperimentDir,
    factors: &[String],
    opts: &ReportOptions,
) -> Result<(), ReportError> {
    // Time series: files whose first column is t_s.
    let (series, raw): (Vec<&Samples>, Vec<&Samples>) = exp
        .samples
        .iter()
        .partition(|s| s.table.headers().first().is_some_and(|h| h == "t_s"));
    let label = |s: &Samples| run_label(exp, factors, &s.name).unwrap_or_else(|| s.name.clone());
    // Raw samples: pool the runs of one cell, per column.
    let mut columns: Vec<String> = Vec::new();
    for s in &raw {
        for h in s.table.headers() {
            if !columns.contains(h) && s.table.is_numeric(h) {
                columns.push(h.clone());
            }
        }
    }
    for col in &columns {
        let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
        for s in &raw {
            if let Ok(v) = s.table.numbers(col) {
                let l = label(s);
                match groups.iter_mut().find(|g| g.0 == l) {
                    Some(g) => g.1.extend(v),
                    None => groups.push((l, v)),
                }
            }
        }
        let shown = groups.len().min(opts.max_series);
        if groups.len() > shown {
            b.note(&format!(
                "{col}: {} groups of samples, the first {shown} shown.",
                groups.len()
            ));
        }
        groups.truncate(shown);
        let x_label = with_unit(col);
        let cdf = Lines {
            title: format!("CDF of {col}"),
            x_label: x_label.clone(),
            y_label: "cumulative fraction".into(),
            series: groups
                .iter()
                .map(|(l, v)| (l.clone(), ecdf(v, 400)))
                .collect(),
            y_range: Some((0.0, 1.02)),
            legend: Legend::LowerRight,
        };
        b.figure(
            &format!("samples-{}-cdf", slug(col)),
            &format!("Empirical CDF of {col}, samples of the runs of each cell pooled."),
            &cdf,
        )?;
        let hist = Lines {
            title: format!("Histogram of {col}"),
            x_label,
            y_label: "fraction of samples".into(),
            series: histogram(&groups, 40),
            y_range: None,
            legend: Legend::UpperRight,
        };
        b.figure(
            &format!("samples-{}-histogram", slug(col)),
            &format!("Histogram of {col} (40 bins shared by all series)."),
            &hist,
        )?;
    }
    // Time series: one figure per column, one line per run.
    let mut ts_cols: Vec<String> = Vec::new();
    for s in &series {
        for h in s.table.headers().iter().skip(1) {
            if !ts_cols.contains(h) && s.table.is_numeric(h) {
                ts_cols.push(h.clone());
            }
        }
    }
    for col in &ts_cols {
        let mut lines = Vec::new();
        for s in series.iter().take(opts.max_series) {
            if let (Ok(t), Ok(v)) = (s.table.numbers("t_s"), s.table.numbers(col)) {
                lines.push((label(s), t.into_iter().zip(v).collect::<Vec<_>>()));
            }
        }
        let plot = Lines {
            title: format!("{col} over time"),
            x_label: "time (s)".into(),
            y_label: with_unit(col),
            series: lines,
            y_range: None,
            legend: Legend::UpperRight,
        };
        b.figure(
            &format!("timeseries-{}", slug(col)),
            &format!("{col} over the course of each run."),
            &plot,
        )?;
    }
    Ok(())
}

/// Reads `dir`, writes `dir/index.html` and every figure as
/// `dir/figures/<id>.svg` and `.png`, and, when the experiment has a
/// `[reference]`, `dir/reference.json` and `dir/reference.csv`; returns the
/// page's path.
pub fn write_report(dir: &Path, opts: &ReportOptions) -> Result<PathBuf, ReportError> {
    let exp = load_dir(dir)?;
    let report = build(&exp, opts)?;
    let io = |path: PathBuf| move |source| ReportError::Io { path, source };
    let fig_dir = dir.join("figures");
    std::fs::create_dir_all(&fig_dir).map_err(io(fig_dir.clone()))?;
    for f in &report.figures {
        f.save(&fig_dir).map_err(|e| ReportError::Io {
            path: e.path,
            source: e.error,
        })?;
    }
    let index = dir.join("index.html");
    std::fs::write(&index, &report.html).map_err(io(index.clone()))?;
    if let Some(c) = &report.comparison {
        c.write(dir)?;
    }
    Ok(index)
}
