//! Graphviz DOT of a topology, for `ndnlab topo export`: one undirected graph,
//! links labelled with what they do to frames, nodes with the applications they
//! carry (consumers and producers coloured apart), and positions where the
//! source file gives them (render with `neato -n` to keep them).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::experiment::{Experiment, LinkSpec};
use crate::topology::Topology;

/// An application on a node: (group name, its kind).
pub type Role = (String, String);

/// The applications of `exp` on each node of `topo`.
pub fn roles(exp: &Experiment, topo: &Topology) -> Result<BTreeMap<String, Vec<Role>>, String> {
    let mut out: BTreeMap<String, Vec<Role>> = BTreeMap::new();
    for (group, app) in &exp.apps {
        for node in topo
            .select(&app.nodes)
            .map_err(|e| format!("apps.{group}.nodes: {e}"))?
        {
            out.entry(node)
                .or_default()
                .push((group.clone(), app.kind.clone()));
        }
    }
    Ok(out)
}

/// A DOT identifier: always quoted, with quotes and backslashes escaped.
fn id(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a link does, in a few words: `10ms ±2ms 100Mbit/s 1% q50 mtu1500`
/// (only what differs from an ideal memory link), and the face when not memory.
pub fn link_label(s: &LinkSpec) -> String {
    let ideal = LinkSpec::default();
    let mut words = Vec::new();
    if s.face != ideal.face {
        words.push(s.face.clone());
    }
    let e = &s.emu;
    if e.delay_ms != 0.0 {
        words.push(format!("{}ms", e.delay_ms));
    }
    if e.jitter_ms != 0.0 {
        words.push(format!("±{}ms", e.jitter_ms));
    }
    if s.bandwidth_mbps() != 0.0 {
        words.push(format!("{}Mbit/s", s.bandwidth_mbps()));
    }
    if e.loss_pct != 0.0 {
        words.push(format!("{}%", e.loss_pct));
    }
    if s.queue() != 0 {
        words.push(format!("q{}", s.queue()));
    }
    if e.mtu != 0 {
        words.push(format!("mtu{}", e.mtu));
    }
    if s.cost != ideal.cost {
        words.push(format!("cost {}", s.cost));
    }
    words.join(" ")
}

/// The DOT text of `topo`, named `name`.
pub fn to_dot(
    name: &str,
    topo: &Topology,
    roles: &BTreeMap<String, Vec<Role>>,
    positions: &BTreeMap<String, (f64, f64)>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "graph {} {{", id(name));
    out.push_str("  graph [overlap=false, splines=true];\n");
    out.push_str("  node [shape=circle, fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"Helvetica\", fontsize=8];\n");
    // positions only when every node has one (a partial layout helps no renderer)
    let placed = !topo.nodes.is_empty() && topo.nodes.iter().all(|n| positions.contains_key(n));
    for n in &topo.nodes {
        let mut attrs = Vec::new();
        if let Some(apps) = roles.get(n) {
            let label = std::iter::once(n.clone())
                .chain(apps.iter().map(|(g, k)| format!("{g} ({k})")))
                .collect::<Vec<_>>()
                .join("\n");
            attrs.push(format!("label={}", id(&label)));
            attrs.push("shape=box".into());
            attrs.push("style=filled".into());
            let answers = |k: &str| matches!(k, "producer" | "repository" | "put");
            let consumer = apps.iter().any(|(_, k)| !answers(k));
            let producer = apps.iter().any(|(_, k)| answers(k));
            let colour = match (consumer, producer) {
                (true, true) => "plum",
                (true, false) => "lightblue",
                _ => "lightsalmon",
            };
            attrs.push(format!("fillcolor={colour}"));
        }
        if let Some((x, y)) = positions.get(n).filter(|_| placed) {
            // points: 72 per inch, one unit of the source file an inch
            attrs.push(format!("pos=\"{:.1},{:.1}!\"", x * 72.0, y * 72.0));
        }
        if attrs.is_empty() {
            let _ = writeln!(out, "  {};", id(n));
        } else {
            let _ = writeln!(out, "  {} [{}];", id(n), attrs.join(", "));
        }
    }
    for l in &topo.links {
        let label = link_label(&l.spec);
        if label.is_empty() {
            let _ = writeln!(out, "  {} -- {};", id(&l.a), id(&l.b));
        } else {
            let _ = writeln!(
                out,
                "  {} -- {} [label={}];",
                id(&l.a),
                id(&l.b),
                id(&label)
            );
        }
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Link;

    #[test]
    fn nodes_links_roles_and_escapes() {
        let topo = Topology {
            nodes: vec!["a".into(), "b\"x".into()],
            links: vec![Link {
                a: "a".into(),
                b: "b\"x".into(),
                spec: LinkSpec {
                    emu: ndnlab_proto::emu::LinkConfig {
                        delay_ms: 10.0,
                        bandwidth_mbps: Some(100.0),
                        queue: Some(50),
                        ..Default::default()
                    },
                    face: "udp".into(),
                    ..Default::default()
                },
            }],
        };
        let roles = BTreeMap::from([(
            "a".to_string(),
            vec![("client".to_string(), "consumer".to_string())],
        )]);
        let pos = BTreeMap::from([
            ("a".to_string(), (1.0, 2.0)),
            ("b\"x".to_string(), (2.0, 2.0)),
        ]);
        let d = to_dot("t", &topo, &roles, &pos);
        assert!(d.starts_with("graph \"t\" {"), "{d}");
        assert!(d.contains("\"a\" [label=\"a\\nclient (consumer)\""), "{d}");
        assert!(d.contains("fillcolor=lightblue"), "{d}");
        assert!(d.contains("pos=\"72.0,144.0!\""), "{d}");
        let partial = BTreeMap::from([("a".to_string(), (1.0, 2.0))]);
        assert!(!to_dot("t", &topo, &roles, &partial).contains("pos="));
        assert!(
            d.contains("\"a\" -- \"b\\\"x\" [label=\"udp 10ms 100Mbit/s q50\"];"),
            "{d}"
        );
        assert!(d.trim_end().ends_with('}'));
    }
}
