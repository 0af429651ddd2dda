//! The model file: what the fit found, for the simulator and the stochastic
//! model to read. TOML, one `[[entry]]` per stage, packet type, Content Store
//! outcome and combination of factor levels; its format is documented in
//! docs/FITTING.md ("The model file").

use std::collections::BTreeMap;
use std::path::Path;

use ndnlab_analysis::fit::Dist;
use serde::{Deserialize, Serialize};

use crate::{ModelError, Result};

/// The value of `format` this version writes and reads.
pub const FORMAT: &str = "ndnlab-model/1";

/// A whole model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The unit of every value, scale and location (`ns` for latencies).
    pub unit: String,
    /// The sample files the model was fitted from.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The entries, in stage, packet, cs, factors order.
    #[serde(default, rename = "entry")]
    pub entries: Vec<Entry>,
}

/// Goodness of fit of an entry's distribution to its sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitQuality {
    /// Probability plot correlation coefficient (Filliben's positions).
    pub ppcc: f64,
    /// Anderson-Darling A².
    pub ad: f64,
    /// Kolmogorov-Smirnov D.
    pub ks: f64,
}

/// Summary of the sample an entry was fitted to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleStats {
    pub min: f64,
    pub mean: f64,
    pub median: f64,
    pub p99: f64,
    pub max: f64,
}

/// One fitted distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The stage: `input`, `queue`, `fwd`, `output`, `total` for the
    /// forwarder's sample columns (the column without `_ns`), or the name of
    /// a plain sample file.
    pub stage: String,
    /// `interest`, `data`, `nack` or `any` (all packet types pooled).
    #[serde(default = "any")]
    pub packet: String,
    /// `hit`, `miss` or `any` (pooled, or not applicable).
    #[serde(default = "any")]
    pub cs: String,
    /// Factor levels of the samples (empty without factors).
    #[serde(default)]
    pub factors: BTreeMap<String, String>,
    /// Number of values fitted.
    pub n: usize,
    /// The chosen distribution and its parameters.
    pub dist: Dist,
    pub fit: FitQuality,
    pub stats: SampleStats,
    /// Why this distribution, in words.
    #[serde(default)]
    pub verdict: String,
}

fn any() -> String {
    "any".into()
}

/// Picks entries: a field left `None` matches anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    pub stage: Option<String>,
    pub packet: Option<String>,
    pub cs: Option<String>,
    pub factors: BTreeMap<String, String>,
}

impl Entry {
    /// `stage/packet/cs{factor=level,...}`, as tables and messages name an entry.
    pub fn label(&self) -> String {
        label(&self.stage, &self.packet, &self.cs, &self.factors)
    }

    /// Whether the selector picks this entry.
    pub fn matches(&self, s: &Selector) -> bool {
        s.stage.iter().all(|v| *v == self.stage)
            && s.packet.iter().all(|v| *v == self.packet)
            && s.cs.iter().all(|v| *v == self.cs)
            && s.factors
                .iter()
                .all(|(k, v)| self.factors.get(k) == Some(v))
    }
}

/// The label of a group or entry.
pub fn label(stage: &str, packet: &str, cs: &str, factors: &BTreeMap<String, String>) -> String {
    let mut s = format!("{stage}/{packet}/{cs}");
    if !factors.is_empty() {
        let f: Vec<String> = factors.iter().map(|(k, v)| format!("{k}={v}")).collect();
        s += &format!("{{{}}}", f.join(","));
    }
    s
}

impl ModelFile {
    /// An empty model in `unit`.
    pub fn new(unit: &str) -> ModelFile {
        ModelFile {
            format: FORMAT.into(),
            unit: unit.into(),
            sources: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// Parses and checks a model file's text; errors name the entry and key.
    pub fn from_toml(text: &str, path: &Path) -> Result<ModelFile> {
        let bad = |message: String| ModelError::Model {
            path: path.to_path_buf(),
            message,
        };
        let m: ModelFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        if m.format != FORMAT {
            return Err(bad(format!(
                "format is {:?}; this version reads {FORMAT:?}",
                m.format
            )));
        }
        for (i, e) in m.entries.iter().enumerate() {
            let at = |msg: String| bad(format!("entry {} ({}): {msg}", i + 1, e.label()));
            e.dist.validate().map_err(|m| at(format!("dist: {m}")))?;
            if e.stage.is_empty() {
                return Err(at("stage is empty".into()));
            }
            if let Some(j) = m.entries[..i].iter().position(|o| o.label() == e.label()) {
                return Err(at(format!(
                    "the same stage, packet, cs and factors as entry {}",
                    j + 1
                )));
            }
        }
        Ok(m)
    }

    /// Reads a model file.
    pub fn load(path: &Path) -> Result<ModelFile> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        ModelFile::from_toml(&text, path)
    }

    /// The TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a model always serialises")
    }

    /// Writes the model file.
    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_toml()).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The one entry a selector picks; an error listing the candidates otherwise.
    pub fn select(&self, s: &Selector) -> Result<&Entry> {
        let hits: Vec<&Entry> = self.entries.iter().filter(|e| e.matches(s)).collect();
        match hits.as_slice() {
            [one] => Ok(one),
            [] => Err(ModelError::Usage(format!(
                "no entry matches; the model has: {}",
                self.entries
                    .iter()
                    .map(Entry::label)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            many => Err(ModelError::Usage(format!(
                "{} entries match ({}); narrow with --stage, --packet, --cs, --factor",
                many.len(),
                many.iter()
                    .map(|e| e.label())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}
