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
