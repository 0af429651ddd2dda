//! The pipelines of `ndnlab model fit` and `ndnlab model sample`: samples read,
//! fitted, their effects computed, the model file written; and the measured
//! values a generated sample is compared with. The laboratory draws the
//! figures of a fit (`ndnlab_lab::plots::fitting`).

use std::path::{Path, PathBuf};

use ndnlab_analysis::fit::FitOptions;

use crate::effects::{stage_effects, StageEffects, Stat};
use crate::fitting::{fit_groups, model_of, GroupFit};
use crate::model::{Entry, ModelFile};
use crate::samples::{read_groups, Group, ReadOptions};
use crate::{ModelError, Result};

/// What fitting a set of sample files gives.
#[derive(Debug)]
pub struct Fitted {
    /// The model file, one entry per group.
    pub model: ModelFile,
    /// Every group's fit.
    pub fits: Vec<GroupFit>,
    /// Main effects of the factors on `stat` of each stage.
    pub effects: Vec<StageEffects>,
}

/// Reads `samples` grouped by `read`, fits every group with `opts`, and computes
/// the factors' main effects on `stat`; values are in `unit`.
pub fn fit(
    samples: &[PathBuf],
    read: &ReadOptions,
    opts: &FitOptions,
    stat: Stat,
    unit: &str,
) -> Result<Fitted> {
    let groups = read_groups(samples, read)?;
    if groups.is_empty() {
        return Err(ModelError::Usage(format!(
            "no values in {}",
            samples
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let effects = stage_effects(&groups, stat)?;
    let fits = fit_groups(groups, opts)?;
    let sources = samples.iter().map(|p| p.display().to_string()).collect();
    let model = model_of(&fits, unit, sources);
    Ok(Fitted {
        model,
        fits,
        effects,
    })
}

/// The measured values of `entry` in `path`: its stage's column (`column`, or
/// `<stage>_ns`) of a forwarder's sample file, or a plain file's values; the
/// group of `entry`'s stage, packet and CS outcome, or the file's only group.
pub fn measured(path: &Path, column: Option<&str>, entry: &Entry) -> Result<Group> {
    let read = ReadOptions {
        columns: vec![column.map_or_else(|| format!("{}_ns", entry.stage), str::to_string)],
        stage: Some(entry.stage.clone()),
        ..Default::default()
    };
    let plain = ReadOptions {
        columns: Vec::new(),
        ..read.clone()
    };
    let file = [path.to_path_buf()];
    let mut groups = read_groups(&file, &read).or_else(|_| read_groups(&file, &plain))?;
    let at = groups.iter().position(|g| {
        g.key.stage == entry.stage && g.key.packet == entry.packet && g.key.cs == entry.cs
    });
    match at {
        Some(i) => Ok(groups.swap_remove(i)),
        None if groups.len() == 1 => Ok(groups.remove(0)),
        None => Err(ModelError::Usage(format!(
            "{}: no values of {}",
            path.display(),
            entry.label()
        ))),
    }
}
