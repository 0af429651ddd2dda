//! Small helpers to write well-formed HTML.

use crate::figure::{render, Figure, Plot};
use crate::ReportError;

/// Escapes text for element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A table; the first `left` columns are text, the others numbers.
pub fn table(headers: &[String], rows: &[Vec<String>], left: usize) -> String {
    let mut o = String::from("<table>\n<thead><tr>");
    for (i, h) in headers.iter().enumerate() {
        let class = if i < left { "" } else { " class=\"num\"" };
        o += &format!("<th{class}>{}</th>", esc(h));
    }
    o += "</tr></thead>\n<tbody>\n";
    for r in rows {
        o += "<tr>";
        for (i, c) in r.iter().enumerate() {
            let class = if i < left { "" } else { " class=\"num\"" };
            o += &format!("<td{class}>{}</td>", esc(c));
        }
        o += "</tr>\n";
    }
    o += "</tbody>\n</table>\n";
    o
}

/// An SVG document made fit to inline in HTML: no XML prolog, no namespace
/// URL, scaled to the page width.
pub fn inline_svg(svg: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    svg[start..]
        .replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1)
        .replacen("<svg ", "<svg role=\"img\" ", 1)
}

/// A rendered figure as a numbered `<figure>` with its caption.
pub fn figure_html(f: &Figure, number: usize) -> String {
    format!(
        "<figure id=\"fig-{}\">\n{}\n<figcaption>Figure {number}. {}</figcaption>\n</figure>\n",
        esc(&f.id),
        inline_svg(&f.svg),
        esc(&f.caption)
    )
}

/// Part of a page: its HTML and the figures it inlines, numbered on from the
/// figures before it, so that another page can place it among its own.
#[derive(Debug, Clone)]
pub struct Section {
    pub html: String,
    pub figures: Vec<Figure>,
    first: usize,
}

impl Section {
    /// An empty section whose first figure is number `figures_before + 1`.
    pub fn new(figures_before: usize) -> Section {
        Section {
            html: String::new(),
            figures: Vec::new(),
            first: figures_before,
        }
    }

    /// Renders `plot` and inlines it.
    pub fn figure(&mut self, id: &str, caption: &str, plot: &impl Plot) -> Result<(), ReportError> {
        let f = render(id, caption, plot).map_err(ReportError::Plot)?;
        self.html += &figure_html(&f, self.first + self.figures.len() + 1);
        self.figures.push(f);
        Ok(())
    }

    /// A paragraph of notes.
    pub fn note(&mut self, text: &str) {
        self.html += &format!("<p class=\"note\">{}</p>\n", esc(text));
    }
}

pub const STYLE: &str = r#"
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.9em; }
th, td { padding: 0.25em 0.7em; text-align: left; border-bottom: 1px solid #e4e4e4; }
th { border-bottom: 1px solid #999; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0 2em; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #555; }
p.note { color: #555; font-size: 0.92em; }
nav ul { columns: 2; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; }
"#;
