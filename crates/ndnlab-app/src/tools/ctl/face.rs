//! The face options of `face create|update` in nfdc's syntax:
//! `[persistency persistent|permanent] [local-fields on|off] [reliability on|off]
//! [congestion-marking on|off] [congestion-marking-interval <ms>]
//! [default-congestion-threshold <bytes>] [mtu <bytes>] [local <uri>]`, turned into
//! the ControlParameters of faces/create or faces/update (Flags/Mask bits 0, 1, 2;
//! `local` is faces/create's LocalUri, e.g. `dev://eth0` for an Ethernet face).

use ndnlab_proto::mgmt::params::ControlParameters;

/// NFD face flag bits.
pub const LOCAL_FIELDS: u64 = 1;
pub const LP_RELIABILITY: u64 = 2;
pub const CONGESTION_MARKING: u64 = 4;

/// NFD face persistencies.
pub const PERSISTENT: u64 = 0;
pub const ON_DEMAND: u64 = 1;
pub const PERMANENT: u64 = 2;

/// The face properties a command asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaceOptions {
    pub persistency: Option<u64>,
    pub flags: u64,
    pub mask: u64,
    pub interval_ms: Option<u64>,
    pub threshold: Option<u64>,
    pub mtu: Option<u64>,
    /// LocalUri (faces/create only).
    pub local: Option<String>,
}

impl FaceOptions {
    /// Parses `key value` pairs.
    pub fn parse(args: &[String]) -> anyhow::Result<FaceOptions> {
        let mut o = FaceOptions::default();
        let mut it = args.iter();
        while let Some(key) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| anyhow::anyhow!("'{key}' needs a value"))?;
            let number = || -> anyhow::Result<u64> {
                value
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{key}: '{value}' is not a number"))
            };
            match key.as_str() {
                "persistency" => o.persistency = Some(persistency(value)?),
                "local-fields" => o.set(LOCAL_FIELDS, on_off(key, value)?),
                "reliability" | "lp-reliability" => o.set(LP_RELIABILITY, on_off(key, value)?),
                "congestion-marking" => o.set(CONGESTION_MARKING, on_off(key, value)?),
                "congestion-marking-interval" => o.interval_ms = Some(number()?),
                "default-congestion-threshold" => o.threshold = Some(number()?),
                "mtu" => o.mtu = Some(number()?),
                "local" => o.local = Some(value.clone()),
                other => anyhow::bail!(
                    "unknown face option '{other}' (persistency, local-fields, reliability, \
                     congestion-marking, congestion-marking-interval, \
                     default-congestion-threshold, mtu, local)"
                ),
            }
        }
        Ok(o)
    }

    /// Adds `face create`'s flags: `persistency` (an nfdc name, over the
    /// option's), `mtu` (unless the options give one) and `local_fields` (on).
    pub fn with_flags(
        mut self,
        persistency: Option<&str>,
        mtu: Option<u64>,
        local_fields: bool,
    ) -> anyhow::Result<FaceOptions> {
        if let Some(p) = persistency {
            self.persistency = Some(self::persistency(p)?);
        }
        self.mtu = self.mtu.or(mtu);
        if local_fields {
            self.set(LOCAL_FIELDS, true);
        }
        Ok(self)
    }

    fn set(&mut self, bit: u64, on: bool) {
        self.mask |= bit;
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
    }

    /// Whether any property was asked for (`local` names the face, it is not a
    /// property faces/update can change).
    pub fn is_empty(&self) -> bool {
        FaceOptions {
            local: None,
            ..self.clone()
        } == FaceOptions::default()
    }

    /// Puts the options into command parameters.
    pub fn apply(&self, p: &mut ControlParameters) {
        if let Some(x) = self.persistency {
            p.face_persistency = Some(x);
        }
        if self.mask != 0 {
            p.flags = Some(self.flags);
            p.mask = Some(self.mask);
        }
        if let Some(ms) = self.interval_ms {
            p.base_congestion_marking_interval = Some(ms.saturating_mul(1_000_000));
        }
        if let Some(t) = self.threshold {
            p.default_congestion_threshold = Some(t);
        }
        if let Some(m) = self.mtu {
            p.mtu = Some(m);
        }
    }
}

/// nfdc's persistency names.
pub fn persistency(s: &str) -> anyhow::Result<u64> {
    match s {
        "persistent" => Ok(PERSISTENT),
        "on-demand" => Ok(ON_DEMAND),
        "permanent" => Ok(PERMANENT),
        other => anyhow::bail!("persistency must be persistent or permanent, not '{other}'"),
    }
}

/// An on/off value of option `key` (also true/false, yes/no).
pub fn on_off(key: &str, v: &str) -> anyhow::Result<bool> {
    match v {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        other => anyhow::bail!("{key} must be on or off, not '{other}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> anyhow::Result<FaceOptions> {
        let v: Vec<String> = s.split_whitespace().map(String::from).collect();
        FaceOptions::parse(&v)
    }

    #[test]
    fn nfdc_options_become_flags_and_mask() {
        let o = parse("persistency permanent reliability on congestion-marking off mtu 1400 congestion-marking-interval 50 default-congestion-threshold 9000").unwrap();
        let mut p = ControlParameters::default();
        o.apply(&mut p);
        assert_eq!(p.face_persistency, Some(2));
        assert_eq!((p.flags, p.mask), (Some(2), Some(6)));
        assert_eq!(p.mtu, Some(1400));
        assert_eq!(p.base_congestion_marking_interval, Some(50_000_000));
        assert_eq!(p.default_congestion_threshold, Some(9000));
        assert!(parse("").unwrap().is_empty());
        let o = parse("local dev://veth0 persistency permanent").unwrap();
        assert_eq!(o.local.as_deref(), Some("dev://veth0"));
        assert!(parse("local dev://veth0").unwrap().is_empty());
    }

    #[test]
    fn create_flags_join_the_options() {
        let o = parse("mtu 1300")
            .unwrap()
            .with_flags(Some("permanent"), Some(1400), true)
            .unwrap();
        assert_eq!(o.persistency, Some(PERMANENT));
        assert_eq!(o.mtu, Some(1300));
        assert_eq!((o.flags, o.mask), (LOCAL_FIELDS, LOCAL_FIELDS));
        let o = parse("")
            .unwrap()
            .with_flags(None, Some(1400), false)
            .unwrap();
        assert_eq!(o.mtu, Some(1400));
        assert!(parse("")
            .unwrap()
            .with_flags(Some("x"), None, false)
            .is_err());
    }

    #[test]
    fn mistakes_are_explained() {
        assert!(parse("reliability")
            .unwrap_err()
            .to_string()
            .contains("needs a value"));
        assert!(parse("reliability maybe")
            .unwrap_err()
            .to_string()
            .contains("on or off"));
        assert!(parse("colour red")
            .unwrap_err()
            .to_string()
            .contains("unknown face option"));
        assert!(parse("mtu big")
            .unwrap_err()
            .to_string()
            .contains("not a number"));
        assert!(parse("persistency forever").is_err());
    }
}
