//! [`StrategyKind`]: the strategies this forwarder registers, under NFD 24.07's names,
//! class names and versions. Resolving a name ([`StrategyKind::from_name`]) and
//! instance names with parameters are in [`super::params`]; the strategies themselves
//! in the sibling files.

use ndnlab_wire::Name;

/// The strategies this forwarder implements: the six NFD 24.07 registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StrategyKind {
    /// Best route (lowest cost), with exponential retransmission suppression.
    #[default]
    BestRoute,
    /// Every next hop.
    Multicast,
    /// Adaptive SRTT-based forwarding with probing.
    Asf,
    /// One eligible next hop drawn at random.
    Random,
    /// Last working next hop per prefix, multicast on a miss or an RTO timeout.
    Access,
    /// Broadcast discovery, routes learned from prefix announcements.
    SelfLearning,
}

const PREFIX: &str = "/localhost/nfd/strategy/";

impl StrategyKind {
    /// Every kind.
    pub const ALL: [StrategyKind; 6] = [
        StrategyKind::BestRoute,
        StrategyKind::Multicast,
        StrategyKind::Asf,
        StrategyKind::Random,
        StrategyKind::Access,
        StrategyKind::SelfLearning,
    ];

    /// Short name (`best-route`, `multicast`, `asf`, `random`, `access`, `self-learning`).
    pub fn short(self) -> &'static str {
        match self {
            StrategyKind::BestRoute => "best-route",
            StrategyKind::Multicast => "multicast",
            StrategyKind::Asf => "asf",
            StrategyKind::Random => "random",
            StrategyKind::Access => "access",
            StrategyKind::SelfLearning => "self-learning",
        }
    }

    /// NFD's class name (`BestRouteStrategy`, ...), as its error messages spell it.
    pub fn class_name(self) -> &'static str {
        match self {
            StrategyKind::BestRoute => "BestRouteStrategy",
            StrategyKind::Multicast => "MulticastStrategy",
            StrategyKind::Asf => "AsfStrategy",
            StrategyKind::Random => "RandomStrategy",
            StrategyKind::Access => "AccessStrategy",
            StrategyKind::SelfLearning => "SelfLearningStrategy",
        }
    }

    /// The version NFD 24.07 registers (the one implemented).
    pub fn version(self) -> u64 {
        match self {
            StrategyKind::BestRoute | StrategyKind::Multicast | StrategyKind::Asf => 5,
            StrategyKind::Random | StrategyKind::Access | StrategyKind::SelfLearning => 1,
        }
    }

    /// Whether the instance name may carry parameters after the version (NFD: the
    /// strategies that parse `StrategyParameters`; the others refuse any).
    pub fn accepts_parameters(self) -> bool {
        matches!(
            self,
            StrategyKind::BestRoute | StrategyKind::Multicast | StrategyKind::Asf
        )
    }

    /// NFD's versioned strategy name as a URI.
    pub fn uri(self) -> String {
        format!("{PREFIX}{}/v={}", self.short(), self.version())
    }

    /// NFD's versioned strategy name.
    pub fn name(self) -> Name {
        Name::from_uri(&self.uri()).expect("valid strategy name")
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.uri())
    }
}
