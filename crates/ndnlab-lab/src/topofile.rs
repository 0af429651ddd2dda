//! A topology file of any kind ndnlab reads: an experiment (`.toml`), a Mini-NDN
//! topology (`.conf`) or an ndnSIM topology (AnnotatedTopologyReader's text
//! format), loaded with what it knows about its nodes (applications, positions),
//! for `ndnlab topo show|export`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::campaign::{Campaign, Options};
use crate::dot::{self, Role};
use crate::experiment::{Experiment, LinkSpec};
use crate::import::{self, Format};
use crate::shape;
use crate::topology::Topology;
use crate::{design, LabError};

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// An ndnlab experiment (TOML).
    Experiment,
    /// A Mini-NDN topology (.conf).
    Minindn,
    /// An ndnSIM topology (AnnotatedTopologyReader's text format).
    Ndnsim,
}

/// A topology read from FILE, with what it knows about its nodes.
pub struct Loaded {
    /// `experiment`, or the import format's title.
    pub what: String,
    pub name: String,
    pub topo: Topology,
    pub roles: BTreeMap<String, Vec<Role>>,
    pub positions: BTreeMap<String, (f64, f64)>,
    pub warnings: Vec<String>,
}

/// What `path` is: `given`, else by extension (`.toml`), else by content.
pub fn detect(path: &Path, given: Option<Input>) -> anyhow::Result<Input> {
    if let Some(f) = given {
        return Ok(f);
    }
    if path.extension().and_then(|e| e.to_str()) == Some("toml") {
        return Ok(Input::Experiment);
    }
    let text = std::fs::read_to_string(path).map_err(|e| LabError::Io {
        path: path.display().to_string(),
        err: e.to_string(),
    })?;
    match Format::detect(path, &text) {
        Some(Format::MiniNdn) => Ok(Input::Minindn),
        Some(Format::NdnSim) => Ok(Input::Ndnsim),
        None => anyhow::bail!(
            "{}: not an experiment (.toml), Mini-NDN ([nodes] ...) or ndnSIM (router ... link ...) file; name its format with --format",
            path.display()
        ),
    }
}

/// An experiment with `--set` applied, every design point checked.
fn experiment_with(path: &Path, sets: &[String]) -> anyhow::Result<Experiment> {
    let opts = Options {
        sets: sets
            .iter()
            .map(|s| design::parse_assignment(s).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<_>>()?,
        ..Default::default()
    };
    Ok(Campaign::load(Some(path), &opts)?.exp)
}

/// Reads `path` (of format `format`, or detected), with the `--set` assignments
/// `sets` applied to an experiment and every design point checked.
pub fn load(path: &Path, format: Option<Input>, sets: &[String]) -> anyhow::Result<Loaded> {
    let file = path.display().to_string();
    let format = detect(path, format)?;
    if format != Input::Experiment && !sets.is_empty() {
        anyhow::bail!("--set applies to experiment files, and {file} is a topology file");
    }
    let from_file = |f: Format| -> anyhow::Result<Loaded> {
        let imp = import::load(path, Some(f))?;
        Ok(Loaded {
            what: format!("{} topology", f.title()),
            name: path
                .file_stem()
                .map_or("topology".into(), |s| s.to_string_lossy().into_owned()),
            topo: imp.topology(&LinkSpec::default()),
            roles: BTreeMap::new(),
            positions: imp.positions(),
            warnings: imp.warnings,
        })
    };
    match format {
        Input::Minindn => from_file(Format::MiniNdn),
        Input::Ndnsim => from_file(Format::NdnSim),
        Input::Experiment => {
            let exp = experiment_with(path, sets)?;
            let topo = Topology::of(&exp).map_err(|m| LabError::Invalid {
                file: file.clone(),
                msg: m,
            })?;
            let roles = dot::roles(&exp, &topo).map_err(|m| LabError::Invalid {
                file: file.clone(),
                msg: m,
            })?;
            let mut positions = BTreeMap::new();
            let mut warnings = Vec::new();
            if let (Some(f), Some(p)) = (
                Format::from_kind(&exp.topology.kind),
                exp.topology.file_path(),
            ) {
                let imp = import::load(&p, Some(f))?;
                positions = imp.positions();
                warnings = imp.warnings;
            }
            Ok(Loaded {
                what: format!("experiment ({} topology)", exp.topology.kind),
                name: exp.experiment.name.clone(),
                topo,
                roles,
                positions,
                warnings,
            })
        }
    }
}

impl Loaded {
    /// `ndnlab topo show --json`: nodes with degrees and applications, links with
    /// their parameters, the topology's shape and the import's warnings; `file`
    /// is the path the user named.
    pub fn summary_json(&self, file: &Path) -> serde_json::Value {
        let l = self;
        let s = shape::shape(&l.topo);
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
            "file": file,
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
        v
    }

    /// `ndnlab topo show`: the shape, the nodes with degrees and applications, and
    /// the links' parameters, as text.
    pub fn summary_text(&self, file: &Path) -> String {
        let mut out = String::new();
        self.write_summary(file, &mut out)
            .expect("writing to a String");
        out
    }

    fn write_summary(&self, file: &Path, out: &mut String) -> std::fmt::Result {
        use std::fmt::Write as _;
        let l = self;
        let s = shape::shape(&l.topo);
        writeln!(
            out,
            "{}: {}, {} nodes, {} links",
            file.display(),
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
            return Ok(());
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
                    s.emu.delay_ms.to_string(),
                    s.emu.jitter_ms.to_string(),
                    s.emu.loss_pct.to_string(),
                    s.bandwidth_mbps().to_string(),
                    s.queue().to_string(),
                    s.emu.mtu.to_string(),
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
        Ok(())
    }
}
