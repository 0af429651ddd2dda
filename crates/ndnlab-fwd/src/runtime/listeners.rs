//! Channels that accept faces (Unix and TCP listeners, Ethernet interfaces) and
//! face creation by URI.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::{TcpListener, TcpStream, UnixListener};

use super::Shared;
use crate::face::ether::{EtherChannel, Netif};
use crate::face::stream::spawn_stream_face;
use crate::face::uri::FaceUri;
use crate::face::{FaceEntry, Persistency};

/// Binds the Unix socket (refusing if another process serves it; removing a stale
/// file) and accepts app faces on it.
pub fn listen_unix(
    shared: &Arc<Shared>,
    path: &Path,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            anyhow::bail!(
                "Unix socket {} is in use by another forwarder (stop it or choose another path with --socket)",
                path.display()
            );
        }
        std::fs::remove_file(path)
            .with_context(|| format!("cannot remove stale socket {}", path.display()))?;
    }
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() && !dir.exists() {
            std::fs::create_dir_all(dir).with_context(|| {
                format!("cannot create directory {} for the socket", dir.display())
            })?;
        }
    }
    let listener = UnixListener::bind(path)
        .with_context(|| format!("cannot bind Unix socket {}", path.display()))?;
    // Any local user may connect, as with NFD.
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666));
    }
    let local = format!("unix://{}", path.display());
    shared
        .channels
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(local.clone());
    let sh = shared.clone();
    Ok(tokio::spawn(async move {
        let local = FaceUri::Unix(path_of(&local));
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "Unix accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            use std::os::fd::AsRawFd;
            let fd = stream.as_raw_fd() as u64;
            let ingress = sh.ingress();
            let (face, queue) = FaceEntry::new(
                ingress.alloc_face_id(),
                FaceUri::Fd(fd),
                local.clone(),
                true,
                Persistency::OnDemand,
                false,
                None,
                ingress.limits(),
            );
            ingress.register_face(&face);
            let (r, w) = stream.into_split();
            spawn_stream_face(face, queue, r, w, Some(fd as i32), ingress);
        }
    }))
}

fn path_of(uri: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(uri.trim_start_matches("unix://"))
}

/// Binds a TCP listener; connections from loopback are local faces.
pub async fn listen_tcp(
    shared: &Arc<Shared>,
    addr: SocketAddr,
) -> anyhow::Result<(tokio::task::JoinHandle<()>, SocketAddr)> {
    let listener = crate::face::bind::tcp_listener(addr)
        .and_then(TcpListener::from_std)
        .with_context(|| format!("cannot listen on TCP {addr} (is the port taken?)"))?;
    let local = listener.local_addr()?;
    shared
        .channels
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(FaceUri::Tcp(local).to_string());
    let sh = shared.clone();
    let task = tokio::spawn(async move {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "TCP accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            add_tcp_face(&sh, stream, peer, Persistency::OnDemand);
        }
    });
    Ok((task, local))
}

fn add_tcp_face(
    shared: &Arc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    persistency: Persistency,
) -> Arc<FaceEntry> {
    let _ = stream.set_nodelay(true);
    let local_addr = stream.local_addr().unwrap_or(peer);
    let ingress = shared.ingress();
    let (face, queue) = FaceEntry::new(
        ingress.alloc_face_id(),
        FaceUri::Tcp(peer),
        FaceUri::Tcp(local_addr),
        peer.ip().is_loopback(),
        persistency,
        false,
        None,
        ingress.limits(),
    );
    ingress.register_face(&face);
    let fd = std::os::fd::AsRawFd::as_raw_fd(&stream);
    let (r, w) = stream.into_split();
    spawn_stream_face(face.clone(), queue, r, w, Some(fd), ingress);
    face
}

/// Opens `[faces.ether]`: a channel on every usable Ethernet interface the
/// whitelist and blacklist let through, with a multicast face on each when `mcast`
/// is on. An interface that cannot be used is skipped with a warning (as NFD
/// does). Returns the lines for "listening on".
pub fn start_ether(shared: &Arc<Shared>, cfg: &crate::config::EtherSection) -> Vec<String> {
    let mut lines = Vec::new();
    let ingress = shared.ingress();
    for netif in crate::face::ether::Netif::list_ethernet() {
        if !cfg.allows(&netif.name) {
            tracing::debug!(dev = %netif.name, "Ethernet interface not in the whitelist, or in the blacklist");
            continue;
        }
        let name = netif.name.clone();
        let can_multicast = netif.can_multicast;
        let ch = match EtherChannel::open(netif, cfg.listen, cfg.idle_timeout_s) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(dev = %name, error = %e, "cannot open an Ethernet channel");
                continue;
            }
        };
        ch.spawn_reader(ingress.clone());
        let local = ch.local_uri().to_string();
        if cfg.listen {
            shared
                .channels
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(local.clone());
            lines.push(local.clone());
        }
        if cfg.mcast && can_multicast {
            match ch.join_multicast(cfg.group(), &ingress) {
                Ok(f) => lines.push(format!("{} on {local} (multicast)", f.remote)),
                Err(e) => {
                    tracing::warn!(dev = %name, error = %e, "cannot create the Ethernet multicast face")
                }
            }
        }
        shared
            .ether
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(ch);
    }
    lines
}

/// The Ethernet channel on interface `dev`: the configured one, or one opened now
/// (not listening: only frames from faces created explicitly are accepted).
fn ether_channel(shared: &Arc<Shared>, dev: &str) -> io::Result<Arc<EtherChannel>> {
    let mut chans = shared.ether.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = chans.iter().find(|c| c.netif().name == dev) {
        return Ok(c.clone());
    }
    let netif = Netif::lookup(dev)?;
    if !netif.is_ethernet || netif.is_loopback {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{dev} is not an Ethernet interface"),
        ));
    }
    let idle = shared
        .cfg
        .faces
        .ether
        .as_ref()
        .map_or(600, |e| e.idle_timeout_s);
    let ch = EtherChannel::open(netif, false, idle)?;
    ch.spawn_reader(shared.ingress());
    chans.push(ch.clone());
    Ok(ch)
}

/// Creates (or finds) the face toward `uri`: TCP connects; UDP uses a channel of
/// the same address family, or a new ephemeral channel if none is configured;
/// Ethernet (`ether://[MAC]`) uses the channel of the `dev://` interface `local`.
pub async fn create_face(
    shared: &Arc<Shared>,
    uri: &FaceUri,
    local: Option<&FaceUri>,
    persistency: Persistency,
    mtu: Option<usize>,
) -> io::Result<Arc<FaceEntry>> {
    match uri {
        FaceUri::Ether(mac) => {
            let Some(FaceUri::Dev(dev)) = local else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "an Ethernet face needs a dev:// local URI",
                ));
            };
            if mac.is_multicast() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "cannot create multicast Ethernet faces",
                ));
            }
            let ch = ether_channel(shared, dev)?;
            Ok(ch.connect(*mac, persistency, mtu, &shared.ingress()))
        }
        FaceUri::Tcp(addr) => {
            if let Some(f) = shared.faces.find_remote(uri) {
                return Ok(f);
            }
            let stream = tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr))
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "TCP connect timed out"))??;
            Ok(add_tcp_face(shared, stream, *addr, persistency))
        }
        FaceUri::Udp(addr) => {
            let existing = {
                let chans = shared.udp.lock().unwrap_or_else(|e| e.into_inner());
                chans
                    .iter()
                    .find(|c| !c.is_multicast() && c.local_addr().is_ipv4() == addr.is_ipv4())
                    .cloned()
            };
            let ch = match existing {
                Some(c) => c,
                None => {
                    let any: SocketAddr = if addr.is_ipv4() {
                        "0.0.0.0:0".parse().expect("literal")
                    } else {
                        "[::]:0".parse().expect("literal")
                    };
                    let c = crate::face::udp::UdpChannel::bind(
                        any,
                        shared.cfg.faces.udp.mtu,
                        shared.cfg.faces.udp.idle_timeout_s,
                    )?;
                    c.spawn_reader(shared.ingress());
                    shared
                        .udp
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(c.clone());
                    c
                }
            };
            Ok(ch.connect(*addr, persistency, mtu, &shared.ingress()))
        }
        other => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("cannot create a face with scheme {}", other.scheme()),
        )),
    }
}
