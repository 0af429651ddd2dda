//! Human-readable tables of the analyses, for the terminal.

use ndnlab_analysis::anova::AnovaAnalysis;
use ndnlab_analysis::summary::GroupSummary;
use ndnlab_analysis::twolevel::TwoLevelAnalysis;

/// A number with about four significant digits.
/// The rows of a two-level analysis's effects table (the mean, then every
/// effect): term, label, q, CI, SS, variation, significance, aliases. The text
/// tables and the HTML report both show them.
pub fn effect_rows(a: &TwoLevelAnalysis) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "I".into(),
        "mean".into(),
        num(a.q0),
        interval(a.q0_ci),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ]];
    for e in &a.effects {
        rows.push(vec![
            e.term.clone(),
            e.label.clone(),
            num(e.q),
            interval(e.ci),
            num(e.ss),
            format!("{:.2}%", e.percent),
            match TwoLevelAnalysis::is_significant(e) {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => "-".into(),
            },
            e.aliases.join(" = "),
        ]);
    }
    rows
}

pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-4..7).contains(&mag) {
        return format!("{x:.3e}");
    }
    let decimals = (3 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// `[lo, hi]`.
pub fn interval(ci: Option<(f64, f64)>) -> String {
    match ci {
        Some((lo, hi)) => format!("[{}, {}]", num(lo), num(hi)),
        None => "-".into(),
    }
}

/// A p-value, small ones in scientific notation.
pub fn p_value(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
        None => "-".into(),
    }
}

/// A plain text table: left-aligned first column(s), right-aligned numbers.
pub struct TextTable {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns before this index are left-aligned.
    left: usize,
}

impl TextTable {
    pub fn new(headers: &[&str], left: usize) -> Self {
        TextTable {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            left,
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let cols = self.headers.len();
        let mut w = vec![0; cols];
        for r in std::iter::once(&self.headers).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(cols) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |r: &Vec<String>| {
            let cells: Vec<String> = (0..cols)
                .map(|i| {
                    let c = r.get(i).map(String::as_str).unwrap_or("");
                    if i < self.left {
                        format!("{c:<width$}", width = w[i])
                    } else {
                        format!("{c:>width$}", width = w[i])
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string() + "\n"
        };
        let mut out = line(&self.headers);
        for r in &self.rows {
            out += &line(r);
        }
        out
    }
}

fn pct_conf(alpha: f64) -> String {
    let c = 100.0 * (1.0 - alpha);
    if (c - c.round()).abs() < 1e-9 {
        format!("{c:.0}%")
    } else {
        format!("{c}%")
    }
}

/// The design, effects, allocation of variation and top contributors.
pub fn two_level(a: &TwoLevelAnalysis) -> String {
    let mut out = String::new();
    let design = if a.p == 0 {
        format!("2^{}", a.k)
    } else {
        format!("2^({}-{})", a.k, a.p)
    };
    let rep = if a.replicates > 1 {
        format!(" r = {}", a.replicates)
    } else {
        " (unreplicated)".into()
    };
    out += &format!(
        "== {}: {design}{rep} design, {} runs, {} observations\n",
        a.response,
        a.runs,
        a.runs * a.replicates
    );
    let mut f = TextTable::new(&["factor", "name", "level -1", "level +1"], 4);
    for x in &a.factors {
        f.row(vec![
            x.symbol.clone(),
            x.name.clone(),
            x.low.clone(),
            x.high.clone(),
        ]);
    }
    out += &f.render();
    if !a.generators.is_empty() {
        out += &format!(
            "generators: {}; defining relation: {}; resolution {}\n",
            a.generators.join(", "),
            a.defining_relation.join(", ").replace(", I = ", " = "),
            a.resolution.map(|r| r.to_string()).unwrap_or_default()
        );
    }
    out += "\n";
    let conf = pct_conf(a.alpha);
    let sig_head = if a.error.is_some() {
        format!("{conf} CI excludes 0")
    } else {
        "Lenth active".into()
    };
    let ci_head = format!("{conf} CI");
    let mut t = TextTable::new(
        &[
            "term",
            "label",
            "q",
            &ci_head,
            "SS",
            "variation",
            &sig_head,
            "aliases",
        ],
        2,
    );
    for r in effect_rows(a) {
        t.row(r);
    }
    if let Some(err) = &a.error {
        t.row(vec![
            "error".into(),
            format!("df = {}, s_e = {}", err.df, num(err.s_e)),
            String::new(),
            format!("s_q = {}", num(err.s_q)),
            num(err.ss),
            format!("{:.2}%", err.percent),
            String::new(),
            String::new(),
        ]);
    }
    t.row(vec![
        "total".into(),
        "SST".into(),
        String::new(),
        String::new(),
        num(a.sst),
        "100%".into(),
        String::new(),
        String::new(),
    ]);
    out += &t.render();
    if let Some(l) = &a.lenth {
        out += &format!(
            "Lenth: PSE = {}, df = {:.1}, margin of error = {}, simultaneous margin = {}\n",
            num(l.pse),
            l.df,
            num(l.me),
            num(l.sme)
        );
    }
    out += "\ntop contributors to the variation:\n";
    let mut top = TextTable::new(&["rank", "term", "label", "variation"], 3);
    for (i, e) in a.top_contributors(5).iter().enumerate() {
        top.row(vec![
            (i + 1).to_string(),
            e.term.clone(),
            e.label.clone(),
            format!("{:.1}%", e.percent),
        ]);
    }
    out += &top.render();
    out
}

/// The ANOVA table and the effects with their confidence intervals.
pub fn anova(a: &AnovaAnalysis) -> String {
    let mut out = format!(
        "== {}: full factorial, {} observations, r = {}\n",
        a.response, a.observations, a.replicates
    );
    for f in &a.factors {
        out += &format!(
            "{}: {} levels ({})\n",
            f.name,
            f.levels.len(),
            f.levels.join(", ")
        );
    }
    if let Some(i) = &a.error_is_interaction {
        out += &format!("one observation per cell: the {i} interaction serves as the error\n");
    }
    out += "\n";
    let fcrit = format!("F[{}]", 1.0 - a.alpha);
    let mut t = TextTable::new(
        &[
            "source",
            "SS",
            "variation",
            "df",
            "MS",
            "F",
            &fcrit,
            "p",
            "significant",
        ],
        1,
    );
    for r in a.rows.iter().chain(std::iter::once(&a.error)) {
        t.row(vec![
            r.source.clone(),
            num(r.ss),
            format!("{:.2}%", r.percent),
            r.df.to_string(),
            num(r.ms),
            r.f.map(num).unwrap_or_else(|| "-".into()),
            r.f_critical.map(num).unwrap_or_else(|| "-".into()),
            p_value(r.p_value),
            match r.significant {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => String::new(),
            },
        ]);
    }
    t.row(vec![
        "total".into(),
        num(a.sst),
        "100%".into(),
        (a.observations - 1).to_string(),
    ]);
    out += &t.render();
    let conf = pct_conf(a.alpha);
    out += &format!(
        "\nmean = {} {conf} CI {}, s_e = {}\n",
        num(a.mean),
        interval(Some(a.mean_ci)),
        num(a.s_e)
    );
    let ci_head = format!("{conf} CI");
    for te in &a.effects {
        out += &format!(
            "\neffects of {} (standard error {}):\n",
            te.source,
            num(te.se)
        );
        let mut t = TextTable::new(&["level", "effect", &ci_head, "excludes 0"], 1);
        for e in &te.effects {
            t.row(vec![
                e.levels.join(", "),
                num(e.effect),
                interval(Some(e.ci)),
                if e.excludes_zero { "yes" } else { "no" }.into(),
            ]);
        }
        out += &t.render();
    }
    out
}

/// Group summaries: one table per metric.
pub fn summaries(groups: &[GroupSummary], alpha: f64) -> String {
    let mut out = String::new();
    let conf = format!("{} CI", pct_conf(alpha));
    let mut metric = "";
    let mut t: Option<TextTable> = None;
    for g in groups {
        if g.metric != metric {
            if let Some(t) = t.take() {
                out += &t.render();
                out += "\n";
            }
            metric = &g.metric;
            out += &format!("== {metric}\n");
            let mut heads: Vec<&str> = g.group.iter().map(|(c, _)| c.as_str()).collect();
            let left = heads.len();
            heads.extend(["n", "mean", &conf, "sd", "median", "p95"]);
            t = Some(TextTable::new(&heads, left));
        }
        let s = &g.summary;
        let mut cells: Vec<String> = g.group.iter().map(|(_, l)| l.clone()).collect();
        cells.extend([
            s.n.to_string(),
            num(s.mean),
            interval(s.ci),
            s.sd.map(num).unwrap_or_else(|| "-".into()),
            num(s.median),
            num(s.p95),
        ]);
        if let Some(t) = t.as_mut() {
            t.row(cells);
        }
    }
    if let Some(t) = t {
        out += &t.render();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_four_digits() {
        assert_eq!(num(21.5), "21.50");
        assert_eq!(num(5547.0), "5547");
        assert_eq!(num(0.125), "0.1250");
        assert_eq!(num(-3.0), "-3.000");
        assert_eq!(num(1.5e9), "1.500e9");
    }
}
