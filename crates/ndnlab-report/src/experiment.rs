//! An experiment's output directory, as the laboratory writes it:
//!
//! ```text
//! DIR/results.csv       one row per run: run_id, <factors...>, replicate, seed, status, <metrics...>
//! DIR/experiment.toml   optional: the experiment's description; a [factors] table
//! DIR/machine.json      optional: the machine it ran on
//! DIR/samples/*.csv     optional: raw samples or time series, one file per run (<run_id>.csv)
//! ```
//!
//! Factor columns are, in order of precedence: the ones the caller declares; the
//! keys of `experiment.toml`'s `[factors]` table that are columns of
//! `results.csv`; the columns between `run_id` and `replicate`; the columns
//! holding text other than `run_id` and `status`. Metrics are the numeric
//! columns that are neither factors nor `run_id`, `replicate`, `seed` or
//! `status`. Rows whose `status` is present and not `ok` are left out of the
//! analysis and counted.

use std::path::{Path, PathBuf};

use ndnlab_analysis::Table;

use crate::reference::Reference;
use crate::ReportError;

/// Columns of `results.csv` that are bookkeeping, not factors or metrics.
pub const RESERVED: [&str; 4] = ["run_id", "replicate", "seed", "status"];

/// A samples file.
#[derive(Debug, Clone)]
pub struct Samples {
    /// The file stem, by convention the run id.
    pub name: String,
    pub table: Table,
}

/// Everything read from an experiment directory.
#[derive(Debug, Clone)]
pub struct ExperimentDir {
    pub dir: PathBuf,
    /// All rows of `results.csv`.
    pub results: Table,
    pub experiment: Option<toml::Table>,
    pub machine: Option<serde_json::Value>,
    pub samples: Vec<Samples>,
}

fn read(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_csv(path: &Path) -> Result<Table, ReportError> {
    Table::from_csv_str(&read(path)?).map_err(|source| ReportError::Analysis {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads an experiment directory.
pub fn load_dir(dir: &Path) -> Result<ExperimentDir, ReportError> {
    let results = parse_csv(&dir.join("results.csv"))?;
    let toml_path = dir.join("experiment.toml");
    let experiment = if toml_path.exists() {
        Some(
            read(&toml_path)?
                .parse::<toml::Table>()
                .map_err(|e| ReportError::Parse {
                    path: toml_path.clone(),
                    message: e.to_string(),
                })?,
        )
    } else {
        None
    };
    let json_path = dir.join("machine.json");
    let machine = if json_path.exists() {
        Some(
            serde_json::from_str(&read(&json_path)?).map_err(|e| ReportError::Parse {
                path: json_path.clone(),
                message: e.to_string(),
            })?,
        )
    } else {
        None
    };
    let mut samples = Vec::new();
    let sdir = dir.join("samples");
    if sdir.is_dir() {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&sdir)
            .map_err(|source| ReportError::Io {
                path: sdir.clone(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        paths.sort();
        for p in paths {
            samples.push(Samples {
                name: p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                table: parse_csv(&p)?,
            });
        }
    }
    Ok(ExperimentDir {
        dir: dir.to_path_buf(),
        results,
        experiment,
        machine,
        samples,
    })
}

impl ExperimentDir {
    /// The factor columns, by the rule of this module's documentation.
    pub fn factors(&self, declared: Option<&[String]>) -> Result<Vec<String>, ReportError> {
        let t = &self.results;
        if let Some(d) = declared {
            for f in d {
                t.column_index(f).map_err(|source| ReportError::Analysis {
                    path: self.dir.join("results.csv"),
                    source,
                })?;
            }
            return Ok(d.to_vec());
        }
        if let Some(table) = self
            .experiment
            .as_ref()
            .and_then(|e| e.get("factors"))
            .and_then(|f| f.as_table())
        {
            let fs: Vec<String> = table.keys().filter(|k| t.has_column(k)).cloned().collect();
            if !fs.is_empty() {
                // In results.csv order.
                return Ok(t
                    .headers()
                    .iter()
                    .filter(|h| fs.contains(h))
                    .cloned()
                    .collect());
            }
        }
        let h = t.headers();
        if let (Some(a), Some(b)) = (
            h.iter().position(|c| c == "run_id"),
            h.iter().position(|c| c == "replicate"),
        ) {
            if b > a + 1 {
                return Ok(h[a + 1..b].to_vec());
            }
        }
        Ok(h.iter()
            .filter(|c| !RESERVED.contains(&c.as_str()) && !t.is_numeric(c))
            .cloned()
            .collect())
    }

    /// The rows that count: `status` absent or `ok`.
    pub fn ok_rows(&self) -> (Table, usize) {
        let t = &self.results;
        match t.column_index("status") {
            Ok(c) => {
                let kept = t.filter(|r| t.cell(r, c).eq_ignore_ascii_case("ok"));
                let dropped = t.len() - kept.len();
                (kept, dropped)
            }
            Err(_) => (t.clone(), 0),
        }
    }

    /// The metric columns of the rows that count, in the declared order
    /// (`experiment.metrics`; a column `name.<node>` goes with `name`), the
    /// others after them in `results.csv` order.
    pub fn metrics(&self, ok: &Table, factors: &[String]) -> Vec<String> {
        let declared = self.declared_metrics();
        let rank = |c: &str| {
            let base = c.split('.').next().unwrap_or(c);
            declared
                .iter()
                .position(|d| d == base)
                .unwrap_or(declared.len())
        };
        let mut ms: Vec<String> = ok
            .headers()
            .iter()
            .filter(|c| !RESERVED.contains(&c.as_str()) && !factors.contains(c))
            .filter(|c| ok.is_numeric(c))
            .cloned()
            .collect();
        ms.sort_by_key(|c| rank(c));
        ms
    }

    /// `experiment.metrics` of experiment.toml, in its order (empty when absent).
    pub fn declared_metrics(&self) -> Vec<String> {
        self.meta("metrics")
            .and_then(|m| m.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A key of the `[experiment]` table of experiment.toml, or a top-level key
    /// of that name.
    fn meta(&self, key: &str) -> Option<&toml::Value> {
        let e = self.experiment.as_ref()?;
        e.get("experiment")
            .and_then(|m| m.as_table())
            .and_then(|m| m.get(key))
            .or_else(|| e.get(key))
    }

    /// The `[reference]` table of experiment.toml: the paper's numbers.
    pub fn reference(&self) -> Result<Option<Reference>, ReportError> {
        let Some(v) = self.experiment.as_ref().and_then(|e| e.get("reference")) else {
            return Ok(None);
        };
        let path = self.dir.join("experiment.toml");
        let r: Reference =
            v.clone()
                .try_into()
                .map_err(|e: toml::de::Error| ReportError::Parse {
                    path: path.clone(),
                    message: format!("reference: {}", e.message()),
                })?;
        let factors: Vec<String> = self
            .experiment
            .as_ref()
            .and_then(|e| e.get("factors"))
            .and_then(|f| f.as_table())
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        r.validate(&factors, &|_| true)
            .map_err(|message| ReportError::Parse { path, message })?;
        Ok(Some(r))
    }

    /// The experiment's name: `experiment.name` in experiment.toml, else the directory's.
    pub fn name(&self) -> String {
        self.meta("name")
            .and_then(|n| n.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                self.dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "experiment".into())
            })
    }
}
