//! Topology files of other tools, read into ndnlab's [`Topology`]:
//!
//! * **Mini-NDN** (`.conf`): a `[nodes]` section of `name: key=value ...` lines
//!   (free parameters, `_` when there are none), an optional `[switches]` section
//!   of names, and a `[links]` section of `a:b key=value ...` lines whose keys are
//!   Mininet's link options: `delay` and `jitter` (`10ms`, `500us`, `1s`; a bare
//!   number is milliseconds), `bw` (Mbit/s), `loss` (percent) and
//!   `max_queue_size` (packets). A switch becomes a forwarder like any node.
//!   Names are lowercased, as Mini-NDN's configparser reads them.
//! * **ndnSIM** (`AnnotatedTopologyReader`'s text format, often `.txt`): a
//!   `router` section of `node comment yPos xPos` lines and a `link` section of
//!   `srcNode dstNode bandwidth metric delay queue error` lines, every column
//!   after the two nodes optional. Bandwidths are ns-3 data rates (`10Mbps`,
//!   `1Gbps`, `500kbps`, `1MBps` in bytes), the metric is the routing cost,
//!   delays are ns-3 times (`10ms`; a bare number is seconds), the queue is a
//!   packet count or a queue class with `MaxPackets=N` / `MaxSize=Np`, and a
//!   `ns3::RateErrorModel` with `ErrorUnit=ERROR_UNIT_PACKET` gives the loss rate.
//!
//! Lines that are empty or start with `#` (and `;` in Mini-NDN files) are
//! comments. Errors name the file and the line. What ndnlab cannot use (a
//! Mininet option it has no counterpart for, a RED queue) is kept as a warning.
//!
//! An import is a list of nodes and a list of [`LinkEntry`]s carrying only the
//! parameters the file sets, so the experiment's `[link]` table supplies the rest.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::experiment::{LinkEntry, LinkSpec};
use crate::topology::{Link, Topology};
use crate::LabError;

/// The tool a topology file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    MiniNdn,
    NdnSim,
}

impl Format {
    /// As `topology.kind` and `--format` spell it.
    pub fn kind(self) -> &'static str {
        match self {
            Format::MiniNdn => "minindn",
            Format::NdnSim => "ndnsim",
        }
    }

    /// For people.
    pub fn title(self) -> &'static str {
        match self {
            Format::MiniNdn => "Mini-NDN",
            Format::NdnSim => "ndnSIM",
        }
    }

    /// The format `topology.kind` or `--format` names.
    pub fn from_kind(kind: &str) -> Option<Format> {
        match kind {
            "minindn" | "mini-ndn" => Some(Format::MiniNdn),
            "ndnsim" => Some(Format::NdnSim),
            _ => None,
        }
    }

    /// Guesses the format of `path` holding `text`: by extension (`.conf` is
    /// Mini-NDN), else by content (a `[nodes]` header is Mini-NDN, a first
    /// keyword `router` is ndnSIM).
    pub fn detect(path: &Path, text: &str) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("conf") => return Some(Format::MiniNdn),
            Some("toml") => return None,
            _ => {}
        }
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))?;
        if first.eq_ignore_ascii_case("[nodes]") {
            Some(Format::MiniNdn)
        } else if first == "router" {
            Some(Format::NdnSim)
        } else {
            None
        }
    }
}

/// A node of an imported file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    /// Mini-NDN's free `key=value` parameters; ndnSIM's comment column as
    /// `comment`.
    pub params: Vec<(String, String)>,
    /// ndnSIM's (xPos, yPos).
    pub pos: Option<(f64, f64)>,
    /// A Mini-NDN switch (a forwarder here).
    pub switch: bool,
}

/// A topology file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub format: Format,
    /// The file's name, as given.
    pub file: String,
    /// In the file's order.
    pub nodes: Vec<Node>,
    /// Links with the parameters the file sets.
    pub links: Vec<LinkEntry>,
    /// What was read but has no counterpart in ndnlab, by file and line.
    pub warnings: Vec<String>,
}

impl Imported {
    /// The topology, every link the file's parameters over `defaults` (an
    /// experiment's `[link]`).
    pub fn topology(&self, defaults: &LinkSpec) -> Topology {
        Topology {
            nodes: self.nodes.iter().map(|n| n.name.clone()).collect(),
            links: self
                .links
                .iter()
                .map(|e| Link {
                    a: e.a.clone(),
                    b: e.b.clone(),
                    spec: e.apply(defaults),
                })
                .collect(),
        }
    }

    /// Node positions, where the file gives them (ndnSIM's columns, or
    /// Mini-NDN's `radius` and `angle` parameters as polar coordinates).
    pub fn positions(&self) -> BTreeMap<String, (f64, f64)> {
        let mut out = BTreeMap::new();
        for n in &self.nodes {
            let param = |k: &str| {
                n.params
                    .iter()
                    .find(|(key, _)| key == k)
                    .and_then(|(_, v)| v.parse::<f64>().ok())
            };
            let pos = n.pos.or_else(|| match (param("radius"), param("angle")) {
                (Some(r), Some(a)) => Some((r * a.cos(), r * a.sin())),
                _ => None,
            });
            if let Some(p) = pos {
                out.insert(n.name.clone(), p);
            }
        }
        out
    }

    /// The experiment-file form: `[topology]` with kind `explicit` and the node
    /// order, then one `[[links]]` table per link with the parameters the file
    /// sets. Node parameters ndnlab does not use are kept as comments.
    pub fn to_toml(&self) -> String {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# {} topology imported from {}: {} nodes, {} links.",
            self.format.title(),
            self.file,
            self.nodes.len(),
            self.links.len()
        );
        let annotated: Vec<&Node> = self
            .nodes
            .iter()
            .filter(|n| !n.params.is_empty() || n.pos.is_some() || n.switch)
            .collect();
        if !annotated.is_empty() {
            out.push_str("# Node annotations of the source file (not used by ndnlab):\n");
            for n in annotated {
                let mut words: Vec<String> = Vec::new();
                if n.switch {
                    words.push("(switch)".into());
                }
                words.extend(n.params.iter().map(|(k, v)| format!("{k}={v}")));
                if let Some((x, y)) = n.pos {
                    words.push(format!("x={x} y={y}"));
                }
                let _ = writeln!(out, "#   {}: {}", n.name, words.join(" "));
            }
        }
        for w in &self.warnings {
            let _ = writeln!(out, "# warning: {w}");
        }
        out.push_str("\n[topology]\nkind = \"explicit\"\n");
        let names: Vec<String> = self.nodes.iter().map(|n| q(&n.name)).collect();
        let _ = writeln!(out, "nodes = [{}]", names.join(", "));
        for l in &self.links {
            let table = toml::to_string(l).expect("a link entry is a TOML table");
            let _ = write!(out, "\n[[links]]\n{table}");
        }
        out
    }
}

/// Reads a topology file of `format`, or of the format [`Format::detect`] finds.
pub fn load(path: &Path, format: Option<Format>) -> Result<Imported, LabError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| LabError::Io {
        path: file.clone(),
        err: e.to_string(),
    })?;
    let format = format
        .or_else(|| Format::detect(path, &text))
        .ok_or_else(|| LabError::Invalid {
            file: file.clone(),
            msg: "not a Mini-NDN ([nodes] ...) or ndnSIM (router ... link ...) topology file"
                .into(),
        })?;
    parse(format, &text, &file)
}

/// Parses the text of a topology file; `file` names it in errors.
pub fn parse(format: Format, text: &str, file: &str) -> Result<Imported, LabError> {
    match format {
        Format::MiniNdn => parse_minindn(text, file),
        Format::NdnSim => parse_ndnsim(text, file),
    }
}

/// Collects nodes and links, checking names, and makes errors name the line.
struct Builder<'a> {
    file: &'a str,
    out: Imported,
    /// Node → its line.
    seen: BTreeMap<String, usize>,
    /// (a, b) in name order → the line of the link.
    pairs: BTreeMap<(String, String), usize>,
}

impl<'a> Builder<'a> {
    fn new(format: Format, file: &'a str) -> Self {
        Builder {
            file,
            out: Imported {
                format,
                file: file.to_string(),
                nodes: Vec::new(),
                links: Vec::new(),
                warnings: Vec::new(),
            },
            seen: BTreeMap::new(),
            pairs: BTreeMap::new(),
        }
    }

    fn err(&self, line: usize, msg: impl Into<String>) -> LabError {
        LabError::Syntax {
            file: self.file.to_string(),
            line: Some(line),
            msg: msg.into(),
        }
    }

    fn warn(&mut self, line: usize, msg: impl std::fmt::Display) {
        self.out
            .warnings
            .push(format!("{}:{line}: {msg}", self.file));
    }

    fn node(&mut self, line: usize, node: Node) -> Result<(), LabError> {
        if node.name.is_empty() {
            return Err(self.err(line, "a node needs a name"));
        }
        if let Some(first) = self.seen.get(&node.name) {
            return Err(self.err(
                line,
                format!(
                    "node '{}' is declared twice (first on line {first})",
                    node.name
                ),
            ));
        }
        self.seen.insert(node.name.clone(), line);
        self.out.nodes.push(node);
        Ok(())
    }

    fn link(&mut self, line: usize, entry: LinkEntry) -> Result<(), LabError> {
        for x in [&entry.a, &entry.b] {
            if !self.seen.contains_key(x) {
                return Err(self.err(line, format!("link to undeclared node '{x}'")));
            }
        }
        if entry.a == entry.b {
            return Err(self.err(line, format!("link from '{}' to itself", entry.a)));
        }
        let key = if entry.a < entry.b {
            (entry.a.clone(), entry.b.clone())
        } else {
            (entry.b.clone(), entry.a.clone())
        };
        if let Some(first) = self.pairs.get(&key) {
            return Err(self.err(
                line,
                format!(
                    "a second link between '{}' and '{}' (first on line {first}); parallel links are not supported",
                    entry.a, entry.b
                ),
            ));
        }
        self.pairs.insert(key, line);
        self.out.links.push(entry);
        Ok(())
    }

    fn finish(self) -> Result<Imported, LabError> {
        if self.out.nodes.is_empty() {
            return Err(LabError::Invalid {
                file: self.file.to_string(),
                msg: "no nodes".into(),
            });
        }
        Ok(self.out)
    }
}

/// Non-empty, non-comment lines with their 1-based numbers.
fn content_lines<'t>(
    text: &'t str,
    comments: &'t [char],
) -> impl Iterator<Item = (usize, &'t str)> + 't {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(move |(_, l)| !l.is_empty() && !l.starts_with(comments))
}

/// Mini-NDN's `.conf` format (see the module documentation).
pub fn parse_minindn(text: &str, file: &str) -> Result<Imported, LabError> {
    #[derive(PartialEq)]
    enum Section {
        None,
        Nodes,
        Switches,
        Links,
    }
    let mut b = Builder::new(Format::MiniNdn, file);
    let mut section = Section::None;
    let mut had_links = false;
    for (n, line) in content_lines(text, &['#', ';']) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = match name.trim().to_ascii_lowercase().as_str() {
                "nodes" => Section::Nodes,
                "switches" => Section::Switches,
                "links" => {
                    had_links = true;
                    Section::Links
                }
                other => {
                    return Err(b.err(
                        n,
                        format!("section [{other}] is not supported (nodes, switches, links)"),
                    ))
                }
            };
            continue;
        }
        let (head, rest) = match line.split_once(char::is_whitespace) {
            Some((h, r)) => (h, r.trim()),
            None => (line, ""),
        };
        // Mini-NDN reads names through Python's configparser, which lowercases them
        let head = head.to_lowercase();
        let head = head.as_str();
        match section {
            Section::None => {
                return Err(b.err(n, "a line before the first section ([nodes])"));
            }
            Section::Nodes | Section::Switches => {
                let name = head.strip_suffix(':').unwrap_or(head);
                if name.contains(':') {
                    return Err(b.err(
                        n,
                        format!("'{head}' is a link; links go in the [links] section"),
                    ));
                }
                let mut params = Vec::new();
                for word in rest.split_whitespace() {
                    if word == "_" {
                        continue;
                    }
                    let (k, v) = word.split_once('=').ok_or_else(|| {
                        b.err(
                            n,
                            format!("node '{name}': '{word}' is not a key=value parameter"),
                        )
                    })?;
                    params.push((k.to_string(), v.to_string()));
                }
                b.node(
                    n,
                    Node {
                        name: name.to_string(),
                        params,
                        pos: None,
                        switch: section == Section::Switches,
                    },
                )?;
            }
            Section::Links => {
                let (x, y) = head.split_once(':').ok_or_else(|| {
                    b.err(
                        n,
                        format!("'{head}' is not a link (expected a:b key=value ...)"),
                    )
                })?;
                let mut e = LinkEntry::new(x, y);
                for word in rest.split_whitespace() {
                    let (k, v) = word.split_once('=').ok_or_else(|| {
                        b.err(
                            n,
                            format!("link {head}: '{word}' is not a key=value option"),
                        )
                    })?;
                    let bad =
                        |what: &str| b.err(n, format!("link {head}: {k}='{v}' is not {what}"));
                    match k {
                        "delay" => {
                            e.emu.delay_ms =
                                Some(time_ms(v, 1.0).ok_or_else(|| bad("a time (10ms)"))?)
                        }
                        "jitter" => {
                            e.emu.jitter_ms =
                                Some(time_ms(v, 1.0).ok_or_else(|| bad("a time (2ms)"))?)
                        }
                        "bw" => {
                            e.emu.bandwidth_mbps = Some(
                                number(v)
                                    .filter(|x| *x >= 0.0)
                                    .ok_or_else(|| bad("a rate in Mbit/s"))?,
                            )
                        }
                        "loss" => {
                            e.emu.loss_pct = Some(
                                number(v)
                                    .filter(|x| (0.0..=100.0).contains(x))
                                    .ok_or_else(|| bad("a percentage (0 to 100)"))?,
                            )
                        }
                        "max_queue_size" => {
                            e.emu.queue = Some(v.parse().map_err(|_| bad("a number of packets"))?)
                        }
                        _ => b.warn(n, format!("link {head}: option '{k}' ignored")),
                    }
                }
                b.link(n, e)?;
            }
        }
    }
    if !had_links && !b.out.nodes.is_empty() {
        b.out.warnings.push(format!("{file}: no [links] section"));
    }
    b.finish()
}

/// ndnSIM's annotated topology format (see the module documentation).
pub fn parse_ndnsim(text: &str, file: &str) -> Result<Imported, LabError> {
    #[derive(PartialEq)]
    enum Section {
        None,
        Router,
        Link,
    }
    let mut b = Builder::new(Format::NdnSim, file);
    let mut section = Section::None;
    for (n, line) in content_lines(text, &['#']) {
        match line {
            "router" => {
                if section != Section::None {
                    return Err(b.err(n, "the router section comes first, once"));
                }
                section = Section::Router;
                continue;
            }
            "link" => {
                if section == Section::Link {
                    return Err(b.err(n, "a second link section"));
                }
                section = Section::Link;
                continue;
            }
            _ => {}
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        match section {
            Section::None => {
                return Err(b.err(n, format!("'{}' before the router section", cols[0])));
            }
            Section::Router => {
                if cols.len() > 4 {
                    return Err(b.err(
                        n,
                        format!(
                            "{} columns; a router line is: node comment yPos xPos",
                            cols.len()
                        ),
                    ));
                }
                let coord = |i: usize, what: &str| -> Result<Option<f64>, LabError> {
                    cols.get(i)
                        .map(|v| {
                            number(v).ok_or_else(|| {
                                b.err(
                                    n,
                                    format!("router {}: {what} '{v}' is not a number", cols[0]),
                                )
                            })
                        })
                        .transpose()
                };
                let y = coord(2, "yPos")?;
                let x = coord(3, "xPos")?;
                let params = match cols.get(1) {
                    Some(c) if *c != "NA" => vec![("comment".to_string(), c.to_string())],
                    _ => Vec::new(),
                };
                b.node(
                    n,
                    Node {
                        name: cols[0].to_string(),
                        params,
                        pos: x.zip(y),
                        switch: false,
                    },
                )?;
            }
            Section::Link => {
                if cols.len() < 2 {
                    return Err(b.err(
                        n,
                        "a link line is: srcNode dstNode [bandwidth metric delay queue error]",
                    ));
                }
                if cols.len() > 7 {
                    return Err(b.err(
                        n,
                        format!("{} columns; a link line has at most 7", cols.len()),
                    ));
                }
                let head = format!("link {} {}", cols[0], cols[1]);
                let bad = |what: &str, v: &str| b.err(n, format!("{head}: '{v}' is not {what}"));
                let mut e = LinkEntry::new(cols[0], cols[1]);
                if let Some(v) = cols.get(2) {
                    e.emu.bandwidth_mbps =
                        Some(rate_mbps(v).ok_or_else(|| bad("a data rate (10Mbps)", v))?);
                }
                if let Some(v) = cols.get(3) {
                    e.cost = Some(v.parse().map_err(|_| bad("a metric (a whole number)", v))?);
                }
                if let Some(v) = cols.get(4) {
                    e.emu.delay_ms =
                        Some(time_ms(v, 1000.0).ok_or_else(|| bad("a time (10ms)", v))?);
                }
                let mut warnings = Vec::new();
                if let Some(v) = cols.get(5) {
                    match queue_packets(v) {
                        Ok(Some(q)) => e.emu.queue = Some(q),
                        Ok(None) => warnings.push(format!(
                            "{head}: queue '{v}' has no packet limit; the link's queue stays as [link] sets it"
                        )),
                        Err(m) => return Err(b.err(n, format!("{head}: {m}"))),
                    }
                }
                if let Some(v) = cols.get(6) {
                    match loss_pct(v) {
                        Ok(Some(p)) => e.emu.loss_pct = Some(p),
                        Ok(None) => warnings.push(format!("{head}: error model '{v}' ignored")),
                        Err(m) => return Err(b.err(n, format!("{head}: {m}"))),
                    }
                }
                for w in warnings {
                    b.warn(n, w);
                }
                b.link(n, e)?;
            }
        }
    }
    if section == Section::None {
        return Err(LabError::Invalid {
            file: file.to_string(),
            msg: "no router section".into(),
        });
    }
    b.finish()
}

fn number(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Splits `12.5ms` into (12.5, "ms").
fn split_unit(v: &str) -> Option<(f64, &str)> {
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(v.len());
    // `e` may start a unit rather than an exponent; back off if the number fails
    let mut cut = end;
    loop {
        if let Some(x) = number(&v[..cut]) {
            return Some((x, &v[cut..]));
        }
        if cut == 0 {
            return None;
        }
        cut -= 1;
    }
}

/// A time in milliseconds; a bare number is in units of `bare_ms`.
fn time_ms(v: &str, bare_ms: f64) -> Option<f64> {
    let (x, unit) = split_unit(v)?;
    let scale = match unit {
        "" => bare_ms,
        "s" | "sec" => 1000.0,
        "ms" => 1.0,
        "us" => 1e-3,
        "ns" => 1e-6,
        "min" => 60_000.0,
        _ => return None,
    };
    Some(x * scale).filter(|t| *t >= 0.0)
}

/// An ns-3 data rate in Mbit/s.
fn rate_mbps(v: &str) -> Option<f64> {
    let (x, unit) = split_unit(v)?;
    let bits: f64 = match unit {
        "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" | "Kb/s" => 1e3,
        "Mbps" | "Mb/s" => 1e6,
        "Gbps" | "Gb/s" => 1e9,
        "Bps" | "B/s" => 8.0,
        "kBps" | "KBps" | "kB/s" | "KB/s" => 8e3,
        "MBps" | "MB/s" => 8e6,
        "GBps" | "GB/s" => 8e9,
        "Kibps" | "Kib/s" => 1024.0,
        "Mibps" | "Mib/s" => 1024.0 * 1024.0,
        "Gibps" | "Gib/s" => 1024.0 * 1024.0 * 1024.0,
        "KiBps" | "KiB/s" => 8.0 * 1024.0,
        "MiBps" | "MiB/s" => 8.0 * 1024.0 * 1024.0,
        "GiBps" | "GiB/s" => 8.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(x * bits / 1e6).filter(|r| *r >= 0.0)
}

/// `key=value` attributes of an ns-3 object spec `ns3::Class,Key=Value,...`.
fn attributes(v: &str) -> (&str, BTreeMap<&str, &str>) {
    let mut parts = v.split(',');
    let class = parts.next().unwrap_or("");
    (class, parts.filter_map(|p| p.split_once('=')).collect())
}

/// The queue column: a packet count, or a queue class with a packet limit
/// (`Ok(None)` when the class sets none).
fn queue_packets(v: &str) -> Result<Option<usize>, String> {
    if let Ok(q) = v.parse::<usize>() {
        return Ok(Some(q));
    }
    if !v.starts_with("ns3::") {
        return Err(format!(
            "queue '{v}' is neither a packet count nor an ns3:: queue class"
        ));
    }
    let (_, attrs) = attributes(v);
    if let Some(p) = attrs.get("MaxPackets") {
        return p
            .parse()
            .map(Some)
            .map_err(|_| format!("MaxPackets='{p}' is not a number"));
    }
    if let Some(s) = attrs.get("MaxSize") {
        return match s.strip_suffix('p').map(str::parse::<usize>) {
            Some(Ok(q)) => Ok(Some(q)),
            _ => Err(format!(
                "MaxSize='{s}': only packet sizes (20p) are supported"
            )),
        };
    }
    Ok(None)
}

/// The error column: a packet error rate of `ns3::RateErrorModel`, in percent
/// (`Ok(None)` for another model).
fn loss_pct(v: &str) -> Result<Option<f64>, String> {
    let (class, attrs) = attributes(v);
    if class != "ns3::RateErrorModel" {
        return Ok(None);
    }
    match attrs.get("ErrorUnit") {
        Some(&"ERROR_UNIT_PACKET") => {}
        other => {
            return Err(format!(
                "RateErrorModel with ErrorUnit={}: only ERROR_UNIT_PACKET is supported",
                other.unwrap_or(&"(default, bytes)")
            ))
        }
    }
    let rate = attrs
        .get("ErrorRate")
        .ok_or("RateErrorModel without ErrorRate")?;
    match number(rate) {
        Some(r) if (0.0..=1.0).contains(&r) => Ok(Some(r * 100.0)),
        _ => Err(format!("ErrorRate='{rate}' is not within 0..=1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(time_ms("10ms", 1.0), Some(10.0));
        assert_eq!(time_ms("10", 1.0), Some(10.0));
        assert_eq!(time_ms("2", 1000.0), Some(2000.0));
        assert_eq!(time_ms("250us", 1.0), Some(0.25));
        assert_eq!(time_ms("1.5s", 1.0), Some(1500.0));
        assert_eq!(time_ms("10 ms", 1.0), None);
        assert_eq!(time_ms("fast", 1.0), None);
        assert_eq!(rate_mbps("10Mbps"), Some(10.0));
        assert_eq!(rate_mbps("1Gbps"), Some(1000.0));
        assert_eq!(rate_mbps("500kbps"), Some(0.5));
        assert_eq!(rate_mbps("1MBps"), Some(8.0));
        assert_eq!(rate_mbps("1e3Mbps"), Some(1000.0));
        assert_eq!(rate_mbps("10"), None);
        assert_eq!(queue_packets("20"), Ok(Some(20)));
        assert_eq!(
            queue_packets("ns3::DropTailQueue,MaxPackets=50"),
            Ok(Some(50))
        );
        assert_eq!(
            queue_packets("ns3::DropTailQueue<Packet>,MaxSize=30p"),
            Ok(Some(30))
        );
        assert_eq!(queue_packets("ns3::RedQueue,MeanPktSize=100"), Ok(None));
        assert!(queue_packets("lots").is_err());
        assert_eq!(
            loss_pct("ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_PACKET,ErrorRate=0.25"),
            Ok(Some(25.0))
        );
        assert!(loss_pct("ns3::RateErrorModel,ErrorRate=0.1").is_err());
        assert_eq!(loss_pct("ns3::BurstErrorModel"), Ok(None));
    }

    #[test]
    fn minindn_nodes_links_and_errors() {
        let text = "# a comment\n[nodes]\na: _ radius=0.5 angle=1.0\nb: _\nc:\n[switches]\ns1: _\n[links]\na:b delay=10ms bw=100 loss=1 max_queue_size=50 jitter=2ms\nb:c delay=5ms use_htb=True\nc:s1\n";
        let t = parse_minindn(text, "t.conf").unwrap();
        let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "s1"]);
        let upper = parse_minindn("[nodes]\nA: _\nb: _\n[links]\na:B\n", "u.conf").unwrap();
        assert_eq!(
            (upper.nodes[0].name.as_str(), upper.links[0].b.as_str()),
            ("a", "b")
        );
        assert_eq!(
            t.nodes[0].params,
            vec![
                ("radius".to_string(), "0.5".to_string()),
                ("angle".to_string(), "1.0".to_string())
            ]
        );
        assert!(t.nodes[3].switch);
        let l = &t.links[0];
        assert_eq!(
            (
                l.emu.delay_ms,
                l.emu.bandwidth_mbps,
                l.emu.loss_pct,
                l.emu.queue,
                l.emu.jitter_ms
            ),
            (Some(10.0), Some(100.0), Some(1.0), Some(50), Some(2.0))
        );
        assert_eq!(t.links[2].emu.delay_ms, None);
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].starts_with("t.conf:10:"), "{:?}", t.warnings);
        assert!(t.positions().contains_key("a"));

        let err = |text: &str| parse_minindn(text, "bad.conf").unwrap_err().to_string();
        let e = err("[nodes]\na: _\nb: _\n[links]\na:b delay=fast\n");
        assert!(e.starts_with("bad.conf:5:") && e.contains("delay"), "{e}");
        let e = err("[nodes]\na: _\n[links]\na:z\n");
        assert!(e.starts_with("bad.conf:4:") && e.contains("'z'"), "{e}");
        let e = err("[nodes]\na: _\na: _\n");
        assert!(e.starts_with("bad.conf:3:") && e.contains("line 2"), "{e}");
        let e = err("a: _\n");
        assert!(e.starts_with("bad.conf:1:"), "{e}");
        let e = err("[nodes]\na: _\nb: _\n[links]\na:b loss=150\n");
        assert!(
            e.starts_with("bad.conf:5:") && e.contains("percentage"),
            "{e}"
        );
        let e = err("[nodes]\na: _\nb: _\n[links]\na:b\nb:a\n");
        assert!(
            e.starts_with("bad.conf:6:") && e.contains("second link"),
            "{e}"
        );
        let e = err("[stations]\nsta1: _\n");
        assert!(e.starts_with("bad.conf:1:"), "{e}");
    }

    #[test]
    fn ndnsim_sections_columns_and_errors() {
        let text = "# grid\nrouter\n# node comment y x\nn0 NA 1 1\nn1 Paris 1 2\nn2\nlink\n# src dst bw metric delay queue\nn0 n1 10Mbps 1 10ms 20\nn1 n2 1Gbps 3 2ms ns3::DropTailQueue,MaxPackets=40 ns3::RateErrorModel,ErrorUnit=ERROR_UNIT_PACKET,ErrorRate=0.01\nn0 n2\n";
        let t = parse_ndnsim(text, "g.txt").unwrap();
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.nodes[0].pos, Some((1.0, 1.0)));
        assert_eq!(t.nodes[1].params[0].1, "Paris");
        assert_eq!(t.nodes[2].pos, None);
        let l = &t.links[0];
        assert_eq!(
            (l.emu.bandwidth_mbps, l.cost, l.emu.delay_ms, l.emu.queue),
            (Some(10.0), Some(1), Some(10.0), Some(20))
        );
        let l = &t.links[1];
        assert_eq!(
            (l.emu.bandwidth_mbps, l.cost, l.emu.queue, l.emu.loss_pct),
            (Some(1000.0), Some(3), Some(40), Some(1.0))
        );
        assert_eq!(t.links[2], LinkEntry::new("n0", "n2"));

        let err = |text: &str| parse_ndnsim(text, "bad.txt").unwrap_err().to_string();
        let e = err("router\nn0\nn1\nlink\nn0 n1 10Mbits 1 10ms\n");
        assert!(
            e.starts_with("bad.txt:5:") && e.contains("data rate"),
            "{e}"
        );
        let e = err("router\nn0 NA north 1\n");
        assert!(e.starts_with("bad.txt:2:") && e.contains("yPos"), "{e}");
        let e = err("n0 NA 1 1\n");
        assert!(e.starts_with("bad.txt:1:"), "{e}");
        let e = err("router\nn0\nlink\nn0 n9\n");
        assert!(e.starts_with("bad.txt:4:") && e.contains("'n9'"), "{e}");
        let e = err("router\nn0\nn1\nlink\nn0 n1 1Mbps one\n");
        assert!(e.starts_with("bad.txt:5:") && e.contains("metric"), "{e}");
    }

    #[test]
    fn detection_and_toml_round_trip() {
        let mini = "[nodes]\na: _\nb: _\n[links]\na:b delay=10ms bw=100\n";
        assert_eq!(
            Format::detect(Path::new("x.conf"), ""),
            Some(Format::MiniNdn)
        );
        assert_eq!(Format::detect(Path::new("x"), mini), Some(Format::MiniNdn));
        assert_eq!(
            Format::detect(Path::new("x.txt"), "# c\n\nrouter\nn0\n"),
            Some(Format::NdnSim)
        );
        assert_eq!(Format::detect(Path::new("x.txt"), "[topology]\n"), None);
        let t = parse_minindn(mini, "m.conf").unwrap();
        let text = format!(
            "{}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n",
            t.to_toml()
        );
        let (_, exp) = crate::experiment::parse(&text, "m.toml").unwrap();
        assert_eq!(
            Topology::of(&exp).unwrap(),
            t.topology(&LinkSpec::default())
        );
    }
}
