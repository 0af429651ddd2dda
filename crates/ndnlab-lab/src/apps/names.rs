//! What a consumer asks for.
//!
//! A catalogue name is `<prefix>/p0/../c<i>`: padded with `p<k>` components to
//! the declared number of name components, `i` below the catalogue size. A
//! consumer draws `i` uniformly or by Zipf popularity; with `from`, it draws
//! over the contents a producer or repository group holds on each of its
//! nodes. A ping asks for `<prefix>/ping/<seq>`, as ndnping does.

use ndnlab_app::tools::ping::ping_name;
use ndnlab_wire::Name;
use rand::rngs::StdRng;
use rand::Rng;
use rand_distr::{Distribution, Zipf};

use crate::experiment::{AppSpec, Experiment};
use crate::topology::Topology;

/// Catalogue name `i` under `prefix`, padded to `components` components.
pub fn content_name(prefix: &Name, components: usize, i: u64) -> Name {
    let pad = components.saturating_sub(prefix.len() + 1);
    let mut b = Name::builder();
    b.extend_name(prefix);
    for k in 0..pad {
        b.push_generic(format!("p{k}").as_bytes());
    }
    b.push_generic(format!("c{i}").as_bytes());
    b.build()
}

/// Catalogue name `i` under `prefix` spread over `prefixes` children of it
/// (`<prefix>/<i mod prefixes>/...`; `prefix` itself when `prefixes` is 1),
/// padded to `components` components.
pub fn spread_name(prefix: &Name, prefixes: u32, components: usize, i: u64) -> Name {
    if prefixes <= 1 {
        return content_name(prefix, components, i);
    }
    let child = prefix.append_generic((i % u64::from(prefixes)).to_string().as_bytes());
    content_name(&child, components, i)
}

/// Where a consumer's contents are: (prefix, catalogue size, name components)
/// of each place, as [`Names`] resolves `from` (the group's prefix on each of
/// its nodes; a repository's catalogue and name length), and the daemon
/// runners' perf and traffic clients ask.
pub fn places(
    exp: &Experiment,
    topology: &Topology,
    a: &AppSpec,
) -> Result<Vec<(String, u64, usize)>, String> {
    let Some(g) = exp.apps.get(&a.from) else {
        // `prefixes`: the catalogue split evenly over them
        let each = a.catalogue.div_ceil(u64::from(a.prefixes.max(1)));
        return Ok(a
            .prefixes_on("")
            .into_iter()
            .map(|p| (p, each, a.name_components))
            .collect());
    };
    let (catalogue, components) = if g.kind == "repository" {
        (g.catalogue, g.name_components)
    } else {
        (a.catalogue, a.name_components)
    };
    let nodes = topology.select(&g.nodes)?;
    let each = catalogue.div_ceil(u64::from(g.prefixes.max(1)));
    Ok(nodes
        .iter()
        .flat_map(|n| g.prefixes_on(n))
        .map(|p| (p, each, components))
        .collect())
}

/// The names a consumer asks for.
pub struct Names {
    /// (prefix, its `prefixes`, name components) of each place contents are held.
    places: Vec<(Name, u32, usize)>,
    /// Contents per place.
    catalogue: u64,
    zipf: Option<Zipf<f64>>,
    /// A ping's next sequence number.
    ping: Option<u64>,
}

impl Names {
    /// The names of `spec`, a consumer or a ping. `from` is the group named by
    /// the consumer's `from` and the nodes it is on.
    pub fn new(spec: &AppSpec, from: Option<(&AppSpec, &[String])>, seed: u64) -> Names {
        let (places, catalogue) = match from {
            Some((group, nodes)) => {
                let catalogue = if group.kind == "repository" {
                    group.catalogue
                } else {
                    spec.catalogue
                };
                let components = if group.kind == "repository" {
                    group.name_components
                } else {
                    spec.name_components
                };
                let places = nodes
                    .iter()
                    .map(|n| {
                        let p = Name::from_uri(&group.prefix_on(n)).expect("validated prefix");
                        (p, group.prefixes, components)
                    })
                    .collect();
                (places, catalogue)
            }
            None => {
                let p = Name::from_uri(&spec.prefix).expect("validated prefix");
                (
                    vec![(p, spec.prefixes, spec.name_components)],
                    spec.catalogue,
                )
            }
        };
        let total = catalogue * places.len() as u64;
        let zipf = (spec.zipf > 0.0 && spec.kind != "ping")
            .then(|| Zipf::new(total, spec.zipf).expect("validated catalogue and s"));
        Names {
            places,
            catalogue,
            zipf,
            // ndnping starts at a random sequence number
            ping: (spec.kind == "ping").then_some(seed % 1_000_000_000),
        }
    }

    /// The next name to ask for.
    pub fn pick(&mut self, rng: &mut StdRng) -> Name {
        if let Some(seq) = &mut self.ping {
            *seq += 1;
            return ping_name(&self.places[0].0, *seq);
        }
        let total = self.catalogue * self.places.len() as u64;
        let j = match &self.zipf {
            Some(z) => z.sample(rng) as u64 - 1,
            None => rng.gen_range(0..total),
        };
        let (prefix, prefixes, components) = &self.places[(j / self.catalogue) as usize];
        spread_name(prefix, *prefixes, *components, j % self.catalogue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn spec(text: &str) -> AppSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn catalogue_names_are_padded() {
        let s = spec("prefix = \"/a\"\nname_components = 4\ncatalogue = 3\n");
        let mut n = Names::new(&s, None, 1);
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..20 {
            let name = n.pick(&mut rng).to_string();
            assert!(name.starts_with("/a/p0/p1/c"), "{name}");
            let i: u64 = name.rsplit('c').next().unwrap().parse().unwrap();
            assert!(i < 3);
        }
    }

    #[test]
    fn from_a_repository_spreads_over_its_nodes() {
        let c = spec("from = \"repo\"\n");
        let r = spec(
            "kind = \"repository\"\nprefix = \"/r/{node}\"\ncatalogue = 2\nname_components = 3\n",
        );
        let nodes = vec!["x".to_string(), "y".to_string()];
        let mut n = Names::new(&c, Some((&r, &nodes)), 1);
        let mut rng = StdRng::seed_from_u64(7);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.insert(n.pick(&mut rng).to_string());
        }
        let want: std::collections::BTreeSet<String> = ["/r/x/c0", "/r/x/c1", "/r/y/c0", "/r/y/c1"]
            .map(String::from)
            .into();
        assert_eq!(seen, want);
    }

    #[test]
    fn prefixes_spread_the_catalogue_over_children_of_the_prefix() {
        let s = spec("prefix = \"/a\"\nprefixes = 4\nname_components = 4\ncatalogue = 100\n");
        let mut n = Names::new(&s, None, 1);
        let mut rng = StdRng::seed_from_u64(7);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let name = n.pick(&mut rng);
            assert_eq!(name.len(), 4, "{name}");
            let uri = name.to_string();
            let i: u64 = uri.rsplit('c').next().unwrap().parse().unwrap();
            assert!(uri.starts_with(&format!("/a/{}/p0/c", i % 4)), "{uri}");
            seen.insert(i % 4);
        }
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn pings_count_up() {
        let s = spec("kind = \"ping\"\nprefix = \"/p\"\n");
        let mut n = Names::new(&s, None, 41);
        let mut rng = StdRng::seed_from_u64(7);
        assert_eq!(n.pick(&mut rng).to_string(), "/p/ping/42");
        assert_eq!(n.pick(&mut rng).to_string(), "/p/ping/43");
    }
}
