//! Main effects of the factors on a latency statistic across labelled
//! samples (the seed's sensitivity analysis before fitting, its Fig. 10): the
//! statistic is computed per group, and `ndnlab_analysis::means` averages it
//! at each level of each factor. The packet type and the CS outcome count as
//! factors when the samples have more than one of them.

use std::collections::BTreeMap;
use std::str::FromStr;

use ndnlab_analysis::dataset::Observation;
use ndnlab_analysis::levels::ordered_levels;
use ndnlab_analysis::means::{main_effects, MainEffect};
use ndnlab_analysis::summary::{mean, percentile};
use ndnlab_analysis::{Dataset, Factor, Transform};
use serde::Serialize;

use crate::samples::Group;
use crate::{ModelError, Result};

/// The latency statistic compared across samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    Mean,
    Median,
    P99,
}

impl FromStr for Stat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Stat, String> {
        match s {
            "mean" => Ok(Stat::Mean),
            "median" | "p50" => Ok(Stat::Median),
            "p99" => Ok(Stat::P99),
            _ => Err(format!("unknown statistic {s:?} (mean, median, p99)")),
        }
    }
}

impl Stat {
    pub fn name(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::Median => "median",
            Stat::P99 => "p99",
        }
    }

    /// The statistic of a sample.
    pub fn of(self, values: &[f64]) -> f64 {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        match self {
            Stat::Mean => mean(&v),
            Stat::Median => percentile(&v, 50.0),
            Stat::P99 => percentile(&v, 99.0),
        }
    }
}

/// The main effects on one stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageEffects {
    pub stage: String,
    pub stat: Stat,
    /// The statistic of each group: (group label, value).
    pub groups: Vec<(String, f64)>,
    pub effects: Vec<MainEffect>,
}

/// Main effects per stage, for the stages whose groups differ in at least one
/// factor (packet type and CS outcome included). Empty when nothing varies.
pub fn stage_effects(groups: &[Group], stat: Stat) -> Result<Vec<StageEffects>> {
    let mut by_stage: BTreeMap<&str, Vec<&Group>> = BTreeMap::new();
    for g in groups {
        by_stage.entry(g.key.stage.as_str()).or_default().push(g);
    }
    let mut out = Vec::new();
    for (stage, gs) in by_stage {
        // Factor name -> level of each group.
        let mut cols: Vec<(String, Vec<String>)> = Vec::new();
        let mut names: Vec<String> = gs
            .iter()
            .flat_map(|g| g.key.factors.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        for n in names {
            let levels = gs
                .iter()
                .map(|g| g.key.factors.get(&n).cloned().unwrap_or_else(|| "-".into()))
                .collect();
            cols.push((n, levels));
        }
        cols.push((
            "packet".into(),
            gs.iter().map(|g| g.key.packet.clone()).collect(),
        ));
        cols.push(("cs".into(), gs.iter().map(|g| g.key.cs.clone()).collect()));
        cols.retain(|(_, l)| l.iter().any(|v| *v != l[0]));
        if cols.is_empty() {
            continue;
        }
        let factors: Vec<Factor> = cols
            .iter()
            .map(|(n, l)| Factor {
                name: n.clone(),
                levels: ordered_levels(&l.iter().map(String::as_str).collect::<Vec<_>>()),
            })
            .collect();
        let observations = gs
            .iter()
            .enumerate()
            .map(|(i, g)| Observation {
                levels: cols
                    .iter()
                    .zip(&factors)
                    .map(|((_, l), f)| f.levels.iter().position(|x| *x == l[i]).unwrap_or(0))
                    .collect(),
                y: stat.of(&g.values),
                line: i + 1,
            })
            .collect();
        let ds = Dataset {
            response: format!("{} of {stage}", stat.name()),
            transform: Transform::None,
            factors,
            observations,
        };
        let effects = main_effects(&ds, 0.05).map_err(|e| ModelError::Fit {
            group: stage.to_string(),
            message: e.to_string(),
        })?;
        out.push(StageEffects {
            stage: stage.to_string(),
            stat,
            groups: gs
                .iter()
                .map(|g| (g.key.label(), stat.of(&g.values)))
                .collect(),
            effects,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::GroupKey;

    fn g(threads: &str, packet: &str, values: Vec<f64>) -> Group {
        Group {
            key: GroupKey {
                stage: "fwd".into(),
                packet: packet.into(),
                cs: "any".into(),
                factors: [("threads".to_string(), threads.to_string())].into(),
            },
            values,
        }
    }

    #[test]
    fn level_means_of_the_statistic() {
        let gs = vec![
            g("1", "interest", vec![10.0, 10.0]),
            g("1", "data", vec![20.0]),
            g("2", "interest", vec![30.0]),
            g("2", "data", vec![40.0]),
        ];
        let e = stage_effects(&gs, Stat::Mean).unwrap();
        assert_eq!(e.len(), 1);
        let th = &e[0].effects[0];
        assert_eq!(th.factor, "threads");
        assert_eq!(th.levels[0].summary.mean, 15.0);
        assert_eq!(th.levels[1].summary.mean, 35.0);
        let pk = &e[0].effects[1];
        assert_eq!(pk.factor, "packet");
        assert_eq!(pk.levels.len(), 2);
    }
}
