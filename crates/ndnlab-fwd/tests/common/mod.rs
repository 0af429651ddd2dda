//! Test harness: an in-process forwarder on a temp Unix socket, python-ndn apps as
//! real processes, and a management client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_fwd::mgmt::params::ControlParameters as P;
use ndnlab_fwd::{Daemon, FwdConfig};
use ndnlab_wire::{Data, Interest, Name, Packet};

/// A daemon running on its own thread and runtime.
pub struct TestFwd {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub listening: Vec<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

pub fn temp_dir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "ndnlab-fwd-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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

    pub fn client(&self) -> ndnlab_fwd::mgmt::client::MgmtClient {
        ndnlab_fwd::mgmt::client::MgmtClient::connect(&self.transport()).unwrap()
    }

    /// The first listener URI starting with `scheme` (e.g. "udp4").
    pub fn listener(&self, scheme: &str) -> String {
        self.listening
            .iter()
            .find(|l| l.starts_with(scheme))
            .cloned()
            .unwrap_or_else(|| panic!("no {scheme} listener in {:?}", self.listening))
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

/// The python interpreter with python-ndn (NDNLAB_PYTHON or the workspace venv).
pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("NDNLAB_PYTHON") {
        return PathBuf::from(p);
    }
    let p = workspace().join(".venv/bin/python");
    assert!(
        p.exists(),
        "python-ndn venv not found at {}: run scripts/python-venv.sh (or set NDNLAB_PYTHON)",
        p.display()
    );
    p
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A HOME with an initialised python-ndn keychain (shared by the tests of one process).
pub fn python_home() -> PathBuf {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let home = temp_dir("pyhome");
        for args in [
            &["-m", "ndn.bin.sec", "init"][..],
            &["-m", "ndn.bin.sec", "new-item", "/ndnlab/test"][..],
        ] {
            let st = Command::new(python())
                .args(args)
                .env("HOME", &home)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(st.success(), "python-ndn keychain init failed");
        }
        home
    })
    .clone()
}

/// A python-ndn process running one of the interop scripts.
pub struct Py {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Py {
    pub fn spawn(script: &str, transport: &str, args: &[&str]) -> Py {
        let mut child = Command::new(python())
            .arg(workspace().join("interop").join(script))
            .args(args)
            .env("HOME", python_home())
            .env("NDN_CLIENT_TRANSPORT", transport)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Py {
            child,
            stdin,
            lines: rx,
        }
    }

    /// Waits for a line equal to `want`; panics with what came instead.
    pub fn expect_line(&mut self, want: &str, timeout: Duration) {
        let deadline = std::time::Instant::now() + timeout;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) if l == want => return,
                Ok(l) => seen.push(l),
                Err(_) => break,
            }
        }
        panic!("expected '{want}', got {seen:?}");
    }

    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }

    pub fn send(&mut self, line: &str) {
        let s = self.stdin.as_mut().unwrap();
        writeln!(s, "{line}").unwrap();
        s.flush().unwrap();
    }

    /// Waits for exit and returns the last stdout line parsed as JSON.
    pub fn finish_json(mut self, timeout: Duration) -> serde_json::Value {
        let mut last = None;
        let deadline = std::time::Instant::now() + timeout;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) => last = Some(l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("python app did not finish in {timeout:?}");
                }
            }
        }
        let st = self.child.wait().unwrap();
        assert!(st.success(), "python app failed: {st}");
        serde_json::from_str(&last.expect("a result line")).expect("JSON result")
    }
}

impl Drop for Py {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
