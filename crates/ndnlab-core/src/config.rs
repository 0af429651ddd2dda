//! [`ForwarderConfig`]: what a forwarder is built with (CS size and policy, the root
//! strategy, Dead Nonce List, shard, PIT tokens, strategy defaults, seed, producer
//! regions, resource bounds, Data verification).

use crate::cs_policy::CsPolicyKind;
use crate::dead_nonce::DEFAULT_LIFETIME;
use crate::strategy::kind::StrategyKind;
use crate::{Time, MS};

/// What to do with Data that matches no PIT entry (NFD `tables.cs_unsolicited_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnsolicitedDataPolicy {
    /// Drop every unsolicited Data (NFD default).
    #[default]
    DropAll,
    /// Cache unsolicited Data from local faces.
    AdmitLocal,
    /// Cache unsolicited Data from non-local faces.
    AdmitNetwork,
    /// Cache every unsolicited Data.
    AdmitAll,
}

impl UnsolicitedDataPolicy {
    /// NFD's name (`drop-all`, `admit-local`, `admit-network`, `admit-all`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "drop-all" => Self::DropAll,
            "admit-local" => Self::AdmitLocal,
            "admit-network" => Self::AdmitNetwork,
            "admit-all" => Self::AdmitAll,
            _ => return None,
        })
    }
}

/// Retransmission suppression parameters (NFD RetxSuppressionExponential defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetxSuppressionConfig {
    /// Initial suppression interval (10 ms).
    pub initial: Time,
    /// Maximum interval (250 ms).
    pub max: Time,
    /// Multiplier applied after each forwarded retransmission (2).
    pub multiplier: u64,
}

impl Default for RetxSuppressionConfig {
    fn default() -> Self {
        RetxSuppressionConfig {
            initial: 10 * MS,
            max: 250 * MS,
            multiplier: 2,
        }
    }
}

/// Forwarder configuration.
#[derive(Debug, Clone)]
pub struct ForwarderConfig {
    /// CS capacity in packets (NFD default 65536).
    pub cs_capacity: usize,
    /// CS capacity in bytes of packet wire encoding.
    pub cs_capacity_bytes: usize,
    /// CS replacement policy.
    pub cs_policy: CsPolicyKind,
    /// Unsolicited Data policy.
    pub unsolicited: UnsolicitedDataPolicy,
    /// Strategy of the root prefix.
    pub default_strategy: StrategyKind,
    /// Dead Nonce List entry lifetime.
    pub dead_nonce_lifetime: Time,
    /// Dead Nonce List capacity.
    pub dead_nonce_capacity: usize,
    /// `(index, count)` of this shard.
    pub shard: (usize, usize),
    /// Whether outgoing Interests carry our PIT token.
    pub pit_tokens: bool,
    /// Retransmission suppression.
    pub retx: RetxSuppressionConfig,
    /// ASF probing interval (NFD default 60 s).
    pub asf_probing_interval: Time,
    /// Seed of the RNG (ASF probing choices, missing Nonces).
    pub seed: u64,
    /// Producer regions (NFD `tables.network_region`): ForwardingHint stripped there.
    pub network_region: crate::network_region::NetworkRegionTable,
    /// Resource bounds: PIT size, per-face PIT share, per-face Interest rate (all off
    /// by default).
    pub limits: crate::limits::Limits,
    /// Checks every incoming Data before the PIT match ([`crate::verify`]); `None`
    /// (the default) checks nothing.
    pub verify_data: Option<std::sync::Arc<dyn crate::verify::DataVerifier>>,
}

impl Default for ForwarderConfig {
    fn default() -> Self {
        ForwarderConfig {
            cs_capacity: 65536,
            cs_capacity_bytes: 1 << 30,
            cs_policy: CsPolicyKind::PriorityFifo,
            unsolicited: UnsolicitedDataPolicy::DropAll,
            default_strategy: StrategyKind::BestRoute,
            dead_nonce_lifetime: DEFAULT_LIFETIME,
            dead_nonce_capacity: 1 << 20,
            shard: (0, 1),
            pit_tokens: true,
            retx: RetxSuppressionConfig::default(),
            asf_probing_interval: 60_000 * MS,
            seed: 0x6e64_6e6c_6162,
            network_region: Default::default(),
            limits: Default::default(),
            verify_data: None,
        }
    }
}
