//! The `netns` runner: each node in a Linux network namespace of its own
//! (`ndnlab-<pid>-<k>-<node>`: this process, the runner's k-th fabric, the node),
//! the namespaces joined by veth pairs, and the same `ndnlab fwd` daemons and
//! application processes as the `processes` runner ([`super::daemons::run`]),
//! each started through `ip netns exec`.
//!
//! * **Addresses.** Link `k` is a veth pair with interface `l<k>` at both ends
//!   and the `/30` at `10.0.0.0 + 4k`: its first node gets `.1`, its second
//!   `.2`. The range exists only inside the namespaces the runner creates (each
//!   holds its own links and its loopback, nothing else), so it cannot clash
//!   with the host's networks. Forwarders listen on `0.0.0.0:6363` in their
//!   namespace; UDP and TCP faces go to the neighbour's address on the shared
//!   link. The Unix sockets of the apps are files, reachable across namespaces.
//! * **Ethernet.** `ether` links get `ether://[MAC]` faces with
//!   `local = "dev://l<k>"`; the runner sets the MAC addresses
//!   (`02:6c:61:..`, locally administered), so configs are written before
//!   anything starts.
//! * **Link emulation.** Bandwidth (with `queue` as the limit) is `tc tbf` on
//!   both ends of the veth; delay, jitter, loss and MTU are the daemons' face
//!   emulation (`[[faces.emulation]]` matched by the neighbour's address or MAC),
//!   so the kernel needs no `tc netem`. NFD nodes have no face emulation:
//!   a link with an NFD end may have a rate (`tc`) and an MTU (the faces'
//!   own), and its delay, jitter and loss are refused by key
//!   ([`super::daemons::nfd`]).
//! * **Cleanup.** Namespaces are [`crate::cleanup::Namespace`]s, deleted when
//!   the run ends, fails or is interrupted; deleting a namespace deletes the veth
//!   ends in it, and no veth end is ever on the host. Namespaces left by an
//!   `ndnlab` that was killed with SIGKILL (their pid is gone) are deleted when
//!   the next netns run starts.
//!
//! It needs root and iproute2 (`ip`, `tc`); without them every run fails with a
//! message saying it was skipped and why.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::daemons::{self, Endpoint, Fabric, Place};
use super::{Metrics, RunPlan, Runner};
use crate::cleanup::Namespace;

/// See the module documentation.
pub struct Netns {
    binary: PathBuf,
}

impl Netns {
    /// A runner starting [`daemons::ndnlab_binary`]; refused (before any run)
    /// where namespaces cannot be made.
    pub fn new() -> anyhow::Result<Netns> {
        if let Some(why) = unavailable() {
            anyhow::bail!(why);
        }
        Ok(Netns {
            binary: daemons::ndnlab_binary("netns")?,
        })
    }
}

/// Why this process cannot create namespaces, if it cannot: not root, no
/// iproute2, or `ip netns add` of a probe namespace fails (a container
/// without the capability).
pub fn unavailable() -> Option<String> {
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(
            "the netns runner needs root (it creates network namespaces and veth pairs); run as root, or use the processes runner".into(),
        );
    }
    for tool in ["ip", "tc"] {
        let found = Command::new(tool)
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Some(format!(
                "the netns runner needs `{tool}` (iproute2) on the PATH"
            ));
        }
    }
    let probe = probe_name();
    if let Err(e) = ip(&["netns", "add", &probe]) {
        return Some(format!(
            "the netns runner cannot create network namespaces here ({e:#}); use the processes runner"
        ));
    }
    let _ = ip(&["netns", "delete", &probe]);
    None
}

/// The name of a probe namespace: the pid and a process-wide count, so that
/// probes at once in one process (test threads) never share a name.
fn probe_name() -> String {
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("ndnlab-probe-{}-{n}", std::process::id())
}

/// Runs `ip args...`; the error holds its stderr.
pub(crate) fn ip(args: &[&str]) -> anyhow::Result<String> {
    tool("ip", args)
}

fn tool(name: &str, args: &[&str]) -> anyhow::Result<String> {
    let o = Command::new(name)
        .args(args)
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {name}: {e}"))?;
    if !o.status.success() {
        anyhow::bail!(
            "{name} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

impl Runner for Netns {
    fn name(&self) -> &'static str {
        "netns"
    }

    fn run(&self, plan: &RunPlan, dir: &Path) -> anyhow::Result<Metrics> {
        daemons::check(plan, "netns", &["memory", "udp", "tcp", "ether"])?;
        let started = Instant::now();
        let fabric = build(plan)?;
        daemons::run(&self.binary, plan, dir, fabric, started)
    }
}

/// The address of side `side` (0 or 1) of link `k`.
pub fn link_addr(k: usize, side: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 0, 0, 0)) + 4 * k as u32 + 1 + side)
}

/// The MAC address of side `side` (0 or 1) of link `k`.
pub fn link_mac(k: usize, side: u8) -> String {
    format!(
        "02:6c:61:{:02x}:{:02x}:{:02x}",
        (k >> 8) & 0xff,
        k & 0xff,
        side + 1
    )
}

/// Deletes the `ndnlab-<pid>-...` namespaces whose process is gone.
fn sweep_stale() {
    let Ok(list) = ip(&["netns", "list"]) else {
        return;
    };
    for line in list.lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(pid) = name
            .strip_prefix("ndnlab-")
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "delete", name]);
        }
    }
}

/// Namespaces, veth pairs, addresses and shapers of a run.
fn build(plan: &RunPlan) -> anyhow::Result<Fabric> {
    static FABRICS: AtomicU64 = AtomicU64::new(0);
    anyhow::ensure!(
        plan.topology.links.len() < 65_536,
        "the netns runner addresses 65535 links at most"
    );
    sweep_stale();
    let prefix = format!(
        "ndnlab-{}-{}",
        std::process::id(),
        FABRICS.fetch_add(1, Ordering::Relaxed)
    );
    let mut keep: Vec<Box<dyn std::any::Any>> = Vec::new();
    let mut ns = BTreeMap::new();
    for node in &plan.topology.nodes {
        let g = Namespace::add(&format!("{prefix}-{node}"))?;
        ip(&["-n", g.name(), "link", "set", "lo", "up"])?;
        ns.insert(node.clone(), g.name().to_string());
        keep.push(Box::new(g));
    }
    let mut faces = BTreeMap::new();
    let mut description = String::new();
    for (node, n) in &ns {
        description += &format!("node {node}: namespace {n}\n");
    }
    for (k, l) in plan.topology.links.iter().enumerate() {
        let dev = format!("l{k}");
        let (na, nb) = (&ns[&l.a], &ns[&l.b]);
        let mac = [link_mac(k, 0), link_mac(k, 1)];
        // an Ethernet face fragments to its interface's MTU: a link that must
        // not fragment gets an interface that carries any packet whole, and
        // its emulator drops the frames over the link's mtu
        let if_mtu = if l.spec.face == "ether" && !l.spec.fragment && l.spec.emu.mtu > 0 {
            "65535"
        } else {
            "1500"
        };
        ip(&[
            "link", "add", &dev, "address", &mac[0], "mtu", if_mtu, "netns", na, "type", "veth",
            "peer", "name", &dev, "address", &mac[1], "mtu", if_mtu, "netns", nb,
        ])?;
        for (n, side) in [(na, 0), (nb, 1)] {
            let addr = format!("{}/30", link_addr(k, side));
            ip(&["-n", n, "addr", "add", &addr, "dev", &dev])?;
            ip(&["-n", n, "link", "set", &dev, "up"])?;
            if l.spec.bandwidth_mbps() > 0.0 {
                shape(
                    n,
                    &dev,
                    l.spec.bandwidth_mbps(),
                    l.spec.queue(),
                    l.spec.emu.mtu,
                )?;
            }
        }
        description += &format!(
            "link {k} {}-{} ({}): {dev} {} {} <-> {dev} {} {}\n",
            l.a,
            l.b,
            l.spec.face,
            link_addr(k, 0),
            mac[0],
            link_addr(k, 1),
            mac[1]
        );
        for n in [na, nb] {
            let q = tool("tc", &["-n", n, "qdisc", "show", "dev", &dev])?;
            description += &format!("  {n}: {}\n", q.trim());
        }
        for (me, peer, side) in [(&l.a, &l.b, 1usize), (&l.b, &l.a, 0)] {
            let end = if l.spec.face == "ether" {
                let uri = format!("ether://[{}]", mac[side]);
                Endpoint {
                    rule: format!("remote = \"{uri}\""),
                    uri,
                    local: Some(format!("dev://{dev}")),
                }
            } else {
                let scheme = if l.spec.face == "tcp" { "tcp4" } else { "udp4" };
                let addr = link_addr(k, side as u32);
                Endpoint {
                    uri: format!("{scheme}://{addr}:6363"),
                    local: None,
                    // a link's addresses are its own: this matches the faces
                    // created toward the neighbour and the ones it opens
                    rule: format!("remote_ip = \"{addr}\""),
                }
            };
            faces.insert((me.clone(), peer.clone()), end);
        }
    }
    let nodes = ns
        .into_iter()
        .map(|(node, n)| {
            (
                node,
                Place {
                    wrap: vec!["ip".into(), "netns".into(), "exec".into(), n],
                    port: 6363,
                    listen: "[faces.udp]\nlisten = [\"0.0.0.0:6363\"]\n[faces.tcp]\nlisten = [\"0.0.0.0:6363\"]\n"
                        .into(),
                },
            )
        })
        .collect();
    Ok(Fabric {
        nodes,
        faces,
        daemon_rate: false,
        programs_are_children: true,
        keep,
        description,
    })
}

/// `tc tbf` at `mbps` on `dev` in namespace `ns`: a burst of 10 ms at the rate
/// (at least two frames), and a limit of `queue` frames of the link's MTU (1500
/// bytes without one), or 50 ms at the rate when the queue is unbounded.
fn shape(ns: &str, dev: &str, mbps: f64, queue: usize, mtu: usize) -> anyhow::Result<()> {
    let frame = if mtu > 0 { mtu } else { 1500 };
    let bytes_per_s = mbps * 1e6 / 8.0;
    let burst = ((bytes_per_s / 100.0) as usize).max(2 * frame);
    let limit = if queue > 0 {
        queue * frame
    } else {
        ((bytes_per_s * 0.05) as usize).max(2 * frame)
    };
    let rate = format!("{}kbit", (mbps * 1000.0).round().max(1.0) as u64);
    let (burst, limit) = (burst.to_string(), limit.to_string());
    tool(
        "tc",
        &[
            "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", &rate, "burst", &burst,
            "limit", &limit,
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_addresses_and_macs() {
        assert_eq!(link_addr(0, 0), Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(link_addr(0, 1), Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(link_addr(64, 1), Ipv4Addr::new(10, 0, 1, 2));
        assert_eq!(link_mac(258, 1), "02:6c:61:01:02:02");
    }

    #[test]
    fn probes_at_once_have_names_of_their_own() {
        let names: std::collections::BTreeSet<String> = std::thread::scope(|s| {
            let h: Vec<_> = (0..8).map(|_| s.spawn(probe_name)).collect();
            h.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(names.len(), 8, "{names:?}");
        let pid = format!("ndnlab-probe-{}-", std::process::id());
        assert!(names.iter().all(|n| n.starts_with(&pid)), "{names:?}");
    }
}
