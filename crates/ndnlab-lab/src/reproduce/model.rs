//! Model exploration files (`*.model` in a seed directory): a figure that
//! comes from the data-plane model (`ndnlab model explore`) rather than from
//! runs of the lab. The file holds the exploration's arguments in `[model]`,
//! what `--quick` changes in `[model.quick]`, and the paper's numbers in
//! `[reference]` against `points.csv`'s columns (`estimate`,
//! `mean_<observable>`; `x`, `where` and `effect` name grid keys).
//!
//! ```toml
//! [model]
//! file = "../../models/ndnlab-dpdk.toml"   # relative to this file's directory
//! set = ["rate=1e6"]
//! grid = ["threads=1..8", "queue=128,4096"]
//! property = "all-satisfied"              # default
//! method = "chernoff"                     # alpha, delta: 0.1 by default; runs: the method's own
//! seed = 1
//! x = "threads"
//! series = "queue"
//! require = 0.9                           # or "<= 50000"; default 0.99
//! [model.quick]
//! runs = 10
//! ```

use std::path::{Path, PathBuf};

use crate::explore::points::{FILE, KEPT};
use crate::explore::report::{write, ReportOptions};
use crate::explore::run::{explore, Options};
use crate::explore::{Grid, Manifest, Requirement};
use anyhow::Context;
use ndnlab_analysis::Table;
use ndnlab_model::dataplane::ModelSpec;
use ndnlab_report::compare::{comparison, Comparison};
use ndnlab_report::reference::Reference;
use serde::Deserialize;

/// `[model]` of a model file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    pub file: String,
    #[serde(default)]
    pub set: Vec<String>,
    pub grid: Vec<String>,
    #[serde(default = "all_satisfied")]
    pub property: String,
    #[serde(default = "chernoff")]
    pub method: String,
    #[serde(default = "tenth")]
    pub alpha: f64,
    #[serde(default = "tenth")]
    pub delta: f64,
    pub runs: Option<u64>,
    #[serde(default = "one")]
    pub seed: u64,
    pub x: Option<String>,
    pub series: Option<String>,
    pub require: Option<toml::Value>,
    pub minimise: Option<Vec<String>>,
}

fn all_satisfied() -> String {
    "all-satisfied".into()
}
fn chernoff() -> String {
    "chernoff".into()
}
fn tenth() -> f64 {
    0.1
}
fn one() -> u64 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    model: ModelSection,
    reference: Option<Reference>,
}

/// A loaded model file.
#[derive(Debug, Clone)]
pub struct ModelFile {
    pub path: PathBuf,
    pub model: ModelSection,
    pub reference: Option<Reference>,
}

/// The metrics a model file's `[reference]` may name: `points.csv`'s columns.
pub fn is_metric(m: &str) -> bool {
    m == "estimate" || m.strip_prefix("mean_").is_some_and(|k| KEPT.contains(&k))
}

impl ModelFile {
    /// Reads `path`, with `[model.quick]` applied under `quick`; errors name
    /// the file and key.
    pub fn load(path: &Path, quick: bool) -> anyhow::Result<ModelFile> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {file}"))?;
        let mut doc: toml::Table =
            toml::from_str(&text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        let model = doc
            .get_mut("model")
            .and_then(|m| m.as_table_mut())
            .ok_or_else(|| anyhow::anyhow!("{file}: no [model] table"))?;
        if let Some(q) = model.remove("quick") {
            let q = q
                .as_table()
                .ok_or_else(|| anyhow::anyhow!("{file}: model.quick must be a table"))?
                .clone();
            if quick {
                for (k, v) in q {
                    if k == "file" || k == "quick" {
                        anyhow::bail!("{file}: model.quick.{k}: --quick cannot change it");
                    }
                    model.insert(k, v);
                }
            }
        }
        let d: Doc = toml::Value::Table(doc)
            .try_into()
            .map_err(|e: toml::de::Error| anyhow::anyhow!("{file}: {}", e.message()))?;
        let keys: Vec<String> = d
            .model
            .grid
            .iter()
            .filter_map(|g| g.split_once('=').map(|(k, _)| k.trim().to_string()))
            .collect();
        if let Some(r) = &d.reference {
            r.validate(&keys, &is_metric).map_err(|e| {
                anyhow::anyhow!("{file}: {e} (a model file's factors are its grid keys, its metrics estimate and mean_<observable>: {})", KEPT.join(", "))
            })?;
        }
        Ok(ModelFile {
            path: path.to_path_buf(),
            model: d.model,
            reference: d.reference,
        })
    }

    /// The model file, resolved against this file's directory.
    pub fn model_path(&self) -> PathBuf {
        let f = Path::new(&self.model.file);
        match self.path.parent() {
            Some(base) if f.is_relative() => base.join(f),
            _ => f.to_path_buf(),
        }
    }

    /// The exploration this file describes, and how to present it.
    pub fn manifest(&self) -> anyhow::Result<(Manifest, ReportOptions)> {
        let file = self.path.display();
        let m = &self.model;
        let path = self.model_path();
        let mut spec = ModelSpec::load(&path).with_context(|| format!("{file}: model.file"))?;
        for kv in &m.set {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("{file}: model.set {kv:?}: write PARAMETER=VALUE"))?;
            spec.set(k.trim(), v.trim())
                .with_context(|| format!("{file}: model.set {kv}"))?;
        }
        spec.check().with_context(|| format!("{file}: model.set"))?;
        let grid = Grid::parse(&m.grid, &spec).with_context(|| format!("{file}: model.grid"))?;
        let smc = ndnlab_model::smc::Spec {
            method: ndnlab_model::smc::Method::parse(&m.method)
                .with_context(|| format!("{file}: model.method"))?,
            alpha: m.alpha,
            delta: m.delta,
            runs: m.runs,
            ..ndnlab_model::smc::Spec::default()
        };
        let manifest = Manifest::new(&path, &spec, grid, &m.property, &smc, m.seed);
        let require = match &m.require {
            None => Requirement::AtLeast(0.99),
            Some(toml::Value::Float(x)) => Requirement::AtLeast(*x),
            Some(toml::Value::Integer(x)) => Requirement::AtLeast(*x as f64),
            Some(toml::Value::String(s)) => {
                Requirement::parse(s).with_context(|| format!("{file}: model.require"))?
            }
            Some(v) => anyhow::bail!(
                "{file}: model.require: a number or a text such as \"<= 50000\", not {v}"
            ),
        };
        let mut present = ReportOptions {
            x: m.x.clone(),
            series: m.series.clone(),
            require,
            ..ReportOptions::default()
        };
        if let Some(mn) = &m.minimise {
            present.minimise = mn.clone();
        }
        present
            .check(&manifest)
            .with_context(|| format!("{file}: model.x / model.series / model.minimise"))?;
        Ok((manifest, present))
    }

    /// Runs the exploration into `out` (resuming its points.csv under
    /// `resume`), writes its figures and recommendations, and compares it
    /// with `[reference]`; `progress(done, total)` after each point.
    pub fn run(
        &self,
        out: &Path,
        resume: bool,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> anyhow::Result<(usize, Option<Comparison>)> {
        let (manifest, present) = self.manifest()?;
        std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
        let resume = resume && out.join(FILE).exists();
        if !resume && out.join(FILE).exists() {
            std::fs::remove_file(out.join(FILE)).with_context(|| format!("{}", out.display()))?;
        }
        let opts = Options {
            threads: threads.max(1),
            shard: None,
            out: Some(out),
            resume,
        };
        let ran = explore(&manifest, &opts, progress)?;
        write(out, &manifest, &ran.rows, &present)?;
        let Some(r) = self.reference.clone() else {
            return Ok((ran.rows.len(), None));
        };
        let csv = out.join(FILE);
        let text = std::fs::read_to_string(&csv).with_context(|| format!("{}", csv.display()))?;
        let table = Table::from_csv_str(&text).with_context(|| format!("{}", csv.display()))?;
        let c = comparison(r, &table, &manifest.grid.keys(), 0.05);
        c.write(out)?;
        Ok((ran.rows.len(), Some(c)))
    }
}
