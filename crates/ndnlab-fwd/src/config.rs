//! `fwd.toml`: the daemon's configuration.
//!
//! Every section rejects unknown keys (`deny_unknown_fields`), every field has a
//! default, and [`FwdConfig::validate`] (in `config/validate.rs`) checks what serde
//! cannot, naming the bad key in its error. `crates/ndnlab-fwd/fwd.example.toml`
//! documents each key.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use ndnlab_core::{StrategyChoice, StrategyInstance};
use ndnlab_proto::emu::config::{deserialize_table, LinkTable};
use ndnlab_proto::emu::LinkConfig;
use ndnlab_wire::Name;
use serde::de::MapAccess;
use serde::Deserialize;

mod authorize;
#[doc(hidden)]
pub mod fuzz;
mod limits;
mod validate;
pub use authorize::{AuthorizeEntry, PRIVILEGES};
pub use limits::LimitsSection;
pub use validate::Checked;

/// The default Unix socket: what NFD uses on Linux and what python-ndn 0.5 and
/// ndn-cxx clients connect to when nothing is configured.
pub const DEFAULT_UNIX_SOCKET: &str = "/run/nfd/nfd.sock";

/// A configuration problem, naming the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// TOML syntax error, unknown key or wrongly typed value (toml names the key and line).
    #[error("{path}: {cause}")]
    Parse {
        path: PathBuf,
        cause: Box<toml::de::Error>,
    },
    /// A value that parsed but makes no sense.
    #[error("invalid `{key}`: {reason}")]
    Invalid { key: String, reason: String },
}

fn invalid(key: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        reason: reason.into(),
    }
}

/// The whole file.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FwdConfig {
    pub forwarder: ForwarderSection,
    pub cs: CsSection,
    pub tables: TablesSection,
    pub log: LogSection,
    pub management: ManagementSection,
    pub faces: FacesSection,
    /// Data-plane latency instrumentation (off by default).
    pub latency: LatencySection,
    /// Resource bounds: PIT, Interest rate, reassembly buffers.
    pub limits: LimitsSection,
    /// Faces created at startup (e.g. toward another forwarder).
    #[serde(rename = "face")]
    pub static_faces: Vec<StaticFace>,
    /// Static routes, installed with origin `static` (255).
    #[serde(rename = "route")]
    pub routes: Vec<StaticRoute>,
    /// Strategy choices.
    #[serde(rename = "strategy")]
    pub strategies: Vec<StrategyEntry>,
}

/// `[forwarder]`: forwarding threads and their queues.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForwarderSection {
    /// Forwarding shards, each on its own thread; 0 = chosen from the machine.
    pub threads: usize,
    /// Capacity (in packets) of each shard's input queue; a full queue drops and counts.
    pub queue_capacity: usize,
    /// Leading name components hashed by the Name Dispatch Table.
    pub dispatch_components: usize,
    /// With a single shard, run it on the face readers (no shard thread, no
    /// queue); `false` runs it on its own thread behind its queue. Several
    /// shards always run on their own threads.
    pub inline: bool,
    /// What is checked on every incoming Data: `none`, `digest` or `signature`
    /// (see `crate::verify`).
    pub verify_data: String,
    /// The keys `verify_data = "signature"` trusts (`[[forwarder.trust]]`).
    pub trust: Vec<crate::verify::TrustEntry>,
    /// Largest network-layer packet (Interest, Data, Nack; after NDNLPv2
    /// reassembly) accepted from a face, in bytes; larger ones are dropped and
    /// counted (`oversize_drops`). NDN's limit, 8800, by default; more is a
    /// non-standard extension for large segments between ndnlab forwarders
    /// (NFD and ndn-cxx refuse packets over 8800 bytes).
    pub max_packet_size: usize,
}

impl Default for ForwarderSection {
    fn default() -> Self {
        ForwarderSection {
            threads: 0,
            queue_capacity: 65536,
            dispatch_components: 1,
            inline: true,
            verify_data: "none".into(),
            trust: Vec::new(),
            max_packet_size: crate::mgmt::internal::MAX_NDN_PACKET_SIZE as usize,
        }
    }
}

/// Bytes a Data needs beyond its payload (name, MetaInfo, signature): NDN's
/// 8000 bytes of content fit in an 8800-byte packet.
pub const DATA_OVERHEAD: usize = 800;

/// The `max_packet_size` that carries Data of `payload` content bytes: NDN's
/// 8800, or payload + [`DATA_OVERHEAD`] when that is more.
pub fn max_packet_size_for(payload: usize) -> usize {
    (crate::mgmt::internal::MAX_NDN_PACKET_SIZE as usize).max(payload + DATA_OVERHEAD)
}

impl ForwarderSection {
    /// The number of shards to run: the configured value, or one (cores <= 2) or
    /// cores/2 capped at 8 forwarding threads, leaving cores to the face I/O.
    pub fn effective_threads(&self) -> usize {
        if self.threads > 0 {
            return self.threads;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / 2).clamp(1, 8)
    }
}

/// `[latency]`: data-plane latency instrumentation (see `crate::latency` and
/// docs/LATENCY.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LatencySection {
    /// Time one packet in `sample`; 0 = off.
    pub sample: u64,
    /// Samples discarded first (warm-up).
    pub skip: u64,
    /// Samples kept after the warm-up; 0 = no limit.
    pub keep: u64,
    /// Raw samples, one CSV line each, written by a thread of its own.
    pub log: Option<PathBuf>,
    /// Records in flight to the log's thread; beyond, samples are dropped (counted).
    pub log_queue: usize,
}

impl Default for LatencySection {
    fn default() -> Self {
        LatencySection {
            sample: 0,
            skip: 0,
            keep: 0,
            log: None,
            log_queue: 65536,
        }
    }
}

impl LatencySection {
    /// Checks what serde cannot (the error names the key).
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.log.is_some() && self.sample == 0 {
            return Err(invalid(
                "latency.log",
                "a latency log needs latency.sample (one packet in N) above 0",
            ));
        }
        if self.log_queue == 0 {
            return Err(invalid("latency.log_queue", "must be at least 1"));
        }
        Ok(())
    }
}

/// `[tables]`: forwarding tables (NFD's `tables` section).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TablesSection {
    /// Producer regions (NFD `tables.network_region`): an Interest whose ForwardingHint
    /// has a delegation that is a prefix of one of these names has reached its producer
    /// region; the hint is stripped and the FIB is looked up by the Interest name.
    pub network_region: Vec<String>,
}

impl TablesSection {
    /// The network region table (names checked by [`FwdConfig::validate`]).
    pub fn network_region_table(&self) -> ndnlab_core::NetworkRegionTable {
        self.network_region
            .iter()
            .filter_map(|r| ndnlab_wire::Name::from_uri(r).ok())
            .collect()
    }
}

/// `[cs]`: content store.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CsSection {
    /// Maximum number of Data packets (per forwarder, split among shards by
    /// [`crate::runtime::cs_split::shard_cs_capacity`]); 0 turns caching off.
    pub capacity: usize,
    /// Maximum bytes of cached Data wire encoding (per forwarder, split among shards
    /// as `capacity` is). Nothing is allocated up front.
    pub capacity_bytes: usize,
    /// `lru`, `priority-fifo` or `tinylfu`.
    pub policy: String,
    /// Admit new Data into the CS.
    pub admit: bool,
    /// Serve Interests from the CS.
    pub serve: bool,
}

impl Default for CsSection {
    fn default() -> Self {
        CsSection {
            capacity: 65536,
            capacity_bytes: 1 << 30,
            policy: "lru".into(),
            admit: true,
            serve: true,
        }
    }
}

/// `[log]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSection {
    /// A `tracing` filter: `info`, `debug`, `ndnlab_fwd=trace,info`, ...
    pub level: String,
}

impl Default for LogSection {
    fn default() -> Self {
        LogSection {
            level: "info".into(),
        }
    }
}

/// `[management]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ManagementSection {
    /// Serve the NFD management protocol under /localhost/nfd.
    pub enabled: bool,
    /// FreshnessPeriod of status dataset segments, in milliseconds.
    pub dataset_freshness_ms: u64,
    /// Maximum payload of one dataset segment, in bytes.
    pub dataset_segment_size: usize,
    /// Who may send which commands (NFD's `authorizations`); absent: every
    /// command from a local face is accepted. See `config/authorize.rs`.
    pub authorize: Option<Vec<AuthorizeEntry>>,
    /// How far a signed command's timestamp may be from the forwarder's clock,
    /// in seconds (ndn-cxx's command Interest grace period, 2 minutes); only
    /// checked with `authorize`.
    pub command_grace_period_s: u64,
}

impl Default for ManagementSection {
    fn default() -> Self {
        ManagementSection {
            enabled: true,
            dataset_freshness_ms: 1000,
            dataset_segment_size: 7000,
            authorize: None,
            command_grace_period_s: 120,
        }
    }
}

/// `[faces]`: listeners and per-face limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FacesSection {
    pub unix: UnixSection,
    pub tcp: TcpSection,
    pub udp: UdpSection,
    pub websocket: WebSocketSection,
    /// Ethernet faces (NFD's `face_system.ether`): on when the section is present.
    pub ether: Option<EtherSection>,
    /// NDNLPv2 reliability parameters (for faces that turn it on).
    pub lp_reliability: LpReliabilitySection,
    /// Send queue limit of each face, in packets; beyond it packets are dropped and counted.
    pub queue_capacity: usize,
    /// Send queue limit of each face, in bytes of packets (a packet alone in the
    /// queue passes whatever its size); beyond it packets are dropped and counted
    /// (`drop.send-queue-bytes` in `status/limits`).
    pub queue_capacity_bytes: usize,
    /// CoDel-style congestion marking: base interval in milliseconds (NFD: 100).
    pub congestion_interval_ms: u64,
    /// Congestion marking threshold in bytes queued (NFD: 65536).
    pub congestion_threshold: usize,
    /// `[[faces.emulation]]`: link emulation for faces created while the daemon
    /// runs (on-demand faces of the listeners, faces/create), first match wins.
    pub emulation: Vec<EmulationRule>,
}

impl Default for FacesSection {
    fn default() -> Self {
        FacesSection {
            unix: UnixSection::default(),
            tcp: TcpSection::default(),
            udp: UdpSection::default(),
            websocket: WebSocketSection::default(),
            ether: None,
            lp_reliability: LpReliabilitySection::default(),
            queue_capacity: 4096,
            queue_capacity_bytes: crate::face::DEFAULT_QUEUE_CAPACITY_BYTES,
            congestion_interval_ms: 100,
            congestion_threshold: 65536,
            emulation: Vec::new(),
        }
    }
}

/// `[faces.unix]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UnixSection {
    pub enabled: bool,
    pub path: PathBuf,
}

impl Default for UnixSection {
    fn default() -> Self {
        UnixSection {
            enabled: true,
            path: PathBuf::from(DEFAULT_UNIX_SOCKET),
        }
    }
}

/// `[faces.tcp]`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSection {
    /// Listening addresses, v4 or v6 (`"0.0.0.0:6363"`, `"[::1]:6363"`).
    pub listen: Vec<SocketAddr>,
}

/// `[faces.websocket]`: NFD's WebSocket channel (for NDNts in browsers); off unless
/// an address is given (NFD's port is 9696).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct WebSocketSection {
    /// Listening addresses, v4 or v6 (`"127.0.0.1:9696"`, `"[::1]:9696"`).
    pub listen: Vec<SocketAddr>,
}

/// `[faces.ether]`: Ethernet faces over `AF_PACKET` (NFD's `face_system.ether`).
/// As in NFD, the section's presence turns them on: a channel on every usable
/// Ethernet interface (up, not loopback, with a MAC address) that the whitelist
/// and blacklist let through, and a multicast face on each. Unlike NFD, the lists
/// choose the interfaces of the unicast channels too. Needs `CAP_NET_RAW`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EtherSection {
    /// Frames from a MAC address without a face create an on-demand face (NFD `listen`).
    pub listen: bool,
    /// On-demand Ethernet faces idle this long are closed (seconds).
    pub idle_timeout_s: u64,
    /// A multicast face on each interface (NFD `mcast`).
    pub mcast: bool,
    /// Its group (NFD `mcast_group`).
    pub mcast_group: String,
    /// Interface names (or globs with `*`) to use (NFD `whitelist`).
    pub whitelist: Vec<String>,
    /// Interface names (or globs with `*`) never to use (NFD `blacklist`).
    pub blacklist: Vec<String>,
}

impl Default for EtherSection {
    fn default() -> Self {
        EtherSection {
            listen: true,
            idle_timeout_s: 600,
            mcast: true,
            mcast_group: ndnlab_proto::ether::DEFAULT_MULTICAST.to_string(),
            whitelist: vec!["*".into()],
            blacklist: Vec::new(),
        }
    }
}

impl EtherSection {
    /// Whether the lists let interface `name` through.
    pub fn allows(&self, name: &str) -> bool {
        use crate::face::ether::name_matches;
        self.whitelist.iter().any(|p| name_matches(p, name))
            && !self.blacklist.iter().any(|p| name_matches(p, name))
    }

    /// The multicast group (checked by [`FwdConfig::validate`]).
    pub fn group(&self) -> ndnlab_proto::ether::MacAddr {
        self.mcast_group
            .parse()
            .unwrap_or(ndnlab_proto::ether::DEFAULT_MULTICAST)
    }
}

/// `[faces.lp_reliability]`: NDNLPv2 reliability (NFD's LpReliability options),
/// used by faces that enable it (`reliability = true` on a `[[face]]`, the
/// faces/create or faces/update flag bit 1, `ndnlab ctl face ... reliability on`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LpReliabilitySection {
    /// Retransmissions of a frame before its packet is given up (NFD: 3).
    pub max_retx: u32,
    /// How long an Ack waits for an outgoing packet to ride on, in milliseconds (NFD: 5).
    pub idle_ack_ms: u64,
    /// Acks of later frames after which an unacked frame counts as lost (NFD: 3).
    pub loss_threshold: u32,
    /// Lower bound of the retransmission timeout, in milliseconds.
    pub min_rto_ms: u64,
    /// Upper bound of the retransmission timeout, in milliseconds.
    pub max_rto_ms: u64,
}

impl Default for LpReliabilitySection {
    fn default() -> Self {
        let d = ndnlab_proto::lp::reliability::ReliabilityOptions::default();
        LpReliabilitySection {
            max_retx: d.max_retx,
            idle_ack_ms: d.idle_ack_ns / 1_000_000,
            loss_threshold: d.loss_threshold,
            min_rto_ms: d.min_rto_ns / 1_000_000,
            max_rto_ms: d.max_rto_ns / 1_000_000,
        }
    }
}

impl LpReliabilitySection {
    /// The state machine's options.
    pub fn options(&self) -> ndnlab_proto::lp::reliability::ReliabilityOptions {
        ndnlab_proto::lp::reliability::ReliabilityOptions {
            max_retx: self.max_retx,
            idle_ack_ns: self.idle_ack_ms * 1_000_000,
            loss_threshold: self.loss_threshold,
            min_rto_ns: self.min_rto_ms * 1_000_000,
            max_rto_ns: self.max_rto_ms * 1_000_000,
            ..Default::default()
        }
    }
}

/// `[faces.udp]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UdpSection {
    /// Unicast listening addresses, v4 or v6; datagrams from new peers create on-demand faces.
    pub listen: Vec<SocketAddr>,
    /// Largest datagram sent; bigger packets are fragmented (NDNLPv2).
    pub mtu: usize,
    /// On-demand UDP faces idle for this long are closed (seconds).
    pub idle_timeout_s: u64,
    /// Multicast groups.
    pub multicast: Vec<MulticastEntry>,
}

impl Default for UdpSection {
    fn default() -> Self {
        UdpSection {
            listen: Vec::new(),
            mtu: 1452,
            idle_timeout_s: 600,
            multicast: Vec::new(),
        }
    }
}

/// `[[faces.udp.multicast]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MulticastEntry {
    /// Group and port, e.g. `"224.0.23.170:56363"`; IPv6 names the interface by
    /// scope id: `"[ff02::1234%2]:56363"`.
    pub group: SocketAddr,
    /// Local interface address to join on (v4 only), default 0.0.0.0.
    #[serde(default)]
    pub interface: Option<std::net::Ipv4Addr>,
}

/// `[[face]]`: a face created at startup.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticFace {
    /// `udp4://127.0.0.1:6363`, `tcp4://...`, `udp6://[::1]:6363`, `tcp6://...`,
    /// `ether://[08:00:27:01:01:01]` (with `local`).
    pub uri: String,
    /// The local URI: `dev://<interface>` for an Ethernet face (required there).
    #[serde(default)]
    pub local: Option<String>,
    /// Local MTU override for UDP and Ethernet (fragmentation size).
    #[serde(default)]
    pub mtu: Option<usize>,
    /// NDNLPv2 reliability on this face (UDP only; NFD's flag bit 1).
    #[serde(default)]
    pub reliability: bool,
    /// An emulated link on the face's egress (`emulate = { delay_ms = 10, ... }`:
    /// delay, jitter, loss, bandwidth...). Every key is optional; none gives a
    /// perfect link. See [`crate::face::emu`].
    #[serde(default)]
    pub emulate: Option<LinkConfig>,
}

/// `[[faces.emulation]]`: a link ([`LinkConfig`], the keys of `emulate`) for the
/// faces whose remote URI is `remote`, or whose remote host is `remote_ip`.
#[derive(Debug, Clone, Default)]
pub struct EmulationRule {
    /// A whole remote URI (`udp4://127.0.0.1:6401`, `tcp4://...`, `ether://[...]`).
    pub remote: Option<String>,
    /// Every UDP or TCP face whose remote host is this IP address.
    pub remote_ip: Option<String>,
    /// The rule's link keys.
    pub emulate: LinkConfig,
}

impl LinkTable for EmulationRule {
    type Keys = LinkConfig;
    const EXPECTING: &'static str = "struct EmulationRule";
    const LEAD: &'static [&'static str] = &["remote", "remote_ip"];

    fn keys(&mut self) -> &mut LinkConfig {
        &mut self.emulate
    }

    fn read_own<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match key {
            "remote" => self.remote = Some(map.next_value()?),
            "remote_ip" => self.remote_ip = Some(map.next_value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl<'de> Deserialize<'de> for EmulationRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_table(d)
    }
}

/// `[[route]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticRoute {
    pub prefix: String,
    /// The remote URI of a `[[face]]`.
    pub face: String,
    #[serde(default)]
    pub cost: u64,
}

/// `[[strategy]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrategyEntry {
    pub prefix: String,
    /// e.g. `/localhost/nfd/strategy/multicast`, or with parameters
    /// `/localhost/nfd/strategy/asf/v=5/probing-interval~30000`.
    pub strategy: String,
}

impl StrategyEntry {
    /// The prefix and the strategy instance: the typed values management hands to
    /// the shards (nothing downstream reads the strings again). `i` is the entry's
    /// index in the file, for the key named in errors.
    pub fn parse(&self, i: usize) -> Result<(Name, StrategyInstance), ConfigError> {
        let prefix = Name::from_uri(&self.prefix)
            .map_err(|e| invalid(format!("strategy[{i}].prefix"), format!("{e}")))?;
        StrategyChoice::check_prefix(&prefix)
            .map_err(|e| invalid(format!("strategy[{i}].prefix"), e.to_string()))?;
        let instance = StrategyInstance::from_uri(&self.strategy)
            .map_err(|e| invalid(format!("strategy[{i}].strategy"), e.to_string()))?;
        Ok((prefix, instance))
    }
}

impl FwdConfig {
    /// Parses TOML text (without semantic validation).
    /// Relative certificate files are made relative to `path`'s directory.
    pub fn from_toml(text: &str, path: &Path) -> Result<FwdConfig, ConfigError> {
        let mut cfg: FwdConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            cause: Box::new(e),
        })?;
        cfg.management.resolve_certfiles(path);
        Ok(cfg)
    }

    /// Reads, parses and validates a file.
    pub fn load(path: &Path) -> Result<FwdConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.to_owned(),
            cause: e,
        })?;
        let cfg = Self::from_toml(&text, path)?;
        cfg.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<FwdConfig, ConfigError> {
        let c = FwdConfig::from_toml(s, Path::new("t.toml"))?;
        c.validate()?;
        Ok(c)
    }

    #[test]
    fn read_and_parse_errors_carry_their_cause_once() {
        // The message holds the cause, so it is not a `source()` too: the CLI prints
        // the whole chain, which named it twice.
        let e = FwdConfig::load(Path::new("/nonexistent/ndnlab-fwd.toml")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("cannot read /nonexistent/ndnlab-fwd.toml: "));
        assert!(std::error::Error::source(&e).is_none());
        let e = parse("[cs]\ncapacity = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("capacity"), "{e}");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn empty_file_gives_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.faces.unix.path, PathBuf::from(DEFAULT_UNIX_SOCKET));
        assert_eq!(c.faces.congestion_interval_ms, 100);
        assert_eq!(c.faces.congestion_threshold, 65536);
        assert_eq!(c.cs.policy, "lru");
    }

    #[test]
    fn network_region_names_are_parsed_and_checked() {
        let c = parse("[tables]\nnetwork_region = [\"/isp/east\", \"/campus\"]\n").unwrap();
        let t = c.tables.network_region_table();
        assert_eq!(t.len(), 2);
        let hint = [ndnlab_wire::Name::from_uri("/isp").unwrap()];
        assert!(t.is_in_producer_region(&hint));
        let e = parse("[tables]\nnetwork_region = [\"no-slash\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("tables.network_region[0]"), "{e}");
    }

    #[test]
    fn unknown_key_is_named() {
        let e = parse("[cs]\ncapacty = 3\n").unwrap_err().to_string();
        assert!(e.contains("capacty"), "{e}");
        let e = parse("bogus = 1\n").unwrap_err().to_string();
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = parse("[cs]\npolicy = \"random\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cs.policy"), "{e}");
        let e = parse("[faces.udp]\nmtu = 10\n").unwrap_err().to_string();
        assert!(e.contains("faces.udp.mtu"), "{e}");
        let e = parse("[[route]]\nprefix = \"/a\"\nface = \"udp4://127.0.0.1:9\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("route[0].face"), "{e}");
        let e = parse("[faces.tcp]\nlisten = [\"nonsense\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("listen"), "{e}");
    }

    #[test]
    fn websocket_and_reliability_keys() {
        let c = parse(
            "[faces.websocket]\nlisten = [\"127.0.0.1:9696\"]\n\
             [faces.lp_reliability]\nmax_retx = 5\nidle_ack_ms = 10\n\
             [[face]]\nuri = \"udp4://127.0.0.1:6363\"\nreliability = true\n",
        )
        .unwrap();
        assert_eq!(c.faces.websocket.listen.len(), 1);
        assert!(c.static_faces[0].reliability);
        let o = c.faces.lp_reliability.options();
        assert_eq!(
            (o.max_retx, o.idle_ack_ns, o.loss_threshold),
            (5, 10_000_000, 3)
        );
        assert!(
            parse("").unwrap().faces.websocket.listen.is_empty(),
            "off by default"
        );
        let e = parse("[[face]]\nuri = \"tcp4://127.0.0.1:6363\"\nreliability = true\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("face[0].reliability"), "{e}");
        let e = parse("[faces.lp_reliability]\nidle_ack_ms = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("faces.lp_reliability.idle_ack_ms"), "{e}");
        let e = parse("[faces.websocket]\nport = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("port"), "{e}");
    }

    #[test]
    fn ether_section_and_faces() {
        assert!(parse("").unwrap().faces.ether.is_none(), "off by default");
        let c = parse("[faces.ether]\n").unwrap();
        let e = c.faces.ether.unwrap();
        assert!(e.listen && e.mcast);
        assert_eq!(e.group(), ndnlab_proto::ether::DEFAULT_MULTICAST);
        assert!(e.allows("eth0"));
        let c = parse(
            "[faces.ether]\nmcast = false\nmcast_group = \"01:00:5E:00:17:AB\"\n\
             whitelist = [\"veth*\"]\nblacklist = [\"veth-x\"]\n\
             [[face]]\nuri = \"ether://[08:00:27:01:01:01]\"\nlocal = \"dev://veth0\"\nmtu = 1400\n",
        )
        .unwrap();
        let e = c.faces.ether.unwrap();
        assert!(!e.mcast && e.allows("veth0") && !e.allows("veth-x") && !e.allows("eth0"));
        assert_eq!(e.group().to_string(), "01:00:5e:00:17:ab");
        let err = |s: &str| parse(s).unwrap_err().to_string();
        let e = err("[faces.ether]\nmcast_group = \"08:00:27:01:01:01\"\n");
        assert!(
            e.contains("faces.ether.mcast_group") && e.contains("not a multicast"),
            "{e}"
        );
        let e = err("[faces.ether]\nmcast_group = \"nope\"\n");
        assert!(e.contains("faces.ether.mcast_group"), "{e}");
        let e = err("[faces.ether]\nidle_timeout_s = 0\n");
        assert!(e.contains("faces.ether.idle_timeout_s"), "{e}");
        let e = err("[faces.ether]\nwhitelist = [\"\"]\n");
        assert!(e.contains("faces.ether.whitelist[0]"), "{e}");
        let e = err("[faces.ether]\nlisten = \"yes\"\n");
        assert!(e.contains("listen"), "{e}");
        let e = err("[[face]]\nuri = \"ether://[08:00:27:01:01:01]\"\n");
        assert!(e.contains("face[0].local") && e.contains("dev://"), "{e}");
        let e = err("[[face]]\nuri = \"ether://[01:00:5e:00:17:aa]\"\nlocal = \"dev://eth0\"\n");
        assert!(e.contains("face[0].uri") && e.contains("multicast"), "{e}");
        let e =
            err("[[face]]\nuri = \"ether://[08:00:27:01:01:01]\"\nlocal = \"udp4://1.2.3.4:5\"\n");
        assert!(e.contains("face[0].local"), "{e}");
        let e = err("[[face]]\nuri = \"udp4://127.0.0.1:6363\"\nlocal = \"dev://eth0\"\n");
        assert!(e.contains("face[0].local"), "{e}");
        let e = err("[[face]]\nuri = \"ether://[08:00:27:01:01:01]\"\nlocal = \"dev://eth0\"\nreliability = true\n");
        assert!(e.contains("face[0].reliability"), "{e}");
    }

    #[test]
    fn emulation_keys_are_checked_by_serde() {
        let e = parse("[[face]]\nuri = \"udp4://127.0.0.1:6363\"\nemulate = { dealy_ms = 1 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("dealy_ms"), "{e}");
        let e = parse("[[faces.emulation]]\nremote_ip = \"127.0.0.1\"\nlos_pct = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("los_pct"), "{e}");
        let e = parse("[[face]]\nuri = \"udp4://127.0.0.1:6363\"\nemulate = { queue = -1 }\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("queue"), "{e}");
        let c = parse("[[face]]\nuri = \"udp4://127.0.0.1:6363\"\nemulate = {}\n").unwrap();
        assert_eq!(c.static_faces[0].emulate, Some(LinkConfig::default()));
    }

    #[test]
    fn emulation_rules_read_their_match_and_the_link_keys() {
        let c = parse(
            "[[faces.emulation]]\nremote_ip = \"127.0.0.1\"\ndelay_ms = 5\nbandwidth_mbps = 10\n\
             [[faces.emulation]]\nremote = \"udp4://127.0.0.1:6401\"\nseed = 4\nreorder = true\n",
        )
        .unwrap();
        let r = &c.faces.emulation;
        assert_eq!(
            (r[0].remote.as_deref(), r[0].remote_ip.as_deref()),
            (None, Some("127.0.0.1"))
        );
        assert_eq!(
            r[0].emulate,
            LinkConfig {
                delay_ms: 5.0,
                bandwidth_mbps: Some(10.0),
                ..Default::default()
            }
        );
        assert_eq!(r[1].remote.as_deref(), Some("udp4://127.0.0.1:6401"));
        assert_eq!((r[1].emulate.seed, r[1].emulate.reorder), (Some(4), true));
        // unset keys are unset: no rate, the daemon's default queue with one
        assert_eq!(
            (r[1].emulate.bandwidth_mbps, r[1].emulate.queue),
            (None, None)
        );
        // an unknown key is named, with its line and the keys a rule takes
        let e = parse("[[faces.emulation]]\nremote_ip = \"127.0.0.1\"\nloss = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3"), "{e}");
        assert!(
            e.contains("unknown field `loss`, expected one of `remote`, `remote_ip`, `delay_ms`"),
            "{e}"
        );
        let e = parse("[[faces.emulation]]\nremote = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("remote"), "{e}");
    }

    #[test]
    fn latency_section_is_checked_by_key() {
        let c = parse("[latency]\nsample = 64\nskip = 10\nkeep = 5\n").unwrap();
        assert_eq!(
            (c.latency.sample, c.latency.skip, c.latency.keep),
            (64, 10, 5)
        );
        assert_eq!(FwdConfig::default().latency.sample, 0, "off by default");
        let e = parse("[latency]\nsampel = 64\n").unwrap_err().to_string();
        assert!(e.contains("sampel"), "{e}");
        let e = parse("[latency]\nlog = \"/tmp/x.csv\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("latency.log"), "{e}");
        let e = parse("[latency]\nsample = 1\nlog_queue = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("latency.log_queue"), "{e}");
    }

    #[test]
    fn example_file_is_valid() {
        let text = include_str!("../fwd.example.toml");
        let c = FwdConfig::from_toml(text, Path::new("fwd.example.toml")).unwrap();
        c.validate().unwrap();
        assert_eq!(c.routes.len(), 1);
        // The emulation examples, commented out there, are valid too.
        let emulate = text
            .lines()
            .find_map(|l| l.strip_prefix("# emulate = "))
            .expect("an emulate example");
        let c = parse(&format!(
            "[[face]]\nuri = \"udp4://127.0.0.1:6364\"\nemulate = {emulate}\n"
        ))
        .unwrap();
        assert_eq!(c.static_faces[0].emulate.as_ref().unwrap().seed, Some(7));
        let rules: String = text
            .lines()
            .skip_while(|l| !l.starts_with("# [[faces.emulation]]"))
            .take_while(|l| !l.is_empty())
            .map(|l| format!("{}\n", l.trim_start_matches("# ")))
            .collect();
        assert_eq!(parse(&rules).unwrap().faces.emulation.len(), 2);
        // So is the commented authorization example.
        let auth: String = text
            .lines()
            .skip_while(|l| !l.starts_with("# [[management.authorize]]"))
            .take(3)
            .map(|l| format!("{}\n", l.trim_start_matches("# ")))
            .collect();
        let c = parse(&auth).unwrap();
        assert_eq!(c.management.authorize.unwrap()[0].privileges.len(), 5);
    }

    #[test]
    fn authorize_entries_are_checked_by_key() {
        assert_eq!(
            parse("").unwrap().management.authorize,
            None,
            "off by default"
        );
        let c = FwdConfig::from_toml(
            "[[management.authorize]]\ncertfile = \"certs/admin.ndncert\"\n\
             privileges = [\"faces\", \"rib\"]\n\
             [[management.authorize]]\ncertfile = \"any\"\nprivileges = [\"cs\"]\n",
            Path::new("/etc/ndnlab/fwd.toml"),
        )
        .unwrap();
        c.validate().unwrap();
        let a = c.management.authorize.unwrap();
        assert_eq!(a[0].certfile, "/etc/ndnlab/certs/admin.ndncert");
        assert_eq!(a[1].certfile, "any");
        let err = |s: &str| parse(s).unwrap_err().to_string();
        let e = err("[[management.authorize]]\ncertfile = \"a\"\nprivileges = [\"status\"]\n");
        assert!(
            e.contains("management.authorize[0].privileges[0]") && e.contains("status"),
            "{e}"
        );
        let e = err("[[management.authorize]]\ncertfile = \"\"\nprivileges = []\n");
        assert!(e.contains("management.authorize[0].certfile"), "{e}");
        let e = err("[[management.authorize]]\ncertfile = \"a\"\n");
        assert!(e.contains("privileges"), "{e}");
        let e = err("[management]\nauthorize = []\n");
        assert!(e.contains("management.authorize"), "{e}");
        let e = err("[management]\ncommand_grace_period_s = 0\n");
        assert!(e.contains("management.command_grace_period_s"), "{e}");
    }
}
