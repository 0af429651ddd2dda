//! Where the forwarder is: `unix:///run/nfd/nfd.sock`, `tcp://127.0.0.1:6363`,
//! `udp://127.0.0.1:6363` (also `tcp4`/`tcp6`/`udp4`/`udp6`), and how the
//! default is found, like python-ndn: env `NDN_CLIENT_TRANSPORT`, then
//! `transport=` in `client.conf` (`~/.ndn/client.conf`,
//! `/usr/local/etc/ndn/client.conf`, `/etc/ndn/client.conf`), then the NFD socket.

use std::fmt;
use std::path::{Path, PathBuf};

/// NFD's default Unix socket.
pub const DEFAULT_SOCKET: &str = "/run/nfd/nfd.sock";

/// A forwarder address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaceUri {
    /// A Unix stream socket path.
    Unix(PathBuf),
    /// `host:port` of a TCP forwarder.
    Tcp(String),
    /// `host:port` of a UDP forwarder.
    Udp(String),
}

/// A URI we cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad forwarder URI `{uri}`: {why}")]
pub struct BadUri {
    pub uri: String,
    pub why: &'static str,
}

impl std::str::FromStr for FaceUri {
    type Err = BadUri;
    fn from_str(s: &str) -> Result<Self, BadUri> {
        let bad = |why| BadUri {
            uri: s.to_string(),
            why,
        };
        let (scheme, rest) = s
            .split_once("://")
            .ok_or_else(|| bad("expected scheme://..."))?;
        match scheme {
            "unix" => {
                if rest.is_empty() {
                    return Err(bad("empty socket path"));
                }
                Ok(FaceUri::Unix(PathBuf::from(rest)))
            }
            "tcp" | "tcp4" | "tcp6" | "udp" | "udp4" | "udp6" => {
                let hostport = rest.trim_end_matches('/');
                let hostport = if hostport
                    .rsplit_once(':')
                    .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
                    && !hostport.ends_with(']')
                {
                    hostport.to_string()
                } else {
                    format!("{hostport}:6363")
                };
                if hostport.starts_with(':') {
                    return Err(bad("missing host"));
                }
                if scheme.starts_with("tcp") {
                    Ok(FaceUri::Tcp(hostport))
                } else {
                    Ok(FaceUri::Udp(hostport))
                }
            }
            _ => Err(bad("scheme must be unix, tcp or udp")),
        }
    }
}

impl fmt::Display for FaceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaceUri::Unix(p) => write!(f, "unix://{}", p.display()),
            FaceUri::Tcp(h) => write!(f, "tcp://{h}"),
            FaceUri::Udp(h) => write!(f, "udp://{h}"),
        }
    }
}

impl FaceUri {
    /// The default forwarder, as python-ndn finds it.
    pub fn default_transport() -> Result<FaceUri, BadUri> {
        if let Ok(v) = std::env::var("NDN_CLIENT_TRANSPORT") {
            if !v.is_empty() {
                return v.parse();
            }
        }
        let mut files = Vec::new();
        if let Some(home) = std::env::var_os("HOME") {
            files.push(Path::new(&home).join(".ndn/client.conf"));
        }
        files.push(PathBuf::from("/usr/local/etc/ndn/client.conf"));
        files.push(PathBuf::from("/etc/ndn/client.conf"));
        for f in files {
            if let Ok(text) = std::fs::read_to_string(&f) {
                if let Some(t) = transport_from_conf(&text) {
                    return t.parse();
                }
            }
        }
        Ok(FaceUri::Unix(PathBuf::from(DEFAULT_SOCKET)))
    }

    /// `--socket PATH` if given, else the default.
    pub fn resolve(socket: Option<&Path>) -> Result<FaceUri, BadUri> {
        match socket {
            Some(p) => {
                let s = p.to_string_lossy();
                if s.contains("://") {
                    s.parse()
                } else {
                    Ok(FaceUri::Unix(p.to_path_buf()))
                }
            }
            None => FaceUri::default_transport(),
        }
    }
}

/// The `transport=` value of a client.conf (INI-like, `;`/`#` comments).
pub fn transport_from_conf(text: &str) -> Option<String> {
    text.lines()
        .map(|l| l.split([';', '#']).next().unwrap_or("").trim())
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "transport")
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_schemes() {
        assert_eq!(
            "unix:///run/nfd/nfd.sock".parse(),
            Ok(FaceUri::Unix(PathBuf::from("/run/nfd/nfd.sock")))
        );
        assert_eq!(
            "tcp://127.0.0.1:6363".parse(),
            Ok(FaceUri::Tcp("127.0.0.1:6363".into()))
        );
        assert_eq!(
            "tcp4://localhost".parse(),
            Ok(FaceUri::Tcp("localhost:6363".into()))
        );
        assert_eq!(
            "udp://[::1]:7000".parse(),
            Ok(FaceUri::Udp("[::1]:7000".into()))
        );
        assert_eq!(
            "udp6://[::1]".parse(),
            Ok(FaceUri::Udp("[::1]:6363".into()))
        );
        assert!("ether://x".parse::<FaceUri>().is_err());
        assert!("/tmp/x".parse::<FaceUri>().is_err());
        assert!("unix://".parse::<FaceUri>().is_err());
    }

    #[test]
    fn conf_transport() {
        let conf = "; comment\nprotocol = nfd-0.3\ntransport = unix:///tmp/nfd.sock ; trailing\n";
        assert_eq!(
            transport_from_conf(conf).as_deref(),
            Some("unix:///tmp/nfd.sock")
        );
        assert_eq!(transport_from_conf("x=1\n"), None);
    }

    #[test]
    fn display_roundtrip() {
        for s in [
            "unix:///a/b.sock",
            "tcp://127.0.0.1:6363",
            "udp://[::1]:6363",
        ] {
            assert_eq!(s.parse::<FaceUri>().unwrap().to_string(), s);
        }
    }
}
