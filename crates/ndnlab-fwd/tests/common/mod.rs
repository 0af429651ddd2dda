//! Test harness: an in-process forwarder on a temp Unix socket, python-ndn apps as
//! real processes, and a management client.
#![allow(dead_code)]

mod raw_face;
pub use raw_face::RawFace;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_proto::mgmt::params::ControlParameters as P;
#[allow(unused_imports)]
pub use ndnlab_testkit::{python, python_home, temp_dir, workspace, Py};
use ndnlab_wire::{Data, Interest, Name, Packet};

/// A daemon running on its own thread and runtime.
pub struct TestFwd {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub listening: Vec<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestFwd {
    /// Starts a forwarder with `edit` applied to a config listening on a temp socket.
    pub fn start(tag: &str, edit: impl FnOnce(&mut FwdConfig)) -> TestFwd {
        let dir = temp_dir(tag);
        let socket = dir.join("nfd.sock");
        let mut cfg = FwdConfig::default();
        cfg.faces.unix.path = socket.clone();
        cfg.forwarder.threads = 1;
        edit(&mut cfg);
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                match Daemon::start(cfg).await {
                    Ok(d) => {
                        ready_tx.send(Ok(d.listening.clone())).unwrap();
                        let _ = stop_rx.await;
                        d.shutdown().await;
                    }
                    Err(e) => ready_tx.send(Err(format!("{e:#}"))).unwrap(),
                }
            });
        });
        let listening = ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("daemon start")
            .expect("daemon started");
        TestFwd {
            dir,
            socket,
            listening,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    pub fn transport(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    /// A raw face on the forwarder's Unix socket.
    pub fn client(&self) -> RawFace {
        RawFace::connect(&self.transport())
    }

    /// The first listener URI starting with `scheme` (e.g. "udp4").
    pub fn listener(&self, scheme: &str) -> String {
        ndnlab_testkit::listener(&self.listening, scheme)
    }
}

impl Drop for TestFwd {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A producer on `fwd` answering Interests under `prefix` with `size` bytes; stops
/// (closing its face) after `limit` Data.
pub fn producer(
    fwd: &TestFwd,
    prefix: &str,
    size: usize,
    limit: usize,
) -> std::thread::JoinHandle<usize> {
    let mut c = fwd.client();
    let r = c
        .command(
            "rib",
            "register",
            &P {
                name: Some(Name::from_uri(prefix).expect("valid prefix")),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.code, 200);
    let content = Bytes::from((0..size).map(|i| (i % 251) as u8).collect::<Vec<_>>());
    std::thread::spawn(move || {
        let mut served = 0;
        while served < limit {
            match c.recv_packet(Duration::from_secs(10)) {
                Ok(Some(Packet::Interest(i))) => {
                    let d = Data::builder(i.name().clone())
                        .content(content.clone())
                        .freshness_ms(0)
                        .sign_digest();
                    c.send_raw(&d).unwrap();
                    served += 1;
                }
                // An Interest with a PIT token: answer with the token echoed.
                Ok(Some(Packet::Lp(lp))) => {
                    let Some(i) = lp.fragment().and_then(|f| Interest::decode(f).ok()) else {
                        continue;
                    };
                    let d = Data::builder(i.name().clone())
                        .content(content.clone())
                        .freshness_ms(0)
                        .sign_digest();
                    let mut b = ndnlab_wire::LpPacket::builder().fragment(d);
                    if let Some(t) = lp.pit_token_bytes() {
                        b = b.pit_token(t);
                    }
                    c.send_raw(&b.build()).unwrap();
                    served += 1;
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        served
    })
}

/// A producer on an in-process app face: answers every Interest with a DigestSha256
/// Data carrying `content`, echoing the forwarder's PIT token when the Interest came
/// in an LpPacket. The task ends when the face closes and returns how many it served.
pub fn spawn_echo_producer(
    mut producer: ndnlab_fwd::face::app::AppFace,
    content: Bytes,
) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let mut served = 0;
        while let Some(burst) = producer.recv_burst().await {
            for p in burst {
                let (i, token) = match Packet::decode(p) {
                    Ok(Packet::Interest(i)) => (i, None),
                    Ok(Packet::Lp(lp)) => match lp.fragment().map(Interest::decode) {
                        Some(Ok(i)) => (i, lp.pit_token_bytes()),
                        _ => continue,
                    },
                    _ => continue,
                };
                let d = Data::builder(i.name().clone())
                    .content(content.clone())
                    .sign_digest();
                let mut lp = ndnlab_wire::LpPacket::builder().fragment(d);
                if let Some(t) = token {
                    lp = lp.pit_token(t);
                }
                producer.send(lp.build());
                served += 1;
            }
        }
        served
    })
}

/// The address of a daemon's first UDP4 listener.
pub fn udp_listener(d: &Daemon) -> std::net::SocketAddr {
    let l = d
        .listening
        .iter()
        .find(|l| l.starts_with("udp4://"))
        .expect("a UDP4 listener");
    l.trim_start_matches("udp4://")
        .parse()
        .expect("listener address")
}
