//! The `ndnlab fwd` configuration of each node of a daemon run.

use std::path::Path;

use super::Fabric;
use crate::experiment::LinkSpec;
use crate::runner::RunPlan;

/// The emulation keys of a link (none for a perfect one). Without
/// `with_rate`, bandwidth and queue are left out (the fabric shapes them).
fn emulation_table(l: &LinkSpec, with_rate: bool) -> Option<String> {
    let mut kv = Vec::new();
    let e = &l.emu;
    if e.delay_ms > 0.0 {
        kv.push(format!("delay_ms = {:?}", e.delay_ms));
    }
    if e.jitter_ms > 0.0 {
        kv.push(format!("jitter_ms = {:?}", e.jitter_ms));
    }
    if e.loss_pct > 0.0 {
        kv.push(format!("loss_pct = {:?}", e.loss_pct));
    }
    if with_rate && l.bandwidth_mbps() > 0.0 {
        kv.push(format!("bandwidth_mbps = {:?}", l.bandwidth_mbps()));
        if l.queue() > 0 {
            kv.push(format!("queue = {}", l.queue()));
        }
    }
    if e.mtu > 0 && l.face != "tcp" {
        kv.push(format!("mtu = {}", e.mtu));
    }
    (!kv.is_empty()).then(|| kv.join("\n"))
}

/// The MTU `faces/create` gives a link's faces. A link that fragments
/// (`fragment = true`) gives its own `mtu`: the face cuts larger packets into
/// NDNLPv2 fragments that fit it. With `fragment = false` the face is given the
/// largest MTU it can have (the daemon clamps it to the UDP payload limit, or
/// to the interface's MTU on Ethernet), so it sends each packet as one frame
/// and the link's emulator drops a frame over the link's `mtu`
/// (`link_drops_mtu`), as the inproc runner's unfragmented peer faces do.
/// Without an `mtu`, and on TCP, none: the face keeps its own.
pub(super) fn face_mtu(l: &LinkSpec) -> Option<u64> {
    if l.emu.mtu == 0 || l.face == "tcp" {
        None
    } else if l.fragment {
        Some(l.emu.mtu as u64)
    } else {
        Some(UNFRAGMENTED_MTU)
    }
}

/// The MTU asked for on the faces of a `fragment = false` link: more than any
/// face can carry, so each one takes its own limit.
const UNFRAGMENTED_MTU: u64 = 65535;

/// The configuration of `node`.
pub(super) fn config(
    plan: &RunPlan,
    fabric: &Fabric,
    node: &str,
    sock: &Path,
    dir: &Path,
) -> anyhow::Result<String> {
    let exp = &plan.exp;
    let f = exp
        .nodes
        .get(node)
        .map(|o| o.apply(&exp.forwarder))
        .unwrap_or_else(|| exp.forwarder.clone());
    let mut t = format!(
        "[forwarder]\nthreads = {}\nqueue_capacity = {}\nmax_packet_size = {}\n\
         dispatch_components = {}\ninline = {}\nverify_data = \"{}\"\n\
         [cs]\ncapacity = {}\npolicy = \"{}\"\nadmit = {}\n\
         [faces.unix]\npath = \"{}\"\n{}",
        f.threads,
        f.queue_capacity,
        plan.packet_limit(&f),
        f.dispatch_components,
        f.inline,
        f.verify_data,
        f.cs_capacity,
        f.cs_policy,
        f.cs_capacity > 0,
        sock.display(),
        fabric.nodes[node].listen,
    );
    for (prefix, s) in &f.strategy {
        t += &format!("[[strategy]]\nprefix = \"{prefix}\"\nstrategy = \"{s}\"\n");
    }
    t += &crate::latency::toml_section(&f, dir, plan.run_id, node)?;
    if f.verify_data == "signature" {
        t += &crate::apps::keys::trust_toml(&crate::apps::keys::trust(plan)?);
    }
    for l in &plan.topology.links {
        let peer = if l.a == node {
            &l.b
        } else if l.b == node {
            &l.a
        } else {
            continue;
        };
        if let Some(e) = emulation_table(&l.spec, fabric.daemon_rate) {
            let rule = &fabric.faces[&(node.to_string(), peer.clone())].rule;
            t += &format!("[[faces.emulation]]\n{rule}\n{e}\n");
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(mtu: usize, fragment: bool, face: &str) -> LinkSpec {
        let mut l = LinkSpec {
            fragment,
            face: face.into(),
            ..LinkSpec::default()
        };
        l.emu.mtu = mtu;
        l
    }

    #[test]
    fn faces_fragment_to_the_link_mtu_only_when_it_fragments() {
        assert_eq!(face_mtu(&link(1500, true, "udp")), Some(1500));
        // the face never fragments: the emulator's mtu drops what exceeds 1500
        assert_eq!(face_mtu(&link(1500, false, "udp")), Some(65535));
        assert_eq!(face_mtu(&link(1500, false, "ether")), Some(65535));
        assert_eq!(face_mtu(&link(0, true, "udp")), None);
        assert_eq!(face_mtu(&link(1500, true, "tcp")), None);
        assert_eq!(face_mtu(&link(1500, false, "tcp")), None);
    }
}
