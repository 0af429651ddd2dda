//! Traffic patterns (pure, seeded RNG): arrival processes as in seed 003
//! (Poisson: exponential inter-arrival times of mean 1/lambda), constant
//! rate and bursts; Interest patterns as in ndn-traffic-generator (name,
//! share of the traffic, name length, content diversity, payload size,
//! MustBeFresh/CanBePrefix, lifetime).

use std::time::Duration;

use ndnlab_wire::Name;
use rand::Rng;

/// How Interests are spread in time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Exponential gaps of mean 1/rate.
    Poisson { rate: f64 },
    /// Equal gaps of 1/rate.
    Constant { rate: f64 },
    /// `size` Interests at once, bursts spaced so the mean rate is `rate`.
    Burst { rate: f64, size: u32 },
}

impl Arrival {
    /// The next batch: how many Interests to send now and the gap to the next batch.
    pub fn next(&self, rng: &mut impl Rng) -> (u32, Duration) {
        match *self {
            Arrival::Poisson { rate } => {
                // inverse transform; 1-u in (0,1] avoids ln(0)
                let u: f64 = rng.gen();
                (1, Duration::from_secs_f64(-(1.0 - u).ln() / rate))
            }
            Arrival::Constant { rate } => (1, Duration::from_secs_f64(1.0 / rate)),
            Arrival::Burst { rate, size } => (size, Duration::from_secs_f64(size as f64 / rate)),
        }
    }
}

/// One Interest pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// Name prefix of the pattern.
    pub name: Name,
    /// Share of the Interests, in percent.
    pub percent: f64,
    /// Total name length in components (at least the prefix + 2).
    pub components: usize,
    /// Number of distinct names (content diversity).
    pub distinct: u64,
    /// Content bytes the server should return (encoded in the name).
    pub payload: usize,
    pub must_be_fresh: bool,
    pub can_be_prefix: bool,
    pub lifetime_ms: u64,
}

/// Marker of the payload-size component: `size-<bytes>`.
pub const SIZE_MARK: &str = "size-";

impl Pattern {
    /// `name=/p,percent=50,components=6,distinct=100,payload=1024,fresh=true,prefix=false,lifetime=2000`
    pub fn parse(spec: &str) -> Result<Pattern, String> {
        let mut p = Pattern {
            name: Name::new(),
            percent: f64::NAN,
            components: 0,
            distinct: 1000,
            payload: 1024,
            must_be_fresh: false,
            can_be_prefix: false,
            lifetime_ms: 2000,
        };
        let mut have_name = false;
        for kv in spec.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("pattern `{spec}`: `{kv}` is not key=value"))?;
            let (k, v) = (k.trim(), v.trim());
            let num = |what: &str| format!("pattern `{spec}`: {k} expects {what}, got `{v}`");
            let boolean = |v: &str| match v {
                "true" | "yes" | "1" => Ok(true),
                "false" | "no" | "0" => Ok(false),
                _ => Err(num("true|false")),
            };
            match k {
                "name" => {
                    p.name = v.parse().map_err(|e| format!("pattern `{spec}`: bad name: {e}"))?;
                    have_name = true;
                }
                "percent" => p.percent = v.parse().map_err(|_| num("a number"))?,
                "components" => p.components = v.parse().map_err(|_| num("an integer"))?,
                "distinct" => p.distinct = v.parse().map_err(|_| num("an integer"))?,
                "payload" => p.payload = v.parse().map_err(|_| num("an integer"))?,
                "fresh" => p.must_be_fresh = boolean(v)?,
                "prefix" => p.can_be_prefix = boolean(v)?,
                "lifetime" => p.lifetime_ms = v.parse().map_err(|_| num("milliseconds"))?,
                _ => return Err(format!(
                    "pattern `{spec}`: unknown key `{k}` (name, percent, components, distinct, payload, fresh, prefix, lifetime)"
                )),
            }
        }
        if !have_name {
            return Err(format!("pattern `{spec}`: name= is required"));
        }
        if p.distinct == 0 {
            return Err(format!("pattern `{spec}`: distinct must be at least 1"));
        }
        p.components = p.components.max(p.name.len() + 2);
        Ok(p)
    }

    /// The name of content `id`: `<name>/size-<payload>/<filler..>/<id>`.
    pub fn name_for(&self, id: u64) -> Name {
        let mut b = Name::builder();
        b.extend_name(&self.name);
        b.push_generic(format!("{SIZE_MARK}{}", self.payload).as_bytes());
        for i in self.name.len() + 2..self.components {
            b.push_generic(format!("c{i}").as_bytes());
        }
        b.push_generic(id.to_string().as_bytes());
        b.build()
    }
}

/// Fills in missing percentages (equal split of the rest) and checks the sum.
pub fn normalize(patterns: &mut [Pattern]) -> Result<(), String> {
    if patterns.is_empty() {
        return Err("at least one --pattern is required".into());
    }
    let given: f64 = patterns
        .iter()
        .filter(|p| !p.percent.is_nan())
        .map(|p| p.percent)
        .sum();
    let missing = patterns.iter().filter(|p| p.percent.is_nan()).count();
    if missing > 0 {
        let each = (100.0 - given) / missing as f64;
        if each <= 0.0 {
            return Err(format!(
                "percentages already sum to {given}; nothing left for {missing} patterns"
            ));
        }
        for p in patterns.iter_mut().filter(|p| p.percent.is_nan()) {
            p.percent = each;
        }
    }
    let sum: f64 = patterns.iter().map(|p| p.percent).sum();
    if (sum - 100.0).abs() > 1e-6 || patterns.iter().any(|p| p.percent < 0.0) {
        return Err(format!("pattern percentages must sum to 100 (got {sum})"));
    }
    Ok(())
}

/// Picks a pattern index by percentage.
pub fn choose(patterns: &[Pattern], rng: &mut impl Rng) -> usize {
    let x: f64 = rng.gen_range(0.0..100.0);
    let mut acc = 0.0;
    for (i, p) in patterns.iter().enumerate() {
        acc += p.percent;
        if x < acc {
            return i;
        }
    }
    patterns.len() - 1
}

/// The payload size a traffic Interest asks for, if its name carries one.
pub fn requested_payload(name: &Name) -> Option<usize> {
    name.iter().find_map(|c| {
        std::str::from_utf8(c.value)
            .ok()
            .and_then(|s| s.strip_prefix(SIZE_MARK))
            .and_then(|n| n.parse().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn poisson_gaps_have_mean_one_over_lambda() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let a = Arrival::Poisson { rate: 100.0 };
        let n = 100_000;
        let total: f64 = (0..n).map(|_| a.next(&mut rng).1.as_secs_f64()).sum();
        let mean = total / n as f64;
        // seeded, so deterministic; the bound documents the distribution
        assert!((mean - 0.01).abs() < 0.0002, "mean {mean}");
    }

    #[test]
    fn constant_and_burst() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        assert_eq!(
            Arrival::Constant { rate: 4.0 }.next(&mut rng),
            (1, Duration::from_millis(250))
        );
        assert_eq!(
            Arrival::Burst {
                rate: 100.0,
                size: 10
            }
            .next(&mut rng),
            (10, Duration::from_millis(100))
        );
    }

    #[test]
    fn parse_and_names() {
        let p =
            Pattern::parse("name=/t/a,percent=30,components=6,distinct=5,payload=200,fresh=true")
                .unwrap();
        assert_eq!(p.components, 6);
        let n = p.name_for(3);
        assert_eq!(n.to_string(), "/t/a/size-200/c4/c5/3");
        assert_eq!(requested_payload(&n), Some(200));
        assert!(p.must_be_fresh && !p.can_be_prefix);
        assert!(Pattern::parse("percent=3").is_err());
        assert!(Pattern::parse("name=/a,bogus=1")
            .unwrap_err()
            .contains("unknown key"));
        // shortest: prefix + size + id
        assert_eq!(
            Pattern::parse("name=/a,components=1")
                .unwrap()
                .name_for(0)
                .len(),
            3
        );
    }

    #[test]
    fn percentages_split_and_choice_follows_them() {
        let mut ps = vec![
            Pattern::parse("name=/a,percent=50").unwrap(),
            Pattern::parse("name=/b").unwrap(),
            Pattern::parse("name=/c").unwrap(),
        ];
        normalize(&mut ps).unwrap();
        assert_eq!(ps[1].percent, 25.0);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut counts = [0u32; 3];
        for _ in 0..40_000 {
            counts[choose(&ps, &mut rng)] += 1;
        }
        assert!(
            (counts[0] as f64 / 40_000.0 - 0.5).abs() < 0.01,
            "{counts:?}"
        );
        let mut bad = vec![
            Pattern::parse("name=/a,percent=70").unwrap(),
            Pattern::parse("name=/b,percent=70").unwrap(),
        ];
        assert!(normalize(&mut bad).is_err());
    }
}
