//! The `processes` runner: Mini-NDN's model without Mininet. Every node is an
//! `ndnlab fwd` process on this host with UDP and TCP listeners on a loopback
//! port reserved for it; the faces toward its neighbours go to their ports. The
//! run itself (configurations, daemons, faces and routes through management,
//! apps, metrics) is [`super::daemons::run`], shared with the `netns` runner.
//! Links: `udp` (and `memory`, this runner's default) and `tcp`; the daemons
//! emulate every link parameter (`[[faces.emulation]]`, matched by the remote
//! URI), each end what it sends, so a link's parameters apply both ways. A
//! link with an NFD node at an end goes through a UDP relay in this process
//! that emulates what the NFD end sends ([`super::daemons::nfd`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::daemons::{self, Endpoint, Fabric, Place};
use super::{Metrics, RunPlan, Runner};

/// See the module documentation.
pub struct Processes {
    binary: PathBuf,
}

impl Processes {
    /// A runner starting [`daemons::ndnlab_binary`].
    pub fn new() -> anyhow::Result<Processes> {
        Ok(Processes {
            binary: daemons::ndnlab_binary("processes")?,
        })
    }
}

/// A free loopback port (UDP and TCP both free), found by binding port 0.
fn free_port() -> anyhow::Result<u16> {
    for _ in 0..64 {
        let u = std::net::UdpSocket::bind("127.0.0.1:0")?;
        let port = u.local_addr()?.port();
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    anyhow::bail!("no free loopback port")
}

/// Every node on this host, on a loopback port of its own.
fn loopback(plan: &RunPlan) -> anyhow::Result<Fabric> {
    let mut port = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    for n in &plan.topology.nodes {
        let p = free_port()?;
        port.insert(n.clone(), p);
        nodes.insert(
            n.clone(),
            Place {
                wrap: Vec::new(),
                port: p,
                listen: format!(
                    "[faces.udp]\nlisten = [\"127.0.0.1:{p}\"]\n[faces.tcp]\nlisten = [\"127.0.0.1:{p}\"]\n"
                ),
            },
        );
    }
    let mut faces = BTreeMap::new();
    for l in &plan.topology.links {
        let scheme = if l.spec.face == "tcp" { "tcp4" } else { "udp4" };
        for (me, peer) in [(&l.a, &l.b), (&l.b, &l.a)] {
            let uri = format!("{scheme}://127.0.0.1:{}", port[peer]);
            faces.insert(
                (me.clone(), peer.clone()),
                Endpoint {
                    rule: format!("remote = \"{uri}\""),
                    uri,
                    local: None,
                },
            );
        }
    }
    Ok(Fabric {
        nodes,
        faces,
        daemon_rate: true,
        keep: Vec::new(),
        description: String::new(),
    })
}

impl Runner for Processes {
    fn name(&self) -> &'static str {
        "processes"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        daemons::check(plan, "processes", &["memory", "udp", "tcp"])?;
        let started = Instant::now();
        let fabric = loopback(plan)?;
        daemons::run(&self.binary, plan, dir, fabric, started)
    }
}
