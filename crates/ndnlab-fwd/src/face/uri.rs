//! Face URIs in NFD's syntax: `unix:///run/nfd/nfd.sock`, `tcp4://127.0.0.1:6363`,
//! `udp6://[::1]:6363`, `fd://12`, `internal://`, `app://name`,
//! `ether://[08:00:27:01:01:01]` (an Ethernet peer or group) and `dev://eth0` (a
//! network interface, the local URI of Ethernet faces).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use ndnlab_proto::ether::MacAddr;

/// Longest interface name (Linux's IFNAMSIZ less the terminating NUL).
pub const MAX_IFNAME: usize = 15;

/// A parsed face URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FaceUri {
    Unix(PathBuf),
    Tcp(SocketAddr),
    Udp(SocketAddr),
    /// A socket file descriptor of an accepted Unix connection (NFD's remote URI of app faces).
    Fd(u64),
    /// The management face.
    Internal,
    /// The content store pseudo-face.
    ContentStore,
    /// An in-process channel face.
    App(String),
    /// A WebSocket channel (`ws://127.0.0.1:9696`, a face's local URI).
    Ws(SocketAddr),
    /// A WebSocket client (`wsclient://127.0.0.1:51234`, a face's remote URI; NFD's names).
    WsClient(SocketAddr),
    /// An Ethernet peer or multicast group (`ether://[08:00:27:01:01:01]`).
    Ether(MacAddr),
    /// A network interface (`dev://eth0`).
    Dev(String),
}

impl FaceUri {
    /// Parses `scheme://rest`; `tcp`/`udp` without 4/6 are accepted too.
    pub fn parse(s: &str) -> Result<FaceUri, String> {
        let (scheme, rest) = s
            .split_once("://")
            .ok_or_else(|| format!("'{s}' has no scheme:// part"))?;
        let sock = |rest: &str| -> Result<SocketAddr, String> {
            rest.trim_end_matches('/')
                .parse::<SocketAddr>()
                .map_err(|_| format!("'{rest}' is not an IP address with a port"))
        };
        match scheme {
            "unix" => {
                if rest.is_empty() {
                    return Err("unix:// needs a path".into());
                }
                Ok(FaceUri::Unix(PathBuf::from(rest)))
            }
            "tcp" | "tcp4" | "tcp6" => {
                let a = sock(rest)?;
                check_family(scheme, &a)?;
                Ok(FaceUri::Tcp(a))
            }
            "udp" | "udp4" | "udp6" => {
                let a = sock(rest)?;
                check_family(scheme, &a)?;
                Ok(FaceUri::Udp(a))
            }
            "fd" => rest
                .parse()
                .map(FaceUri::Fd)
                .map_err(|_| format!("'{rest}' is not a file descriptor")),
            "internal" => Ok(FaceUri::Internal),
            "contentstore" => Ok(FaceUri::ContentStore),
            "app" => Ok(FaceUri::App(rest.to_string())),
            "ws" => Ok(FaceUri::Ws(sock(rest)?)),
            "wsclient" => Ok(FaceUri::WsClient(sock(rest)?)),
            "ether" => {
                let mac = rest
                    .trim_end_matches('/')
                    .strip_prefix('[')
                    .and_then(|r| r.strip_suffix(']'))
                    .ok_or_else(|| {
                        format!("'{s}': an Ethernet address goes in brackets: ether://[08:00:27:01:01:01]")
                    })?;
                mac.parse().map(FaceUri::Ether).map_err(|e| e.to_string())
            }
            "dev" => {
                let name = rest.trim_end_matches('/');
                if name.is_empty() {
                    return Err("dev:// needs an interface name".into());
                }
                if name.len() > MAX_IFNAME || name.contains(['/', ' ', ':']) {
                    return Err(format!("'{name}' is not an interface name"));
                }
                Ok(FaceUri::Dev(name.to_string()))
            }
            other => Err(format!("unsupported scheme '{other}'")),
        }
    }

    /// The scheme as shown in datasets (`udp4`, `tcp6`, `unix`, ...).
    pub fn scheme(&self) -> &'static str {
        match self {
            FaceUri::Unix(_) => "unix",
            FaceUri::Tcp(a) if a.is_ipv4() => "tcp4",
            FaceUri::Tcp(_) => "tcp6",
            FaceUri::Udp(a) if a.is_ipv4() => "udp4",
            FaceUri::Udp(_) => "udp6",
            FaceUri::Fd(_) => "fd",
            FaceUri::Internal => "internal",
            FaceUri::ContentStore => "contentstore",
            FaceUri::App(_) => "app",
            FaceUri::Ws(_) => "ws",
            FaceUri::WsClient(_) => "wsclient",
            FaceUri::Ether(_) => "ether",
            FaceUri::Dev(_) => "dev",
        }
    }
}

fn check_family(scheme: &str, a: &SocketAddr) -> Result<(), String> {
    match (scheme.as_bytes().last(), a) {
        (Some(b'4'), SocketAddr::V6(_)) => Err(format!("{scheme} with an IPv6 address")),
        (Some(b'6'), SocketAddr::V4(_)) => Err(format!("{scheme} with an IPv4 address")),
        _ => Ok(()),
    }
}

impl fmt::Display for FaceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaceUri::Unix(p) => write!(f, "unix://{}", p.display()),
            FaceUri::Tcp(a) | FaceUri::Udp(a) => write!(f, "{}://{}", self.scheme(), a),
            FaceUri::Fd(n) => write!(f, "fd://{n}"),
            FaceUri::Internal => f.write_str("internal://"),
            FaceUri::ContentStore => f.write_str("contentstore://"),
            FaceUri::App(n) => write!(f, "app://{n}"),
            FaceUri::Ws(a) => write!(f, "ws://{a}"),
            FaceUri::WsClient(a) => write!(f, "wsclient://{a}"),
            FaceUri::Ether(m) => write!(f, "ether://[{m}]"),
            FaceUri::Dev(n) => write!(f, "dev://{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            "unix:///run/nfd/nfd.sock",
            "tcp4://127.0.0.1:6363",
            "udp6://[::1]:6363",
            "fd://12",
            "internal://",
            "app://bench",
            "ether://[08:00:27:01:01:01]",
            "ether://[01:00:5e:00:17:aa]",
            "dev://eth0",
        ] {
            assert_eq!(FaceUri::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            FaceUri::parse("udp://127.0.0.1:1").unwrap().to_string(),
            "udp4://127.0.0.1:1"
        );
    }

    #[test]
    fn rejects_bad() {
        assert!(FaceUri::parse("udp4://[::1]:1").is_err());
        assert!(FaceUri::parse("ether://x").is_err());
        assert_eq!(
            FaceUri::parse("ether://[08:00:27:AB:CD:EF]")
                .unwrap()
                .to_string(),
            "ether://[08:00:27:ab:cd:ef]"
        );
        for bad in [
            "ether://08:00:27:01:01:01",
            "ether://[08:00:27:01:01]",
            "ether://[]",
            "dev://",
            "dev://a/b",
            "dev://much-too-long-name",
        ] {
            let e = FaceUri::parse(bad).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        assert!(FaceUri::parse("tcp4://1.2.3.4").is_err());
        assert!(FaceUri::parse("nothing").is_err());
    }
}
