//! Cost strings: the service time per packet class of a forwarding thread
//! ([`crate::station`]) as experiment files write it, and what it resolves to.
//! The data-plane model's files write each stage's service time in the same
//! strings.
//!
//! # In an experiment file
//!
//! The key is `cost` (in the `[forwarder]` table). Either one string for every
//! class, or a table with a string per class:
//!
//! ```toml
//! [forwarder]
//! cost = "zero"                         # pure protocol behaviour (the default)
//! cost = "constant:2us"                 # every packet 2 µs
//! cost = "exp:5us"                      # exponential, mean 5 µs
//! cost = "model:models/ndnlab-fwd.toml" # fitted by `ndnlab model fit`
//!
//! [forwarder.cost]                      # or per class
//! default = "constant:1us"              # any class not named (else zero)
//! interest = "exp:4us"                  # cs_hit and cs_miss default to this
//! data = "constant:1500ns"
//! nack = "zero"
//! cs_hit = "gamma:shape=2,scale=1us"
//! cs_miss = "model:models/ndnlab-fwd.toml"
//! ```
//!
//! Strings ([`ClassCostSpec::parse`]); durations take a unit `ns`, `us`, `ms`
//! or `s` (`2us`, `1.5ms`):
//!
//! | string | service time |
//! |---|---|
//! | `zero` | 0 |
//! | `constant:D` | D |
//! | `exp:MEAN` | exponential with mean MEAN |
//! | `exponential:scale=D[,location=D]` | shifted exponential |
//! | `normal:mean=D,sd=D` | normal (negative draws count as 0) |
//! | `lognormal:median=D,sigma=X` | log-normal |
//! | `gamma:shape=X,scale=D` | gamma |
//! | `weibull:shape=X,scale=D[,location=D]` | Weibull |
//! | `model:PATH[@STAGE][{factor=level,...}]` | the model file's entry (below) |
//!
//! Sampling is [`crate::ServiceDist::sample`] with a seeded [`crate::rng::Rng`]
//! ([`CostModel::sampler`]); nothing reads the wall clock.
//!
//! # Which model entries make a service time
//!
//! This crate parses `model:` strings; `ndnlab-model`, which reads model
//! files, resolves them (`ndnlab_model::service::cost_model`, through
//! [`CostModel::resolve`]).
//!
//! A model file (`ndnlab_model::ModelFile`, docs/FITTING.md) has entries per
//! stage (docs/LATENCY.md: `input`, `queue`, `fwd`, `output`, `total`), packet
//! type and Content Store outcome. A station's service time is the **`fwd`
//! stage** by default: the time the forwarding shard spends on the packet, the
//! only stage that occupies the forwarding thread. `queue` is the wait for the
//! shard and is *emergent* in the simulation (never sampled); `input` (face
//! reader decode and dispatch) and `output` (face writer) run on other threads
//! in `ndnlab fwd`. `model:PATH@total` takes the whole `total` stage instead,
//! which counts the measured queue wait too: use it only with a model
//! measured at low load.
//!
//! Each class picks the model entry of its stage with the most specific
//! packet type and CS outcome present, falling back to pooled entries:
//!
//! | class | tried in order (packet/cs) |
//! |---|---|
//! | `interest` | interest/any, any/any |
//! | `cs_hit` | interest/hit, interest/any, any/any |
//! | `cs_miss` | interest/miss, interest/any, any/any |
//! | `data` | data/any, any/any |
//! | `nack` | nack/any, any/any, data/any (a Nack is matched to its PIT entry as a Data is) |
//!
//! Entries fitted with factors are picked only if the spec names all their
//! levels in `{...}`; an ambiguous or missing entry is an error naming the
//! file and the entries it has. Values are converted from the file's `unit`.

use std::fmt;
use std::path::{Path, PathBuf};

use ndnlab_analysis::fit::Dist;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::events::Nanos;
use crate::rng::{rng, Rng};
use crate::service::ServiceDist;
use crate::station::{Class, ServiceTime};

/// A cost spec that could not be parsed or resolved; names the key or file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct CostError {
    /// The key (`cost`, `cost.data`) or the file the error is about.
    pub key: String,
    pub message: String,
}

fn err(key: &str, message: impl Into<String>) -> CostError {
    CostError {
        key: key.to_string(),
        message: message.into(),
    }
}

/// One class's service time as written: the parsed form of one string.
#[derive(Debug, Clone, PartialEq)]
pub enum ClassCostSpec {
    Zero,
    Constant(Nanos),
    /// A distribution, in ns.
    Dist(Dist),
    /// An entry of a model file.
    Model {
        path: PathBuf,
        stage: String,
        factors: Vec<(String, String)>,
    },
}

/// Parses `2us`, `1.5ms`, `300ns`, `1s` into nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(|| format!("{s:?} has no unit (write e.g. 2us; units ns, us, ms, s)"))?;
    let (num, unit) = s.split_at(split);
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{num:?} in {s:?} is not a number"))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return Err(format!("unknown unit {unit:?} in {s:?} (ns, us, ms, s)")),
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("{s:?} must be a non-negative duration"));
    }
    Ok(v * scale)
}

fn parse_number(key: &str, v: &str) -> Result<f64, String> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("{key}={v:?} is not a number"))?;
    if !x.is_finite() {
        return Err(format!("{key}={v:?} is not finite"));
    }
    Ok(x)
}

/// `k=v,k=v` parameters, each named key used once, none unknown.
struct Params<'a> {
    family: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Params<'a> {
    fn new(family: &'a str, text: &'a str) -> Result<Params<'a>, String> {
        let mut pairs = Vec::new();
        for p in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("{family}: {p:?} is not key=value"))?;
            pairs.push((k.trim(), v.trim()));
        }
        Ok(Params { family, pairs })
    }
    fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.pairs.iter().position(|(k, _)| *k == key)?;
        Some(self.pairs.remove(i).1)
    }
    fn need(&mut self, key: &str) -> Result<&'a str, String> {
        self.take(key)
            .ok_or_else(|| format!("{} needs {key}=", self.family))
    }
    fn dur(&mut self, key: &str) -> Result<f64, String> {
        parse_duration_ns(self.need(key)?).map_err(|m| format!("{key}: {m}"))
    }
    fn dur_or_zero(&mut self, key: &str) -> Result<f64, String> {
        match self.take(key) {
            Some(v) => parse_duration_ns(v).map_err(|m| format!("{key}: {m}")),
            None => Ok(0.0),
        }
    }
    fn num(&mut self, key: &str) -> Result<f64, String> {
        let v = self.need(key)?;
        parse_number(key, v)
    }
    fn done(self) -> Result<(), String> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, _)) => Err(format!("{}: unknown parameter {k:?}", self.family)),
        }
    }
}

impl ClassCostSpec {
    /// Parses one cost string (see the module docs for the forms).
    pub fn parse(s: &str) -> Result<ClassCostSpec, String> {
        let s = s.trim();
        if s == "zero" {
            return Ok(ClassCostSpec::Zero);
        }
        let (kind, rest) = s.split_once(':').ok_or_else(|| {
            format!(
                "{s:?} is not a cost: write zero, constant:2us, exp:5us, \
                 gamma:shape=X,scale=D, normal:..., lognormal:..., weibull:..., or model:PATH"
            )
        })?;
        let dist = match kind.trim() {
            "constant" => {
                return Ok(ClassCostSpec::Constant(
                    parse_duration_ns(rest)?.round() as Nanos
                ))
            }
            "model" => return parse_model(rest),
            "exp" if !rest.contains('=') => Dist::Exponential {
                scale: parse_duration_ns(rest)?,
                location: 0.0,
            },
            "exp" | "exponential" => {
                let mut p = Params::new("exponential", rest)?;
                let location = p.dur_or_zero("location")?;
                let scale = match p.take("mean") {
                    Some(m) => parse_duration_ns(m).map_err(|e| format!("mean: {e}"))? - location,
                    None => p.dur("scale")?,
                };
                p.done()?;
                Dist::Exponential { scale, location }
            }
            "normal" => {
                let mut p = Params::new("normal", rest)?;
                let d = Dist::Normal {
                    mean: p.dur("mean")?,
                    sd: p.dur("sd")?,
                };
                p.done()?;
                d
            }
            "lognormal" => {
                let mut p = Params::new("lognormal", rest)?;
                let d = Dist::Lognormal {
                    mu: p.dur("median")?.ln(),
                    sigma: p.num("sigma")?,
                };
                p.done()?;
                d
            }
            "gamma" => {
                let mut p = Params::new("gamma", rest)?;
                let d = Dist::Gamma {
                    shape: p.num("shape")?,
                    scale: p.dur("scale")?,
                };
                p.done()?;
                d
            }
            "weibull" => {
                let mut p = Params::new("weibull", rest)?;
                let d = Dist::Weibull {
                    shape: p.num("shape")?,
                    scale: p.dur("scale")?,
                    location: p.dur_or_zero("location")?,
                };
                p.done()?;
                d
            }
            other => {
                return Err(format!(
                    "unknown cost kind {other:?} (zero, constant, exp, exponential, normal, \
                     lognormal, gamma, weibull, model)"
                ))
            }
        };
        dist.validate().map_err(|m| format!("{s:?}: {m}"))?;
        Ok(ClassCostSpec::Dist(dist))
    }
}

fn parse_model(rest: &str) -> Result<ClassCostSpec, String> {
    let mut rest = rest.trim();
    let mut factors = Vec::new();
    if let Some(body) = rest.strip_suffix('}') {
        let open = body
            .rfind('{')
            .ok_or_else(|| format!("model:{rest}: a '}}' without '{{'"))?;
        for p in body[open + 1..].split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("model factor {p:?} is not factor=level"))?;
            factors.push((k.trim().to_string(), v.trim().to_string()));
        }
        rest = &body[..open];
    }
    let (path, stage) = match rest.rsplit_once('@') {
        Some((p, s)) if !s.contains('/') => (p, s.trim()),
        _ => (rest, "fwd"),
    };
    if path.is_empty() {
        return Err("model: needs a path (model:models/ndnlab-fwd.toml)".into());
    }
    if stage.is_empty() {
        return Err(format!("model:{rest}: empty stage after '@'"));
    }
    Ok(ClassCostSpec::Model {
        path: PathBuf::from(path),
        stage: stage.to_string(),
        factors,
    })
}

impl fmt::Display for ClassCostSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassCostSpec::Zero => write!(f, "zero"),
            ClassCostSpec::Constant(ns) => write!(f, "constant:{ns}ns"),
            ClassCostSpec::Dist(d) => match d {
                Dist::Exponential { scale, location } if *location == 0.0 => {
                    write!(f, "exp:{scale}ns")
                }
                Dist::Exponential { scale, location } => {
                    write!(f, "exponential:scale={scale}ns,location={location}ns")
                }
                Dist::Normal { mean, sd } => write!(f, "normal:mean={mean}ns,sd={sd}ns"),
                Dist::Lognormal { mu, sigma } => {
                    write!(f, "lognormal:median={}ns,sigma={sigma}", mu.exp())
                }
                Dist::Gamma { shape, scale } => write!(f, "gamma:shape={shape},scale={scale}ns"),
                Dist::Weibull {
                    shape,
                    scale,
                    location,
                } => write!(
                    f,
                    "weibull:shape={shape},scale={scale}ns,location={location}ns"
                ),
                other => write!(f, "{other:?}"),
            },
            ClassCostSpec::Model {
                path,
                stage,
                factors,
            } => {
                write!(f, "model:{}", path.display())?;
                if stage != "fwd" {
                    write!(f, "@{stage}")?;
                }
                if !factors.is_empty() {
                    let fs: Vec<String> = factors.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    write!(f, "{{{}}}", fs.join(","))?;
                }
                Ok(())
            }
        }
    }
}

/// The `cost` key: one spec for every class, or one per class.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostSpec {
    /// Classes not named below (zero if absent).
    pub default: Option<ClassCostSpec>,
    pub interest: Option<ClassCostSpec>,
    pub data: Option<ClassCostSpec>,
    pub nack: Option<ClassCostSpec>,
    /// Falls back to `interest`, then `default`.
    pub cs_hit: Option<ClassCostSpec>,
    /// Falls back to `interest`, then `default`.
    pub cs_miss: Option<ClassCostSpec>,
}

impl CostSpec {
    /// Zero cost for every class.
    pub fn zero() -> CostSpec {
        CostSpec::default()
    }

    /// The same spec for every class.
    pub fn all(spec: ClassCostSpec) -> CostSpec {
        CostSpec {
            default: Some(spec),
            ..CostSpec::default()
        }
    }

    /// Parses a one-string spec.
    pub fn parse(s: &str) -> Result<CostSpec, String> {
        Ok(CostSpec::all(ClassCostSpec::parse(s)?))
    }

    /// The spec a class uses after the fallbacks, and the key it came from.
    pub fn for_class(&self, class: Class) -> (&'static str, Option<&ClassCostSpec>) {
        let own = match class {
            Class::Interest => self.interest.as_ref(),
            Class::Data => self.data.as_ref(),
            Class::Nack => self.nack.as_ref(),
            Class::CsHit => self.cs_hit.as_ref(),
            Class::CsMiss => self.cs_miss.as_ref(),
        };
        if own.is_some() {
            return (class.name(), own);
        }
        if matches!(class, Class::CsHit | Class::CsMiss) && self.interest.is_some() {
            return ("interest", self.interest.as_ref());
        }
        ("default", self.default.as_ref())
    }

    fn only_default(&self) -> bool {
        self.interest.is_none()
            && self.data.is_none()
            && self.nack.is_none()
            && self.cs_hit.is_none()
            && self.cs_miss.is_none()
    }
}

impl<'de> Deserialize<'de> for ClassCostSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ClassCostSpec::parse(&s).map_err(de::Error::custom)
    }
}

impl Serialize for ClassCostSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PerClass {
    default: Option<ClassCostSpec>,
    interest: Option<ClassCostSpec>,
    data: Option<ClassCostSpec>,
    nack: Option<ClassCostSpec>,
    cs_hit: Option<ClassCostSpec>,
    cs_miss: Option<ClassCostSpec>,
}

impl<'de> Deserialize<'de> for CostSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CostSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a cost string (\"exp:5us\") or a table of them per class")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CostSpec, E> {
                CostSpec::parse(s).map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<CostSpec, A::Error> {
                let p = PerClass::deserialize(de::value::MapAccessDeserializer::new(m))?;
                Ok(CostSpec {
                    default: p.default,
                    interest: p.interest,
                    data: p.data,
                    nack: p.nack,
                    cs_hit: p.cs_hit,
                    cs_miss: p.cs_miss,
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for CostSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if self.only_default() {
            return match &self.default {
                Some(d) => s.collect_str(d),
                None => s.serialize_str("zero"),
            };
        }
        let mut m = s.serialize_map(None)?;
        for (k, v) in [
            ("default", &self.default),
            ("interest", &self.interest),
            ("data", &self.data),
            ("nack", &self.nack),
            ("cs_hit", &self.cs_hit),
            ("cs_miss", &self.cs_miss),
        ] {
            if let Some(v) = v {
                m.serialize_entry(k, &v.to_string())?;
            }
        }
        m.end()
    }
}

/// The service time of a `model:` entry for one class: the class, the path
/// as written, the stage and the factor levels; an error message otherwise.
pub type ModelEntry<'a> =
    dyn FnMut(Class, &Path, &str, &[(String, String)]) -> Result<ServiceDist, String> + 'a;

/// Resolved service times of every class: what a station samples.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    per_class: [ServiceDist; 5],
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel::zero()
    }
}

impl CostModel {
    /// Zero for every class.
    pub fn zero() -> CostModel {
        CostModel::uniform(ServiceDist::Zero)
    }

    /// The same service time for every class.
    pub fn uniform(d: ServiceDist) -> CostModel {
        CostModel {
            per_class: std::array::from_fn(|_| d.clone()),
        }
    }

    /// Sets one class's service time.
    pub fn with(mut self, class: Class, d: ServiceDist) -> CostModel {
        self.per_class[class.index()] = d;
        self
    }

    pub fn class(&self, class: Class) -> &ServiceDist {
        &self.per_class[class.index()]
    }

    /// Resolves a spec. `model` gives the service time of a `model:` entry
    /// for one class (`path` as written, its stage and factor levels); its
    /// error is reported under the spec's key. `key` is the spec's key in
    /// the experiment (`forwarder.cost`).
    pub fn resolve(
        spec: &CostSpec,
        key: &str,
        model: &mut ModelEntry,
    ) -> Result<CostModel, CostError> {
        let mut per_class: [ServiceDist; 5] = std::array::from_fn(|_| ServiceDist::Zero);
        for class in Class::ALL {
            let (from, s) = spec.for_class(class);
            let k = if spec.only_default() {
                key.to_string()
            } else {
                format!("{key}.{from}")
            };
            per_class[class.index()] = match s {
                None | Some(ClassCostSpec::Zero) => ServiceDist::Zero,
                Some(ClassCostSpec::Constant(ns)) => ServiceDist::Constant(*ns),
                Some(ClassCostSpec::Dist(d)) => ServiceDist::Dist(d.clone()),
                Some(ClassCostSpec::Model {
                    path,
                    stage,
                    factors,
                }) => model(class, path, stage, factors).map_err(|m| err(&k, m))?,
            };
        }
        Ok(CostModel { per_class })
    }

    /// A sampler of this model with its own RNG seeded by `seed`.
    pub fn sampler(&self, seed: u64) -> CostSampler {
        CostSampler {
            model: self.clone(),
            rng: rng(seed),
        }
    }
}

/// A [`CostModel`] with its seeded RNG: a [`ServiceTime`] for any item, by class.
#[derive(Debug, Clone)]
pub struct CostSampler {
    pub model: CostModel,
    pub rng: Rng,
}

impl CostSampler {
    /// One service time of `class`.
    pub fn sample(&mut self, class: Class) -> Nanos {
        self.model.per_class[class.index()].sample(&mut self.rng)
    }
}

impl<T> ServiceTime<T> for CostSampler {
    fn service_time(&mut self, class: Class, _item: &mut T) -> Nanos {
        self.sample(class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Fwd {
        cost: CostSpec,
    }

    fn no_model(
        _: Class,
        path: &Path,
        _: &str,
        _: &[(String, String)],
    ) -> Result<ServiceDist, String> {
        Err(format!("{}: no model files here", path.display()))
    }

    fn toml_spec(text: &str) -> Result<CostSpec, String> {
        toml::from_str::<Fwd>(text)
            .map(|f| f.cost)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn strings_parse() {
        assert_eq!(ClassCostSpec::parse("zero"), Ok(ClassCostSpec::Zero));
        assert_eq!(
            ClassCostSpec::parse("constant:2us"),
            Ok(ClassCostSpec::Constant(2000))
        );
        assert_eq!(
            ClassCostSpec::parse("exp:5us"),
            Ok(ClassCostSpec::Dist(Dist::Exponential {
                scale: 5000.0,
                location: 0.0
            }))
        );
        assert_eq!(
            ClassCostSpec::parse("gamma:shape=2,scale=1.5us"),
            Ok(ClassCostSpec::Dist(Dist::Gamma {
                shape: 2.0,
                scale: 1500.0
            }))
        );
        assert_eq!(
            ClassCostSpec::parse("model:models/f.toml@total{threads=4}"),
            Ok(ClassCostSpec::Model {
                path: "models/f.toml".into(),
                stage: "total".into(),
                factors: vec![("threads".into(), "4".into())],
            })
        );
        for s in [
            "constant:2us",
            "exp:5000ns",
            "gamma:shape=2,scale=1500ns",
            "model:m.toml",
        ] {
            let p = ClassCostSpec::parse(s).unwrap();
            assert_eq!(ClassCostSpec::parse(&p.to_string()).unwrap(), p, "{s}");
        }
    }

    #[test]
    fn bad_strings_say_what_is_wrong() {
        let e = ClassCostSpec::parse("constant:2").unwrap_err();
        assert!(e.contains("no unit"), "{e}");
        let e = ClassCostSpec::parse("gamma:shape=2").unwrap_err();
        assert!(e.contains("needs scale"), "{e}");
        let e = ClassCostSpec::parse("gamma:shape=2,scale=1us,rate=3").unwrap_err();
        assert!(e.contains("unknown parameter \"rate\""), "{e}");
        let e = ClassCostSpec::parse("uniform:1us").unwrap_err();
        assert!(e.contains("unknown cost kind"), "{e}");
        let e = ClassCostSpec::parse("2us").unwrap_err();
        assert!(e.contains("is not a cost"), "{e}");
    }

    #[test]
    fn toml_string_or_table() {
        let s = toml_spec("cost = \"exp:5us\"").unwrap();
        assert_eq!(s, CostSpec::parse("exp:5us").unwrap());
        let s = toml_spec(
            "[cost]\ndefault = \"constant:1us\"\ninterest = \"constant:4us\"\ndata = \"zero\"\n",
        )
        .unwrap();
        let m = CostModel::resolve(&s, "forwarder.cost", &mut no_model).unwrap();
        assert_eq!(m.class(Class::CsHit), &ServiceDist::Constant(4000));
        assert_eq!(m.class(Class::Data), &ServiceDist::Zero);
        assert_eq!(m.class(Class::Nack), &ServiceDist::Constant(1000));
        // Round trip through TOML.
        let back = toml::to_string(&Fwd2 { cost: s.clone() }).unwrap();
        assert_eq!(toml_spec(&back).unwrap(), s);
        // Errors name the key.
        let e = toml_spec("[cost]\ndata = \"constant:x\"\n").unwrap_err();
        assert!(e.contains("data") && e.contains("not a number"), "{e}");
        let e = toml_spec("[cost]\nintrest = \"zero\"\n").unwrap_err();
        assert!(e.contains("intrest"), "{e}");
        // A model entry's error is reported under its key.
        let s = toml_spec("[cost]\ndata = \"model:m.toml\"\n").unwrap();
        let e = CostModel::resolve(&s, "forwarder.cost", &mut no_model).unwrap_err();
        assert_eq!(
            e.to_string(),
            "forwarder.cost.data: m.toml: no model files here"
        );
    }

    #[derive(Serialize)]
    struct Fwd2 {
        cost: CostSpec,
    }

    #[test]
    fn sampling_is_seeded() {
        let m = CostModel::resolve(&CostSpec::parse("exp:5us").unwrap(), "cost", &mut no_model)
            .unwrap();
        let a: Vec<_> = {
            let mut s = m.sampler(7);
            (0..5).map(|_| s.sample(Class::Data)).collect()
        };
        let mut s = m.sampler(7);
        let b: Vec<_> = (0..5).map(|_| s.sample(Class::Data)).collect();
        assert_eq!(a, b);
        let n = 100_000;
        let mut s = m.sampler(1);
        let mean = (0..n)
            .map(|_| s.sample(Class::Interest) as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean - 5000.0).abs() < 100.0, "{mean}");
    }
}
