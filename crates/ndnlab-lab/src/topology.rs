//! Topologies: named forwarders and the links between them, generated (line,
//! star, dumbbell, binary tree, grid, seeded random graph) or declared, and the routes computed over
//! them (shortest paths by link cost or delay toward every producer prefix).
//! Mini-NDN and ndnSIM topology files are read by [`crate::import`].

use std::collections::{BTreeMap, BTreeSet};

use petgraph::algo::dijkstra;
use petgraph::graph::{NodeIndex, UnGraph};

use crate::experiment::{Experiment, LinkSpec};

/// One link of a resolved topology.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub a: String,
    pub b: String,
    pub spec: LinkSpec,
}

/// Forwarders by name (in creation order) and links.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Topology {
    pub nodes: Vec<String>,
    pub links: Vec<Link>,
}

impl Topology {
    /// The topology an experiment declares.
    pub fn of(exp: &Experiment) -> Result<Topology, String> {
        let n = exp.topology.n as usize;
        let pairs = match exp.topology.kind.as_str() {
            "line" => (names("r", n), (1..n).map(|i| (i - 1, i)).collect()),
            "star" => {
                // hub r0 and n leaves
                let nodes = names("r", n + 1);
                (nodes, (1..=n).map(|i| (0, i)).collect())
            }
            "dumbbell" => {
                // n left leaves - left router - right router - n right leaves
                let mut nodes = vec!["left".to_string(), "right".to_string()];
                let mut links = vec![(0, 1)];
                for i in 0..n {
                    nodes.push(format!("l{i}"));
                    links.push((0, nodes.len() - 1));
                }
                for i in 0..n {
                    nodes.push(format!("r{i}"));
                    links.push((1, nodes.len() - 1));
                }
                (nodes, links)
            }
            "tree" => {
                // a binary tree of depth n: 2^n - 1 nodes, r0 the root
                let count = (1usize << n.min(12)) - 1;
                (
                    names("r", count),
                    (1..count).map(|i| ((i - 1) / 2, i)).collect(),
                )
            }
            "grid" => {
                let mut links = Vec::new();
                for y in 0..n {
                    for x in 0..n {
                        let i = y * n + x;
                        if x + 1 < n {
                            links.push((i, i + 1));
                        }
                        if y + 1 < n {
                            links.push((i, i + n));
                        }
                    }
                }
                let nodes = (0..n * n)
                    .map(|i| format!("r{}_{}", i / n, i % n))
                    .collect();
                (nodes, links)
            }
            "random" => random_graph(n, exp.topology.degree, exp.topology.seed)?,
            "explicit" => {
                let mut nodes: Vec<String> = Vec::new();
                for x in &exp.topology.nodes {
                    if nodes.contains(x) {
                        return Err(format!("topology.nodes: '{x}' is listed twice"));
                    }
                    nodes.push(x.clone());
                }
                for l in &exp.links {
                    for x in [&l.a, &l.b] {
                        if !nodes.contains(x) {
                            nodes.push(x.clone());
                        }
                    }
                }
                for name in exp.nodes.keys() {
                    if !nodes.contains(name) {
                        nodes.push(name.clone());
                    }
                }
                if nodes.is_empty() {
                    return Err("topology.kind = \"explicit\" needs [[links]] or [nodes.*]".into());
                }
                (nodes, Vec::new())
            }
            kind @ ("minindn" | "ndnsim") => {
                let format = crate::import::Format::from_kind(kind).expect("an import kind");
                let path = exp
                    .topology
                    .file_path()
                    .ok_or_else(|| format!("topology.file is required for kind '{kind}'"))?;
                let mut topo = crate::import::load(&path, Some(format))
                    .map_err(|e| e.to_string())?
                    .topology(&exp.link);
                topo.apply_link_entries(exp)?;
                return Ok(topo);
            }
            other => return Err(format!("topology.kind '{other}' is not known")),
        };
        let (nodes, idx) = pairs;
        let mut topo = Topology {
            links: idx
                .into_iter()
                .map(|(a, b): (usize, usize)| Link {
                    a: nodes[a].clone(),
                    b: nodes[b].clone(),
                    spec: exp.link.clone(),
                })
                .collect(),
            nodes,
        };
        topo.apply_link_entries(exp)?;
        Ok(topo)
    }

    /// `[[links]]`: overrides of existing links, or new ones.
    fn apply_link_entries(&mut self, exp: &Experiment) -> Result<(), String> {
        for (i, e) in exp.links.iter().enumerate() {
            for x in [&e.a, &e.b] {
                if !self.nodes.contains(x) {
                    return Err(format!("links[{i}]: no node '{x}'"));
                }
            }
            if e.a == e.b {
                return Err(format!("links[{i}]: a link joins two different nodes"));
            }
            let found = self
                .links
                .iter_mut()
                .find(|l| (l.a == e.a && l.b == e.b) || (l.a == e.b && l.b == e.a));
            match found {
                Some(l) => l.spec = e.apply(&l.spec),
                None => self.links.push(Link {
                    a: e.a.clone(),
                    b: e.b.clone(),
                    spec: e.apply(&exp.link),
                }),
            }
        }
        for name in exp.nodes.keys() {
            if !self.nodes.contains(name) {
                return Err(format!("nodes.{name}: no such node in the topology"));
            }
        }
        Ok(())
    }

    /// Nodes named by an app's `nodes` list (`first`, `last`, `all`, `leaves` or
    /// names).
    pub fn select(&self, which: &[String]) -> Result<Vec<String>, String> {
        let mut out = BTreeSet::new();
        let degree = |n: &String| self.links.iter().filter(|l| &l.a == n || &l.b == n).count();
        for w in which {
            match w.as_str() {
                "first" => {
                    out.insert(self.nodes[0].clone());
                }
                "last" => {
                    out.insert(self.nodes[self.nodes.len() - 1].clone());
                }
                "all" => out.extend(self.nodes.iter().cloned()),
                "leaves" => out.extend(self.nodes.iter().filter(|n| degree(n) <= 1).cloned()),
                // `degree<=K`: the nodes with at most K links (a grid's border: 3)
                d if d.starts_with("degree<=") => {
                    let k: usize = d["degree<=".len()..]
                        .trim()
                        .parse()
                        .map_err(|_| format!("'{d}': expected degree<=K with K a whole number"))?;
                    out.extend(self.nodes.iter().filter(|n| degree(n) <= k).cloned())
                }
                name if self.nodes.iter().any(|n| n == name) => {
                    out.insert(name.to_string());
                }
                other => return Err(format!("no node '{other}' in the topology")),
            }
        }
        // creation order, not alphabetical
        Ok(self
            .nodes
            .iter()
            .filter(|n| out.contains(*n))
            .cloned()
            .collect())
    }

    /// For each node, prefix → next-hop neighbours with their costs: shortest
    /// paths (by `metric`, "cost" or "delay") toward each node serving a prefix.
    /// With `multipath`, every neighbour on some shortest path is a next hop.
    pub fn routes(
        &self,
        producers: &[(String, String)],
        metric: &str,
        multipath: bool,
    ) -> BTreeMap<String, Vec<(String, String, u64)>> {
        let mut g = UnGraph::<String, u64>::new_undirected();
        let idx: BTreeMap<&String, NodeIndex> = self
            .nodes
            .iter()
            .map(|n| (n, g.add_node(n.clone())))
            .collect();
        for l in &self.links {
            let w = match metric {
                "delay" => ((l.spec.emu.delay_ms * 1000.0).round() as u64).max(1),
                _ => l.spec.cost.max(1),
            };
            g.add_edge(idx[&l.a], idx[&l.b], w);
        }
        let mut out: BTreeMap<String, Vec<(String, String, u64)>> = BTreeMap::new();
        for (prefix, at) in producers {
            let dist = dijkstra(&g, idx[at], None, |e| *e.weight());
            for node in &self.nodes {
                if node == at {
                    continue;
                }
                let Some(&d) = dist.get(&idx[node]) else {
                    continue; // unreachable
                };
                let mut hops: Vec<(String, u64)> = g
                    .edges(idx[node])
                    .filter_map(|e| {
                        let other = if e.source() == idx[node] {
                            e.target()
                        } else {
                            e.source()
                        };
                        let via = dist.get(&other)?;
                        (via + e.weight() == d).then(|| (g[other].clone(), d))
                    })
                    .collect();
                hops.sort();
                hops.dedup();
                if !multipath {
                    hops.truncate(1);
                }
                let entry = out.entry(node.clone()).or_default();
                for (via, cost) in hops {
                    entry.push((prefix.clone(), via, cost));
                }
            }
        }
        out
    }
}

use petgraph::visit::EdgeRef;

/// Node names and links by index, as the generators make them.
type Generated = (Vec<String>, Vec<(usize, usize)>);

/// A connected random graph of `n` nodes `r0..`, seeded: a random recursive
/// tree (node i joins a uniformly chosen earlier node), then distinct random
/// links until the mean degree is `degree`.
fn random_graph(n: usize, degree: f64, seed: u64) -> Result<Generated, String> {
    use rand::{Rng, SeedableRng};
    if n < 2 {
        return Err("topology.kind = \"random\" needs n >= 2".into());
    }
    let max_links = n * (n - 1) / 2;
    let want = ((n as f64 * degree / 2.0).round() as usize).clamp(n - 1, max_links);
    if !(degree.is_finite() && degree >= 0.0) {
        return Err(format!(
            "topology.degree = {degree} must be a non-negative number"
        ));
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut seen = BTreeSet::new();
    let mut links = Vec::with_capacity(want);
    for i in 1..n {
        let j = rng.gen_range(0..i);
        seen.insert((j, i));
        links.push((j, i));
    }
    while links.len() < want {
        let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
        let key = (a.min(b), a.max(b));
        if a != b && seen.insert(key) {
            links.push(key);
        }
    }
    Ok((names("r", n), links))
}

fn names(p: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{p}{i}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(kind: &str, n: u32) -> Experiment {
        let text = format!(
            "[topology]\nkind = \"{kind}\"\nn = {n}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n"
        );
        crate::experiment::parse(&text, "t.toml").unwrap().1
    }

    #[test]
    fn random_graphs_are_seeded_connected_and_sized() {
        let text = |seed: u64| {
            format!("[topology]\nkind = \"random\"\nn = 200\ndegree = 4.0\nseed = {seed}\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n")
        };
        let topo = |seed| {
            let (_, e) = crate::experiment::parse(&text(seed), "t.toml").unwrap();
            Topology::of(&e).unwrap()
        };
        let (a, b, c) = (topo(1), topo(1), topo(2));
        assert_eq!(a, b);
        assert_ne!(a.links, c.links);
        assert_eq!(a.nodes.len(), 200);
        assert_eq!(a.links.len(), 400);
        // connected: every node reaches r0
        let routes = a.routes(&[("/p".to_string(), "r0".to_string())], "cost", false);
        assert_eq!(routes.values().filter(|r| !r.is_empty()).count(), 199);
        // no self-loops or duplicate links
        let mut seen = BTreeSet::new();
        for l in &a.links {
            assert_ne!(l.a, l.b);
            assert!(seen.insert((l.a.clone().min(l.b.clone()), l.a.clone().max(l.b.clone()))));
        }
        let sel = a.select(&["degree<=1".into()]).unwrap();
        assert_eq!(sel, a.select(&["leaves".into()]).unwrap());
        assert!(a
            .select(&["degree<=x".into()])
            .unwrap_err()
            .contains("degree<=K"));
    }

    #[test]
    fn generators_have_the_right_shapes() {
        let t = Topology::of(&exp("line", 4)).unwrap();
        assert_eq!((t.nodes.len(), t.links.len()), (4, 3));
        let t = Topology::of(&exp("star", 5)).unwrap();
        assert_eq!((t.nodes.len(), t.links.len()), (6, 5));
        let t = Topology::of(&exp("dumbbell", 3)).unwrap();
        assert_eq!((t.nodes.len(), t.links.len()), (8, 7));
        let t = Topology::of(&exp("tree", 3)).unwrap();
        assert_eq!((t.nodes.len(), t.links.len()), (7, 6));
        let t = Topology::of(&exp("grid", 16)).unwrap();
        assert_eq!((t.nodes.len(), t.links.len()), (256, 480));
        assert_eq!(t.select(&["leaves".into()]).unwrap().len(), 0);
        let t = Topology::of(&exp("line", 256)).unwrap();
        assert_eq!(t.select(&["leaves".into()]).unwrap(), vec!["r0", "r255"]);
    }

    #[test]
    fn explicit_node_order_and_imported_files() {
        let text = "[topology]\nkind = \"explicit\"\nnodes = [\"z\", \"y\", \"x\"]\n[[links]]\na = \"x\"\nb = \"y\"\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n";
        let e = crate::experiment::parse(text, "t.toml").unwrap().1;
        let t = Topology::of(&e).unwrap();
        assert_eq!(t.nodes, ["z", "y", "x"]);
        assert_eq!(t.links.len(), 1);
        // an imported file, relative to the experiment's directory, under [link]
        let dir = std::env::temp_dir().join(format!("ndnlab-topo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("t.conf"),
            "[nodes]\na: _\nb: _\nc: _\n[links]\na:b delay=10ms\nb:c\n",
        )
        .unwrap();
        let text = "[topology]\nkind = \"minindn\"\nfile = \"t.conf\"\n[link]\nbandwidth_mbps = 50.0\ndelay_ms = 1.0\n[[links]]\na = \"c\"\nb = \"b\"\nloss_pct = 2.0\n[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n";
        let path = dir.join("e.toml");
        let e = crate::experiment::parse(text, &path.display().to_string())
            .unwrap()
            .1;
        let t = Topology::of(&e).unwrap();
        assert_eq!(t.nodes, ["a", "b", "c"]);
        assert_eq!(
            (
                t.links[0].spec.emu.delay_ms,
                t.links[0].spec.bandwidth_mbps()
            ),
            (10.0, 50.0)
        );
        assert_eq!(
            (t.links[1].spec.emu.delay_ms, t.links[1].spec.emu.loss_pct),
            (1.0, 2.0)
        );
        let mut e2 = e.clone();
        e2.topology.file = Some("missing.conf".into());
        assert!(Topology::of(&e2).unwrap_err().contains("missing.conf"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shortest_paths_point_toward_the_producer() {
        let t = Topology::of(&exp("line", 3)).unwrap();
        let r = t.routes(&[("/p".into(), "r2".into())], "cost", false);
        assert_eq!(r["r0"], vec![("/p".to_string(), "r1".to_string(), 2)]);
        assert_eq!(r["r1"], vec![("/p".to_string(), "r2".to_string(), 1)]);
        assert!(!r.contains_key("r2"));
        // a 2x2 grid: two equal paths from the opposite corner
        let t = Topology::of(&exp("grid", 2)).unwrap();
        let r = t.routes(&[("/p".into(), "r1_1".into())], "cost", true);
        assert_eq!(r["r0_0"].len(), 2);
        let r = t.routes(&[("/p".into(), "r1_1".into())], "cost", false);
        assert_eq!(r["r0_0"].len(), 1);
    }
}
