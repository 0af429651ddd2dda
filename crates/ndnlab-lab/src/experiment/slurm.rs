//! `[placement]` and `[slurm]`: where the `slurm` runner puts each node, and the
//! allocation it runs in (see `crate::runner::slurm`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `[placement]`: nodes pinned to hosts; every other node is placed
/// automatically (`crate::runner::slurm::placement`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PlacementSpec {
    /// Node → host, by the host's name (`"host2"`) or its index in the
    /// allocation's host list (0 is the first).
    pub nodes: BTreeMap<String, HostRef>,
    /// What the automatic placement balances: `nodes` (as many nodes on each
    /// host) or `cores` (the forwarders' threads, in proportion to each host's
    /// CPUs in the allocation).
    pub balance: String,
}

impl Default for PlacementSpec {
    fn default() -> Self {
        PlacementSpec {
            nodes: BTreeMap::new(),
            balance: "nodes".into(),
        }
    }
}

/// A host named by `[placement].nodes`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum HostRef {
    Index(usize),
    Name(String),
}

/// `[slurm]`: the allocation the `slurm` runner uses.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SlurmSpec {
    /// Outside an allocation: ask for one with `salloc --no-shell` (held for
    /// the whole campaign, released with `scancel` at its end) instead of
    /// refusing to run.
    pub submit: bool,
    /// Hosts asked for (`salloc -N`) when `submit` is true.
    pub hosts: u32,
    /// `salloc --partition` (empty: the cluster's default).
    pub partition: String,
    /// `salloc --time` (empty: the partition's default).
    pub time: String,
    /// The UDP and TCP port of a host's first node; its k-th node listens on
    /// `base_port + k`.
    pub base_port: u16,
}

impl Default for SlurmSpec {
    fn default() -> Self {
        SlurmSpec {
            submit: false,
            hosts: 2,
            partition: String::new(),
            time: String::new(),
            base_port: 16363,
        }
    }
}

impl PlacementSpec {
    pub(crate) fn is_default(&self) -> bool {
        *self == PlacementSpec::default()
    }

    /// Checks the keys; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if !["nodes", "cores"].contains(&self.balance.as_str()) {
            return Err(format!(
                "placement.balance: '{}' is not 'nodes' or 'cores'",
                self.balance
            ));
        }
        for (node, h) in &self.nodes {
            if matches!(h, HostRef::Name(n) if n.is_empty()) {
                return Err(format!("placement.nodes.{node}: an empty host name"));
            }
        }
        Ok(())
    }
}

impl SlurmSpec {
    pub(crate) fn is_default(&self) -> bool {
        *self == SlurmSpec::default()
    }

    /// Checks the keys; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.hosts == 0 {
            return Err("slurm.hosts must be at least 1".into());
        }
        if self.base_port == 0 || self.base_port > 60_000 {
            return Err(format!(
                "slurm.base_port: {} is not a port between 1 and 60000",
                self.base_port
            ));
        }
        Ok(())
    }
}
