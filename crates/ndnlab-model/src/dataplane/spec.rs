//! The model file (`ndnlab-dataplane/1`, TOML): the shape of the data plane,
//! its traffic and the service time of every stage. docs/model.md documents
//! every key; `models/` holds the shipped examples.
//!
//! A [`ModelSpec`] is what the file says; [`ModelSpec::set`] changes one
//! parameter (what `--set` and `model explore --grid` do); [`ModelSpec::resolve`]
//! reads the fitted model files it names and gives the numbers the engine runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndnlab_des::cost::{parse_duration_ns, ClassCostSpec};
use ndnlab_des::{Class, DropPolicy, ServiceDist, Tabulated};
use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::service::model_entry;

/// The value of `format` this version reads.
pub const FORMAT: &str = "ndnlab-dataplane/1";

/// A whole model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub format: String,
    /// A one-line title for tables and plots.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub consumer: Consumer,
    #[serde(default)]
    pub forwarder: Forwarder,
    #[serde(default)]
    pub producer: Producer,
    #[serde(default)]
    pub service: Service,
    /// Named NUMA placements (seed 004's P1-P4), picked by `forwarder.placement`.
    #[serde(default)]
    pub placement: BTreeMap<String, Placement>,
    /// The directory relative `model:` paths are read from (the file's own).
    #[serde(skip)]
    pub base: PathBuf,
}

/// The consumer: how Interests are sent, and how many per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Consumer {
    /// `constant`, `poisson` or `burst`.
    pub pattern: String,
    /// Time between Interests (`700ns`); `rate` instead gives Interests/s.
    pub interval: Option<String>,
    pub rate: Option<f64>,
    /// Interests per burst (`pattern = "burst"`): sent back to back, bursts
    /// `burst × interval` apart.
    pub burst: u32,
    /// Interests per run.
    pub interests: u32,
    /// The first Interests of a run, left out of every observable.
    pub warmup: u32,
    /// Interest lifetime: later Data does not satisfy.
    pub lifetime: String,
    /// Distinct name prefixes; the Name Dispatch Table maps each to a thread.
    pub prefixes: u32,
    /// One-way delay between the consumer and the forwarder.
    pub link: String,
}

impl Default for Consumer {
    fn default() -> Self {
        Consumer {
            pattern: "constant".into(),
            interval: Some("1us".into()),
            rate: None,
            burst: 64,
            interests: 20_000,
            warmup: 0,
            lifetime: "4s".into(),
            prefixes: 255,
            link: "0ns".into(),
        }
    }
}

/// The forwarder's threads and queues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Forwarder {
    /// 1 (one input thread reads both faces) or 2 (one per face, as NDN-DPDK).
    pub input_threads: u32,
    /// Forwarding threads.
    pub threads: u32,
    /// Packets each forwarding thread's queue holds waiting (0 = unbounded).
    pub queue: u32,
    /// `tail-drop` or `data-first`.
    pub policy: String,
    /// Packets an input thread's receive queue holds (0 = unbounded).
    pub input_queue: u32,
    /// 1 or 2, as `input_threads`.
    pub output_threads: u32,
    pub output_queue: u32,
    /// A `[placement.NAME]`, or empty: everything on one NUMA node.
    pub placement: String,
}

impl Default for Forwarder {
    fn default() -> Self {
        Forwarder {
            input_threads: 2,
            threads: 1,
            queue: 4096,
            policy: "tail-drop".into(),
            input_queue: 0,
            output_threads: 2,
            output_queue: 0,
            placement: String::new(),
        }
    }
}

/// The producer: answers every Interest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Producer {
    /// One-way delay between the forwarder and the producer.
    pub link: String,
    /// The producer's time per Interest (a cost string).
    pub service: String,
}

impl Default for Producer {
    fn default() -> Self {
        Producer {
            link: "0ns".into(),
            service: "zero".into(),
        }
    }
}

/// The service time of one stage, per packet type (cost strings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageCost {
    #[serde(default = "zero")]
    pub interest: String,
    #[serde(default = "zero")]
    pub data: String,
    /// Added to the service of a packet that finds the stage's thread idle:
    /// the time a parked thread takes to wake up.
    #[serde(default = "zero")]
    pub wakeup: String,
}

impl Default for StageCost {
    fn default() -> Self {
        StageCost {
            interest: zero(),
            data: zero(),
            wakeup: zero(),
        }
    }
}

fn zero() -> String {
    "zero".into()
}

/// Service times: `ndnlab_des::cost` strings (`constant:120ns`, `gamma:...`,
/// `model:PATH[@STAGE][{factor=level}]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Service {
    /// Factor levels added to every `model:` entry (e.g. `name_len = "7"`);
    /// each is also a parameter `--set`/`--grid` can change.
    #[serde(default)]
    pub factors: BTreeMap<String, String>,
    #[serde(default)]
    pub input: StageCost,
    #[serde(default)]
    pub fwd: StageCost,
    #[serde(default)]
    pub output: StageCost,
    /// Added to a stage's service time when the packet comes from a thread
    /// on another NUMA node.
    #[serde(default = "zero")]
    pub penalty: String,
    /// Service times that hold at one level of a factor:
    /// `[service.when.name_len.13.fwd] interest = "..."` replaces
    /// `service.fwd.interest` while `name_len` is 13.
    #[serde(default)]
    pub when: BTreeMap<String, BTreeMap<String, LevelCost>>,
}

/// The service times a factor level replaces; a key left out keeps its value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelCost {
    pub input: Option<PartialStage>,
    pub fwd: Option<PartialStage>,
    pub output: Option<PartialStage>,
    pub penalty: Option<String>,
}

/// One stage's replaced service times.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialStage {
    pub interest: Option<String>,
    pub data: Option<String>,
    pub wakeup: Option<String>,
}

impl Service {
    /// The service times at the current factor levels: `when` applied.
    pub fn effective(&self) -> Service {
        let mut s = self.clone();
        for (factor, level) in &self.factors {
            let Some(c) = self.when.get(factor).and_then(|l| l.get(level)) else {
                continue;
            };
            for (stage, over) in [
                (&mut s.input, &c.input),
                (&mut s.fwd, &c.fwd),
                (&mut s.output, &c.output),
            ] {
                if let Some(o) = over {
                    if let Some(v) = &o.interest {
                        stage.interest = v.clone();
                    }
                    if let Some(v) = &o.data {
                        stage.data = v.clone();
                    }
                    if let Some(v) = &o.wakeup {
                        stage.wakeup = v.clone();
                    }
                }
            }
            if let Some(p) = &c.penalty {
                s.penalty = p.clone();
            }
        }
        s
    }
}

impl Default for Service {
    fn default() -> Self {
        Service {
            factors: BTreeMap::new(),
            input: StageCost::default(),
            fwd: StageCost::default(),
            output: StageCost::default(),
            penalty: zero(),
            when: BTreeMap::new(),
        }
    }
}

/// NUMA nodes of the faces (their input and output threads) and of the
/// forwarding threads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The consumer's face.
    pub face0: u8,
    /// The producer's face.
    pub face1: u8,
    /// The forwarding threads.
    pub fwd: u8,
}

/// The parameters [`ModelSpec::set`] accepts besides the factors.
pub const PARAMETERS: &[&str] = &[
    "threads",
    "queue",
    "policy",
    "rate",
    "interval",
    "pattern",
    "burst",
    "interests",
    "warmup",
    "placement",
    "input_threads",
    "output_threads",
    "input_queue",
    "prefixes",
];

/// What the engine runs: every number resolved, every distribution read.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub pattern: Pattern,
    /// Mean time between Interests, ns.
    pub interval_ns: f64,
    pub interests: u32,
    pub warmup: u32,
    pub lifetime_ns: u64,
    pub prefixes: u32,
    pub consumer_link_ns: u64,
    pub producer_link_ns: u64,
    pub input_threads: usize,
    pub output_threads: usize,
    pub threads: usize,
    pub queue: usize,
    pub input_queue: usize,
    pub output_queue: usize,
    pub policy: DropPolicy,
    pub placement: Placement,
    /// `[interest, data]` per stage.
    pub input: [Tabulated; 2],
    pub fwd: [Tabulated; 2],
    pub output: [Tabulated; 2],
    pub producer: Tabulated,
    pub penalty: Tabulated,
    /// Wake-up of an idle thread: input, fwd, output.
    pub wakeup: [Tabulated; 3],
}

/// How the consumer spaces its Interests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Constant,
    Poisson,
    /// `n` back to back, then a gap.
    Burst(u32),
}

fn bad(key: &str, message: impl std::fmt::Display) -> Error {
    Error::Spec {
        key: key.to_string(),
        message: message.to_string(),
    }
}

fn duration(key: &str, s: &str) -> Result<f64> {
    parse_duration_ns(s).map_err(|m| bad(key, m))
}

impl ModelSpec {
    /// Parses a model file's text; `path` names it in errors and anchors its
    /// relative `model:` paths.
    pub fn from_toml(text: &str, path: &Path) -> Result<ModelSpec> {
        let mut m: ModelSpec = toml::from_str(text).map_err(|e| Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if m.format != FORMAT {
            return Err(Error::File {
                path: path.to_path_buf(),
                message: format!("format is {:?}; this version reads {FORMAT:?}", m.format),
            });
        }
        m.base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        m.check().map_err(|e| Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(m)
    }

    /// Reads a model file.
    pub fn load(path: &Path) -> Result<ModelSpec> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        ModelSpec::from_toml(&text, path)
    }

    /// Reads a model file and applies `sets` (`PARAMETER=VALUE`, as `--set` gives
    /// them) in order, then checks the result; each error names the assignment.
    pub fn load_with(path: &Path, sets: &[String]) -> Result<ModelSpec> {
        let mut m = ModelSpec::load(path)?;
        for kv in sets {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| Error::Usage(format!("--set {kv:?}: write PARAMETER=VALUE")))?;
            m.set(k.trim(), v.trim())
                .map_err(|e| Error::Usage(format!("--set {kv}: {e}")))?;
        }
        m.check()
            .map_err(|e| Error::Usage(format!("{} with --set: {e}", path.display())))?;
        Ok(m)
    }

    /// Checks every number and name without reading fitted model files.
    pub fn check(&self) -> Result<()> {
        let c = &self.consumer;
        let f = &self.forwarder;
        if c.interests == 0 {
            return Err(bad("consumer.interests", "must be at least 1"));
        }
        if c.warmup >= c.interests {
            return Err(bad(
                "consumer.warmup",
                format!(
                    "{} leaves no Interest of {} observed",
                    c.warmup, c.interests
                ),
            ));
        }
        if c.prefixes == 0 {
            return Err(bad("consumer.prefixes", "must be at least 1"));
        }
        if !(1..=64).contains(&f.threads) {
            return Err(bad(
                "forwarder.threads",
                format!("{} is not in 1..=64", f.threads),
            ));
        }
        for (k, v) in [
            ("forwarder.input_threads", f.input_threads),
            ("forwarder.output_threads", f.output_threads),
        ] {
            if !(1..=2).contains(&v) {
                return Err(bad(
                    k,
                    format!("{v}: 1 (shared by both faces) or 2 (one per face)"),
                ));
            }
        }
        if DropPolicy::parse(&f.policy).is_none() {
            return Err(bad(
                "forwarder.policy",
                format!("{:?}: tail-drop or data-first", f.policy),
            ));
        }
        if !f.placement.is_empty() && !self.placement.contains_key(&f.placement) {
            return Err(bad(
                "forwarder.placement",
                format!(
                    "no [placement.{}]; the file has: {}",
                    f.placement,
                    self.placement
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        self.pattern()?;
        self.interval_ns()?;
        duration("consumer.lifetime", &c.lifetime)?;
        duration("consumer.link", &c.link)?;
        duration("producer.link", &self.producer.link)?;
        for (k, v) in self.cost_strings() {
            ClassCostSpec::parse(&v).map_err(|m| bad(&k, m))?;
        }
        for (factor, levels) in &self.service.when {
            if !self.service.factors.contains_key(factor) {
                return Err(bad(
                    &format!("service.when.{factor}"),
                    format!("{factor} is not in service.factors"),
                ));
            }
            for (level, c) in levels {
                let key = format!("service.when.{factor}.{level}");
                for (stage, o) in [("input", &c.input), ("fwd", &c.fwd), ("output", &c.output)] {
                    let o = o
                        .iter()
                        .flat_map(|o| [("interest", &o.interest), ("data", &o.data)]);
                    for (what, v) in o {
                        if let Some(v) = v {
                            ClassCostSpec::parse(v)
                                .map_err(|m| bad(&format!("{key}.{stage}.{what}"), m))?;
                        }
                    }
                }
                if let Some(v) = &c.penalty {
                    ClassCostSpec::parse(v).map_err(|m| bad(&format!("{key}.penalty"), m))?;
                }
            }
        }
        Ok(())
    }

    fn cost_strings(&self) -> Vec<(String, String)> {
        let s = &self.service;
        let mut v = Vec::new();
        for (stage, c) in [("input", &s.input), ("fwd", &s.fwd), ("output", &s.output)] {
            v.push((format!("service.{stage}.interest"), c.interest.clone()));
            v.push((format!("service.{stage}.data"), c.data.clone()));
            v.push((format!("service.{stage}.wakeup"), c.wakeup.clone()));
        }
        v.push(("service.penalty".into(), s.penalty.clone()));
        v.push(("producer.service".into(), self.producer.service.clone()));
        v
    }

    fn pattern(&self) -> Result<Pattern> {
        match self.consumer.pattern.as_str() {
            "constant" => Ok(Pattern::Constant),
            "poisson" => Ok(Pattern::Poisson),
            "burst" if self.consumer.burst >= 1 => Ok(Pattern::Burst(self.consumer.burst)),
            "burst" => Err(bad("consumer.burst", "must be at least 1")),
            p => Err(bad(
                "consumer.pattern",
                format!("{p:?}: constant, poisson or burst"),
            )),
        }
    }

    /// The mean time between Interests, ns.
    pub fn interval_ns(&self) -> Result<f64> {
        let c = &self.consumer;
        let ns = match (&c.rate, &c.interval) {
            (Some(r), _) if !(r.is_finite() && *r > 0.0) => {
                return Err(bad("consumer.rate", format!("{r} is not a positive rate")))
            }
            (Some(r), _) => 1e9 / r,
            (None, Some(i)) => duration("consumer.interval", i)?,
            (None, None) => return Err(bad("consumer.interval", "give interval or rate")),
        };
        if ns <= 0.0 {
            return Err(bad("consumer.interval", "must be positive"));
        }
        Ok(ns)
    }

    /// The names [`ModelSpec::set`] accepts: [`PARAMETERS`] and the factors.
    pub fn parameters(&self) -> Vec<String> {
        PARAMETERS
            .iter()
            .map(|s| s.to_string())
            .chain(self.service.factors.keys().cloned())
            .collect()
    }

    /// Sets one parameter (`threads`, `queue`, `rate`, a factor...) from text.
    /// Only the value's form is checked here: [`ModelSpec::check`] (and
    /// [`ModelSpec::resolve`]) check the whole once every parameter is set.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let num = |v: &str| -> Result<u32> {
            v.trim()
                .parse::<u32>()
                .map_err(|_| bad(key, format!("{v:?} is not a whole number")))
        };
        let f = &mut self.forwarder;
        let c = &mut self.consumer;
        match key {
            "threads" => f.threads = num(value)?,
            "queue" => f.queue = num(value)?,
            "policy" => f.policy = value.to_string(),
            "placement" => f.placement = value.to_string(),
            "input_threads" => f.input_threads = num(value)?,
            "output_threads" => f.output_threads = num(value)?,
            "input_queue" => f.input_queue = num(value)?,
            "interests" => c.interests = num(value)?,
            "warmup" => c.warmup = num(value)?,
            "prefixes" => c.prefixes = num(value)?,
            "burst" => c.burst = num(value)?,
            "pattern" => c.pattern = value.to_string(),
            "rate" => {
                let r: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| bad(key, format!("{value:?} is not a number (Interests/s)")))?;
                c.rate = Some(r);
            }
            "interval" => {
                c.rate = None;
                c.interval = Some(value.to_string());
            }
            k if self.service.factors.contains_key(k) => {
                self.service
                    .factors
                    .insert(k.to_string(), value.to_string());
            }
            _ => {
                return Err(bad(
                    key,
                    format!(
                        "not a parameter of this model; it has: {}",
                        self.parameters().join(", ")
                    ),
                ))
            }
        }
        Ok(())
    }

    /// The current value of a parameter, as text (for tables and CSV).
    pub fn get(&self, key: &str) -> Option<String> {
        let f = &self.forwarder;
        let c = &self.consumer;
        Some(match key {
            "threads" => f.threads.to_string(),
            "queue" => f.queue.to_string(),
            "policy" => f.policy.clone(),
            "placement" => f.placement.clone(),
            "input_threads" => f.input_threads.to_string(),
            "output_threads" => f.output_threads.to_string(),
            "input_queue" => f.input_queue.to_string(),
            "interests" => c.interests.to_string(),
            "warmup" => c.warmup.to_string(),
            "prefixes" => c.prefixes.to_string(),
            "burst" => c.burst.to_string(),
            "pattern" => c.pattern.clone(),
            "rate" => format!("{}", 1e9 / self.interval_ns().ok()?),
            "interval" => format!("{}ns", self.interval_ns().ok()?),
            k => self.service.factors.get(k)?.clone(),
        })
    }

    /// Reads the fitted model files and gives the engine's numbers.
    pub fn resolve(&self) -> Result<Resolved> {
        self.check()?;
        let mut cache: Vec<(PathBuf, crate::ModelFile)> = Vec::new();
        let mut dist = |key: &str, text: &str, stage: &str, class: Class| -> Result<ServiceDist> {
            let spec = ClassCostSpec::parse(text).map_err(|m| bad(key, m))?;
            Ok(match spec {
                ClassCostSpec::Zero => ServiceDist::Zero,
                ClassCostSpec::Constant(ns) => ServiceDist::Constant(ns),
                ClassCostSpec::Dist(d) => ServiceDist::Dist(d),
                ClassCostSpec::Model {
                    path,
                    stage: s,
                    mut factors,
                } => {
                    let full = self.base.join(&path);
                    let i = match cache.iter().position(|(p, _)| *p == full) {
                        Some(i) => i,
                        None => {
                            let m = crate::ModelFile::load(&full)
                                .map_err(|e| bad(key, e.to_string()))?;
                            cache.push((full.clone(), m));
                            cache.len() - 1
                        }
                    };
                    let m = &cache[i].1;
                    // `@STAGE` written: that stage; else the key's own stage.
                    let stage = if text.contains('@') {
                        s
                    } else {
                        stage.to_string()
                    };
                    // The model's factor levels, unless the string names its own.
                    for (k, v) in &self.service.factors {
                        let used = m.entries.iter().any(|e| e.factors.contains_key(k));
                        if used && !factors.iter().any(|(f, _)| f == k) {
                            factors.push((k.clone(), v.clone()));
                        }
                    }
                    model_entry(m, class, &stage, &factors)
                        .map_err(|msg| bad(key, format!("{}: {msg}", full.display())))?
                }
            })
        };
        let s = &self.service.effective();
        let stage = |d: &mut dyn FnMut(&str, &str, &str, Class) -> Result<ServiceDist>,
                     name: &str,
                     c: &StageCost,
                     interest: Class|
         -> Result<[Tabulated; 2]> {
            Ok([
                d(
                    &format!("service.{name}.interest"),
                    &c.interest,
                    name,
                    interest,
                )?
                .into(),
                d(&format!("service.{name}.data"), &c.data, name, Class::Data)?.into(),
            ])
        };
        let input = stage(&mut dist, "input", &s.input, Class::Interest)?;
        let fwd = stage(&mut dist, "fwd", &s.fwd, Class::CsMiss)?;
        let output = stage(&mut dist, "output", &s.output, Class::Interest)?;
        let producer = dist(
            "producer.service",
            &self.producer.service,
            "producer",
            Class::Interest,
        )?;
        let penalty = dist("service.penalty", &s.penalty, "penalty", Class::Interest)?;
        let mut wake = |name: &str, c: &StageCost| -> Result<Tabulated> {
            let key = format!("service.{name}.wakeup");
            Ok(dist(&key, &c.wakeup, &format!("{name}_wakeup"), Class::Interest)?.into())
        };
        let wakeup = [
            wake("input", &s.input)?,
            wake("fwd", &s.fwd)?,
            wake("output", &s.output)?,
        ];
        let f = &self.forwarder;
        let c = &self.consumer;
        Ok(Resolved {
            pattern: self.pattern()?,
            interval_ns: self.interval_ns()?,
            interests: c.interests,
            warmup: c.warmup,
            lifetime_ns: duration("consumer.lifetime", &c.lifetime)?.round() as u64,
            prefixes: c.prefixes,
            consumer_link_ns: duration("consumer.link", &c.link)?.round() as u64,
            producer_link_ns: duration("producer.link", &self.producer.link)?.round() as u64,
            input_threads: f.input_threads as usize,
            output_threads: f.output_threads as usize,
            threads: f.threads as usize,
            queue: f.queue as usize,
            input_queue: f.input_queue as usize,
            output_queue: f.output_queue as usize,
            policy: DropPolicy::parse(&f.policy).expect("checked"),
            placement: self
                .placement
                .get(&f.placement)
                .cloned()
                .unwrap_or_default(),
            input,
            fwd,
            output,
            producer: producer.into(),
            penalty: penalty.into(),
            wakeup,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: &str) -> Result<ModelSpec> {
        ModelSpec::from_toml(
            &format!("format = \"{FORMAT}\"\n{extra}"),
            Path::new("m.toml"),
        )
    }

    #[test]
    fn defaults_resolve_and_set_changes_one_parameter() {
        let mut m = spec("[service.fwd]\ninterest = \"constant:300ns\"").unwrap();
        let r = m.resolve().unwrap();
        assert_eq!(r.threads, 1);
        assert_eq!(r.fwd[0].dist, ServiceDist::Constant(300));
        assert_eq!(r.interval_ns, 1000.0);
        m.set("threads", "4").unwrap();
        m.set("rate", "2e6").unwrap();
        assert_eq!(m.resolve().unwrap().threads, 4);
        assert_eq!(m.resolve().unwrap().interval_ns, 500.0);
        assert_eq!(m.get("threads").as_deref(), Some("4"));
    }

    #[test]
    fn errors_name_the_key() {
        let e = spec("[forwarder]\npolicy = \"lifo\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("forwarder.policy") && e.contains("m.toml"),
            "{e}"
        );
        let e = spec("[service.fwd]\ndata = \"constant:3\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("service.fwd.data"), "{e}");
        let e = spec("[forwarder]\nplacement = \"P9\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no [placement.P9]"), "{e}");
        let e = spec("[consumer]\nbogus = 1").unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
        let mut m = spec("").unwrap();
        let e = m.set("cores", "2").unwrap_err().to_string();
        assert!(e.contains("cores") && e.contains("threads"), "{e}");
        let e = m.set("threads", "two").unwrap_err().to_string();
        assert!(e.contains("not a whole number"), "{e}");
        let e = spec("format = \"x\"").unwrap_err().to_string();
        assert!(e.contains("duplicate") || e.contains("format"), "{e}");
    }
}
