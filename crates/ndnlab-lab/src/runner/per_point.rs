//! A campaign whose runner is a factor (`"experiment.runner" = ["inproc",
//! "sim"]`): each run goes to the runner its design point names, so real and
//! virtual time share one results table and one plot.

use std::collections::BTreeMap;
use std::path::Path;

use super::{by_name, Metrics, RunPlan, Runner};

/// The runners of a campaign, by name; a run goes to its point's runner.
pub struct PerPoint {
    runners: BTreeMap<String, Box<dyn Runner>>,
}

impl PerPoint {
    /// The runners called `names` (each once), or why one is not available.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> anyhow::Result<PerPoint> {
        let mut runners = BTreeMap::new();
        for n in names {
            if !runners.contains_key(n) {
                runners.insert(n.to_string(), by_name(n)?);
            }
        }
        anyhow::ensure!(!runners.is_empty(), "no runner named");
        Ok(PerPoint { runners })
    }
}

impl Runner for PerPoint {
    fn name(&self) -> &'static str {
        "per-point"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        let want = plan.exp.experiment.runner.as_str();
        match self.runners.get(want) {
            Some(r) => r.run(plan, dir),
            None => {
                anyhow::bail!("experiment.runner: '{want}' is not among this campaign's runners")
            }
        }
    }

    /// Runs share the machine only when every runner allows it: one runner
    /// that measures real time makes the whole campaign run one run at a time.
    fn parallel_safe(&self) -> bool {
        self.runners.values().all(|r| r.parallel_safe())
    }
}
