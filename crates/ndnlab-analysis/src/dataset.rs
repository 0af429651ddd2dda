//! One response observed under combinations of factor levels: the input of
//! every design analysis.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{AnalysisError, Result};
use crate::levels::ordered_levels;
use crate::table::Table;

/// How the response is transformed before the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transform {
    /// The additive model: y as measured.
    #[default]
    None,
    /// The multiplicative model (Jain, section 18.7): log10 y, for responses that
    /// span orders of magnitude or whose effects multiply. Effects `q` then read
    /// as factors `10^q`.
    Log10,
}

/// A factor and its levels in level order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Factor {
    pub name: String,
    pub levels: Vec<String>,
}

/// One observation: the level index of each factor, the (transformed) response
/// and the file line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub levels: Vec<usize>,
    pub y: f64,
    pub line: usize,
}

/// A response observed under factor levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub response: String,
    pub transform: Transform,
    pub factors: Vec<Factor>,
    pub observations: Vec<Observation>,
}

/// Observations grouped by cell (one combination of levels), cells in level
/// order, observations in file order.
pub type Cells = Vec<(Vec<usize>, Vec<usize>)>;

impl Dataset {
    /// Takes the factor columns and the response column of a table.
    pub fn from_table(
        table: &Table,
        factors: &[&str],
        response: &str,
        transform: Transform,
    ) -> Result<Self> {
        if table.is_empty() {
            return Err(AnalysisError::Empty("no data rows".into()));
        }
        if factors.is_empty() {
            return Err(AnalysisError::BadParameter("no factors given".into()));
        }
        for (i, f) in factors.iter().enumerate() {
            if factors[..i].contains(f) {
                return Err(AnalysisError::DuplicateColumn(f.to_string()));
            }
            if *f == response {
                return Err(AnalysisError::BadParameter(format!(
                    "column {f:?} cannot be both a factor and the response"
                )));
            }
        }
        let ys = table.numbers(response)?;
        let mut fs = Vec::new();
        let mut idx = Vec::new();
        for f in factors {
            let col = table.text(f)?;
            let levels = ordered_levels(&col);
            let pos: HashMap<&str, usize> = levels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.as_str(), i))
                .collect();
            idx.push(col.iter().map(|v| pos[v]).collect::<Vec<_>>());
            fs.push(Factor {
                name: f.to_string(),
                levels,
            });
        }
        let mut observations = Vec::with_capacity(table.len());
        for (row, &raw) in ys.iter().enumerate() {
            let y = match transform {
                Transform::None => raw,
                Transform::Log10 => {
                    if raw <= 0.0 {
                        return Err(AnalysisError::NotPositive {
                            column: response.to_string(),
                            line: table.line(row),
                            value: raw,
                        });
                    }
                    raw.log10()
                }
            };
            observations.push(Observation {
                levels: idx.iter().map(|c| c[row]).collect(),
                y,
                line: table.line(row),
            });
        }
        Ok(Dataset {
            response: response.to_string(),
            transform,
            factors: fs,
            observations,
        })
    }

    /// The response label, naming the transform.
    pub fn response_label(&self) -> String {
        match self.transform {
            Transform::None => self.response.clone(),
            Transform::Log10 => format!("log10({})", self.response),
        }
    }

    /// The observations grouped by cell, cells sorted by level indices.
    pub fn cells(&self) -> Cells {
        let mut map: HashMap<&[usize], Vec<usize>> = HashMap::new();
        for (i, o) in self.observations.iter().enumerate() {
            map.entry(o.levels.as_slice()).or_default().push(i);
        }
        let mut cells: Cells = map.into_iter().map(|(k, v)| (k.to_vec(), v)).collect();
        cells.sort();
        cells
    }

    /// A readable name of a cell: `A=low, B=high`.
    pub fn cell_name(&self, levels: &[usize]) -> String {
        self.factors
            .iter()
            .zip(levels)
            .map(|(f, &l)| format!("{}={}", f.name, f.levels[l]))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks that every cell holds the same number of observations and returns it.
    pub fn replicates(&self, cells: &Cells) -> Result<usize> {
        let (ref_cell, ref_obs) = &cells[0];
        let r = ref_obs.len();
        for (cell, obs) in cells {
            if obs.len() != r {
                return Err(AnalysisError::Unbalanced {
                    cell: self.cell_name(cell),
                    found: obs.len(),
                    line: self.observations[obs[0]].line,
                    reference: self.cell_name(ref_cell),
                    expected: r,
                });
            }
        }
        Ok(r)
    }

    /// Checks that a replicate column holds no id twice within a cell.
    pub fn check_replicate_ids(&self, table: &Table, column: &str) -> Result<()> {
        let ids = table.text(column)?;
        let mut seen: HashMap<(&[usize], &str), ()> = HashMap::new();
        for (row, o) in self.observations.iter().enumerate() {
            if seen.insert((o.levels.as_slice(), ids[row]), ()).is_some() {
                return Err(AnalysisError::DuplicateReplicate {
                    column: column.to_string(),
                    line: o.line,
                    value: ids[row].to_string(),
                    cell: self.cell_name(&o.levels),
                });
            }
        }
        Ok(())
    }
}
