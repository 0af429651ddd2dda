//! [`FwdConfig::validate`]: every value serde accepted but the daemon cannot use,
//! refused with an error naming the key (`faces.udp.mtu`, `face[2].uri`,
//! `strategy[0].strategy`). The checks run section by section in file order; the
//! first problem found is reported.

use std::net::SocketAddr;

use ndnlab_core::StrategyInstance;
use ndnlab_wire::Name;

use super::{invalid, ConfigError, FwdConfig, LinkConfig};
use crate::face::emu::{EmuMatch, EmuSpec, EmulationTable};
use crate::face::uri::FaceUri;
use crate::mgmt::internal::MAX_NDN_PACKET_SIZE;
use crate::mgmt::{MAX_PREFIX, MTU_RANGE};

/// Most forwarding threads.
const MAX_THREADS: usize = 64;
/// Largest shard input queue, in packets: the queue's slots are allocated up front
/// (about 32 bytes each), so this bounds it to about 512 MiB per shard.
const MAX_QUEUE_CAPACITY: usize = 1 << 24;
/// Largest CS, in packets (the TinyLFU sketch is sized from the capacity; beyond this
/// no machine has the memory the entries would take anyway).
const MAX_CS_CAPACITY: u64 = 1 << 32;
/// Dataset segment payload bounds: a segment's Data (payload, name and signature)
/// must fit in NDN's 8800-byte packet limit.
const SEGMENT_SIZE: std::ops::RangeInclusive<usize> = 256..=8000;
/// `[forwarder] max_packet_size` bounds: at least NDN's 1024-byte minimum MTU
/// and at most the largest frame a stream face reads.
const MAX_PACKET_SIZE: std::ops::RangeInclusive<usize> = 1024..=ndnlab_proto::framing::MAX_FRAME;
/// Longest Unix socket path (`sun_path` holds 108 bytes with the terminating NUL).
const MAX_UNIX_PATH: usize = 107;
/// Longest CoDel-style marking interval, in milliseconds.
const MAX_CONGESTION_INTERVAL_MS: u64 = 60_000;
/// Longest LP retransmission timeout, in milliseconds.
const MAX_RTO_MS: u64 = 600_000;

/// What [`FwdConfig::check`] parsed, in typed form.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Every `[[strategy]]`: prefix and strategy instance, in file order.
    pub strategies: Vec<(Name, StrategyInstance)>,
    /// Emulated links: the `[[face]]` `emulate` tables, then `[[faces.emulation]]`.
    pub emulation: EmulationTable,
}

impl FwdConfig {
    /// Semantic checks; the error names the offending key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check().map(drop)
    }

    /// [`Self::validate`], keeping what the checks parsed: the daemon starts from
    /// these typed values instead of parsing the strings a second time.
    pub fn check(&self) -> Result<Checked, ConfigError> {
        self.check_forwarder()?;
        self.check_cs()?;
        self.check_tables()?;
        self.check_log()?;
        self.check_management()?;
        self.check_faces()?;
        self.latency.check()?;
        self.limits.check()?;
        self.check_static_faces()?;
        let emulation = self.emulation_table()?;
        self.check_routes()?;
        let strategies = self.strategy_choices()?;
        for (i, (prefix, _)) in strategies.iter().enumerate() {
            if let Some(j) = strategies[..i].iter().position(|(p, _)| p == prefix) {
                return Err(invalid(
                    format!("strategy[{i}].prefix"),
                    format!("{prefix} already has a strategy (strategy[{j}])"),
                ));
            }
        }
        Ok(Checked {
            strategies,
            emulation,
        })
    }

    /// The emulated links, checked: each `[[face]]`'s `emulate` for that face's URI
    /// (in file order), then the `[[faces.emulation]]` rules. Static faces' URIs
    /// are checked before this runs.
    pub fn emulation_table(&self) -> Result<EmulationTable, ConfigError> {
        fn spec(key: &str, e: &LinkConfig, stream: bool) -> Result<EmuSpec, ConfigError> {
            EmuSpec::from_config(e, stream)
                .map_err(|(k, reason)| invalid(format!("{key}.{k}"), reason))
        }
        let mut table = EmulationTable::default();
        for (i, f) in self.static_faces.iter().enumerate() {
            let Some(e) = &f.emulate else { continue };
            let uri = FaceUri::parse(&f.uri).map_err(|e| invalid(format!("face[{i}].uri"), e))?;
            let stream = matches!(uri, FaceUri::Tcp(_));
            table.push(
                EmuMatch::Remote(uri),
                spec(&format!("face[{i}].emulate"), e, stream)?,
            );
        }
        for (i, r) in self.faces.emulation.iter().enumerate() {
            let key = format!("faces.emulation[{i}]");
            let (m, stream) = match (&r.remote, &r.remote_ip) {
                (Some(remote), None) => {
                    let uri =
                        FaceUri::parse(remote).map_err(|e| invalid(format!("{key}.remote"), e))?;
                    let stream = match &uri {
                        FaceUri::Udp(a) | FaceUri::Tcp(a)
                            if a.ip().is_unspecified() || a.port() == 0 =>
                        {
                            return Err(invalid(
                                format!("{key}.remote"),
                                format!("{a} is not a peer address (any address or port 0); remote_ip matches a whole host"),
                            ));
                        }
                        FaceUri::Udp(_) | FaceUri::Ether(_) => false,
                        FaceUri::Tcp(_) => true,
                        other => {
                            return Err(invalid(
                                format!("{key}.remote"),
                                format!(
                                    "{} faces cannot be emulated (udp, tcp or ether only)",
                                    other.scheme()
                                ),
                            ))
                        }
                    };
                    (EmuMatch::Remote(uri), stream)
                }
                (None, Some(ip)) => {
                    let ip = ip.parse::<std::net::IpAddr>().map_err(|_| {
                        invalid(
                            format!("{key}.remote_ip"),
                            format!("'{ip}' is not an IP address"),
                        )
                    })?;
                    // Matches UDP and TCP faces alike: mtu and reorder then apply
                    // to the datagram faces only.
                    (EmuMatch::RemoteIp(ip), false)
                }
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        format!("{key}.remote_ip"),
                        "give either remote or remote_ip, not both",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        format!("{key}.remote"),
                        "a rule needs remote (a face URI) or remote_ip",
                    ))
                }
            };
            table.push(m, spec(&key, &r.emulate, stream)?);
        }
        Ok(table)
    }

    /// Every `[[strategy]]` as typed values, in file order (see
    /// [`super::StrategyEntry::parse`]).
    pub fn strategy_choices(&self) -> Result<Vec<(Name, StrategyInstance)>, ConfigError> {
        self.strategies
            .iter()
            .enumerate()
            .map(|(i, s)| s.parse(i))
            .collect()
    }

    fn check_forwarder(&self) -> Result<(), ConfigError> {
        let f = &self.forwarder;
        // 0 is valid: chosen from the machine (`effective_threads`).
        if f.threads > MAX_THREADS {
            return Err(invalid(
                "forwarder.threads",
                format!("at most {MAX_THREADS} (0 = chosen from the machine)"),
            ));
        }
        if f.queue_capacity == 0 || f.queue_capacity > MAX_QUEUE_CAPACITY {
            return Err(invalid(
                "forwarder.queue_capacity",
                format!("must be within 1..={MAX_QUEUE_CAPACITY}"),
            ));
        }
        if f.dispatch_components == 0 {
            return Err(invalid("forwarder.dispatch_components", "must be >= 1"));
        }
        crate::verify::verifier(f)?;
        if !MAX_PACKET_SIZE.contains(&f.max_packet_size) {
            return Err(invalid(
                "forwarder.max_packet_size",
                format!(
                    "must be within {}..={} bytes (NDN's limit is {MAX_NDN_PACKET_SIZE})",
                    MAX_PACKET_SIZE.start(),
                    MAX_PACKET_SIZE.end()
                ),
            ));
        }
        let max = f.max_packet_size;
        if self.faces.queue_capacity_bytes < max {
            return Err(invalid(
                "faces.queue_capacity_bytes",
                format!("must be >= forwarder.max_packet_size ({max}): one packet must fit"),
            ));
        }
        if self.cs.capacity != 0 && self.cs.capacity_bytes < max {
            return Err(invalid(
                "cs.capacity_bytes",
                format!("must be >= forwarder.max_packet_size ({max}) while caching is on"),
            ));
        }
        if self.limits.reassembly_max_bytes < max {
            return Err(invalid(
                "limits.reassembly_max_bytes",
                format!("must be >= forwarder.max_packet_size ({max}): one packet must fit"),
            ));
        }
        Ok(())
    }

    fn check_cs(&self) -> Result<(), ConfigError> {
        if self.cs.capacity as u64 > MAX_CS_CAPACITY {
            return Err(invalid(
                "cs.capacity",
                format!("at most {MAX_CS_CAPACITY} packets (0 = caching off)"),
            ));
        }
        if self.cs.capacity != 0 && self.cs.capacity_bytes < 9000 {
            return Err(invalid(
                "cs.capacity_bytes",
                "must be >= 9000 (one packet of NDN's 8800-byte maximum) while caching is on",
            ));
        }
        if ndnlab_core::CsPolicyKind::parse(&self.cs.policy).is_none() {
            return Err(invalid(
                "cs.policy",
                format!(
                    "unknown policy '{}' (lru, priority-fifo, tinylfu)",
                    self.cs.policy
                ),
            ));
        }
        Ok(())
    }

    fn check_tables(&self) -> Result<(), ConfigError> {
        for (i, r) in self.tables.network_region.iter().enumerate() {
            if let Err(e) = Name::from_uri(r) {
                return Err(invalid(
                    format!("tables.network_region[{i}]"),
                    format!("'{r}': {e}"),
                ));
            }
        }
        Ok(())
    }

    fn check_log(&self) -> Result<(), ConfigError> {
        if tracing_level_ok(&self.log.level).is_err() {
            return Err(invalid(
                "log.level",
                format!("'{}' is not a level or filter", self.log.level),
            ));
        }
        Ok(())
    }

    fn check_management(&self) -> Result<(), ConfigError> {
        if !SEGMENT_SIZE.contains(&self.management.dataset_segment_size) {
            return Err(invalid(
                "management.dataset_segment_size",
                format!(
                    "must be within {}..={} (a segment must fit in an 8800-byte packet)",
                    SEGMENT_SIZE.start(),
                    SEGMENT_SIZE.end()
                ),
            ));
        }
        self.management.check_authorize()
    }

    fn check_faces(&self) -> Result<(), ConfigError> {
        let f = &self.faces;
        if f.unix.enabled {
            let len = f.unix.path.as_os_str().len();
            if len == 0 {
                return Err(invalid("faces.unix.path", "empty path"));
            }
            if len > MAX_UNIX_PATH {
                return Err(invalid(
                    "faces.unix.path",
                    format!("{len} bytes long; a Unix socket path has at most {MAX_UNIX_PATH}"),
                ));
            }
        }
        check_listeners("faces.tcp.listen", &f.tcp.listen)?;
        check_listeners("faces.websocket.listen", &f.websocket.listen)?;
        check_listeners("faces.udp.listen", &f.udp.listen)?;
        // TCP and WebSocket listeners are both TCP sockets: one address cannot take both.
        for (i, a) in f.websocket.listen.iter().enumerate() {
            if a.port() != 0 && f.tcp.listen.contains(a) {
                return Err(invalid(
                    format!("faces.websocket.listen[{i}]"),
                    format!("{a} is also in faces.tcp.listen"),
                ));
            }
        }
        if f.queue_capacity == 0 {
            return Err(invalid("faces.queue_capacity", "must be > 0"));
        }
        if (f.queue_capacity_bytes as u64) < MAX_NDN_PACKET_SIZE {
            return Err(invalid(
                "faces.queue_capacity_bytes",
                format!("must be >= {MAX_NDN_PACKET_SIZE} (one packet of NDN's maximum size)"),
            ));
        }
        if f.congestion_interval_ms == 0 || f.congestion_interval_ms > MAX_CONGESTION_INTERVAL_MS {
            return Err(invalid(
                "faces.congestion_interval_ms",
                format!("must be within 1..={MAX_CONGESTION_INTERVAL_MS}"),
            ));
        }
        if f.congestion_threshold == 0 {
            return Err(invalid("faces.congestion_threshold", "must be > 0"));
        }
        if !MTU_RANGE.contains(&(f.udp.mtu as u64)) {
            return Err(invalid("faces.udp.mtu", "must be within 576..=65000"));
        }
        if f.udp.idle_timeout_s == 0 {
            return Err(invalid("faces.udp.idle_timeout_s", "must be > 0"));
        }
        for (i, m) in f.udp.multicast.iter().enumerate() {
            let key = |k: &str| format!("faces.udp.multicast[{i}].{k}");
            if !m.group.ip().is_multicast() {
                return Err(invalid(
                    key("group"),
                    format!("{} is not a multicast address", m.group.ip()),
                ));
            }
            if m.group.port() == 0 {
                return Err(invalid(key("group"), "needs a port (not 0)"));
            }
            if f.udp.multicast[..i].iter().any(|o| o.group == m.group) {
                return Err(invalid(key("group"), format!("{} listed twice", m.group)));
            }
            if m.interface.is_some() && m.group.is_ipv6() {
                return Err(invalid(
                    key("interface"),
                    "IPv4 groups only; an IPv6 group names its interface by scope id",
                ));
            }
        }
        if let Some(e) = &f.ether {
            match e.mcast_group.parse::<ndnlab_proto::ether::MacAddr>() {
                Err(err) => return Err(invalid("faces.ether.mcast_group", err.to_string())),
                Ok(g) if !g.is_multicast() => {
                    return Err(invalid(
                        "faces.ether.mcast_group",
                        format!("{g} is not a multicast address"),
                    ))
                }
                Ok(_) => {}
            }
            if e.idle_timeout_s == 0 {
                return Err(invalid("faces.ether.idle_timeout_s", "must be > 0"));
            }
            for (key, list) in [("whitelist", &e.whitelist), ("blacklist", &e.blacklist)] {
                for (i, name) in list.iter().enumerate() {
                    if name.is_empty() || name.len() > crate::face::uri::MAX_IFNAME {
                        return Err(invalid(
                            format!("faces.ether.{key}[{i}]"),
                            format!("'{name}' is not an interface name or pattern"),
                        ));
                    }
                }
            }
        }
        let r = &f.lp_reliability;
        if r.max_retx > 100 {
            return Err(invalid("faces.lp_reliability.max_retx", "at most 100"));
        }
        if r.idle_ack_ms == 0 || r.idle_ack_ms > 1000 {
            return Err(invalid(
                "faces.lp_reliability.idle_ack_ms",
                "must be within 1..=1000",
            ));
        }
        if r.loss_threshold == 0 {
            return Err(invalid(
                "faces.lp_reliability.loss_threshold",
                "must be >= 1",
            ));
        }
        if r.min_rto_ms == 0 || r.min_rto_ms > r.max_rto_ms {
            return Err(invalid(
                "faces.lp_reliability.min_rto_ms",
                "must be > 0 and <= max_rto_ms",
            ));
        }
        if r.max_rto_ms > MAX_RTO_MS {
            return Err(invalid(
                "faces.lp_reliability.max_rto_ms",
                format!("at most {MAX_RTO_MS}"),
            ));
        }
        Ok(())
    }

    /// `[[face]]`: what faces/create accepts (TCP or UDP toward a unicast peer,
    /// Ethernet toward a unicast MAC address on a `dev://` interface).
    fn check_static_faces(&self) -> Result<(), ConfigError> {
        let mut seen: Vec<FaceUri> = Vec::new();
        for (i, f) in self.static_faces.iter().enumerate() {
            let key = |k: &str| format!("face[{i}].{k}");
            let uri = FaceUri::parse(&f.uri).map_err(|e| invalid(key("uri"), e))?;
            let local = f
                .local
                .as_deref()
                .map(FaceUri::parse)
                .transpose()
                .map_err(|e| invalid(key("local"), e))?;
            match (&uri, &local) {
                (FaceUri::Tcp(addr) | FaceUri::Udp(addr), _) => {
                    if addr.ip().is_unspecified() || addr.port() == 0 {
                        return Err(invalid(
                            key("uri"),
                            format!("{addr} is not a peer address (any address or port 0)"),
                        ));
                    }
                    if addr.ip().is_multicast() {
                        return Err(invalid(
                            key("uri"),
                            "a multicast group goes in [[faces.udp.multicast]]",
                        ));
                    }
                    if local.is_some() {
                        return Err(invalid(
                            key("local"),
                            "only Ethernet faces take a local URI (a UDP or TCP face uses the channel of its address family)",
                        ));
                    }
                }
                (FaceUri::Ether(mac), _) => {
                    if mac.is_multicast() {
                        return Err(invalid(
                            key("uri"),
                            "a multicast Ethernet face comes from [faces.ether] (mcast)",
                        ));
                    }
                    if !matches!(local, Some(FaceUri::Dev(_))) {
                        return Err(invalid(
                            key("local"),
                            "an Ethernet face needs local = \"dev://<interface>\"",
                        ));
                    }
                }
                _ => {
                    return Err(invalid(
                        key("uri"),
                        format!(
                            "cannot create {} faces (tcp, udp or ether only)",
                            uri.scheme()
                        ),
                    ))
                }
            }
            if let Some(j) = seen.iter().position(|u| *u == uri) {
                return Err(invalid(key("uri"), format!("same face as face[{j}]")));
            }
            let udp = matches!(uri, FaceUri::Udp(_));
            if f.reliability && !udp {
                return Err(invalid(
                    key("reliability"),
                    "LP reliability is supported on UDP faces only",
                ));
            }
            if let Some(mtu) = f.mtu {
                if !udp && !matches!(uri, FaceUri::Ether(_)) {
                    return Err(invalid(
                        key("mtu"),
                        "can be set on UDP and Ethernet faces only",
                    ));
                }
                if !MTU_RANGE.contains(&(mtu as u64)) {
                    return Err(invalid(key("mtu"), "must be within 576..=65000"));
                }
            }
            seen.push(uri);
        }
        Ok(())
    }

    fn check_routes(&self) -> Result<(), ConfigError> {
        for (i, r) in self.routes.iter().enumerate() {
            let prefix = Name::from_uri(&r.prefix)
                .map_err(|e| invalid(format!("route[{i}].prefix"), format!("{e}")))?;
            if prefix.len() > MAX_PREFIX {
                return Err(invalid(
                    format!("route[{i}].prefix"),
                    format!("longer than {MAX_PREFIX} components"),
                ));
            }
            let Ok(uri) = FaceUri::parse(&r.face) else {
                return Err(invalid(format!("route[{i}].face"), "not a face URI"));
            };
            if !self
                .static_faces
                .iter()
                .any(|f| FaceUri::parse(&f.uri).ok() == Some(uri.clone()))
            {
                return Err(invalid(
                    format!("route[{i}].face"),
                    format!("'{}' is not the uri of any [[face]]", r.face),
                ));
            }
        }
        Ok(())
    }
}

/// A list of listening addresses: unicast, each address once (port 0, an ephemeral
/// port, may repeat).
fn check_listeners(key: &str, addrs: &[SocketAddr]) -> Result<(), ConfigError> {
    for (i, a) in addrs.iter().enumerate() {
        if a.ip().is_multicast() {
            return Err(invalid(
                format!("{key}[{i}]"),
                format!("{a} is a multicast address (groups go in [[faces.udp.multicast]])"),
            ));
        }
        if a.port() != 0 && addrs[..i].contains(a) {
            return Err(invalid(format!("{key}[{i}]"), format!("{a} listed twice")));
        }
    }
    Ok(())
}

fn tracing_level_ok(level: &str) -> Result<(), ()> {
    // Accept plain levels and `target=level` directives separated by commas.
    let levels = ["off", "error", "warn", "info", "debug", "trace"];
    for directive in level.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let lvl = directive.rsplit('=').next().unwrap_or(directive);
        if !levels.contains(&lvl.to_ascii_lowercase().as_str()) {
            return Err(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The error for `toml` (parsed, then checked), which must be an
    /// [`ConfigError::Invalid`] naming `key`.
    fn refused(toml: &str, key: &str) -> String {
        let c = FwdConfig::from_toml(toml, Path::new("t.toml")).expect("parses");
        let e = c.validate().expect_err(toml);
        match &e {
            ConfigError::Invalid { key: k, .. } => assert_eq!(k, key, "{toml}: {e}"),
            other => panic!("{toml}: not a semantic error: {other}"),
        }
        e.to_string()
    }

    fn accepted(toml: &str) -> Checked {
        let c = FwdConfig::from_toml(toml, Path::new("t.toml")).expect("parses");
        c.check().unwrap_or_else(|e| panic!("{toml}: {e}"))
    }

    #[test]
    fn forwarder_threads_and_queue() {
        accepted("[forwarder]\nthreads = 0\n"); // chosen from the machine
        refused("[forwarder]\nthreads = 65\n", "forwarder.threads");
        refused(
            "[forwarder]\nqueue_capacity = 0\n",
            "forwarder.queue_capacity",
        );
        refused(
            "[forwarder]\nqueue_capacity = 16777217\n",
            "forwarder.queue_capacity",
        );
        refused(
            "[forwarder]\ndispatch_components = 0\n",
            "forwarder.dispatch_components",
        );
    }

    #[test]
    fn max_packet_size_and_what_must_hold_one() {
        let c = FwdConfig::from_toml("", Path::new("t.toml")).unwrap();
        assert_eq!(c.forwarder.max_packet_size, 8800);
        accepted("[forwarder]\nmax_packet_size = 70000\n");
        refused(
            "[forwarder]\nmax_packet_size = 1000\n",
            "forwarder.max_packet_size",
        );
        refused(
            "[forwarder]\nmax_packet_size = 1048577\n",
            "forwarder.max_packet_size",
        );
        refused(
            "[forwarder]\nmax_packet_size = 70000\n[faces]\nqueue_capacity_bytes = 65536\n",
            "faces.queue_capacity_bytes",
        );
        refused(
            "[forwarder]\nmax_packet_size = 70000\n[cs]\ncapacity_bytes = 65536\n",
            "cs.capacity_bytes",
        );
        refused(
            "[forwarder]\nmax_packet_size = 70000\n[limits]\nreassembly_max_bytes = 65536\n",
            "limits.reassembly_max_bytes",
        );
    }

    #[test]
    fn cs_capacity_and_policy() {
        accepted("[cs]\ncapacity = 0\n"); // caching off
        refused("[cs]\ncapacity = 4294967297\n", "cs.capacity");
        refused("[cs]\ncapacity_bytes = 100\n", "cs.capacity_bytes");
        accepted("[cs]\ncapacity = 0\ncapacity_bytes = 0\n");
        let e = refused("[cs]\npolicy = \"arc\"\n", "cs.policy");
        assert!(e.contains("'arc'"), "{e}");
    }

    #[test]
    fn log_and_management() {
        accepted("[log]\nlevel = \"ndnlab_fwd=debug,info\"\n");
        refused("[log]\nlevel = \"loud\"\n", "log.level");
        refused(
            "[management]\ndataset_segment_size = 100\n",
            "management.dataset_segment_size",
        );
        refused(
            "[management]\ndataset_segment_size = 9000\n",
            "management.dataset_segment_size",
        );
    }

    #[test]
    fn unix_socket_path() {
        refused("[faces.unix]\npath = \"\"\n", "faces.unix.path");
        let long = format!("/{}", "s".repeat(MAX_UNIX_PATH));
        let e = refused(
            &format!("[faces.unix]\npath = \"{long}\"\n"),
            "faces.unix.path",
        );
        assert!(e.contains("108 bytes"), "{e}");
        // Not checked when the Unix channel is off.
        accepted(&format!(
            "[faces.unix]\nenabled = false\npath = \"{long}\"\n"
        ));
    }

    #[test]
    fn listener_addresses() {
        accepted("[faces.tcp]\nlisten = [\"127.0.0.1:0\", \"127.0.0.1:0\"]\n");
        refused(
            "[faces.tcp]\nlisten = [\"127.0.0.1:6363\", \"127.0.0.1:6363\"]\n",
            "faces.tcp.listen[1]",
        );
        refused(
            "[faces.udp]\nlisten = [\"224.0.23.170:6363\"]\n",
            "faces.udp.listen[0]",
        );
        refused(
            "[faces.websocket]\nlisten = [\"[ff02::1]:9696\"]\n",
            "faces.websocket.listen[0]",
        );
        refused(
            "[faces.tcp]\nlisten = [\"127.0.0.1:9696\"]\n\
             [faces.websocket]\nlisten = [\"127.0.0.1:9696\"]\n",
            "faces.websocket.listen[0]",
        );
    }

    #[test]
    fn face_limits() {
        refused("[faces]\nqueue_capacity = 0\n", "faces.queue_capacity");
        let e = refused(
            "[faces]\nqueue_capacity_bytes = 8000\n",
            "faces.queue_capacity_bytes",
        );
        assert!(e.contains("8800"), "{e}");
        accepted("[faces]\nqueue_capacity_bytes = 8800\n");
        // A misspelt key is refused by name, with its line.
        let e = FwdConfig::from_toml("[faces]\n\nqueue_bytes = 1\n", Path::new("t.toml"))
            .expect_err("unknown key")
            .to_string();
        assert!(e.contains("queue_bytes") && e.contains("line 3"), "{e}");
        refused(
            "[faces]\ncongestion_interval_ms = 0\n",
            "faces.congestion_interval_ms",
        );
        refused(
            "[faces]\ncongestion_interval_ms = 60001\n",
            "faces.congestion_interval_ms",
        );
        refused(
            "[faces]\ncongestion_threshold = 0\n",
            "faces.congestion_threshold",
        );
        refused("[faces.udp]\nmtu = 575\n", "faces.udp.mtu");
        refused("[faces.udp]\nmtu = 65001\n", "faces.udp.mtu");
        refused(
            "[faces.udp]\nidle_timeout_s = 0\n",
            "faces.udp.idle_timeout_s",
        );
    }

    #[test]
    fn multicast_groups() {
        let m = |s: &str| format!("[[faces.udp.multicast]]\n{s}\n");
        accepted(&m(
            "group = \"224.0.23.170:56363\"\ninterface = \"0.0.0.0\"",
        ));
        refused(
            &m("group = \"10.0.0.1:56363\""),
            "faces.udp.multicast[0].group",
        );
        refused(
            &m("group = \"224.0.23.170:0\""),
            "faces.udp.multicast[0].group",
        );
        refused(
            &format!(
                "{}{}",
                m("group = \"224.0.23.170:56363\""),
                m("group = \"224.0.23.170:56363\"")
            ),
            "faces.udp.multicast[1].group",
        );
        refused(
            &m("group = \"[ff02::1234%2]:56363\"\ninterface = \"0.0.0.0\""),
            "faces.udp.multicast[0].interface",
        );
    }

    #[test]
    fn lp_reliability_bounds() {
        let r = |s: &str| format!("[faces.lp_reliability]\n{s}\n");
        refused(&r("max_retx = 101"), "faces.lp_reliability.max_retx");
        refused(&r("idle_ack_ms = 1001"), "faces.lp_reliability.idle_ack_ms");
        refused(
            &r("loss_threshold = 0"),
            "faces.lp_reliability.loss_threshold",
        );
        refused(&r("min_rto_ms = 0"), "faces.lp_reliability.min_rto_ms");
        refused(
            &r("min_rto_ms = 500\nmax_rto_ms = 400"),
            "faces.lp_reliability.min_rto_ms",
        );
        refused(&r("max_rto_ms = 600001"), "faces.lp_reliability.max_rto_ms");
    }

    #[test]
    fn static_faces() {
        let f = |s: &str| format!("[[face]]\n{s}\n");
        accepted(&f("uri = \"tcp4://127.0.0.1:6363\""));
        refused(&f("uri = \"udp4://127.0.0.1\""), "face[0].uri");
        let e = refused(&f("uri = \"unix:///run/nfd.sock\""), "face[0].uri");
        assert!(e.contains("cannot create unix faces"), "{e}");
        refused(&f("uri = \"udp4://0.0.0.0:6363\""), "face[0].uri");
        refused(&f("uri = \"tcp4://127.0.0.1:0\""), "face[0].uri");
        refused(&f("uri = \"udp4://224.0.23.170:56363\""), "face[0].uri");
        refused(
            &format!(
                "{}{}",
                f("uri = \"udp4://127.0.0.1:6363\""),
                f("uri = \"udp://127.0.0.1:6363\"")
            ),
            "face[1].uri",
        );
        refused(
            &f("uri = \"tcp4://127.0.0.1:6363\"\nreliability = true"),
            "face[0].reliability",
        );
        refused(
            &f("uri = \"tcp4://127.0.0.1:6363\"\nmtu = 1400"),
            "face[0].mtu",
        );
        refused(
            &f("uri = \"udp4://127.0.0.1:6363\"\nmtu = 100"),
            "face[0].mtu",
        );
    }

    #[test]
    fn emulated_links() {
        // The schema as the laboratory's processes runner writes it.
        let c = accepted(
            "[[face]]\nuri = \"udp4://127.0.0.1:6364\"\n\
             emulate = { delay_ms = 10.0, jitter_ms = 1.0, loss_pct = 1.0, bandwidth_mbps = 100.0, queue = 100, mtu = 1500, seed = 7 }\n\
             [[face]]\nuri = \"tcp4://127.0.0.1:6365\"\nemulate = { delay_ms = 5 }\n\
             [[faces.emulation]]\nremote = \"udp4://127.0.0.1:6401\"\ndelay_ms = 10.0\n\
             [[faces.emulation]]\nremote_ip = \"127.0.1.3\"\nloss_pct = 100\nmtu = 1400\n",
        );
        let t = &c.emulation;
        assert_eq!(t.len(), 4);
        let at = |u: &str| {
            t.lookup(&FaceUri::parse(u).unwrap())
                .map(|s| s.params.clone())
        };
        let p = at("udp4://127.0.0.1:6364").unwrap();
        assert_eq!(
            (p.delay_ns, p.rate_bps, p.queue_frames, p.mtu),
            (10_000_000, Some(100_000_000), Some(100), Some(1500))
        );
        assert_eq!(at("tcp4://127.0.0.1:6365").unwrap().delay_ns, 5_000_000);
        assert_eq!(at("udp://127.0.0.1:6401").unwrap().delay_ns, 10_000_000);
        assert_eq!(at("tcp4://127.0.1.3:9").unwrap().loss, 1.0);
        assert!(at("udp4://127.0.0.1:6402").is_none());
        assert!(accepted("").emulation.is_empty());

        let f =
            |e: &str| format!("[[face]]\nuri = \"udp4://127.0.0.1:6363\"\nemulate = {{ {e} }}\n");
        refused(&f("loss_pct = 101"), "face[0].emulate.loss_pct");
        refused(&f("delay_ms = -5"), "face[0].emulate.delay_ms");
        refused(&f("jitter_ms = nan"), "face[0].emulate.jitter_ms");
        refused(&f("bandwidth_mbps = 0"), "face[0].emulate.bandwidth_mbps");
        refused(&f("bandwidth_mbps = 1, queue = 0"), "face[0].emulate.queue");
        let e = refused(&f("queue = 5"), "face[0].emulate.queue");
        assert!(e.contains("bandwidth_mbps"), "{e}");
        let e = refused(&f("mtu = 10"), "face[0].emulate.mtu");
        assert!(e.contains("64"), "{e}");
        accepted(&f("mtu = 0"));
        let e = refused(
            "[[face]]\nuri = \"tcp4://127.0.0.1:6363\"\nemulate = { mtu = 1500 }\n",
            "face[0].emulate.mtu",
        );
        assert!(e.contains("stream"), "{e}");
        refused(
            "[[face]]\nuri = \"tcp4://127.0.0.1:6363\"\nemulate = { reorder = true }\n",
            "face[0].emulate.reorder",
        );

        let r = |s: &str| format!("[[faces.emulation]]\n{s}\n");
        refused(&r("delay_ms = 1"), "faces.emulation[0].remote");
        refused(
            &r("remote = \"udp4://127.0.0.1:1\"\nremote_ip = \"127.0.0.1\""),
            "faces.emulation[0].remote_ip",
        );
        refused(
            &r("remote_ip = \"localhost\""),
            "faces.emulation[0].remote_ip",
        );
        refused(&r("remote = \"nonsense\""), "faces.emulation[0].remote");
        refused(
            &r("remote = \"udp4://0.0.0.0:6363\""),
            "faces.emulation[0].remote",
        );
        let e = refused(
            &r("remote = \"unix:///run/nfd.sock\""),
            "faces.emulation[0].remote",
        );
        assert!(e.contains("cannot be emulated"), "{e}");
        refused(
            &r("remote = \"tcp4://127.0.0.1:6363\"\nmtu = 1500"),
            "faces.emulation[0].mtu",
        );
        refused(
            &r("remote_ip = \"127.0.0.1\"\nloss_pct = 200"),
            "faces.emulation[0].loss_pct",
        );
        // mtu with remote_ip: for the UDP faces it matches
        accepted(&r("remote_ip = \"::1\"\nmtu = 1400"));
    }

    #[test]
    fn routes() {
        let face = "[[face]]\nuri = \"udp4://127.0.0.1:6363\"\n";
        let route = |prefix: &str| {
            format!("{face}[[route]]\nprefix = \"{prefix}\"\nface = \"udp4://127.0.0.1:6363\"\n")
        };
        accepted(&route("/a"));
        refused(&route("a"), "route[0].prefix");
        refused(&route(&"/c".repeat(MAX_PREFIX + 1)), "route[0].prefix");
        refused(
            &format!("{face}[[route]]\nprefix = \"/a\"\nface = \"nonsense\"\n"),
            "route[0].face",
        );
    }

    #[test]
    fn strategies_are_parsed_once_into_instances() {
        let s = |prefix: &str, strategy: &str| {
            format!("[[strategy]]\nprefix = \"{prefix}\"\nstrategy = \"{strategy}\"\n")
        };
        let c = accepted(&format!(
            "{}{}",
            s("/a", "/localhost/nfd/strategy/multicast"),
            s("/b", "/localhost/nfd/strategy/asf/v=5/max-timeouts~2")
        ));
        let kinds: Vec<_> = c
            .strategies
            .iter()
            .map(|(p, i)| (p.to_string(), i.kind.short(), i.max_timeouts))
            .collect();
        assert_eq!(
            kinds,
            [
                ("/a".to_string(), "multicast", None),
                ("/b".to_string(), "asf", Some(2))
            ]
        );
        refused(
            &s("a", "/localhost/nfd/strategy/multicast"),
            "strategy[0].prefix",
        );
        refused(
            &s(&"/c".repeat(65), "/localhost/nfd/strategy/multicast"),
            "strategy[0].prefix",
        );
        let e = refused(&s("/a", "multicast"), "strategy[0].strategy");
        assert!(e.contains("malformed strategy name"), "{e}");
        let e = refused(
            &s("/a", "/localhost/nfd/strategy/ncc"),
            "strategy[0].strategy",
        );
        assert!(e.contains("is not registered"), "{e}");
        let e = refused(
            &s("/a", "/localhost/nfd/strategy/multicast/v=1"),
            "strategy[0].strategy",
        );
        assert!(e.contains("version 1"), "{e}");
        let e = refused(
            &s("/a", "/localhost/nfd/strategy/asf/v=5/probing-interval~1"),
            "strategy[0].strategy",
        );
        assert!(e.contains("probing-interval"), "{e}");
        refused(
            &format!(
                "{}{}",
                s("/a", "/localhost/nfd/strategy/multicast"),
                s("/a", "/localhost/nfd/strategy/asf")
            ),
            "strategy[1].prefix",
        );
    }
}
