//! Strategy instance names with parameters (NFD `Strategy::parseInstanceName` and
//! `StrategyParameters`):
//!
//! ```text
//! /localhost/nfd/strategy/<name>[/v=<version>[/<param>~<value>]...]
//! ```
//!
//! Parameters follow the version component, so a name with parameters must carry a
//! version. Accepted parameters (values in milliseconds unless said):
//!
//! | parameter | strategies | meaning |
//! |---|---|---|
//! | `retx-suppression-initial` | all | initial suppression interval (> 0; default 10) |
//! | `retx-suppression-max` | all | maximum interval (>= initial; default 250) |
//! | `retx-suppression-multiplier` | all | interval multiplier (real >= 1; default 2) |
//! | `probing-interval` | asf | time between probes (>= 1000; default 60000) |
//! | `max-timeouts` | asf | RTO timeouts before a face is ranked as timed out (default 3) |
//! | `n-silent-timeouts` | asf | ASF v1-v3 spelling: timeouts ignored; `max-timeouts = n + 1` |
//!
//! Unlike NFD, which ignores unknown parameter names, an unknown or repeated
//! parameter is an error, so a typo cannot silently fall back to a default.

use ndnlab_wire::Name;

use super::{StrategyKind, PREFIX};
use crate::strategy_choice::StrategyChoiceError;
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

/// A strategy with its parameters, as chosen for a namespace by StrategyChoice.
#[derive(Debug, Clone, PartialEq)]
pub struct StrategyInstance {
    /// The strategy.
    pub kind: StrategyKind,
    /// Retransmission suppression; `None`: the forwarder's default
    /// ([`crate::forwarder::ForwarderConfig::retx`]).
    pub retx: Option<RetxParams>,
    /// ASF probing interval; `None`: [`crate::forwarder::ForwarderConfig::asf_probing_interval`].
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

    /// The instance name (NFD `makeInstanceName`): the given name, with the implemented
    /// version appended when it had none.
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

    /// Parse an NFD strategy instance name. Errors name the problem (unknown strategy,
    /// unsupported version, bad parameter).
    ///
    /// This is the one place where a strategy name is read: management and the
    /// configuration loader parse once and hand the resulting instance on
    /// ([`crate::StrategyChoice::set_instance`]), so that nothing downstream
    /// re-reads the name.
    pub fn parse(name: &Name) -> Result<Self, StrategyChoiceError> {
        let unknown = || StrategyChoiceError::UnknownStrategy(name.to_string());
        let base = Name::from_uri(PREFIX.trim_end_matches('/')).expect("strategy prefix");
        if name.len() <= base.len() || !base.is_prefix_of(name) {
            return Err(unknown());
        }
        let short = name.get(base.len()).ok_or_else(unknown)?;
        if short.typ != ndnlab_wire::tlv::types::GENERIC_NAME_COMPONENT {
            return Err(unknown());
        }
        let kind = StrategyKind::ALL
            .into_iter()
            .find(|k| k.short().as_bytes() == short.value)
            .ok_or_else(unknown)?;
        let vpos = base.len() + 1;
        let version = match name.get(vpos) {
            None => None,
            Some(c) => match c.as_version() {
                Some(v) => Some(v),
                // Anything but a version after the strategy name makes another
                // (unknown) strategy name, as in NFD.
                None => return Err(unknown()),
            },
        };
        let mut inst = StrategyInstance::from_kind(kind);
        let Some(v) = version else {
            return Ok(inst); // no version, hence no parameters
        };
        if v != kind.version() {
            return Err(StrategyChoiceError::UnsupportedVersion {
                strategy: kind.short(),
                version: v,
                supported: kind.version(),
            });
        }
        let mut retx: Option<RetxParams> = None;
        let mut seen: Vec<String> = Vec::new();
        for i in vpos + 1..name.len() {
            let c = name.get(i).ok_or_else(unknown)?;
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
        inst.name = name.clone();
        Ok(inst)
    }
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

    fn parse(s: &str) -> Result<StrategyInstance, StrategyChoiceError> {
        StrategyInstance::parse(&Name::from_uri(s).unwrap())
    }

    #[test]
    fn asf_parameters() {
        let i =
            parse("/localhost/nfd/strategy/asf/v=4/probing-interval~30000/max-timeouts~2").unwrap();
        assert_eq!(i.kind, StrategyKind::Asf);
        assert_eq!(i.probing_interval, Some(30_000 * MS));
        assert_eq!(i.max_timeouts, Some(2));
        assert_eq!(
            i.name().to_string(),
            "/localhost/nfd/strategy/asf/v=4/probing-interval~30000/max-timeouts~2"
        );
        let i = parse("/localhost/nfd/strategy/asf/v=4/n-silent-timeouts~0").unwrap();
        assert_eq!(i.max_timeouts, Some(1));
        let i = parse(
            "/localhost/nfd/strategy/asf/v=4/retx-suppression-multiplier~2.5/probing-interval~45000",
        )
        .unwrap();
        assert_eq!(i.retx.unwrap().multiplier, 2.5);
        assert_eq!(i.retx.unwrap().initial, 10 * MS);
        let i = parse("/localhost/nfd/strategy/asf").unwrap();
        assert!(!i.has_params());
        assert_eq!(i.name().to_string(), "/localhost/nfd/strategy/asf/v=4");
    }

    #[test]
    fn bad_names_and_parameters_are_rejected_with_a_reason() {
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert!(err("/localhost/nfd/strategy/asf/v=4/probing-interval~500").contains(">= 1000"));
        assert!(err("/localhost/nfd/strategy/asf/v=4/probing-interval~-1").contains("non-negative"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=4/probing-interval~abc").contains("non-negative")
        );
        assert!(err("/localhost/nfd/strategy/asf/v=4/foo~1").contains("unknown parameter foo"));
        assert!(err("/localhost/nfd/strategy/asf/v=4/probing-interval").contains("<parameter>~"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=4/max-timeouts~1/max-timeouts~2").contains("twice")
        );
        assert!(err("/localhost/nfd/strategy/asf/v=3").contains("version 3"));
        assert!(
            err("/localhost/nfd/strategy/asf/v=5/probing-interval~30000").contains("version 5")
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
        // Parameters without a version: another (unknown) strategy name, as in NFD.
        assert!(
            err("/localhost/nfd/strategy/asf/probing-interval~30000").contains("unknown strategy")
        );
        assert!(err("/localhost/nfd/strategy/ncc").contains("unknown strategy"));
        assert!(err("/localhost/nfd").contains("unknown strategy"));
    }

    #[test]
    fn from_uri_reads_the_name_then_the_instance() {
        let i: StrategyInstance = "/localhost/nfd/strategy/asf/v=4/max-timeouts~5"
            .parse()
            .unwrap();
        assert_eq!((i.kind, i.max_timeouts), (StrategyKind::Asf, Some(5)));
        let e = StrategyInstance::from_uri("no-slash").unwrap_err();
        assert!(matches!(e, StrategyChoiceError::BadName(_)), "{e}");
        assert!(e.to_string().contains("no-slash"), "{e}");
        let e = StrategyInstance::from_uri("/localhost/nfd/strategy/ncc").unwrap_err();
        assert!(matches!(e, StrategyChoiceError::UnknownStrategy(_)), "{e}");
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
