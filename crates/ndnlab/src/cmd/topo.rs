//! `ndnlab topo show|import|export FILE`: a topology's summary, Mini-NDN and
//! ndnSIM files converted to the experiment format, and Graphviz DOT. FILE is
//! an experiment (`.toml`) or a Mini-NDN (`.conf`) or ndnSIM topology file.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use ndnlab_lab::dot;
use ndnlab_lab::import::{self, Format};
use ndnlab_lab::shape;
use ndnlab_lab::topofile;

#[derive(Subcommand, Debug)]
pub enum TopoCmd {
    /// Summary of a topology: nodes, links, degrees, diameter, link parameters.
    Show(ShowArgs),
    /// Convert a Mini-NDN or ndnSIM file to an experiment's [topology] and [[links]].
    Import(ImportArgs),
    /// Write the topology of an experiment or topology file as Graphviz DOT.
    Export(ExportArgs),
}

/// What FILE is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Input {
    /// An ndnlab experiment (TOML).
    Experiment,
    /// A Mini-NDN topology (.conf).
    Minindn,
    /// An ndnSIM topology (AnnotatedTopologyReader's text format).
    Ndnsim,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// An experiment, Mini-NDN or ndnSIM file.
    file: PathBuf,
    /// The file's format (default: by extension, then by content).
    #[arg(long)]
    format: Option<Input>,
    /// Set a key of an experiment first: --set topology.n=8 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// A Mini-NDN (.conf) or ndnSIM topology file.
    file: PathBuf,
    /// The file's format (default: by extension, then by content).
    #[arg(long, value_parser = ["minindn", "ndnsim"])]
    format: Option<String>,
    /// Write the TOML here instead of to stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Output formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Graphviz DOT (render with `dot -Tsvg`, or `neato -n` to keep positions).
    Dot,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// An experiment, Mini-NDN or ndnSIM file.
    file: PathBuf,
    /// The output format.
    #[arg(long, value_enum, default_value_t = Output::Dot)]
    format: Output,
    /// The input file's format (default: by extension, then by content).
    #[arg(long)]
    from: Option<Input>,
    /// Set a key of an experiment first: --set topology.n=8 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Write here instead of to stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(c: TopoCmd) -> anyhow::Result<()> {
    match c {
        TopoCmd::Show(a) => show(a),
        TopoCmd::Import(a) => import_file(a),
        TopoCmd::Export(a) => export(a),
    }
}

/// Writes `text` to stdout; a reader that went away (`| head`) is not an error.
fn emit(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

impl From<Input> for topofile::Input {
    fn from(i: Input) -> Self {
        match i {
            Input::Experiment => topofile::Input::Experiment,
            Input::Minindn => topofile::Input::Minindn,
            Input::Ndnsim => topofile::Input::Ndnsim,
        }
    }
}

fn load(path: &Path, format: Option<Input>, sets: &[String]) -> anyhow::Result<topofile::Loaded> {
    topofile::load(path, format.map(Into::into), sets)
}

fn show(a: ShowArgs) -> anyhow::Result<()> {
    let l = load(&a.file, a.format, &a.sets)?;
    let s = shape::shape(&l.topo);
    if a.json {
        let nodes: Vec<serde_json::Value> = s
            .degrees
            .iter()
            .map(|(n, d)| {
                let apps: Vec<&String> = l
                    .roles
                    .get(n)
                    .map(|r| r.iter().map(|(g, _)| g).collect())
                    .unwrap_or_default();
                serde_json::json!({ "name": n, "degree": d, "apps": apps })
            })
            .collect();
        let links: Vec<serde_json::Value> = l
            .topo
            .links
            .iter()
            .map(|k| {
                let mut v = serde_json::to_value(&k.spec).expect("a link serializes");
                v["a"] = k.a.clone().into();
                v["b"] = k.b.clone().into();
                v
            })
            .collect();
        let v = serde_json::json!({
            "file": a.file,
            "format": l.what,
            "name": l.name,
            "nodes": nodes,
            "links": links,
            "degree": { "min": s.degree_min, "mean": s.degree_mean, "max": s.degree_max },
            "components": s.components,
            "diameter_hops": s.diameter_hops,
            "diameter_delay_ms": s.diameter_delay_ms,
            "warnings": l.warnings,
        });
        return emit(&(serde_json::to_string_pretty(&v)? + "\n"));
    }
    for w in &l.warnings {
        eprintln!("warning: {w}");
    }
    let mut out = String::new();
    writeln!(
        out,
        "{}: {}, {} nodes, {} links",
        a.file.display(),
        l.what,
        s.nodes,
        s.links
    )?;
    writeln!(
        out,
        "degree: min {}, mean {:.2}, max {}",
        s.degree_min, s.degree_mean, s.degree_max
    )?;
    match (s.diameter_hops, s.diameter_delay_ms) {
        (Some(h), Some(d)) => writeln!(out, "diameter: {h} hops, {d} ms of link delay"),
        _ => writeln!(
            out,
            "diameter: none, the topology has {} disconnected parts",
            s.components
        ),
    }?;
    let width = l
        .topo
        .nodes
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(out, "\n{:<width$} {:>6}  apps", "node", "degree")?;
    for (n, d) in &s.degrees {
        let apps = l
            .roles
            .get(n)
            .map(|r| {
                r.iter()
                    .map(|(g, k)| format!("{g} ({k})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        writeln!(out, "{}", format!("{n:<width$} {d:>6}  {apps}").trim_end())?;
    }
    if l.topo.links.is_empty() {
        return emit(&out);
    }
    let head = [
        "a",
        "b",
        "face",
        "delay_ms",
        "jitter_ms",
        "loss_pct",
        "bandwidth_mbps",
        "queue",
        "mtu",
        "cost",
    ];
    let rows: Vec<Vec<String>> = l
        .topo
        .links
        .iter()
        .map(|k| {
            let s = &k.spec;
            vec![
                k.a.clone(),
                k.b.clone(),
                s.face.clone(),
                s.delay_ms.to_string(),
                s.jitter_ms.to_string(),
                s.loss_pct.to_string(),
                s.bandwidth_mbps.to_string(),
                s.queue.to_string(),
                s.mtu.to_string(),
                s.cost.to_string(),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].len())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < 3 {
                    format!("{c:<w$}", w = widths[i])
                } else {
                    format!("{c:>w$}", w = widths[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    writeln!(out, "\n{}", line(head.to_vec()))?;
    for r in &rows {
        writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
    }
    emit(&out)
}

fn import_file(a: ImportArgs) -> anyhow::Result<()> {
    let format = a.format.as_deref().and_then(Format::from_kind);
    let imp = import::load(&a.file, format)?;
    for w in &imp.warnings {
        eprintln!("warning: {w}");
    }
    let text = imp.to_toml();
    match &a.out {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?;
            eprintln!(
                "wrote {} ({} nodes, {} links)",
                p.display(),
                imp.nodes.len(),
                imp.links.len()
            );
        }
        None => emit(&text)?,
    }
    Ok(())
}

fn export(a: ExportArgs) -> anyhow::Result<()> {
    let l = load(&a.file, a.from, &a.sets)?;
    for w in &l.warnings {
        eprintln!("warning: {w}");
    }
    let text = match a.format {
        Output::Dot => dot::to_dot(&l.name, &l.topo, &l.roles, &l.positions),
    };
    match &a.out {
        Some(p) => std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?,
        None => emit(&text)?,
    }
    Ok(())
}
