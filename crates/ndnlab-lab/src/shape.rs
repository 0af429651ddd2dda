//! The shape of a topology, for `ndnlab topo show`: node degrees, connected
//! components, and the diameter in hops and in link delay.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use serde::Serialize;

use crate::topology::Topology;

/// What `ndnlab topo show` prints about a topology.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Shape {
    pub nodes: usize,
    pub links: usize,
    /// Every node's degree, in node order.
    pub degrees: Vec<(String, usize)>,
    pub degree_min: usize,
    pub degree_max: usize,
    pub degree_mean: f64,
    /// Connected components (1 when every node reaches every other).
    pub components: usize,
    /// The longest shortest path in hops, `None` when disconnected.
    pub diameter_hops: Option<usize>,
    /// The longest shortest path by the sum of link delays, in milliseconds,
    /// `None` when disconnected.
    pub diameter_delay_ms: Option<f64>,
}

/// Neighbours of each node, by index, with the link delay in nanoseconds.
fn adjacency(t: &Topology) -> Vec<Vec<(usize, u64)>> {
    let index = |n: &String| t.nodes.iter().position(|x| x == n);
    let mut adj = vec![Vec::new(); t.nodes.len()];
    for l in &t.links {
        if let (Some(a), Some(b)) = (index(&l.a), index(&l.b)) {
            let ns = (l.spec.emu.delay_ms * 1e6).round() as u64;
            adj[a].push((b, ns));
            adj[b].push((a, ns));
        }
    }
    adj
}

/// Hops from `src` to every node (`usize::MAX` where unreachable).
fn hops_from(adj: &[Vec<(usize, u64)>], src: usize) -> Vec<usize> {
    let mut dist = vec![usize::MAX; adj.len()];
    dist[src] = 0;
    let mut queue = VecDeque::from([src]);
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u] {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}

/// Delay in nanoseconds from `src` to every node (`u64::MAX` where unreachable).
fn delay_from(adj: &[Vec<(usize, u64)>], src: usize) -> Vec<u64> {
    let mut dist = vec![u64::MAX; adj.len()];
    dist[src] = 0;
    let mut heap = BinaryHeap::from([Reverse((0u64, src))]);
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &adj[u] {
            let nd = d.saturating_add(w);
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist
}

/// The shape of `t`.
pub fn shape(t: &Topology) -> Shape {
    let adj = adjacency(t);
    let degrees: Vec<(String, usize)> = t
        .nodes
        .iter()
        .zip(&adj)
        .map(|(n, a)| (n.clone(), a.len()))
        .collect();
    let n = t.nodes.len();
    let mut component = vec![usize::MAX; n];
    let mut components = 0;
    let mut hops = 0;
    let mut delay = 0;
    for src in 0..n {
        let h = hops_from(&adj, src);
        if component[src] == usize::MAX {
            for (v, d) in h.iter().enumerate() {
                if *d != usize::MAX {
                    component[v] = components;
                }
            }
            components += 1;
        }
        hops = hops.max(
            h.into_iter()
                .filter(|d| *d != usize::MAX)
                .max()
                .unwrap_or(0),
        );
        let d = delay_from(&adj, src);
        delay = delay.max(d.into_iter().filter(|d| *d != u64::MAX).max().unwrap_or(0));
    }
    let connected = components <= 1;
    Shape {
        nodes: n,
        links: t.links.len(),
        degree_min: degrees.iter().map(|d| d.1).min().unwrap_or(0),
        degree_max: degrees.iter().map(|d| d.1).max().unwrap_or(0),
        degree_mean: if n == 0 {
            0.0
        } else {
            2.0 * t.links.len() as f64 / n as f64
        },
        degrees,
        components,
        diameter_hops: connected.then_some(hops),
        diameter_delay_ms: connected.then_some(delay as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::LinkSpec;
    use crate::topology::Link;

    fn topo(nodes: &[&str], links: &[(&str, &str, f64)]) -> Topology {
        Topology {
            nodes: nodes.iter().map(|s| s.to_string()).collect(),
            links: links
                .iter()
                .map(|(a, b, d)| {
                    let mut spec = LinkSpec::default();
                    spec.emu.delay_ms = *d;
                    Link {
                        a: a.to_string(),
                        b: b.to_string(),
                        spec,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn line_star_and_disconnected() {
        let s = shape(&topo(
            &["a", "b", "c", "d"],
            &[("a", "b", 10.0), ("b", "c", 10.0), ("c", "d", 5.0)],
        ));
        assert_eq!(
            (s.diameter_hops, s.diameter_delay_ms),
            (Some(3), Some(25.0))
        );
        assert_eq!((s.degree_min, s.degree_max, s.degree_mean), (1, 2, 1.5));
        assert_eq!(s.components, 1);
        // a triangle with one slow edge: two hops are quicker than the direct link
        let s = shape(&topo(
            &["a", "b", "c"],
            &[("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 10.0)],
        ));
        assert_eq!((s.diameter_hops, s.diameter_delay_ms), (Some(1), Some(2.0)));
        let s = shape(&topo(&["a", "b", "c"], &[("a", "b", 1.0)]));
        assert_eq!((s.components, s.diameter_hops), (2, None));
        assert_eq!(s.degrees[2], ("c".to_string(), 0));
    }
}
