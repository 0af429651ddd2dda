//! `[limits]`: the daemon's resource bounds (PIT size in total and per face, the
//! Interest rate of each face, the NDNLPv2 reassembly buffer of each face, the Dead
//! Nonce List), their checks, and how the forwarder-wide values are split between
//! the shards.
//!
//! The bounds of the Content Store are `[cs] capacity` (packets) and
//! `[cs] capacity_bytes`; the queues are `[forwarder] queue_capacity` and
//! `[faces] queue_capacity` (packets) and `queue_capacity_bytes`. Every bound counts when it bites (`ndnlab ctl status`,
//! `/metrics`).

use ndnlab_proto::lp::ReassemblyLimits;
use serde::Deserialize;

use super::{invalid, ConfigError};
use crate::runtime::cs_split::shard_cs_capacity;

/// Largest value accepted for a PIT bound (entries).
const MAX_PIT: usize = 1 << 28;

/// `[limits]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsSection {
    /// Most PIT entries in the whole forwarder (split between the shards); 0 = no bound.
    pub pit_max_entries: usize,
    /// Most pending PIT entries created by the Interests of one face; 0 = no bound.
    pub pit_max_entries_per_face: usize,
    /// Interests accepted per second from one face; 0 = no limit.
    pub interest_rate_per_face: u64,
    /// Interests a face may send back to back above its rate; 0 = a tenth of a
    /// second at the rate (at least 1).
    pub interest_burst_per_face: u64,
    /// Partial packets held per face while their NDNLPv2 fragments arrive.
    pub reassembly_max_partials: usize,
    /// Fragment bytes held per face for partial packets.
    pub reassembly_max_bytes: usize,
    /// Entries of the Dead Nonce List (Interests that left the PIT, kept 6 s for
    /// loop detection) in the whole forwarder; when full, the oldest entry goes first
    /// (counted: `drop.dead-nonce-overflow`). At most 72 bytes each.
    pub dead_nonce_max_entries: usize,
}

impl Default for LimitsSection {
    fn default() -> Self {
        let r = ReassemblyLimits::default();
        LimitsSection {
            pit_max_entries: 1 << 20,
            pit_max_entries_per_face: 1 << 18,
            interest_rate_per_face: 0,
            interest_burst_per_face: 0,
            reassembly_max_partials: r.max_partials,
            reassembly_max_bytes: r.max_bytes,
            dead_nonce_max_entries: 1 << 20,
        }
    }
}

impl LimitsSection {
    /// The checks serde cannot make, naming the key.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.dead_nonce_max_entries == 0 {
            return Err(invalid(
                "limits.dead_nonce_max_entries",
                "must be > 0 (the Dead Nonce List detects looping Interests)",
            ));
        }
        for (key, v) in [
            ("limits.dead_nonce_max_entries", self.dead_nonce_max_entries),
            ("limits.pit_max_entries", self.pit_max_entries),
            (
                "limits.pit_max_entries_per_face",
                self.pit_max_entries_per_face,
            ),
        ] {
            if v > MAX_PIT {
                return Err(invalid(key, format!("at most {MAX_PIT} (0 = no bound)")));
            }
        }
        if self.pit_max_entries != 0 && self.pit_max_entries_per_face > self.pit_max_entries {
            return Err(invalid(
                "limits.pit_max_entries_per_face",
                "larger than limits.pit_max_entries: one face could take the whole PIT",
            ));
        }
        if self.interest_rate_per_face > 1_000_000_000 {
            return Err(invalid(
                "limits.interest_rate_per_face",
                "at most 1000000000 Interests/s (0 = no limit)",
            ));
        }
        if self.interest_burst_per_face != 0 && self.interest_rate_per_face == 0 {
            return Err(invalid(
                "limits.interest_burst_per_face",
                "needs limits.interest_rate_per_face",
            ));
        }
        if self.reassembly_max_partials == 0 {
            return Err(invalid("limits.reassembly_max_partials", "must be > 0"));
        }
        if self.reassembly_max_bytes < 9000 {
            return Err(invalid(
                "limits.reassembly_max_bytes",
                "must be >= 9000 (one packet of NDN's 8800-byte maximum)",
            ));
        }
        Ok(())
    }

    /// The Dead Nonce List bound of shard `index` of `count` (at least 1).
    pub fn dead_nonce_for_shard(&self, index: usize, count: usize) -> usize {
        shard_cs_capacity(self.dead_nonce_max_entries, index, count).max(1)
    }

    /// The reassembly bounds of each face.
    pub fn reassembly(&self) -> ReassemblyLimits {
        ReassemblyLimits {
            max_partials: self.reassembly_max_partials,
            max_bytes: self.reassembly_max_bytes,
        }
    }

    /// The core's bounds for shard `index` of `count`: every forwarder-wide value
    /// is split as the CS capacity is ([`shard_cs_capacity`]: even shares, the
    /// remainder to the first shards, 0 stays "off"), since a face's Interests are
    /// spread over the shards by name.
    pub fn for_shard(&self, index: usize, count: usize) -> ndnlab_core::Limits {
        let share = |v: u64| shard_cs_capacity(v as usize, index, count) as u64;
        let rate = share(self.interest_rate_per_face);
        let burst = match self.interest_burst_per_face {
            0 => (rate / 10).max(1),
            b => share(b),
        };
        ndnlab_core::Limits {
            pit_max_entries: shard_cs_capacity(self.pit_max_entries, index, count),
            pit_max_per_face: shard_cs_capacity(self.pit_max_entries_per_face, index, count),
            interest_rate: rate,
            interest_burst: if rate == 0 { 0 } else { burst },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml: &str) -> LimitsSection {
        let c = crate::config::FwdConfig::from_toml(toml, std::path::Path::new("t.toml"))
            .expect("parses");
        c.limits
    }

    fn key_of(e: ConfigError) -> String {
        match e {
            ConfigError::Invalid { key, .. } => key,
            other => panic!("not a semantic error: {other}"),
        }
    }

    #[test]
    fn defaults_bound_the_pit_and_leave_the_rate_free() {
        let l = LimitsSection::default();
        l.check().unwrap();
        let c = l.for_shard(0, 1);
        assert_eq!((c.pit_max_entries, c.pit_max_per_face), (1 << 20, 1 << 18));
        assert_eq!((c.interest_rate, c.interest_burst), (0, 0));
    }

    #[test]
    fn bad_values_name_their_key() {
        for (toml, key) in [
            (
                "[limits]\npit_max_entries = 10\npit_max_entries_per_face = 20\n",
                "limits.pit_max_entries_per_face",
            ),
            (
                "[limits]\npit_max_entries = 999999999999\n",
                "limits.pit_max_entries",
            ),
            (
                "[limits]\ninterest_burst_per_face = 5\n",
                "limits.interest_burst_per_face",
            ),
            (
                "[limits]\nreassembly_max_bytes = 100\n",
                "limits.reassembly_max_bytes",
            ),
            (
                "[limits]\nreassembly_max_partials = 0\n",
                "limits.reassembly_max_partials",
            ),
            (
                "[limits]\ndead_nonce_max_entries = 0\n",
                "limits.dead_nonce_max_entries",
            ),
            (
                "[limits]\ndead_nonce_max_entries = 999999999999\n",
                "limits.dead_nonce_max_entries",
            ),
        ] {
            assert_eq!(key_of(parse(toml).check().unwrap_err()), key, "{toml}");
        }
        assert!(crate::config::FwdConfig::from_toml(
            "[limits]\npit_size = 1\n",
            std::path::Path::new("t.toml")
        )
        .is_err());
    }

    #[test]
    fn totals_are_split_between_shards() {
        let l = parse(
            "[limits]\npit_max_entries = 1000\npit_max_entries_per_face = 100\n\
             interest_rate_per_face = 3000\n",
        );
        let shares: Vec<_> = (0..3).map(|i| l.for_shard(i, 3)).collect();
        assert_eq!(
            shares.iter().map(|s| s.pit_max_entries).sum::<usize>(),
            1000
        );
        assert_eq!(shares[0].pit_max_per_face, 34);
        assert_eq!(shares[0].interest_rate, 1000);
        assert_eq!(shares[0].interest_burst, 100);
        let dnl = parse("[limits]\ndead_nonce_max_entries = 1001\n");
        let dnl: Vec<_> = (0..2).map(|i| dnl.dead_nonce_for_shard(i, 2)).collect();
        assert_eq!(dnl, [501, 500]);
        let off = parse("[limits]\npit_max_entries = 0\npit_max_entries_per_face = 0\n");
        off.check().unwrap();
        assert_eq!(off.for_shard(1, 4), ndnlab_core::Limits::default());
    }
}
