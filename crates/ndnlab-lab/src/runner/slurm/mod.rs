//! The `slurm` runner: one topology across the hosts of a Slurm allocation.
//! The run itself is the `processes` runner's ([`super::daemons::run`]: one
//! `ndnlab fwd` per node with a generated configuration, faces and routes
//! through NFD management once every daemon said it is ready, apps as `ndnlab
//! perf` / `ndnlab traffic` processes); this runner's [`Fabric`] puts each
//! node on a host and starts every one of its programs there as a Slurm step.
//!
//! * **Allocation** ([`allocation`]): the one this process is in, or with
//!   `[slurm] submit = true` one `salloc --no-shell` grants, held for the
//!   campaign and cancelled at its end. Each host is probed once by a step
//!   that prints its address (`hostname -I`, the first IPv4 one) and its CPUs.
//! * **Placement** ([`placement`]): `[placement].nodes` pins nodes to hosts by
//!   name or index; the others are partitioned automatically. The result is
//!   written to `nodes/<run>/placement.json`.
//! * **Launch.** Every forwarder and app is `srun --jobid=J --nodes=1
//!   --ntasks=1 --nodelist=HOST --overlap --kill-on-bad-exit=1 ndnlab ...`: Slurm
//!   starts it on its host, forwards its output (the ready handshake comes back
//!   through srun's stdout), signals it and cleans it up with the job. The
//!   lab's cleanup registry holds the srun processes; killing an srun ends its
//!   step.
//! * **Links.** A host's k-th node listens on UDP and TCP `base_port + k` on
//!   every address. A link within a host is a face to `127.0.0.1`, as in the
//!   `processes` runner; a link across hosts is a face to the peer host's
//!   address. Either way the daemons' face layer emulates the link's delay,
//!   jitter, loss, rate and queue, each end what it sends.
//! * **Management.** The runner reaches each daemon on its Unix socket under
//!   `$TMPDIR` (`ndnlab-lab-<pid>-<run>/<node>.sock`) and the apps reach theirs
//!   there: the runner must share a kernel and that directory with every host.
//!   The local namespaced cluster (`scripts/slurm-cluster.sh`) does; hosts
//!   that are separate machines do not (see docs/DISTRIBUTED.md).
//! * **Measurement.** Logs, samples and metrics go to the one run directory;
//!   the link counters are the daemons' own, cross-host links included. The
//!   consumers measure delivery times alone, so the hosts' clocks need not
//!   agree. The per-node CPU metrics are not reported: the runner's child is
//!   srun, not the program.

pub mod allocation;
pub mod placement;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::daemons::{self, Fabric, Place};
use super::{Metrics, RunPlan, Runner};
use crate::experiment::HostRef;
use allocation::{Allocation, Host};
use placement::{HostRecord, Problem, Record};

/// See the module documentation.
pub struct Slurm {
    binary: PathBuf,
    /// Got at the first run, kept for the campaign.
    allocation: Mutex<Option<Arc<Allocation>>>,
}

impl Slurm {
    /// A runner starting [`daemons::ndnlab_binary`].
    pub fn new() -> anyhow::Result<Slurm> {
        Ok(Slurm {
            binary: daemons::ndnlab_binary("slurm")?,
            allocation: Mutex::new(None),
        })
    }

    fn allocation(&self, plan: &RunPlan) -> anyhow::Result<Arc<Allocation>> {
        let mut a = self.allocation.lock().expect("allocation lock");
        if let Some(a) = &*a {
            return Ok(a.clone());
        }
        let got = Arc::new(Allocation::get(&plan.exp.slurm)?);
        *a = Some(got.clone());
        Ok(got)
    }
}

impl Runner for Slurm {
    fn name(&self) -> &'static str {
        "slurm"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        daemons::check(plan, "slurm", &["memory", "udp", "tcp"])?;
        super::processes::check_tcp_emulation(plan, "slurm")?;
        let started = Instant::now();
        let alloc = self.allocation(plan)?;
        let (parts, record) = place(plan, &alloc.hosts)?;
        let conf_dir = dir.join("nodes").join(plan.run_id.to_string());
        std::fs::create_dir_all(&conf_dir)?;
        std::fs::write(
            conf_dir.join("placement.json"),
            serde_json::to_string_pretty(&record)? + "\n",
        )?;
        let fabric = fabric(plan, &alloc, &parts)?;
        let mut m = daemons::run(&self.binary, plan, dir, fabric, started)?;
        m.insert("hosts".into(), alloc.hosts.len() as f64);
        m.insert("cut_links".into(), record.cut_links.len() as f64);
        Ok(m)
    }
}

/// Each node's host index, and what `placement.json` records.
pub fn place(plan: &RunPlan, hosts: &[Host]) -> anyhow::Result<(Vec<usize>, Record)> {
    let spec = &plan.exp.placement;
    let nodes = &plan.topology.nodes;
    let index: BTreeMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut pinned = BTreeMap::new();
    for (node, h) in &spec.nodes {
        let v = *index.get(node.as_str()).ok_or_else(|| {
            anyhow::anyhow!("placement.nodes.{node}: the topology has no node '{node}'")
        })?;
        let host = match h {
            HostRef::Index(i) if *i < hosts.len() => *i,
            HostRef::Index(i) => anyhow::bail!(
                "placement.nodes.{node}: host {i}, but the allocation has {} (0..{})",
                hosts.len(),
                hosts.len() - 1
            ),
            HostRef::Name(name) => hosts.iter().position(|x| &x.name == name).ok_or_else(|| {
                anyhow::anyhow!(
                    "placement.nodes.{node}: no host '{name}' in the allocation ({})",
                    hosts
                        .iter()
                        .map(|h| h.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?,
        };
        pinned.insert(v, host);
    }
    let cores = spec.balance == "cores";
    let weights: Vec<f64> = nodes
        .iter()
        .map(|n| {
            if cores {
                plan.exp.forwarder_of(n).threads.max(1) as f64
            } else {
                1.0
            }
        })
        .collect();
    let capacity: Vec<f64> = hosts
        .iter()
        .map(|h| if cores { h.cpus.max(1) as f64 } else { 1.0 })
        .collect();
    let links: Vec<(usize, usize)> = plan
        .topology
        .links
        .iter()
        .map(|l| (index[l.a.as_str()], index[l.b.as_str()]))
        .collect();
    let parts = placement::partition(&Problem {
        weights: &weights,
        links: &links,
        capacity: &capacity,
        pinned: &pinned,
    });
    let total: f64 = weights.iter().sum();
    let cap: f64 = capacity.iter().sum();
    let record = Record {
        method: if pinned.len() == nodes.len() {
            "pinned".into()
        } else {
            "greedy growth and Kernighan-Lin refinement".into()
        },
        balance: spec.balance.clone(),
        hosts: hosts
            .iter()
            .enumerate()
            .map(|(h, x)| HostRecord {
                name: x.name.clone(),
                address: x.address.clone(),
                cpus: x.cpus,
                target: total * capacity[h] / cap,
                weight: (0..nodes.len())
                    .filter(|&v| parts[v] == h)
                    .map(|v| weights[v])
                    .sum(),
                nodes: (0..nodes.len())
                    .filter(|&v| parts[v] == h)
                    .map(|v| nodes[v].clone())
                    .collect(),
            })
            .collect(),
        nodes: nodes
            .iter()
            .enumerate()
            .map(|(v, n)| (n.clone(), hosts[parts[v]].name.clone()))
            .collect(),
        cut_links: links
            .iter()
            .filter(|(a, b)| parts[*a] != parts[*b])
            .map(|&(a, b)| [nodes[a].clone(), nodes[b].clone()])
            .collect(),
    };
    Ok((parts, record))
}

/// Places, ports and faces of the placed nodes.
fn fabric(plan: &RunPlan, alloc: &Arc<Allocation>, parts: &[usize]) -> anyhow::Result<Fabric> {
    let base = plan.exp.slurm.base_port as usize;
    let mut on_host = vec![0usize; alloc.hosts.len()];
    let mut port = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    let mut description = format!("slurm job {}\n", alloc.job);
    for (v, n) in plan.topology.nodes.iter().enumerate() {
        let h = &alloc.hosts[parts[v]];
        let p = base + on_host[parts[v]];
        on_host[parts[v]] += 1;
        let p = u16::try_from(p).map_err(|_| {
            anyhow::anyhow!(
                "slurm.base_port: {base} + {} nodes on host {} is past port 65535",
                on_host[parts[v]],
                h.name
            )
        })?;
        port.insert(n.clone(), p);
        description += &format!("node {n}: host {} ({}) port {p}\n", h.name, h.address);
        let step = format!("ndnlab-{}-{}-{n}", std::process::id(), plan.run_id);
        nodes.insert(
            n.clone(),
            Place {
                wrap: alloc.srun(&h.name, &step),
                port: p,
                listen: format!(
                    "[faces.udp]\nlisten = [\"0.0.0.0:{p}\"]\n[faces.tcp]\nlisten = [\"0.0.0.0:{p}\"]\n"
                ),
            },
        );
    }
    let host_of = |n: &str| {
        let v = plan
            .topology
            .nodes
            .iter()
            .position(|x| x == n)
            .expect("a node");
        parts[v]
    };
    let faces = super::processes::ip_faces(plan, &port, |me, peer| {
        if host_of(me) == host_of(peer) {
            "127.0.0.1"
        } else {
            &alloc.hosts[host_of(peer)].address
        }
    });
    Ok(Fabric {
        nodes,
        faces,
        daemon_rate: true,
        programs_are_children: false,
        keep: Vec::new(),
        description,
    })
}
