//! Designs: which combinations of factor levels run, how often, in which order,
//! with which seeds; and applying a combination to the experiment document.
//!
//! Factors are named by the dotted path of the key they set; their letters (A, B,
//! ... for fractional generators and the analysis) follow the alphabetical order of
//! the paths, as `[factors]` lists them once parsed.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Serialize;

use crate::experiment::Experiment;

/// Levels of every factor for one design point, in factor order.
pub type Point = Vec<(String, toml::Value)>;

/// One run of a campaign.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSpec {
    /// Position in the campaign (stable across `--resume` and `--shard`).
    pub id: usize,
    /// Design point index.
    pub point: usize,
    pub levels: Point,
    /// Repetition of the point, from 0.
    pub replicate: u32,
    pub seed: u64,
}

/// The factor letter of the i-th factor (A..Z, then F26, F27...).
pub fn letter(i: usize) -> String {
    if i < 26 {
        ((b'A' + i as u8) as char).to_string()
    } else {
        format!("F{i}")
    }
}

/// Most runs a campaign may have (points x repetitions): a larger design is refused
/// by [`Experiment::validate`] instead of filling memory with its run list.
pub const MAX_RUNS: u64 = 1_000_000;

/// The number of design points, computed without listing them (saturating), or
/// `None` when the design kind is unknown.
pub fn count_points(exp: &Experiment) -> Option<u64> {
    let levels = exp.factors.values().map(|l| l.len() as u64);
    if exp.factors.is_empty() {
        return Some(1);
    }
    match exp.design.kind.as_str() {
        "full" | "2k" => Some(levels.fold(1u64, u64::saturating_mul)),
        "sweep" => Some(levels.fold(1u64, |n, l| n.saturating_add(l.saturating_sub(1)))),
        "fractional" => {
            let generated = exp.design.generators.len() as u32;
            let base = (exp.factors.len() as u32).saturating_sub(generated);
            Some(1u64.checked_shl(base).unwrap_or(u64::MAX))
        }
        _ => None,
    }
}

/// The design points of an experiment.
pub fn points(exp: &Experiment) -> Result<Vec<Point>, String> {
    let factors: Vec<(&String, &Vec<toml::Value>)> = exp.factors.iter().collect();
    if factors.is_empty() {
        return Ok(vec![Vec::new()]);
    }
    match exp.design.kind.as_str() {
        "full" => Ok(full(&factors)),
        "2k" => {
            two_levels(&factors)?;
            Ok(full(&factors))
        }
        "sweep" => {
            let base: Point = factors
                .iter()
                .map(|(p, l)| ((*p).clone(), l[0].clone()))
                .collect();
            let mut out = vec![base.clone()];
            for (i, (_, levels)) in factors.iter().enumerate() {
                for v in levels.iter().skip(1) {
                    let mut p = base.clone();
                    p[i].1 = v.clone();
                    out.push(p);
                }
            }
            Ok(out)
        }
        "fractional" => fractional(&factors, &exp.design.generators),
        other => Err(format!("design.kind: '{other}'")),
    }
}

fn full(factors: &[(&String, &Vec<toml::Value>)]) -> Vec<Point> {
    let mut out: Vec<Point> = vec![Vec::new()];
    // The first factor varies slowest (the order of Jain's sign tables is the
    // reverse; the analysis does not depend on run order).
    for (path, levels) in factors {
        out = out
            .into_iter()
            .flat_map(|p| {
                levels.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(((*path).clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    out
}

fn two_levels(factors: &[(&String, &Vec<toml::Value>)]) -> Result<(), String> {
    for (path, levels) in factors {
        if levels.len() != 2 {
            return Err(format!(
                "factors.\"{path}\": a two-level design needs exactly 2 levels, not {}",
                levels.len()
            ));
        }
    }
    Ok(())
}

/// 2^(k-p): the factors not named on the left of a generator form a full 2^(k-p)
/// design; each generated factor takes the product of the signs of the letters
/// on the right (`D = ABC`, `E = -AB`).
fn fractional(
    factors: &[(&String, &Vec<toml::Value>)],
    gens: &[String],
) -> Result<Vec<Point>, String> {
    two_levels(factors)?;
    let k = factors.len();
    let index = |c: char| -> Result<usize, String> {
        let i = (c as u8).wrapping_sub(b'A') as usize;
        if c.is_ascii_uppercase() && i < k {
            Ok(i)
        } else {
            Err(format!(
                "design.generators: '{c}' is not a factor letter (A..{})",
                letter(k - 1)
            ))
        }
    };
    let mut generated: Vec<(usize, bool, Vec<usize>)> = Vec::new();
    for g in gens {
        let (lhs, rhs) = g
            .split_once('=')
            .ok_or_else(|| format!("design.generators: '{g}' is not of the form D = ABC"))?;
        let lhs: Vec<char> = lhs.trim().chars().collect();
        let [target] = lhs.as_slice() else {
            return Err(format!("design.generators: '{g}': one letter on the left"));
        };
        let rhs = rhs.trim();
        let (neg, word) = match rhs.strip_prefix('-') {
            Some(w) => (true, w.trim()),
            None => (false, rhs),
        };
        let word: Vec<usize> = word.chars().map(index).collect::<Result<_, _>>()?;
        if word.is_empty() {
            return Err(format!("design.generators: '{g}': no letters on the right"));
        }
        generated.push((index(*target)?, neg, word));
    }
    let targets: Vec<usize> = generated.iter().map(|g| g.0).collect();
    for (t, _, w) in &generated {
        if w.iter().any(|x| targets.contains(x)) {
            return Err(format!(
                "design.generators: {} is defined from another generated factor",
                letter(*t)
            ));
        }
    }
    let base: Vec<usize> = (0..k).filter(|i| !targets.contains(i)).collect();
    if base.is_empty() {
        return Err("design.generators: every factor is generated".into());
    }
    if base.len() >= 32 {
        return Err(format!(
            "design.generators: 2^{} base runs is too many",
            base.len()
        ));
    }
    let mut out = Vec::new();
    for row in 0..(1usize << base.len()) {
        // sign +1 for the second level; the first base factor varies slowest
        let mut signs = vec![1i32; k];
        for (j, &f) in base.iter().enumerate() {
            let bit = (row >> (base.len() - 1 - j)) & 1;
            signs[f] = if bit == 1 { 1 } else { -1 };
        }
        for (t, neg, word) in &generated {
            let s: i32 = word.iter().map(|&f| signs[f]).product();
            signs[*t] = if *neg { -s } else { s };
        }
        out.push(
            factors
                .iter()
                .zip(&signs)
                .map(|((p, l), &s)| ((*p).clone(), l[(s > 0) as usize].clone()))
                .collect(),
        );
    }
    Ok(out)
}

/// Every run: each point `repetitions` times, seeds `seed + id`, shuffled with
/// `seed` when `randomize` is set (ids stay with their run).
pub fn runs(exp: &Experiment) -> Result<Vec<RunSpec>, String> {
    let pts = points(exp)?;
    let mut out = Vec::new();
    for (pi, p) in pts.iter().enumerate() {
        for r in 0..exp.experiment.repetitions {
            let id = out.len();
            out.push(RunSpec {
                id,
                point: pi,
                levels: p.clone(),
                replicate: r,
                seed: exp.experiment.seed.wrapping_add(id as u64),
            });
        }
    }
    if exp.experiment.randomize {
        let mut rng = rand::rngs::StdRng::seed_from_u64(exp.experiment.seed);
        out.shuffle(&mut rng);
    }
    Ok(out)
}

/// Sets the key at a dotted `path` of a TOML document (creating tables on the
/// way); fails naming the path if a step is not a table.
pub fn set_path(doc: &mut toml::Value, path: &str, value: toml::Value) -> Result<(), String> {
    let keys: Vec<&str> = path.split('.').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err(format!("'{path}' is not a key path"));
    }
    let mut at = doc;
    for (i, k) in keys.iter().enumerate() {
        let table = at
            .as_table_mut()
            .ok_or_else(|| format!("'{path}': '{}' is not a table", keys[..i].join(".")))?;
        if i + 1 == keys.len() {
            table.insert(k.to_string(), value);
            return Ok(());
        }
        at = table
            .entry(k.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()));
    }
    unreachable!("the loop returns at the last key")
}

/// A `KEY=VALUE` from the command line: the value as TOML (number, boolean,
/// array, quoted string), or else as a bare string.
pub fn parse_assignment(s: &str) -> Result<(String, toml::Value), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--set '{s}': expected KEY=VALUE"))?;
    let v = v.trim();
    let value = toml::from_str::<toml::Table>(&format!("x = {v}"))
        .ok()
        .and_then(|mut t| t.remove("x"))
        .unwrap_or_else(|| toml::Value::String(v.to_string()));
    Ok((k.trim().to_string(), value))
}

/// The experiment of one design point: the document with the levels set,
/// parsed and checked again (a level can be invalid for its key).
pub fn apply(doc: &toml::Value, levels: &Point, file: &str) -> Result<Experiment, String> {
    let mut d = doc.clone();
    for (path, v) in levels {
        set_path(&mut d, path, v.clone())?;
    }
    let exp: Experiment = d.try_into().map_err(|e: toml::de::Error| {
        format!("{file}: with {}: {}", describe(levels), e.message())
    })?;
    exp.validate()
        .map_err(|m| format!("{file}: with {}: {m}", describe(levels)))?;
    Ok(exp)
}

/// `a=1, b=x`: a point for messages and tables.
pub fn describe(levels: &Point) -> String {
    levels
        .iter()
        .map(|(k, v)| format!("{k}={}", show(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A level as a table cell: strings without quotes.
pub fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(extra: &str) -> Experiment {
        let text = format!(
            "[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n{extra}"
        );
        crate::experiment::parse(&text, "t.toml").unwrap().1
    }

    #[test]
    fn full_and_two_level_designs() {
        let e = exp("[factors]\n\"a.x\" = [1, 2, 3]\n\"b.y\" = [true, false]\n");
        assert_eq!(points(&e).unwrap().len(), 6);
        let e = exp("[factors]\n\"a.x\" = [1, 2, 3]\n[design]\nkind = \"2k\"\n");
        assert!(points(&e).unwrap_err().contains("exactly 2 levels"));
    }

    #[test]
    fn fractional_design_follows_its_generator() {
        // 2^(4-1) with D = ABC: 8 runs, and D's sign is the product of A, B, C.
        let e = exp(
            "[factors]\nA = [0, 1]\nB = [0, 1]\nC = [0, 1]\nD = [0, 1]\n[design]\nkind = \"fractional\"\ngenerators = [\"D = ABC\"]\n",
        );
        let pts = points(&e).unwrap();
        assert_eq!(pts.len(), 8);
        let sign = |v: &toml::Value| if v.as_integer() == Some(1) { 1 } else { -1 };
        for p in &pts {
            let s: Vec<i32> = p.iter().map(|(_, v)| sign(v)).collect();
            assert_eq!(s[3], s[0] * s[1] * s[2], "{p:?}");
        }
        let distinct: std::collections::BTreeSet<String> = pts.iter().map(describe).collect();
        assert_eq!(distinct.len(), 8);
        let bad = exp("[factors]\nA = [0, 1]\nB = [0, 1]\n[design]\nkind = \"fractional\"\ngenerators = [\"B = AZ\"]\n");
        assert!(points(&bad).unwrap_err().contains("'Z'"));
    }

    #[test]
    fn sweep_varies_one_factor_at_a_time() {
        let e = exp("[factors]\nA = [1, 2, 3]\nB = [10, 20]\n[design]\nkind = \"sweep\"\n");
        let pts = points(&e).unwrap();
        assert_eq!(pts.len(), 1 + 2 + 1);
    }

    #[test]
    fn runs_repeat_with_distinct_seeds_and_shuffle_reproducibly() {
        let e = exp(
            "[experiment]\nrepetitions = 3\nseed = 10\nrandomize = true\n[factors]\nA = [1, 2]\n",
        );
        let r = runs(&e).unwrap();
        assert_eq!(r.len(), 6);
        let seeds: std::collections::BTreeSet<u64> = r.iter().map(|x| x.seed).collect();
        assert_eq!(seeds.len(), 6);
        assert_eq!(r, runs(&e).unwrap());
        assert!(r.iter().enumerate().any(|(i, x)| x.id != i), "shuffled");
    }

    #[test]
    fn levels_are_applied_and_rechecked() {
        let text =
            "[apps.c]\nkind = \"consumer\"\n[apps.p]\nkind = \"producer\"\nnodes = [\"last\"]\n";
        let (doc, _) = crate::experiment::parse(text, "t.toml").unwrap();
        let e = apply(
            &doc,
            &vec![("apps.p.payload".into(), toml::Value::Integer(4000))],
            "t.toml",
        )
        .unwrap();
        assert_eq!(e.apps["p"].payload, 4000);
        let err = apply(
            &doc,
            &vec![("apps.p.payload".into(), toml::Value::Integer(90000))],
            "t.toml",
        )
        .unwrap_err();
        assert!(
            err.contains("apps.p.payload") && err.contains("65536"),
            "{err}"
        );
        let err = apply(
            &doc,
            &vec![("topology.nn".into(), toml::Value::Integer(3))],
            "t.toml",
        )
        .unwrap_err();
        assert!(err.contains("nn"), "{err}");
        assert_eq!(
            parse_assignment("topology.n=4").unwrap(),
            ("topology.n".to_string(), toml::Value::Integer(4))
        );
        assert_eq!(
            parse_assignment("link.face=udp").unwrap().1,
            toml::Value::String("udp".into())
        );
    }
}
