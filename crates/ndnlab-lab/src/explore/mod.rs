//! Design-space exploration of the data-plane model (`ndnlab model explore`):
//! a property checked statistically at every point of a grid of parameters,
//! as seed 004 explored NDN-DPDK's threads, queues, rates, name lengths and
//! NUMA placements. docs/EXPLORE.md is the user's guide.
//!
//! - [`grid`]: `--grid key=a,b,c` / `key=1..8`, the points in a stable order;
//! - [`run`]: every point checked (`ndnlab_smc`), a job of the campaign
//!   engine (`crate::campaign::engine`): in parallel, resumable and
//!   shardable, each finished point appended to `points.csv` ([`points`],
//!   the engine's store);
//! - [`merge`]: the shards' directories joined by the engine's merge, every
//!   point exactly once;
//! - [`recommend`]: the cheapest configuration meeting the requirement;
//! - [`plot`]: the figures; [`report`]: figures and `recommended.csv` written.
//!
//! An exploration directory holds `explore.toml` (the [`Manifest`]: the model
//! after `--set`, the grid, the property, the method and the seed: what makes
//! two directories slices of one exploration), `points.csv`, and once every
//! point is there, the figures and `recommended.csv`.

pub mod command;
pub mod grid;
pub mod merge;
pub mod plot;
pub mod points;
pub mod recommend;
pub mod report;
pub mod run;
pub mod text;

use std::path::Path;

use ndnlab_model::smc::{Method, Spec};
use serde::{Deserialize, Serialize};

pub use grid::{Grid, Point};
pub use points::Row;
pub use recommend::{Recommendation, Requirement};

use ndnlab_model::dataplane::ModelSpec;
use ndnlab_model::dataplane::{Error, Result};

/// The value of `format` in `explore.toml`.
pub const FORMAT: &str = "ndnlab-explore/1";

/// The manifest's file name.
pub const MANIFEST: &str = "explore.toml";

/// What makes an exploration: the model, the grid, the property, the method
/// and the seed. Written to `explore.toml`; `--resume` and merge refuse a
/// directory whose manifest differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: String,
    /// The model file as named on the command line (not compared).
    pub model_file: String,
    pub seed: u64,
    pub property: String,
    /// The model checker's settings (`--method`, `--alpha`, ...).
    pub smc: Spec,
    pub grid: Grid,
    /// The model after `--set`, before the grid's levels.
    pub model: ModelSpec,
}

impl Manifest {
    /// The checker's spec for every point, validated; splitting is refused
    /// (it estimates one rare event per model, not a property per point: use
    /// `model check`).
    pub fn spec(&self) -> Result<Spec> {
        if self.smc.method == Method::Splitting {
            return Err(Error::Usage(
                "--method splitting: explore checks a property per point with chernoff, \
                 clopper-pearson, wilson, bayes, sprt or chow-robbins; estimate a rare event \
                 at one point with `ndnlab model check --method splitting`"
                    .into(),
            ));
        }
        self.smc
            .validate()
            .map_err(|e| Error::Usage(e.to_string()))?;
        Ok(self.smc.clone())
    }

    /// A manifest for a new exploration.
    pub fn new(
        model_file: &Path,
        model: &ModelSpec,
        grid: Grid,
        property: &str,
        spec: &Spec,
        seed: u64,
    ) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            model_file: model_file.display().to_string(),
            seed,
            property: property.to_string(),
            smc: spec.clone(),
            grid,
            model: model.clone(),
        }
    }

    /// The manifest's text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a manifest serialises")
    }

    /// Reads `DIR/explore.toml`.
    pub fn load(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::File {
            path: path.clone(),
            message: format!("{e} (not an exploration directory?)"),
        })?;
        Manifest::parse(&text, &path)
    }

    /// A manifest's text, read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        let mut m: Manifest = toml::from_str(text).map_err(|e| Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if m.format != FORMAT {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!("format is {:?}; this version reads {FORMAT:?}", m.format),
            });
        }
        m.model.base = Path::new(&m.model_file)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(m)
    }

    /// The first difference between two explorations, if any (the model
    /// file's name and where relative paths resolve do not count).
    pub fn difference(&self, other: &Manifest) -> Option<&'static str> {
        let mut a = self.model.clone();
        a.base = other.model.base.clone();
        if self.seed != other.seed {
            Some("--seed")
        } else if self.property != other.property {
            Some("--property")
        } else if self.smc != other.smc {
            Some("the method or its options (--method, --alpha, --delta, --runs...)")
        } else if self.grid != other.grid {
            Some("--grid")
        } else if a != other.model {
            Some("the model (its file or --set)")
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;
