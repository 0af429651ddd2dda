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
    Ok(Fabric {
        nodes,
        faces: ip_faces(plan, &port, |_, _| "127.0.0.1"),
        daemon_rate: true,
        programs_are_children: true,
        keep: Vec::new(),
        description: String::new(),
    })
}

/// The UDP (or TCP, per the link's `face`) face of each end of every link toward
/// the neighbour's listening port, at the address `addr(me, peer)` gives for it.
pub(super) fn ip_faces<'a>(
    plan: &'a RunPlan,
    port: &BTreeMap<String, u16>,
    addr: impl Fn(&'a str, &'a str) -> &'a str,
) -> BTreeMap<(String, String), Endpoint> {
    let mut faces = BTreeMap::new();
    for l in &plan.topology.links {
        let scheme = if l.spec.face == "tcp" { "tcp4" } else { "udp4" };
        for (me, peer) in [(&l.a, &l.b), (&l.b, &l.a)] {
            let uri = format!("{scheme}://{}:{}", addr(me, peer), port[peer]);
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
    faces
}

/// On loopback every node shares 127.0.0.1, so an emulation rule can name a
/// TCP neighbour only by its listening port: it matches the connection a node
/// opens, not the one its neighbour opened to it, on which the Data come back.
/// Such a link would be emulated one way only, so a TCP link with a delay,
/// jitter, loss or rate is a point this runner cannot carry out (the netns
/// runner matches by address, both ways).
pub(super) fn check_tcp_emulation(plan: &RunPlan, runner: &str) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        let s = &l.spec;
        let emulated = s.emu.delay_ms > 0.0
            || s.emu.jitter_ms > 0.0
            || s.emu.loss_pct > 0.0
            || s.bandwidth_mbps() > 0.0;
        if s.face == "tcp" && emulated {
            return Err(crate::campaign::not_applicable(format!(
                "link {}-{}: face 'tcp' with a delay, jitter, loss or rate: the {runner} runner emulates a TCP link in one direction only (neighbours on one address differ by port, and the Data return on the neighbour's connection); use face = \"udp\", or the netns runner",
                l.a, l.b
            )));
        }
    }
    Ok(())
}

impl Runner for Processes {
    fn name(&self) -> &'static str {
        "processes"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        daemons::check(plan, "processes", &["memory", "udp", "tcp"])?;
        check_tcp_emulation(plan, "processes")?;
        let started = Instant::now();
        let fabric = loopback(plan)?;
        daemons::run(&self.binary, plan, dir, fabric, started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(link: &str) -> RunPlan {
        let text = format!(
            "[topology]\nkind = \"line\"\nn = 2\n[link]\n{link}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n"
        );
        let (_, exp) = crate::experiment::parse(&text, "t.toml").unwrap();
        RunPlan::new(0, 1, exp).unwrap()
    }

    #[test]
    fn a_tcp_link_with_emulation_is_not_applicable_and_says_why() {
        for link in [
            "face = \"tcp\"\ndelay_ms = 10.0",
            "face = \"tcp\"\nloss_pct = 1.0",
            "face = \"tcp\"\nbandwidth_mbps = 100.0",
        ] {
            let e = check_tcp_emulation(&plan(link), "processes").expect_err(link);
            assert!(e.is::<crate::campaign::NotApplicable>(), "{link}: {e:#}");
            assert!(format!("{e}").contains("r0-r1"), "{e}");
        }
        for link in ["face = \"tcp\"", "face = \"udp\"\ndelay_ms = 10.0"] {
            check_tcp_emulation(&plan(link), "processes").unwrap();
        }
    }
}
