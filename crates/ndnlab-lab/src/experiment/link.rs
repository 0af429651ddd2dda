//! `[link]` and `[[links]]`: the laboratory's view of a link. The link's parameters
//! are `ndnlab_proto::emu::LinkConfig`, the type the forwarder's `emulate` keys are
//! too; the laboratory's tables add the face, fragmentation and routing cost, and
//! read the keys its own way:
//!
//! * every key is written: `bandwidth_mbps` and `queue` are 0 by default, and 0 is
//!   an unlimited rate and an unbounded queue ([`LinkSpec::params`] gives no
//!   default queue, where the forwarder's is 1000);
//! * `reorder` and `seed` are not keys here (a run's seed gives each link's);
//! * a `[[links]]` entry sets only the keys it names, over `[link]`.

use ndnlab_proto::emu::config::{deserialize_table, LinkKeys, LinkTable};
use ndnlab_proto::emu::{LinkConfig, LinkOverrides, LinkParams};
use serde::de::{self, MapAccess};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The link keys the laboratory does not take.
const NOT_LAB_KEYS: &[&str] = &["reorder", "seed"];

/// What a link is made of and what it does to frames.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec {
    /// `memory`, `unix`, `tcp` or `udp` (`ether` under the netns runner).
    pub face: String,
    /// What the link does to frames: delay, jitter, loss (percent, each
    /// direction), `bandwidth_mbps` (0 is unlimited), `queue` (frames queued for
    /// the transmitter at most; 0 is unbounded), `mtu` (largest frame; 0 is none,
    /// datagram faces then use their own).
    pub emu: LinkConfig,
    /// Whether the faces cut packets larger than `mtu` into NDNLPv2 fragments
    /// (the default); `false` sends them whole, and the link drops those over
    /// its `mtu` (counted as `link_drops_mtu`). Not under the `sim` runner.
    pub fragment: bool,
    /// Link cost for routing.
    pub cost: u64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            face: "memory".into(),
            emu: LinkConfig {
                bandwidth_mbps: Some(0.0),
                queue: Some(0),
                ..LinkConfig::default()
            },
            fragment: true,
            cost: 1,
        }
    }
}

impl LinkSpec {
    /// The emulated link layer's parameters (an unset queue, like 0, unbounded).
    pub fn params(&self) -> LinkParams {
        self.emu.params(None)
    }

    /// The link rate in Mbit/s, 0 for unlimited.
    pub fn bandwidth_mbps(&self) -> f64 {
        self.emu.bandwidth_mbps.unwrap_or(0.0)
    }

    /// The transmit queue in frames, 0 for unbounded.
    pub fn queue(&self) -> usize {
        self.emu.queue.unwrap_or(0)
    }

    /// Checks the values; `at` names the table in the error (`link`,
    /// `links[0] (a-b)`).
    pub(super) fn check(&self, at: &str) -> Result<(), String> {
        if !["memory", "unix", "tcp", "udp", "ether"].contains(&self.face.as_str()) {
            return Err(format!(
                "{at}.face: '{}' (memory, unix, tcp, udp, ether)",
                self.face
            ));
        }
        for (k, v) in [
            ("delay_ms", self.emu.delay_ms),
            ("jitter_ms", self.emu.jitter_ms),
            ("bandwidth_mbps", self.bandwidth_mbps()),
        ] {
            if v < 0.0 || v.is_nan() {
                return Err(format!("{at}.{k} must not be negative"));
            }
        }
        if !(0.0..=100.0).contains(&self.emu.loss_pct) {
            return Err(format!("{at}.loss_pct must be within 0..=100"));
        }
        let mtu = self.emu.mtu;
        if mtu != 0 && mtu < 64 {
            return Err(format!("{at}.mtu must be 0 (none) or at least 64"));
        }
        if !self.fragment && mtu == 0 {
            return Err(format!(
                "{at}.fragment = false drops packets over the link's mtu: set {at}.mtu too"
            ));
        }
        Ok(())
    }
}

impl LinkTable for LinkSpec {
    type Keys = LinkConfig;
    const EXPECTING: &'static str = "struct LinkSpec";
    const LEAD: &'static [&'static str] = &["face"];
    const TAIL: &'static [&'static str] = &["fragment", "cost"];
    const WITHOUT: &'static [&'static str] = NOT_LAB_KEYS;

    fn keys(&mut self) -> &mut LinkConfig {
        &mut self.emu
    }

    fn read_own<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "face" => self.face = map.next_value()?,
            "fragment" => self.fragment = map.next_value()?,
            "cost" => self.cost = map.next_value()?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl<'de> Deserialize<'de> for LinkSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_table(d)
    }
}

impl Serialize for LinkSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_struct("LinkSpec", 9)?;
        t.serialize_field("face", &self.face)?;
        self.emu.serialize_keys(&mut t, NOT_LAB_KEYS)?;
        t.serialize_field("fragment", &self.fragment)?;
        t.serialize_field("cost", &self.cost)?;
        t.end()
    }
}

/// A link between two named nodes, with optional overrides of `[link]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkEntry {
    pub a: String,
    pub b: String,
    pub face: Option<String>,
    /// The link keys the entry sets.
    pub emu: LinkOverrides,
    pub fragment: Option<bool>,
    pub cost: Option<u64>,
}

impl LinkEntry {
    /// A link between `a` and `b` that overrides nothing.
    pub fn new(a: &str, b: &str) -> LinkEntry {
        LinkEntry {
            a: a.to_string(),
            b: b.to_string(),
            ..LinkEntry::default()
        }
    }

    /// `base` with this entry's overrides.
    pub fn apply(&self, base: &LinkSpec) -> LinkSpec {
        LinkSpec {
            face: self.face.clone().unwrap_or_else(|| base.face.clone()),
            emu: self.emu.apply(&base.emu),
            fragment: self.fragment.unwrap_or(base.fragment),
            cost: self.cost.unwrap_or(base.cost),
        }
    }
}

/// A `[[links]]` table while it is read: `a` and `b` are required.
#[derive(Default)]
struct EntryTable {
    a: Option<String>,
    b: Option<String>,
    entry: LinkEntry,
}

impl LinkTable for EntryTable {
    type Keys = LinkOverrides;
    const EXPECTING: &'static str = "struct LinkEntry";
    const LEAD: &'static [&'static str] = &["a", "b", "face"];
    const TAIL: &'static [&'static str] = &["fragment", "cost"];
    const WITHOUT: &'static [&'static str] = NOT_LAB_KEYS;

    fn keys(&mut self) -> &mut LinkOverrides {
        &mut self.entry.emu
    }

    fn read_own<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "a" => self.a = Some(map.next_value()?),
            "b" => self.b = Some(map.next_value()?),
            "face" => self.entry.face = Some(map.next_value()?),
            "fragment" => self.entry.fragment = Some(map.next_value()?),
            "cost" => self.entry.cost = Some(map.next_value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl<'de> Deserialize<'de> for LinkEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t: EntryTable = deserialize_table(d)?;
        Ok(LinkEntry {
            a: t.a.ok_or_else(|| de::Error::missing_field("a"))?,
            b: t.b.ok_or_else(|| de::Error::missing_field("b"))?,
            ..t.entry
        })
    }
}

impl Serialize for LinkEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_struct("LinkEntry", 11)?;
        t.serialize_field("a", &self.a)?;
        t.serialize_field("b", &self.b)?;
        t.serialize_field("face", &self.face)?;
        self.emu.serialize_keys(&mut t, NOT_LAB_KEYS)?;
        t.serialize_field("fragment", &self.fragment)?;
        t.serialize_field("cost", &self.cost)?;
        t.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<LinkSpec, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    fn entry(text: &str) -> Result<LinkEntry, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_an_ideal_memory_link() {
        let s = spec("").unwrap();
        assert_eq!(s, LinkSpec::default());
        assert_eq!(
            (
                s.face.as_str(),
                s.fragment,
                s.cost,
                s.bandwidth_mbps(),
                s.queue()
            ),
            ("memory", true, 1, 0.0, 0)
        );
        assert!(s.params().is_perfect());
        assert_eq!(s.params(), LinkParams::default());
        // 0 is what an unset key reads as
        assert_eq!(spec("bandwidth_mbps = 0.0\nqueue = 0\n").unwrap(), s);
    }

    #[test]
    fn zero_is_unlimited_and_unbounded() {
        let p = spec("bandwidth_mbps = 8.0\nqueue = 0\n").unwrap().params();
        assert_eq!((p.rate_bps, p.queue_frames), (Some(8_000_000), None));
        let p = spec("bandwidth_mbps = 8.0\n").unwrap().params();
        assert_eq!(p.queue_frames, None, "no default queue here");
        let p = spec("bandwidth_mbps = 0.0\nqueue = 7\nmtu = 1500\ndelay_ms = 1.5\n")
            .unwrap()
            .params();
        assert_eq!(
            (p.rate_bps, p.queue_frames, p.mtu, p.delay_ns, p.reorder),
            (None, Some(7), Some(1500), 1_500_000, false)
        );
    }

    #[test]
    fn unknown_keys_are_named_with_the_keys_taken() {
        let e = spec("delay = 1").unwrap_err();
        assert!(
            e.contains(
                "unknown field `delay`, expected one of `face`, `delay_ms`, `jitter_ms`, \
                 `loss_pct`, `bandwidth_mbps`, `queue`, `mtu`, `fragment`, `cost`"
            ),
            "{e}"
        );
        // the forwarder's reorder and seed are not laboratory keys
        for k in ["reorder = true", "seed = 3"] {
            let e = spec(k).unwrap_err();
            assert!(e.contains("unknown field"), "{e}");
            let e = entry(&format!("a = \"x\"\nb = \"y\"\n{k}\n")).unwrap_err();
            assert!(
                e.contains(
                    "expected one of `a`, `b`, `face`, `delay_ms`, `jitter_ms`, `loss_pct`, \
                     `bandwidth_mbps`, `queue`, `mtu`, `fragment`, `cost`"
                ),
                "{e}"
            );
        }
        let e = entry("a = \"x\"\n").unwrap_err();
        assert!(e.contains("missing field `b`"), "{e}");
        let e = entry("b = \"x\"\n").unwrap_err();
        assert!(e.contains("missing field `a`"), "{e}");
    }

    #[test]
    fn entries_override_only_what_they_set() {
        let base =
            spec("face = \"udp\"\ndelay_ms = 5.0\nbandwidth_mbps = 10.0\nqueue = 20\ncost = 3\n")
                .unwrap();
        let e =
            entry("a = \"x\"\nb = \"y\"\ndelay_ms = 1.0\nbandwidth_mbps = 0.0\nfragment = false\n")
                .unwrap();
        assert_eq!((e.a.as_str(), e.b.as_str()), ("x", "y"));
        assert_eq!(e.emu.delay_ms, Some(1.0));
        assert_eq!(e.emu.queue, None);
        let s = e.apply(&base);
        assert_eq!(
            s,
            LinkSpec {
                face: "udp".into(),
                emu: LinkConfig {
                    delay_ms: 1.0,
                    bandwidth_mbps: Some(0.0),
                    ..base.emu
                },
                fragment: false,
                cost: 3,
            }
        );
        assert_eq!(
            (s.bandwidth_mbps(), s.queue(), s.params().rate_bps),
            (0.0, 20, None)
        );
        assert_eq!(LinkEntry::new("x", "y").apply(&base), base);
    }

    #[test]
    fn tables_write_every_key_they_take() {
        let s = spec("loss_pct = 2.0\ncost = 4\n").unwrap();
        assert_eq!(
            toml::to_string(&s).unwrap(),
            "face = \"memory\"\ndelay_ms = 0.0\njitter_ms = 0.0\nloss_pct = 2.0\n\
             bandwidth_mbps = 0.0\nqueue = 0\nmtu = 0\nfragment = true\ncost = 4\n"
        );
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            "{\"face\":\"memory\",\"delay_ms\":0.0,\"jitter_ms\":0.0,\"loss_pct\":2.0,\
             \"bandwidth_mbps\":0.0,\"queue\":0,\"mtu\":0,\"fragment\":true,\"cost\":4}"
        );
        let e = entry("a = \"x\"\nb = \"y\"\nqueue = 5\ncost = 2\n").unwrap();
        let text = toml::to_string(&e).unwrap();
        assert_eq!(text, "a = \"x\"\nb = \"y\"\nqueue = 5\ncost = 2\n");
        assert_eq!(entry(&text).unwrap(), e);
    }
}
