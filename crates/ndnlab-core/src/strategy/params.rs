//! Strategy instance names with parameters, resolved as NFD 24.07 does
//! (`Strategy::find`, `parseInstanceName`, `makeInstanceName` and each strategy's
//! constructor):
//!
//! ```text
//! /localhost/nfd/strategy/<name>[/v=<version>[/<param>~<value>]...]
//! ```
//!
//! * The last version component splits the name into the strategy name (up to and
//!   including it) and the parameters (after it).
//! * Without a version, the strategy is the highest registered name under the given
//!   name (`/localhost/nfd/strategy/asf` is `asf/v=5`), and the instance name gets that
//!   version appended. With a version, it is the first registered name at or above it
//!   in canonical order, provided it has the same strategy name: a version above the
//!   registered one finds nothing ("Strategy not registered", 404), a lower one finds
//!   the registered strategy, whose constructor then refuses it ("AsfStrategy does not
//!   support version 4", 409).
//! * random, access and self-learning refuse any parameter (409); best-route,
//!   multicast and ASF read theirs.
//!
//! Accepted parameters (values in milliseconds unless said):
//!
//! | parameter | strategies | meaning |
//! |---|---|---|
//! | `retx-suppression-initial` | best-route, multicast, asf | initial suppression interval (> 0; default 10) |
//! | `retx-suppression-max` | best-route, multicast, asf | maximum interval (>= initial; default 250) |
//! | `retx-suppression-multiplier` | best-route, multicast, asf | interval multiplier (real >= 1; default 2) |
//! | `probing-interval` | asf | time between probes (>= 1000; default 60000) |
//! | `max-timeouts` | asf | RTO timeouts before a face is ranked as timed out (default 3) |
//! | `n-silent-timeouts` | asf | ASF v1-v3 spelling: timeouts ignored; `max-timeouts = n + 1` |
//!
//! Unlike NFD, which ignores unknown parameter names, an unknown or repeated
//! parameter is an error, so a typo cannot silently fall back to a default.

use ndnlab_wire::Name;

use super::kind::StrategyKind;
use crate::config::ForwarderConfig;
use crate::strategy_choice::error::StrategyChoiceError;
use crate::{Time, MS};

/// NFD `RetxSuppressionExponential` parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetxParams {
    /// Initial suppression interval.
    pub initial: Time,
    /// Maximum suppression interval.
    pub max: Time,
    /// Multiplier applied after each forwarded retransmission.
    pub multiplier: f64,
}

impl Default for RetxParams {
    /// NFD's defaults: 10 ms, 250 ms, x2.
    fn default() -> Self {
        RetxParams {
            initial: 10 * MS,
            max: 250 * MS,
            multiplier: 2.0,
        }
    }
}

impl RetxParams {
    /// `interval * multiplier`, at most `max` (NFD truncates to milliseconds; we keep ns).
    #[inline]
    pub fn next_interval(&self, interval: Time) -> Time {
        let next = (interval as f64 * self.multiplier) as Time;
        next.min(self.max)
    }
}

/// ASF minimum probing interval (NFD `ProbingModule::MIN_PROBING_INTERVAL`).
pub const MIN_PROBING_INTERVAL: Time = 1_000 * MS;
/// ASF default `max-timeouts` (NFD).
pub const DEFAULT_MAX_TIMEOUTS: u32 = 3;

/// The effective parameters of the instance handling an Interest: its StrategyChoice
/// entry's, or the forwarder's defaults where it gives none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    pub retx: RetxParams,
    pub probing_interval: Time,
    pub max_timeouts: u32,
}

impl Params {
    /// The forwarder's defaults.
    pub(crate) fn from_config(config: &ForwarderConfig) -> Self {
        let c = config.retx;
        Params {
            retx: RetxParams {
                initial: c.initial,
                max: c.max,
                multiplier: c.multiplier as f64,
            },
            probing_interval: config.asf_probing_interval,
            max_timeouts: DEFAULT_MAX_TIMEOUTS,
        }
    }

    /// `inst`'s parameters, these where it gives none.
    #[inline]
    pub(crate) fn with(self, inst: &StrategyInstance) -> Self {
        Params {
            retx: inst.retx.unwrap_or(self.retx),
            probing_interval: inst.probing_interval.unwrap_or(self.probing_interval),
            max_timeouts: inst.max_timeouts.unwrap_or(self.max_timeouts),
        }
    }
}

impl StrategyKind {
    /// The strategy named `name` without parameters, as NFD resolves it (see
    /// [`StrategyInstance::parse`] for names with parameters and error reasons).
    pub fn from_name(name: &Name) -> Option<StrategyKind> {
        StrategyInstance::parse(name)
            .ok()
            .filter(|i| !i.has_params())
            .map(|i| i.kind)
    }
}

/// A strategy with its parameters, as chosen for a namespace by StrategyChoice.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyInstance {
    /// The strategy.
    pub kind: StrategyKind,
    /// Retransmission suppression; `None`: the forwarder's default
    /// ([`ForwarderConfig::retx`]).
    pub retx: Option<RetxParams>,
    /// ASF probing interval; `None`: [`ForwarderConfig::asf_probing_interval`].
    pub probing_interval: Option<Time>,
    /// ASF max-timeouts; `None`: [`DEFAULT_MAX_TIMEOUTS`].
    pub max_timeouts: Option<u32>,
    name: Name,
}

/// Best route without parameters.
impl Default for StrategyInstance {
    fn default() -> Self {
        StrategyInstance::from_kind(StrategyKind::default())
    }
}

impl std::str::FromStr for StrategyInstance {
    type Err = StrategyChoiceError;

    /// Same as [`StrategyInstance::from_uri`].
    fn from_str(uri: &str) -> Result<Self, Self::Err> {
        Self::from_uri(uri)
    }
}

impl StrategyInstance {
    /// The instance of `kind` without parameters.
    pub fn from_kind(kind: StrategyKind) -> Self {
        StrategyInstance {
            kind,
            retx: None,
            probing_interval: None,
            max_timeouts: None,
            name: kind.name(),
        }
    }

    /// The instance name (NFD `makeInstanceName`): the given name, with the registered
    /// version appended when it had none. This is what `strategy-choice/list` reports.
    pub fn name(&self) -> &Name {
        &self.name
    }

    /// Whether any parameter was given.
    pub fn has_params(&self) -> bool {
        self.retx.is_some() || self.probing_interval.is_some() || self.max_timeouts.is_some()
    }

    /// Parse a strategy instance name written as a URI (a configuration file, a
    /// command line): [`Self::parse`] after the URI is read as a Name.
    pub fn from_uri(uri: &str) -> Result<Self, StrategyChoiceError> {
        let name = Name::from_uri(uri)
            .map_err(|e| StrategyChoiceError::BadName(format!("'{uri}': {e}")))?;
        Self::parse(&name)
    }

    /// Parse an NFD strategy instance name as NFD 24.07 resolves it (see the module
    /// documentation). Errors say why, with NFD's status: not registered (404), a
    /// version or parameters the strategy refuses (409).
    ///
    /// This is the one place where a strategy name is read: management and the
    /// configuration loader parse once and hand the resulting instance on
    /// ([`crate::StrategyChoice::set_instance`]), so that nothing downstream
    /// re-reads the name.
    pub fn parse(name: &Name) -> Result<Self, StrategyChoiceError> {
        let (strategy_name, version, params_at) = split_instance_name(name);
        let kind = find_registered(&strategy_name, version)
            .ok_or_else(|| StrategyChoiceError::NotRegistered(name.to_string()))?;
        let unsupported = |v| StrategyChoiceError::UnsupportedVersion {
            strategy: kind.class_name(),
            version: v,
        };
        if !kind.accepts_parameters() {
            // random, access, self-learning: parameters are checked first.
            if params_at < name.len() {
                return Err(StrategyChoiceError::NoParameters {
                    strategy: kind.class_name(),
                });
            }
            if let Some(v) = version.filter(|&v| v != kind.version()) {
                return Err(unsupported(v));
            }
        } else if let Some(v) = version.filter(|&v| v != kind.version()) {
            return Err(unsupported(v));
        }
        let mut inst = StrategyInstance::from_kind(kind);
        // NFD `makeInstanceName`: a name without any version gets the registered one.
        inst.name = if name.iter().any(|c| c.as_version().is_some()) {
            name.clone()
        } else {
            name.append_version(kind.version())
        };
        if params_at >= name.len() {
            return Ok(inst);
        }
        let mut retx: Option<RetxParams> = None;
        let mut seen: Vec<String> = Vec::new();
        for c in name.iter().skip(params_at) {
            let text =
                std::str::from_utf8(c.value).map_err(|_| bad(kind, "non-UTF-8 parameter"))?;
            let (key, value) = text
                .split_once('~')
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| bad(kind, format!("'{text}' is not <parameter>~<value>")))?;
            if seen.iter().any(|s| s == key) {
                return Err(bad(kind, format!("parameter {key} given twice")));
            }
            seen.push(key.to_string());
            match key {
                "retx-suppression-initial" => {
                    retx.get_or_insert_with(RetxParams::default).initial =
                        parse_ms(kind, key, value)?;
                }
                "retx-suppression-max" => {
                    retx.get_or_insert_with(RetxParams::default).max = parse_ms(kind, key, value)?;
                }
                "retx-suppression-multiplier" => {
                    let m: f64 = value
                        .parse()
                        .ok()
                        .filter(|m: &f64| m.is_finite())
                        .ok_or_else(|| bad(kind, format!("value of {key} must be a number")))?;
                    retx.get_or_insert_with(RetxParams::default).multiplier = m;
                }
                "probing-interval" if kind == StrategyKind::Asf => {
                    let t = parse_ms(kind, key, value)?;
                    if t < MIN_PROBING_INTERVAL {
                        return Err(bad(kind, "probing-interval must be >= 1000 milliseconds"));
                    }
                    inst.probing_interval = Some(t);
                }
                "max-timeouts" if kind == StrategyKind::Asf => {
                    inst.max_timeouts = Some(parse_count(kind, key, value)?);
                }
                "n-silent-timeouts" if kind == StrategyKind::Asf => {
                    inst.max_timeouts = Some(parse_count(kind, key, value)?.saturating_add(1));
                }
                _ => return Err(bad(kind, format!("unknown parameter {key}"))),
            }
        }
        if seen.iter().any(|s| s == "max-timeouts") && seen.iter().any(|s| s == "n-silent-timeouts")
        {
            return Err(bad(
                kind,
                "max-timeouts and n-silent-timeouts are exclusive",
            ));
        }
        if let Some(r) = retx {
            if r.initial == 0 {
                return Err(bad(kind, "retx-suppression-initial must be > 0"));
            }
            if r.multiplier < 1.0 {
                return Err(bad(kind, "retx-suppression-multiplier must be >= 1"));
            }
            if r.max < r.initial {
                return Err(bad(
                    kind,
                    "retx-suppression-max must be >= retx-suppression-initial",
                ));
            }
        }
        inst.retx = retx;
        Ok(inst)
    }
}

/// NFD `parseInstanceName`: the strategy name (up to and including the last version
/// component after the first component), that version, and where the parameters
/// start; without a version, the whole name, `None`, and the name's length.
fn split_instance_name(name: &Name) -> (Name, Option<u64>, usize) {
    for i in (1..name.len()).rev() {
        if let Some(v) = name.get(i).and_then(|c| c.as_version()) {
            return (name.prefix(i + 1), Some(v), i + 1);
        }
    }
    (name.clone(), None, name.len())
}

/// The registered strategy names in canonical order (NFD's registry is a sorted map).
fn registry() -> &'static [(Name, StrategyKind)] {
    static REGISTRY: std::sync::OnceLock<Vec<(Name, StrategyKind)>> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r: Vec<(Name, StrategyKind)> =
            StrategyKind::ALL.iter().map(|k| (k.name(), *k)).collect();
        r.sort_by(|a, b| a.0.cmp(&b.0));
        r
    })
}

/// NFD `Strategy::find`. With a version: the first registered name at or above
/// `strategy_name` in canonical order, if it has the same name before the version
/// (so a lower version finds the registered strategy, a higher one nothing). Without:
/// the highest registered name under `strategy_name` (a non-empty name).
fn find_registered(strategy_name: &Name, version: Option<u64>) -> Option<StrategyKind> {
    let reg = registry();
    if version.is_some() {
        let base = strategy_name.prefix(strategy_name.len() - 1);
        return reg
            .iter()
            .find(|(n, _)| n >= strategy_name)
            .filter(|(n, _)| base.is_prefix_of(n))
            .map(|(_, k)| *k);
    }
    if strategy_name.is_empty() {
        return None;
    }
    // Registered names under `strategy_name` are exactly those between it and its
    // successor: the highest of them is the last one below the successor.
    reg.iter()
        .rev()
        .find(|(n, _)| strategy_name.is_prefix_of(n))
        .map(|(_, k)| *k)
}

fn bad(kind: StrategyKind, reason: impl Into<String>) -> StrategyChoiceError {
    StrategyChoiceError::BadParameters {
        strategy: kind.short(),
        reason: reason.into(),
    }
}

fn parse_u64(kind: StrategyKind, key: &str, value: &str) -> Result<u64, StrategyChoiceError> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(
            kind,
            format!("value of {key} must be a non-negative integer, got '{value}'"),
        ));
    }
    value
        .parse()
        .map_err(|_| bad(kind, format!("value of {key} is too large")))
}

fn parse_ms(kind: StrategyKind, key: &str, value: &str) -> Result<Time, StrategyChoiceError> {
    parse_u64(kind, key, value)?
        .checked_mul(MS)
        .ok_or_else(|| bad(kind, format!("value of {key} is too large")))
}

fn parse_count(kind: StrategyKind, key: &str, value: &str) -> Result<u32, StrategyChoiceError> {
    u32::try_from(parse_u64(kind, key, value)?)
        .map_err(|_| bad(kind, format!("value of {key} is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_roundtrip() {
        for k in StrategyKind::ALL {
            assert_eq!(StrategyKind::from_name(&k.name()), Some(k));
        }
        let n = Name::from_uri("/localhost/nfd/strategy/best-route").unwrap();
        assert_eq!(StrategyKind::from_name(&n), Some(StrategyKind::BestRoute));
        assert_eq!(StrategyKind::Asf.uri(), "/localhost/nfd/strategy/asf/v=5");
        let with_params = Name::from_uri("/localhost/nfd/strategy/asf/v=5/max-timeouts~2").unwrap();
        assert_eq!(StrategyKind::from_name(&with_params), None);
        let bad = Name::from_uri("/localhost/nfd/strategy/best-route/v=3").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
        let bad = Name::from_uri("/localhost/nfd/strategy/ncc").unwrap();
        assert_eq!(StrategyKind::from_name(&bad), None);
    }

    fn parse(s: &str) -> Result<StrategyInstance, StrategyChoiceError> {
        StrategyInstance::parse(&Name::from_uri(s).unwrap())
    }

    /// What NFD 24.07's `strategy-choice/set` does with a name: the instance name it
    /// reports, or the StatusCode it answers (404 not registered, 409 the strategy's
    /// constructor refused).
    #[derive(Debug, PartialEq)]
    enum Nfd {
        Ok(StrategyKind, &'static str),
        NotRegistered,
        Refused(&'static str),
    }

    fn nfd(s: &str) -> Nfd {
        match parse(s) {
            Ok(i) => {
                let name = i.name().to_string();
                Nfd::Ok(i.kind, Box::leak(name.into_boxed_str()))
            }
            Err(StrategyChoiceError::NotRegistered(_)) => Nfd::NotRegistered,
            Err(e) => Nfd::Refused(Box::leak(e.to_string().into_boxed_str())),
        }
    }

    #[test]
    fn names_and_versions_resolve_as_in_nfd_24_07() {
        use Nfd::*;
        use StrategyKind as K;
        let s = "/localhost/nfd/strategy";
        let table: &[(&str, Nfd)] = &[
            // Without a version: the registered (latest) one, appended.
            ("best-route", Ok(K::BestRoute, "best-route/v=5")),
            ("multicast", Ok(K::Multicast, "multicast/v=5")),
            ("asf", Ok(K::Asf, "asf/v=5")),
            ("random", Ok(K::Random, "random/v=1")),
            ("access", Ok(K::Access, "access/v=1")),
            ("self-learning", Ok(K::SelfLearning, "self-learning/v=1")),
            // The registered version.
            ("best-route/v=5", Ok(K::BestRoute, "best-route/v=5")),
            ("multicast/v=5", Ok(K::Multicast, "multicast/v=5")),
            ("asf/v=5", Ok(K::Asf, "asf/v=5")),
            ("random/v=1", Ok(K::Random, "random/v=1")),
            ("access/v=1", Ok(K::Access, "access/v=1")),
            (
                "self-learning/v=1",
                Ok(K::SelfLearning, "self-learning/v=1"),
            ),
            // A version above the registered one: nothing found.
            ("best-route/v=6", NotRegistered),
            ("asf/v=6", NotRegistered),
            ("random/v=2", NotRegistered),
            ("self-learning/v=99", NotRegistered),
            // A lower version finds the strategy, whose constructor refuses it.
            ("asf/v=4", Refused("AsfStrategy does not support version 4")),
            ("asf/v=1", Refused("AsfStrategy does not support version 1")),
            (
                "best-route/v=4",
                Refused("BestRouteStrategy does not support version 4"),
            ),
            (
                "multicast/v=0",
                Refused("MulticastStrategy does not support version 0"),
            ),
            (
                "random/v=0",
                Refused("RandomStrategy does not support version 0"),
            ),
            (
                "access/v=0",
                Refused("AccessStrategy does not support version 0"),
            ),
            // Parameters: read by best-route, multicast, asf; refused by the others
            // (before the version is looked at).
            (
                "asf/v=5/probing-interval~30000/max-timeouts~2",
                Ok(K::Asf, "asf/v=5/probing-interval~30000/max-timeouts~2"),
            ),
            (
                "multicast/v=5/retx-suppression-initial~20",
                Ok(K::Multicast, "multicast/v=5/retx-suppression-initial~20"),
            ),
            (
                "random/v=1/x~1",
                Refused("RandomStrategy does not accept parameters"),
            ),
            (
                "access/v=0/x~1",
                Refused("AccessStrategy does not accept parameters"),
            ),
            (
                "self-learning/v=1/x~1",
                Refused("SelfLearningStrategy does not accept parameters"),
            ),
            // Unknown names, and parameters without a version (another name).
            ("ncc", NotRegistered),
            ("best", NotRegistered),
            ("asf/probing-interval~30000", NotRegistered),
            ("asf/x/v=5", NotRegistered),
            // NFD's lookup also accepts a prefix of the strategy names: the highest
            // registered name under it, in canonical order (self-learning's component
            // is the longest), its version appended to the given name.
            ("", Ok(K::SelfLearning, "v=1")),
        ];
        for (suffix, want) in table {
            let uri = if suffix.is_empty() {
                s.to_string()
            } else {
                format!("{s}/{suffix}")
            };
            let want = match want {
                Ok(k, n) => Ok(*k, Box::leak(format!("{s}/{n}").into_boxed_str())),
                other => match other {
                    NotRegistered => NotRegistered,
                    Refused(t) => Refused(t),
                    Ok(..) => unreachable!(),
                },
            };
            assert_eq!(nfd(&uri), want, "{uri}");
        }
        assert_eq!(nfd("/localhost"), Ok(K::SelfLearning, "/localhost/v=1"));
        assert_eq!(nfd("/"), NotRegistered);
        assert_eq!(nfd("/a/b"), NotRegistered);
    }

    #[test]
    fn asf_parameters() {
        let i =
            parse("/localhost/nfd/strategy/asf/v=5/probing-interval~30000/max-timeouts~2").unwrap();
        assert_eq!(i.kind, StrategyKind::Asf);
        assert_eq!(i.probing_interval, Some(30_000 * MS));
        assert_eq!(i.max_timeouts, Some(2));
        assert_eq!(
            i.name().to_string(),
            "/localhost/nfd/strategy/asf/v=5/probing-interval~30000/max-timeouts~2"
        );
        let i = parse("/localhost/nfd/strategy/asf/v=5/n-silent-timeouts~0").unwrap();
        assert_eq!(i.max_timeouts, Some(1));
        let i = parse(
            "/localhost/nfd/strategy/asf/v=5/retx-suppression-multiplier~2.5/probing-interval~45000",
        )
        .unwrap();
        assert_eq!(i.retx.unwrap().multiplier, 2.5);
        assert_eq!(i.retx.unwrap().initial, 10 * MS);
        let i = parse("/localhost/nfd/strategy/asf").unwrap();
        assert!(!i.has_params());
        assert_eq!(i.name().to_string(), "/localhost/nfd/strategy/asf/v=5");
    }

    #[test]
    fn bad_names_and_parameters_are_rejected_with_a_reason() {
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert!(err("/localhost/nfd/strategy/asf/v=5/probing-interval~500").contains(">= 1000"));
        assert!(err("/localhost/nfd/strategy/asf/v=5/probing-interval~-1").contains("non-negative"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=5/probing-interval~abc").contains("non-negative")
        );
        assert!(err("/localhost/nfd/strategy/asf/v=5/foo~1").contains("unknown parameter foo"));
        assert!(err("/localhost/nfd/strategy/asf/v=5/probing-interval").contains("<parameter>~"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=5/max-timeouts~1/max-timeouts~2").contains("twice")
        );
        assert!(err("/localhost/nfd/strategy/asf/v=3").contains("version 3"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=4/probing-interval~30000").contains("version 4")
        );
        assert!(
            err("/localhost/nfd/strategy/best-route/v=5/probing-interval~30000")
                .contains("unknown parameter probing-interval")
        );
        assert!(
            err("/localhost/nfd/strategy/best-route/v=5/retx-suppression-initial~0")
                .contains("> 0")
        );
        assert!(
            err("/localhost/nfd/strategy/multicast/v=5/retx-suppression-multiplier~0.5")
                .contains(">= 1")
        );
        assert!(
            err("/localhost/nfd/strategy/best-route/v=5/retx-suppression-initial~300")
                .contains("retx-suppression-max must be")
        );
        assert!(
            err("/localhost/nfd/strategy/asf/probing-interval~30000").contains("not registered")
        );
        assert!(err("/localhost/nfd/strategy/ncc").contains("not registered"));
    }

    #[test]
    fn from_uri_reads_the_name_then_the_instance() {
        let i: StrategyInstance = "/localhost/nfd/strategy/asf/v=5/max-timeouts~5"
            .parse()
            .unwrap();
        assert_eq!((i.kind, i.max_timeouts), (StrategyKind::Asf, Some(5)));
        let e = StrategyInstance::from_uri("no-slash").unwrap_err();
        assert!(matches!(e, StrategyChoiceError::BadName(_)), "{e}");
        assert!(e.to_string().contains("no-slash"), "{e}");
        let e = StrategyInstance::from_uri("/localhost/nfd/strategy/ncc").unwrap_err();
        assert!(matches!(e, StrategyChoiceError::NotRegistered(_)), "{e}");
    }

    #[test]
    fn retx_parameters_for_best_route() {
        let i = parse("/localhost/nfd/strategy/best-route/v=5/retx-suppression-initial~20/retx-suppression-max~100")
            .unwrap();
        let r = i.retx.unwrap();
        assert_eq!((r.initial, r.max, r.multiplier), (20 * MS, 100 * MS, 2.0));
        assert_eq!(r.next_interval(80 * MS), 100 * MS);
    }
}
