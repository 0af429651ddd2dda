//! Fitting every group of samples into a model entry.

use ndnlab_analysis::fit::{fit_sample, FitOptions, SampleFit};

use crate::model::{Entry, FitQuality, ModelFile, SampleStats};
use crate::samples::Group;
use crate::{ModelError, Result};

/// One group and everything its fit found.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFit {
    pub group: Group,
    pub fit: SampleFit,
}

impl GroupFit {
    /// The model entry of this fit.
    pub fn entry(&self) -> Entry {
        let k = &self.group.key;
        let s = &self.fit.stats;
        Entry {
            stage: k.stage.clone(),
            packet: k.packet.clone(),
            cs: k.cs.clone(),
            factors: k.factors.clone(),
            n: s.n,
            dist: self.fit.chosen.clone(),
            fit: FitQuality {
                ppcc: self.fit.ppcc,
                ad: self.fit.ad,
                ks: self.fit.ks,
            },
            stats: SampleStats {
                min: s.min,
                mean: s.mean,
                median: s.median,
                p99: s.p99,
                max: s.max,
            },
            verdict: self.fit.verdict.clone(),
        }
    }
}

/// Fits each group; a group with too few values is an error naming it.
pub fn fit_groups(groups: Vec<Group>, opts: &FitOptions) -> Result<Vec<GroupFit>> {
    groups
        .into_iter()
        .map(|group| {
            let fit = fit_sample(&group.values, opts).map_err(|message| ModelError::Fit {
                group: group.key.label(),
                message,
            })?;
            Ok(GroupFit { group, fit })
        })
        .collect()
}

/// The model file of a set of fits.
pub fn model_of(fits: &[GroupFit], unit: &str, sources: Vec<String>) -> ModelFile {
    let mut m = ModelFile::new(unit);
    m.sources = sources;
    m.entries = fits.iter().map(GroupFit::entry).collect();
    m
}
