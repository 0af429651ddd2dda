//! `ndnlab topo show|import|export FILE`: a topology's summary, Mini-NDN and
//! ndnSIM files converted to the experiment format, and Graphviz DOT. FILE is
//! an experiment (`.toml`) or a Mini-NDN (`.conf`) or ndnSIM topology file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use ndnlab_lab::dot;
use ndnlab_lab::import::{self, Format};
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
    if a.json {
        return emit(&(serde_json::to_string_pretty(&l.summary_json(&a.file))? + "\n"));
    }
    for w in &l.warnings {
        eprintln!("warning: {w}");
    }
    emit(&l.summary_text(&a.file))
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
