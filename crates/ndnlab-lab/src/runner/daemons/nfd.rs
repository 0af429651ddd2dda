//! NFD as a node of a daemon run (`kind = "nfd"` in `[forwarder]` or
//! `[nodes.<name>]`).
//!
//! * **Configuration.** Each NFD node gets `<out>/nodes/<run_id>/<node>.nfd.conf`
//!   in NFD's INFO format ([`conf`]): the node's Unix socket, UDP and TCP
//!   listeners on the node's port (IPv4 only, no multicast, no Ethernet),
//!   `cs_max_packets` from `cs_capacity`, `cs_policy`, NFD's default strategy
//!   choices with the node's `strategy` table over them, and the authorization
//!   of NFD's sample configuration: any signer for `faces`, `fib`, `cs` and
//!   `strategy-choice`, and a `rib` whose localhost trust anchor is `any`.
//! * **Process.** `nfd --config FILE` (`$NDNLAB_NFD`, else `nfd` on the PATH)
//!   with `HOME` set to a directory of its own under the run's temp dir, so its
//!   PIB and TPM (`~/.ndn`) are its own; with no identity there, NFD signs its
//!   management responses with DigestSha256. It is ready when it answers
//!   `status/general` on its socket.
//! * **Faces, routes, counters** go through the same management code as
//!   `ndnlab fwd` nodes: NFD's `certfile any` accepts the DigestSha256 command
//!   Interests ndnlab's client sends.
//! * **Links.** NFD has no emulated link layer. Under the `processes` runner a
//!   link with an NFD end and any emulation goes through a [`Relay`] in the
//!   runner's process that emulates what the NFD end sends (an `ndnlab fwd` end
//!   emulates what it sends itself); such links must be UDP. Under `netns`,
//!   `tc` shapes the rate and the faces carry the MTU; delay, jitter and loss on
//!   a link with an NFD end are refused by key.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Instant;

use ndnlab_app::client::blocking::BlockingClient;
use ndnlab_app::client::FaceUri;

use super::relay::Relay;
use super::{Endpoint, Fabric, Place};
use crate::experiment::{ForwarderSpec, LinkSpec};
use crate::runner::RunPlan;

/// NFD's own strategy choices (its sample configuration's), under the node's.
const DEFAULT_STRATEGIES: &[(&str, &str)] = &[
    ("/", "/localhost/nfd/strategy/best-route"),
    ("/localhost", "/localhost/nfd/strategy/multicast"),
    ("/localhost/nfd", "/localhost/nfd/strategy/best-route"),
    ("/ndn/broadcast", "/localhost/nfd/strategy/multicast"),
];

/// The NFD binary: `$NDNLAB_NFD`, else `nfd` on the PATH (`None`: neither).
pub fn binary() -> Option<PathBuf> {
    if let Some(b) = std::env::var_os("NDNLAB_NFD") {
        return Some(b.into());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("nfd"))
        .find(|p| p.is_file())
}

/// Whether `node` runs NFD.
pub(super) fn is_nfd(plan: &RunPlan, node: &str) -> bool {
    plan.exp.forwarder_of(node).kind == "nfd"
}

/// The `nfd.conf` of a node with forwarder `f`, socket `sock` and UDP and TCP
/// listeners on `port`.
pub fn conf(f: &ForwarderSpec, sock: &Path, port: u16) -> String {
    let mut strategies: BTreeMap<&str, &str> = DEFAULT_STRATEGIES.iter().copied().collect();
    for (prefix, s) in &f.strategy {
        strategies.insert(prefix, s);
    }
    let mut choice = String::new();
    for (prefix, s) in &strategies {
        let _ = writeln!(choice, "    {prefix} {s}");
    }
    let policy = if f.cs_policy == "priority-fifo" {
        "priority_fifo"
    } else {
        "lru"
    };
    format!(
        "log\n{{\n  default_level INFO\n}}\n\
         forwarder\n{{\n  default_hop_limit 0\n}}\n\
         tables\n{{\n  cs_max_packets {cs}\n  cs_policy {policy}\n  cs_unsolicited_policy drop-all\n\
         \x20 strategy_choice\n  {{\n{choice}  }}\n}}\n\
         face_system\n{{\n  general\n  {{\n    enable_congestion_marking yes\n  }}\n\
         \x20 unix\n  {{\n    path {sock}\n  }}\n\
         \x20 tcp\n  {{\n    listen yes\n    port {port}\n    enable_v4 yes\n    enable_v6 no\n  }}\n\
         \x20 udp\n  {{\n    listen yes\n    port {port}\n    enable_v4 yes\n    enable_v6 no\n    \
         idle_timeout 600\n    unicast_mtu 8800\n    mcast no\n  }}\n}}\n\
         authorizations\n{{\n  authorize\n  {{\n    certfile any\n    privileges\n    {{\n      \
         faces\n      fib\n      cs\n      strategy-choice\n    }}\n  }}\n}}\n\
         rib\n{{\n  localhost_security\n  {{\n    trust-anchor\n    {{\n      type any\n    }}\n  }}\n}}\n",
        cs = f.cs_capacity,
        sock = sock.display(),
    )
}

/// Whether a link has anything for a relay to emulate (an MTU too: the relay
/// drops frames over it, as `ndnlab fwd`'s face emulation does; TCP links have
/// none).
fn emulated(l: &LinkSpec) -> bool {
    l.emu.delay_ms > 0.0
        || l.emu.jitter_ms > 0.0
        || l.emu.loss_pct > 0.0
        || l.bandwidth_mbps() > 0.0
        || (l.emu.mtu > 0 && l.face != "tcp")
}

/// Checks that the fabric can carry out every link with an NFD end; the error
/// names the link and the key. `relayed`: the fabric is this host's loopback
/// (the `processes` runner), where a relay emulates the links.
pub(super) fn check(plan: &RunPlan, relayed: bool) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        let nfd: Vec<&str> = [&l.a, &l.b]
            .into_iter()
            .filter(|n| is_nfd(plan, n))
            .map(String::as_str)
            .collect();
        let Some(first) = nfd.first() else {
            continue;
        };
        let s = &l.spec;
        if s.face == "ether" {
            anyhow::bail!(
                "link {}-{}: face 'ether': NFD node {first} joins the lab over udp and tcp",
                l.a,
                l.b
            );
        }
        if relayed {
            if s.face == "tcp" && emulated(s) {
                anyhow::bail!(
                    "link {}-{}: face 'tcp': an emulated link with an NFD end ({first}) goes \
                     through a UDP relay; use face = \"udp\"",
                    l.a,
                    l.b
                );
            }
        } else {
            if s.emu.mtu > 0 && !s.fragment && s.face != "tcp" {
                anyhow::bail!(
                    "link {}-{}: fragment = false: NFD node {first} has no link emulation to drop \
                     frames over the mtu under the netns runner; use the processes runner",
                    l.a,
                    l.b
                );
            }
            for (k, v) in [
                ("delay_ms", s.emu.delay_ms),
                ("jitter_ms", s.emu.jitter_ms),
                ("loss_pct", s.emu.loss_pct),
            ] {
                if v > 0.0 {
                    anyhow::bail!(
                        "link {}-{}: {k}: NFD node {first} has no link emulation and the netns \
                         runner shapes only the rate (tc); use the processes runner, whose relay \
                         emulates it",
                        l.a,
                        l.b
                    );
                }
            }
        }
    }
    Ok(())
}

/// Puts a [`Relay`] on every emulated link with an NFD end of a loopback
/// fabric: both ends' faces point at it instead of at each other, and it
/// emulates what each NFD end sends. The relays run until dropped.
pub(super) fn relays(plan: &RunPlan, fabric: &mut Fabric) -> anyhow::Result<Vec<Relay>> {
    let mut out = Vec::new();
    for (k, l) in plan.topology.links.iter().enumerate() {
        let (a_nfd, b_nfd) = (is_nfd(plan, &l.a), is_nfd(plan, &l.b));
        if !(a_nfd || b_nfd) || !emulated(&l.spec) {
            continue;
        }
        let at = |n: &str| SocketAddr::from(([127, 0, 0, 1], fabric.nodes[n].port));
        let params = l.spec.params();
        let r = Relay::start(
            at(&l.a),
            at(&l.b),
            a_nfd.then(|| params.clone()),
            b_nfd.then_some(params),
            plan.seed.wrapping_mul(1_000_003).wrapping_add(k as u64),
        )?;
        let (pa, pb) = r.ports();
        for (me, peer, port) in [(&l.a, &l.b, pa), (&l.b, &l.a, pb)] {
            let uri = format!("udp4://127.0.0.1:{port}");
            fabric.faces.insert(
                (me.clone(), peer.clone()),
                Endpoint {
                    rule: format!("remote = \"{uri}\""),
                    uri,
                    local: None,
                },
            );
        }
        let emulates: Vec<String> = [(a_nfd, &l.a, &l.b), (b_nfd, &l.b, &l.a)]
            .into_iter()
            .filter(|(n, _, _)| *n)
            .map(|(_, x, y)| format!("{x}->{y}"))
            .collect();
        let _ = writeln!(
            fabric.description,
            "relay {}-{}: {} faces 127.0.0.1:{pa}, {} faces 127.0.0.1:{pb}; emulates {}",
            l.a,
            l.b,
            l.a,
            l.b,
            emulates.join(", ")
        );
        out.push(r);
    }
    Ok(out)
}

/// The command that starts NFD on `place` with configuration `conf` and home
/// directory `home` (created here).
pub(super) fn command(place: &Place, conf: &Path, home: &Path) -> anyhow::Result<Command> {
    // A point, not the campaign: its ndnlab points still run (and `ndnlab
    // reproduce` reports the NFD rows as skipped).
    let bin = binary().ok_or_else(|| {
        crate::campaign::not_applicable(
            "forwarder.kind = \"nfd\": NFD is not installed (no `nfd` on the PATH and NDNLAB_NFD is not set)",
        )
    })?;
    std::fs::create_dir_all(home)?;
    let mut cmd = super::command(place, &bin);
    cmd.arg("--config").arg(conf).env("HOME", home);
    Ok(cmd)
}

/// Waits until the NFD of `node` answers `status/general` on `sock`, or fails
/// naming its log once it has exited or `deadline` has passed.
pub(super) fn wait_ready(
    node: &str,
    child: &mut Child,
    sock: &Path,
    deadline: Instant,
    log: &Path,
) -> anyhow::Result<()> {
    let uri = FaceUri::Unix(sock.to_path_buf());
    loop {
        if let Some(status) = child.try_wait()? {
            anyhow::bail!(
                "NFD of node {node} exited at start ({status}; see {})",
                log.display()
            );
        }
        if sock.exists() {
            if let Ok(c) = BlockingClient::connect(&uri) {
                if c.dataset("status", "general").is_ok() {
                    return Ok(());
                }
            }
        }
        if Instant::now() > deadline {
            anyhow::bail!(
                "NFD of node {node} did not answer status/general on {} in time (see {})",
                sock.display(),
                log.display()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conf_has_socket_ports_cs_and_strategies() {
        let mut f = ForwarderSpec {
            kind: "nfd".into(),
            cs_capacity: 1234,
            cs_policy: "priority-fifo".into(),
            ..Default::default()
        };
        f.strategy
            .insert("/lab".into(), "/localhost/nfd/strategy/multicast".into());
        f.strategy
            .insert("/".into(), "/localhost/nfd/strategy/asf".into());
        let c = conf(&f, Path::new("/tmp/x/r0.sock"), 40123);
        let lines: Vec<&str> = c.lines().map(str::trim).collect();
        for want in [
            "path /tmp/x/r0.sock",
            "port 40123",
            "cs_max_packets 1234",
            "cs_policy priority_fifo",
            "/lab /localhost/nfd/strategy/multicast",
            "/ /localhost/nfd/strategy/asf",
            "/localhost/nfd /localhost/nfd/strategy/best-route",
            "mcast no",
            "enable_v6 no",
            "certfile any",
            "type any",
        ] {
            assert!(lines.contains(&want), "no line '{want}' in\n{c}");
        }
        // the node's choice replaces NFD's default for the same prefix
        assert!(!lines.contains(&"/ /localhost/nfd/strategy/best-route"));
        assert_eq!(lines.iter().filter(|l| **l == "port 40123").count(), 2);
        // no Ethernet or WebSocket listeners, no keys beyond the sample's
        assert!(!c.contains("ether") && !c.contains("websocket") && !c.contains("certfile ."));
    }

    #[test]
    fn conf_is_balanced_info() {
        let c = conf(&ForwarderSpec::default(), Path::new("/s"), 1);
        let mut depth = 0i32;
        for l in c.lines() {
            match l.trim() {
                "{" => depth += 1,
                "}" => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0, "{c}");
        }
        assert_eq!(depth, 0, "{c}");
        assert!(c.contains("cs_max_packets 65536") && c.contains("cs_policy lru"));
    }
}
