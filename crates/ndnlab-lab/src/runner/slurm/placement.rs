//! Which host of the allocation runs each node: the nodes `[placement].nodes`
//! pins, and an automatic partition of the rest that gives each host its share
//! of the weight and cuts as few links as it can.
//!
//! The heuristic, over the topology as a petgraph graph:
//!
//! 1. **Targets.** Each node weighs 1 (`balance = "nodes"`) or its forwarder's
//!    threads (`balance = "cores"`); host `h`'s target is the total weight
//!    times its share of the capacity (its CPUs in the allocation under
//!    `cores`, one each under `nodes`).
//! 2. **Greedy growth.** Hosts are filled one after another. A host grows from
//!    what is pinned to it, or else from a pseudo-peripheral free node (the last
//!    node a breadth-first search from the first free node reaches): it takes,
//!    again and again, the free neighbour with the most links into it (ties: the
//!    one found first), as long as taking it brings the host's weight closer to
//!    its target. A host whose neighbourhood runs out restarts from another
//!    peripheral free node. The last host takes what is left.
//! 3. **Refinement.** A Kernighan–Lin-style pass then looks, among the nodes at
//!    the boundary of two hosts, for the single move or the swap of two nodes
//!    that removes the most cut links without leaving any host farther from its
//!    target than the greedy result (or half a node's weight) allows; it applies
//!    it and looks again, until no move or swap gains. Pinned nodes never move.
//!
//! Everything is deterministic: nodes are visited in the topology's order.

use std::collections::{BTreeMap, VecDeque};

use petgraph::graph::{NodeIndex, UnGraph};
use serde::Serialize;

/// Node index → host index.
pub type Parts = Vec<usize>;

/// The problem: nodes (with weights), links by node index, hosts (with
/// capacities), and the nodes pinned to a host.
pub struct Problem<'a> {
    pub weights: &'a [f64],
    pub links: &'a [(usize, usize)],
    pub capacity: &'a [f64],
    pub pinned: &'a BTreeMap<usize, usize>,
}

/// The host of each node (see the module documentation).
pub fn partition(p: &Problem) -> Parts {
    let n = p.weights.len();
    let hosts = p.capacity.len().max(1);
    let mut g: UnGraph<(), ()> = UnGraph::with_capacity(n, p.links.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b) in p.links {
        g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
    }
    let total: f64 = p.weights.iter().sum();
    let cap: f64 = p.capacity.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let target: Vec<f64> = (0..hosts)
        .map(|h| total * p.capacity.get(h).copied().unwrap_or(1.0) / cap)
        .collect();
    let mut part: Vec<Option<usize>> = vec![None; n];
    let mut weight = vec![0.0; hosts];
    for (&v, &h) in p.pinned {
        part[v] = Some(h);
        weight[h] += p.weights[v];
    }
    for (h, &t) in target.iter().enumerate().take(hosts.saturating_sub(1)) {
        grow(&g, p.weights, &mut part, &mut weight, h, t);
    }
    for (v, slot) in part.iter_mut().enumerate() {
        if slot.is_none() {
            *slot = Some(hosts - 1);
            weight[hosts - 1] += p.weights[v];
        }
    }
    let mut parts: Parts = part
        .into_iter()
        .map(|h| h.expect("every node placed"))
        .collect();
    refine(&g, p, &target, &mut parts);
    parts
}

/// Grows host `h` to `target` (step 2).
fn grow(
    g: &UnGraph<(), ()>,
    w: &[f64],
    part: &mut [Option<usize>],
    weight: &mut [f64],
    h: usize,
    target: f64,
) {
    // links of each free node into h, and the order they were found in
    let mut into: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    let mut found = 0usize;
    let mut touch =
        |v: usize, part: &[Option<usize>], into: &mut BTreeMap<usize, (usize, usize)>| {
            for u in g.neighbors(NodeIndex::new(v)) {
                let u = u.index();
                if part[u].is_none() {
                    let e = into.entry(u).or_insert((0, found));
                    e.0 += 1;
                    found += 1;
                }
            }
        };
    for v in 0..part.len() {
        if part[v] == Some(h) {
            touch(v, part, &mut into);
        }
    }
    loop {
        if weight[h] >= target {
            return;
        }
        let next = into
            .iter()
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
            .map(|(&v, _)| v)
            .or_else(|| peripheral(g, part));
        let Some(v) = next else { return };
        // stop when taking v leaves h farther from its target than it is
        if weight[h] > 0.0 && weight[h] + w[v] - target > target - weight[h] {
            return;
        }
        into.remove(&v);
        part[v] = Some(h);
        weight[h] += w[v];
        touch(v, part, &mut into);
    }
}

/// The last free node a breadth-first search from the first free node reaches
/// (through free nodes).
fn peripheral(g: &UnGraph<(), ()>, part: &[Option<usize>]) -> Option<usize> {
    let start = (0..part.len()).find(|&v| part[v].is_none())?;
    let mut seen = vec![false; part.len()];
    let mut q = VecDeque::from([start]);
    seen[start] = true;
    let mut last = start;
    while let Some(v) = q.pop_front() {
        last = v;
        for u in g.neighbors(NodeIndex::new(v)) {
            let u = u.index();
            if !seen[u] && part[u].is_none() {
                seen[u] = true;
                q.push_back(u);
            }
        }
    }
    Some(last)
}

/// Step 3: best gaining move or swap, again and again.
fn refine(g: &UnGraph<(), ()>, p: &Problem, target: &[f64], parts: &mut Parts) {
    let hosts = target.len();
    let n = parts.len();
    let mut weight = vec![0.0; hosts];
    for v in 0..n {
        weight[parts[v]] += p.weights[v];
    }
    let wmax = p.weights.iter().cloned().fold(0.0, f64::max);
    let slack = (0..hosts)
        .map(|h| (weight[h] - target[h]).abs())
        .fold(wmax / 2.0, f64::max)
        + 1e-9;
    let ok = |w: f64, h: usize| (w - target[h]).abs() <= slack;
    // links of v into host h
    let links_to = |parts: &Parts, v: usize, h: usize| {
        g.neighbors(NodeIndex::new(v))
            .filter(|u| parts[u.index()] == h)
            .count() as i64
    };
    let between = |a: usize, b: usize| {
        g.edges_connecting(NodeIndex::new(a), NodeIndex::new(b))
            .count() as i64
    };
    for _ in 0..4 * n + 4 {
        let movable = |v: usize| !p.pinned.contains_key(&v);
        let boundary: Vec<usize> = (0..n)
            .filter(|&v| {
                movable(v)
                    && g.neighbors(NodeIndex::new(v))
                        .any(|u| parts[u.index()] != parts[v])
            })
            .collect();
        // (gain, move v to h) or (gain, swap u and v)
        let mut best: Option<(i64, usize, usize, bool)> = None;
        let mut consider = |gain: i64, a: usize, b: usize, swap: bool| {
            if gain > 0 && best.map_or(true, |(g0, ..)| gain > g0) {
                best = Some((gain, a, b, swap));
            }
        };
        for &v in &boundary {
            let from = parts[v];
            let inside = links_to(parts, v, from);
            for h in (0..hosts).filter(|&h| h != from) {
                let gain = links_to(parts, v, h) - inside;
                if ok(weight[from] - p.weights[v], from) && ok(weight[h] + p.weights[v], h) {
                    consider(gain, v, h, false);
                }
            }
        }
        for (i, &u) in boundary.iter().enumerate() {
            for &v in &boundary[i + 1..] {
                let (a, b) = (parts[u], parts[v]);
                if a == b {
                    continue;
                }
                let d = p.weights[v] - p.weights[u];
                if !(ok(weight[a] + d, a) && ok(weight[b] - d, b)) {
                    continue;
                }
                let gu = links_to(parts, u, b) - links_to(parts, u, a);
                let gv = links_to(parts, v, a) - links_to(parts, v, b);
                consider(gu + gv - 2 * between(u, v), u, v, true);
            }
        }
        match best {
            None => return,
            Some((_, v, h, false)) => {
                weight[parts[v]] -= p.weights[v];
                weight[h] += p.weights[v];
                parts[v] = h;
            }
            Some((_, u, v, true)) => {
                let (a, b) = (parts[u], parts[v]);
                let d = p.weights[v] - p.weights[u];
                weight[a] += d;
                weight[b] -= d;
                parts[u] = b;
                parts[v] = a;
            }
        }
    }
}

/// The links whose ends are on different hosts.
pub fn cut(links: &[(usize, usize)], parts: &Parts) -> usize {
    links.iter().filter(|(a, b)| parts[*a] != parts[*b]).count()
}

/// `placement.json`: what the run directory records of a placement.
#[derive(Debug, Serialize)]
pub struct Record {
    /// How the unpinned nodes were placed, and what was balanced.
    pub method: String,
    pub balance: String,
    pub hosts: Vec<HostRecord>,
    /// Node → host name.
    pub nodes: BTreeMap<String, String>,
    /// Links between hosts, as `[a, b]`.
    pub cut_links: Vec<[String; 2]>,
}

/// One host of [`Record`].
#[derive(Debug, Serialize)]
pub struct HostRecord {
    pub name: String,
    pub address: String,
    pub cpus: u32,
    pub target: f64,
    pub weight: f64,
    pub nodes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> Vec<(usize, usize)> {
        (1..n).map(|i| (i - 1, i)).collect()
    }

    fn solve(n: usize, links: &[(usize, usize)], hosts: usize) -> Parts {
        let w = vec![1.0; n];
        let cap = vec![1.0; hosts];
        let pinned = BTreeMap::new();
        partition(&Problem {
            weights: &w,
            links,
            capacity: &cap,
            pinned: &pinned,
        })
    }

    fn sizes(parts: &Parts, hosts: usize) -> Vec<usize> {
        (0..hosts)
            .map(|h| parts.iter().filter(|&&p| p == h).count())
            .collect()
    }

    #[test]
    fn a_line_of_6_on_3_hosts_cuts_2_links_in_pairs() {
        let l = line(6);
        let parts = solve(6, &l, 3);
        assert_eq!(cut(&l, &parts), 2, "{parts:?}");
        assert_eq!(sizes(&parts, 3), [2, 2, 2], "{parts:?}");
        // contiguous: each host holds neighbours
        assert_eq!(parts[0], parts[1]);
        assert_eq!(parts[2], parts[3]);
        assert_eq!(parts[4], parts[5]);
    }

    #[test]
    fn parts_are_balanced_on_grids_trees_and_random_graphs() {
        // a 16 x 16 grid
        let k = 16;
        let mut grid = Vec::new();
        for r in 0..k {
            for c in 0..k {
                let v = r * k + c;
                if c + 1 < k {
                    grid.push((v, v + 1));
                }
                if r + 1 < k {
                    grid.push((v, v + k));
                }
            }
        }
        // a binary tree of 255 nodes
        let tree: Vec<(usize, usize)> = (1..255).map(|i| ((i - 1) / 2, i)).collect();
        // a seeded random graph of 100 nodes and mean degree 4
        let mut s: u64 = 7;
        let mut rnd = |m: usize| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as usize % m
        };
        let mut random: Vec<(usize, usize)> = (1..100).map(|i| (rnd(i), i)).collect();
        while random.len() < 200 {
            let (a, b) = (rnd(100), rnd(100));
            if a != b {
                random.push((a.min(b), a.max(b)));
            }
        }
        for (name, n, links) in [
            ("grid", 256, &grid),
            ("tree", 255, &tree),
            ("random", 100, &random),
        ] {
            for hosts in [2, 3, 4] {
                let parts = solve(n, links, hosts);
                let s = sizes(&parts, hosts);
                let (lo, hi) = (s.iter().min().unwrap(), s.iter().max().unwrap());
                assert!(hi - lo <= 1, "{name} on {hosts}: {s:?}");
            }
        }
        // a grid split in 4 cuts about a bisection's worth of links, far
        // fewer than a random split (which cuts 3/4 of 480)
        let parts = solve(256, &grid, 4);
        assert!(cut(&grid, &parts) <= 64, "{}", cut(&grid, &parts));
    }

    #[test]
    fn weights_follow_capacity_and_pinned_nodes_stay() {
        // 12 nodes of weight 1 on hosts of 1 and 2 CPUs: 4 and 8
        let l = line(12);
        let w = vec![1.0; 12];
        let mut pinned = BTreeMap::new();
        pinned.insert(11, 0);
        let parts = partition(&Problem {
            weights: &w,
            links: &l,
            capacity: &[1.0, 2.0],
            pinned: &pinned,
        });
        assert_eq!(parts[11], 0);
        assert_eq!(sizes(&parts, 2), [4, 8], "{parts:?}");
        // threads as weights: a node of 4 threads weighs as four of 1
        let w = [4.0, 1.0, 1.0, 1.0, 1.0];
        let parts = partition(&Problem {
            weights: &w,
            links: &line(5),
            capacity: &[1.0, 1.0],
            pinned: &BTreeMap::new(),
        });
        // r0 alone on one host, r1..r4 on the other: 4 and 4, one link cut
        assert_ne!(parts[0], parts[1], "{parts:?}");
        assert!(parts[1..].iter().all(|&h| h == parts[1]), "{parts:?}");
        assert_eq!(cut(&line(5), &parts), 1);
    }
}
