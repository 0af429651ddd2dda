//! Where an experiment's consumers go: one per selected node of every consumer
//! group, each with its own seed and what it asks for. Every runner that runs the
//! laboratory's apps itself (`inproc`, `sim`) places them from here.

use super::Names;
use crate::experiment::AppSpec;
use crate::runner::RunPlan;

/// What a placed consumer fetches.
pub enum Wants {
    /// A `get` of the object a `put` publishes, of this many bytes.
    Object { size: u64 },
    /// A catalogue or ping consumer's names.
    Names(Names),
}

/// One consumer of the run.
pub struct Placed<'a> {
    pub group: &'a str,
    pub spec: &'a AppSpec,
    pub node: String,
    /// Distinct per group and node: two groups on one node must not send the
    /// same names with the same Nonces (a loop, to the forwarder).
    pub seed: u64,
    pub wants: Wants,
}

impl Placed<'_> {
    /// The consumer's label in results: `group@node`.
    pub fn label(&self) -> String {
        format!("{}@{}", self.group, self.node)
    }
}

/// Every consumer of `plan`, in group then node order.
pub fn consumers(plan: &RunPlan) -> anyhow::Result<Vec<Placed<'_>>> {
    let exp = &plan.exp;
    let mut out = Vec::new();
    for (group, a) in &exp.apps {
        if !a.is_consumer() {
            continue;
        }
        let from = match exp.apps.get(&a.from) {
            Some(g) => Some((
                g,
                plan.topology.select(&g.nodes).map_err(anyhow::Error::msg)?,
            )),
            None => None,
        };
        let nodes = plan.topology.select(&a.nodes).map_err(anyhow::Error::msg)?;
        for (k, node) in nodes.into_iter().enumerate() {
            let seed = plan.seed.wrapping_mul(31).wrapping_add(k as u64) ^ group_hash(group);
            let wants = if a.kind == "get" {
                let size = plan.put_size(&a.prefix).ok_or_else(|| {
                    anyhow::anyhow!("apps.{group}.prefix: no put publishes '{}'", a.prefix)
                })?;
                Wants::Object { size }
            } else {
                Wants::Names(Names::new(
                    a,
                    from.as_ref().map(|(g, n)| (*g, &n[..])),
                    seed,
                ))
            };
            out.push(Placed {
                group,
                spec: a,
                node,
                seed,
                wants,
            });
        }
    }
    Ok(out)
}

/// FNV-1a of an app group's name.
fn group_hash(group: &str) -> u64 {
    group.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
