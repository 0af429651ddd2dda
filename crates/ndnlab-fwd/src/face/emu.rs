//! Link emulation on a face's egress: the sans-IO [`LinkEmulator`] of
//! `ndnlab_proto::emu` between a face's writer and its socket, configured per face
//! (`emulate = { ... }` on a `[[face]]`) or by rules for the faces created later
//! (`[[faces.emulation]]`). It does what `tc netem` and `tc tbf` would do on the
//! interface (delay, jitter, random loss, a rate with a tail-drop queue, an MTU),
//! without the kernel's help, so it works where `netem` is missing.
//!
//! Datagram faces (UDP, Ethernet) offer every datagram, after NDNLPv2
//! fragmentation, as one frame. Stream faces (TCP, Unix) offer every encoded packet
//! as one frame: the emulator only ever drops or delays whole packets, so the byte
//! stream the peer reads stays well framed (loss on a stream face loses whole
//! packets, which a real TCP connection would never do; the MTU and reordering
//! make no sense there). Frames the emulator refuses are counted on the face
//! ([`super::FaceStats`] `emu_*`); a lost frame still counts as sent by the face
//! (its packet counters), as a frame lost on a wire does.
//!
//! After every pass of frames the writer publishes the emulator's counters
//! (frames and bytes sent, delivered, dropped by cause) and its transmit queue
//! on the face ([`LinkStats`]); management serves them as the
//! `/localhost/nfd/ndnlab/links` dataset, one [`LinkRecord`] line per face with
//! an emulated link, which the laboratory's daemon runners read.
//!
//! On a face with NDNLPv2 reliability, the retransmissions and lone acks sent by
//! its timer task (`super::link`) go straight to the socket, bypassing the link.
//!
//! Frames that are due later wait in the emulator; the writer task sleeps until the
//! next arrival on the face's [`LinkTimer`] (a timerfd, not tokio's millisecond
//! wheel), so a frame leaves one wake-up (tens of microseconds) after it is due,
//! never before.

use std::net::IpAddr;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::Bytes;
use ndnlab_proto::emu::{EmuDrop, LinkConfig, LinkEmulator, LinkParams};
use ndnlab_proto::lp::Nanos;

use super::emu_timer::LinkTimer;
use super::stream::Ingress;
use super::uri::FaceUri;
use super::{FaceEntry, FaceStats};

use std::sync::atomic::Ordering::Relaxed;

/// The transmit queue of a rate-limited link when `queue` is not given (`tc`'s
/// default `txqueuelen`).
pub const DEFAULT_QUEUE: usize = 1000;
/// Longest delay or jitter accepted, in milliseconds (one hour).
const MAX_DELAY_MS: f64 = 3_600_000.0;

/// A face's emulated link: what it does, and the seed of its random draws.
#[derive(Debug, Clone, PartialEq)]
pub struct EmuSpec {
    pub params: LinkParams,
    /// `None`: derived from the face id.
    pub seed: Option<u64>,
}

impl EmuSpec {
    /// Checks the configuration keys, then converts them
    /// ([`LinkConfig::params`], a rate's queue [`DEFAULT_QUEUE`] unless given).
    /// `stream` says whether the face is known to be a stream face (where `mtu`
    /// and `reorder` are refused). The error names the key (relative to the table
    /// holding it) and the reason.
    pub fn from_config(e: &LinkConfig, stream: bool) -> Result<EmuSpec, (&'static str, String)> {
        let ms = |key: &'static str, v: f64| {
            if !v.is_finite() || !(0.0..=MAX_DELAY_MS).contains(&v) {
                return Err((key, format!("must be within 0..={MAX_DELAY_MS}, not {v}")));
            }
            Ok(())
        };
        ms("delay_ms", e.delay_ms)?;
        ms("jitter_ms", e.jitter_ms)?;
        if !(0.0..=100.0).contains(&e.loss_pct) {
            return Err((
                "loss_pct",
                format!("must be within 0..=100, not {}", e.loss_pct),
            ));
        }
        if let Some(m) = e.bandwidth_mbps {
            if !m.is_finite() || m <= 0.0 || m > 1e7 {
                return Err((
                    "bandwidth_mbps",
                    format!("must be positive (at most 10000000), not {m}"),
                ));
            }
        }
        if e.queue.is_some() && e.bandwidth_mbps.is_none() {
            return Err((
                "queue",
                "limits the transmit queue of a rate: set bandwidth_mbps too".into(),
            ));
        }
        if stream && e.mtu != 0 {
            return Err((
                "mtu",
                "applies to datagram faces (UDP, Ethernet) only, not to stream faces".into(),
            ));
        }
        if stream && e.reorder {
            return Err((
                "reorder",
                "applies to datagram faces (UDP, Ethernet) only, not to stream faces".into(),
            ));
        }
        // `params` reads a queue of 0 as no limit; here it is refused.
        if e.queue == Some(0) {
            return Err(("queue", "queue must hold at least one frame".into()));
        }
        let params = e.params(Some(DEFAULT_QUEUE));
        params.validate().map_err(|msg| {
            let key = if msg.starts_with("rate") {
                "bandwidth_mbps"
            } else if msg.starts_with("queue") {
                "queue"
            } else if msg.starts_with("mtu") {
                "mtu"
            } else {
                "loss_pct"
            };
            (key, msg)
        })?;
        Ok(EmuSpec {
            params,
            seed: e.seed,
        })
    }

    /// The seed for face `id`: the configured one, or one derived from the id
    /// (the same face id gives the same draws from one run to the next).
    pub fn seed_for(&self, id: u64) -> u64 {
        self.seed
            .unwrap_or_else(|| id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x6E64_6E6C_6162)
    }
}

/// Which faces an emulation entry applies to.
#[derive(Debug, Clone, PartialEq)]
pub enum EmuMatch {
    /// The face whose remote URI is this one.
    Remote(FaceUri),
    /// Every UDP or TCP face whose remote host is this address.
    RemoteIp(IpAddr),
}

impl EmuMatch {
    pub fn matches(&self, remote: &FaceUri) -> bool {
        match (self, remote) {
            (EmuMatch::Remote(u), r) => u == r,
            (EmuMatch::RemoteIp(ip), FaceUri::Udp(a) | FaceUri::Tcp(a)) => a.ip() == *ip,
            (EmuMatch::RemoteIp(_), _) => false,
        }
    }
}

/// Emulation entries in order (the `[[face]]` ones first, then the
/// `[[faces.emulation]]` rules); the first that matches a new face applies.
#[derive(Debug, Clone, Default)]
pub struct EmulationTable {
    entries: Vec<(EmuMatch, EmuSpec)>,
}

impl EmulationTable {
    pub fn push(&mut self, m: EmuMatch, spec: EmuSpec) {
        self.entries.push((m, spec));
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The emulation of a face toward `remote`, if an entry matches it.
    pub fn lookup(&self, remote: &FaceUri) -> Option<&EmuSpec> {
        self.entries
            .iter()
            .find(|(m, _)| m.matches(remote))
            .map(|(_, s)| s)
    }
}

/// What a face's emulated link has done, as its writer task last published it
/// (after every pass of frames): the emulator's counters and its transmit
/// queue. Stays zero on a face without an emulated link.
#[derive(Debug, Default)]
pub struct LinkStats {
    /// Whether the face has an emulator (set on its first pass).
    pub active: AtomicU64,
    pub sent_frames: AtomicU64,
    pub sent_bytes: AtomicU64,
    pub delivered_frames: AtomicU64,
    pub delivered_bytes: AtomicU64,
    pub queue_drops: AtomicU64,
    pub lost: AtomicU64,
    pub over_mtu: AtomicU64,
    pub queue_frames: AtomicU64,
    pub queue_bytes: AtomicU64,
}

impl LinkStats {
    fn publish(&self, link: &mut LinkEmulator, now: Nanos) {
        let c = link.counters();
        let st = |a: &AtomicU64, v: u64| a.store(v, Relaxed);
        st(&self.active, 1);
        st(&self.sent_frames, c.sent_frames);
        st(&self.sent_bytes, c.sent_bytes);
        st(&self.delivered_frames, c.delivered_frames);
        st(&self.delivered_bytes, c.delivered_bytes);
        st(&self.queue_drops, c.queue_drops);
        st(&self.lost, c.lost);
        st(&self.over_mtu, c.over_mtu);
        st(&self.queue_frames, link.queue_len(now) as u64);
        st(&self.queue_bytes, link.queue_bytes(now) as u64);
    }

    /// The record of face `face` toward `uri`, `None` without an emulator.
    pub fn record(&self, face: u64, uri: String) -> Option<LinkRecord> {
        let ld = |a: &AtomicU64| a.load(Relaxed);
        (ld(&self.active) != 0).then(|| LinkRecord {
            face,
            uri,
            sent_frames: ld(&self.sent_frames),
            sent_bytes: ld(&self.sent_bytes),
            delivered_frames: ld(&self.delivered_frames),
            delivered_bytes: ld(&self.delivered_bytes),
            queue_drops: ld(&self.queue_drops),
            lost: ld(&self.lost),
            over_mtu: ld(&self.over_mtu),
            queue_frames: ld(&self.queue_frames),
            queue_bytes: ld(&self.queue_bytes),
        })
    }
}

/// One face's emulated link in the `ndnlab/links` management dataset (an
/// ndnlab extension: UTF-8 text, one line per face with an emulated link, of
/// `key=value` pairs separated by spaces, `face` and `uri` first).
/// The counters are `ndnlab_proto::emu::EmuCounters`' (frames sent to the transmitter, delivered
/// to the socket, dropped by cause).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkRecord {
    pub face: u64,
    /// The face's remote URI.
    pub uri: String,
    pub sent_frames: u64,
    pub sent_bytes: u64,
    pub delivered_frames: u64,
    pub delivered_bytes: u64,
    pub queue_drops: u64,
    pub lost: u64,
    pub over_mtu: u64,
    /// Frames and bytes waiting for the emulated transmitter.
    pub queue_frames: u64,
    pub queue_bytes: u64,
}

impl LinkRecord {
    fn numbers(&self) -> [(&'static str, u64); 9] {
        [
            ("sent_frames", self.sent_frames),
            ("sent_bytes", self.sent_bytes),
            ("delivered_frames", self.delivered_frames),
            ("delivered_bytes", self.delivered_bytes),
            ("queue_drops", self.queue_drops),
            ("lost", self.lost),
            ("over_mtu", self.over_mtu),
            ("queue_frames", self.queue_frames),
            ("queue_bytes", self.queue_bytes),
        ]
    }

    /// The record's line of the dataset (a URI has no spaces).
    pub fn to_line(&self) -> String {
        let mut s = format!("face={} uri={}", self.face, self.uri);
        for (k, v) in self.numbers() {
            s += &format!(" {k}={v}");
        }
        s
    }

    /// Parses a line of the dataset; unknown keys are skipped (later versions
    /// may add some), a malformed pair is an error naming it.
    pub fn parse_line(line: &str) -> Result<LinkRecord, String> {
        let mut r = LinkRecord::default();
        for kv in line.split_whitespace() {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("'{kv}' is not key=value"))?;
            if k == "uri" {
                r.uri = v.to_string();
                continue;
            }
            let Ok(n) = v.parse::<u64>() else {
                return Err(format!("{k}: '{v}' is not a number"));
            };
            let slot = match k {
                "face" => &mut r.face,
                "sent_frames" => &mut r.sent_frames,
                "sent_bytes" => &mut r.sent_bytes,
                "delivered_frames" => &mut r.delivered_frames,
                "delivered_bytes" => &mut r.delivered_bytes,
                "queue_drops" => &mut r.queue_drops,
                "lost" => &mut r.lost,
                "over_mtu" => &mut r.over_mtu,
                "queue_frames" => &mut r.queue_frames,
                "queue_bytes" => &mut r.queue_bytes,
                _ => continue,
            };
            *slot = n;
        }
        Ok(r)
    }
}

/// The emulator of one face's egress, owned by its writer task.
#[derive(Debug)]
pub struct FaceEmulator {
    link: LinkEmulator,
    timer: LinkTimer,
}

impl FaceEmulator {
    /// The emulator of `face`, if it has an emulated link that changes anything.
    /// A stream face ignores `mtu` and `reorder` (a `remote_ip` rule may match it).
    pub fn for_face(face: &FaceEntry, stream: bool) -> Option<FaceEmulator> {
        let spec = face.emulation()?;
        let mut params = spec.params.clone();
        if stream {
            params.mtu = None;
            params.reorder = false;
        }
        if params.is_perfect() {
            return None;
        }
        Some(FaceEmulator {
            link: LinkEmulator::new(params, spec.seed_for(face.id)),
            timer: LinkTimer::default(),
        })
    }

    /// Offers every frame of `frames` at `now` (counting those refused or lost on
    /// `stats`), then replaces them with the frames due by `now`, in arrival order.
    pub fn pass(&mut self, stats: &FaceStats, now: Nanos, frames: &mut Vec<Bytes>) {
        for f in frames.drain(..) {
            if let Err(d) = self.link.send(now, f) {
                match d {
                    EmuDrop::QueueFull => &stats.emu_queue_drops,
                    EmuDrop::Lost => &stats.emu_lost,
                    EmuDrop::OverMtu => &stats.emu_over_mtu,
                }
                .fetch_add(1, Relaxed);
            }
        }
        while let Some(f) = self.link.poll(now) {
            frames.push(f);
        }
        stats.emu_link.publish(&mut self.link, now);
    }

    /// Frames in the emulator (queued or on the way).
    pub fn in_flight(&self) -> usize {
        self.link.in_flight()
    }

    /// Resolves when the next frame in flight is due (never, with none in flight
    /// or no emulator). The deadline is taken from the daemon clock when called.
    pub async fn due(this: Option<&mut FaceEmulator>, ingress: &dyn Ingress) {
        let Some((at, e)) = this.and_then(|e| Some((e.link.next_arrival()?, e))) else {
            return std::future::pending().await;
        };
        let now = ingress.now();
        if at > now {
            e.timer.sleep(Duration::from_nanos(at - now)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml: &str) -> Result<EmuSpec, (&'static str, String)> {
        let e: LinkConfig = toml::from_str(toml).unwrap();
        EmuSpec::from_config(&e, false)
    }

    #[test]
    fn keys_convert_to_link_parameters() {
        let s = spec(
            "delay_ms = 10.5\njitter_ms = 1\nloss_pct = 2.5\nbandwidth_mbps = 100\n\
             queue = 50\nmtu = 1500\nseed = 9\n",
        )
        .unwrap();
        let p = &s.params;
        assert_eq!((p.delay_ns, p.jitter_ns), (10_500_000, 1_000_000));
        assert!((p.loss - 0.025).abs() < 1e-12);
        assert_eq!(p.rate_bps, Some(100_000_000));
        assert_eq!((p.queue_frames, p.mtu), (Some(50), Some(1500)));
        assert_eq!(s.seed_for(300), 9);
        // nothing set: a perfect link; a rate alone gets the default queue
        assert!(spec("").unwrap().params.is_perfect());
        let s = spec("bandwidth_mbps = 1").unwrap();
        assert_eq!(s.params.queue_frames, Some(DEFAULT_QUEUE));
        assert_ne!(s.seed_for(256), s.seed_for(257));
        assert_eq!(s.seed_for(256), s.seed_for(256));
    }

    #[test]
    fn bad_keys_are_named() {
        let key = |t: &str| spec(t).unwrap_err().0;
        assert_eq!(key("delay_ms = -1"), "delay_ms");
        assert_eq!(key("delay_ms = nan"), "delay_ms");
        assert_eq!(key("jitter_ms = inf"), "jitter_ms");
        assert_eq!(key("loss_pct = 100.5"), "loss_pct");
        assert_eq!(key("loss_pct = -0.1"), "loss_pct");
        assert_eq!(key("bandwidth_mbps = 0"), "bandwidth_mbps");
        assert_eq!(key("bandwidth_mbps = 1e-9"), "bandwidth_mbps");
        assert_eq!(key("bandwidth_mbps = 1\nqueue = 0"), "queue");
        assert_eq!(key("queue = 10"), "queue");
        assert_eq!(key("mtu = 63"), "mtu");
        spec("mtu = 0").unwrap();
        spec("mtu = 64").unwrap();
        spec("loss_pct = 100").unwrap();
        let e: LinkConfig = toml::from_str("mtu = 1500").unwrap();
        assert_eq!(EmuSpec::from_config(&e, true).unwrap_err().0, "mtu");
        let e: LinkConfig = toml::from_str("reorder = true").unwrap();
        assert_eq!(EmuSpec::from_config(&e, true).unwrap_err().0, "reorder");
    }

    #[test]
    fn link_records_read_back_from_their_lines() {
        let r = LinkRecord {
            face: 260,
            uri: "udp4://127.0.0.1:6363".into(),
            sent_frames: 10,
            sent_bytes: 15_000,
            delivered_frames: 8,
            lost: 2,
            queue_frames: 1,
            ..Default::default()
        };
        assert_eq!(LinkRecord::parse_line(&r.to_line()).unwrap(), r);
        assert!(LinkRecord::parse_line("face=1 lost=x")
            .unwrap_err()
            .contains("lost"));
        assert_eq!(
            LinkRecord::parse_line("face=3 later_key=5").unwrap().face,
            3
        );
    }

    #[test]
    fn first_matching_entry_wins() {
        let mut t = EmulationTable::default();
        let d = |ms| EmuSpec {
            params: LinkParams {
                delay_ns: ms,
                ..Default::default()
            },
            seed: None,
        };
        let a = FaceUri::parse("udp4://127.0.0.1:6401").unwrap();
        t.push(EmuMatch::Remote(a.clone()), d(1));
        t.push(EmuMatch::RemoteIp("127.0.0.1".parse().unwrap()), d(2));
        assert_eq!(t.lookup(&a).unwrap().params.delay_ns, 1);
        let b = FaceUri::parse("tcp4://127.0.0.1:6401").unwrap();
        assert_eq!(t.lookup(&b).unwrap().params.delay_ns, 2);
        assert!(t
            .lookup(&FaceUri::parse("udp4://127.0.0.2:6401").unwrap())
            .is_none());
        assert!(t.lookup(&FaceUri::Fd(5)).is_none());
    }

    #[test]
    fn pass_counts_drops_and_hands_out_due_frames() {
        let stats = FaceStats::default();
        let mut e = FaceEmulator {
            link: LinkEmulator::new(
                LinkParams {
                    delay_ns: 1000,
                    rate_bps: Some(8_000_000),
                    queue_frames: Some(2),
                    mtu: Some(100),
                    ..Default::default()
                },
                1,
            ),
            timer: LinkTimer::default(),
        };
        let mut frames: Vec<Bytes> = [10, 10, 10, 200]
            .iter()
            .map(|&n| Bytes::from(vec![0u8; n]))
            .collect();
        e.pass(&stats, 0, &mut frames);
        assert!(frames.is_empty(), "nothing is due yet");
        assert_eq!(stats.emu_queue_drops.load(Relaxed), 1);
        assert_eq!(stats.emu_over_mtu.load(Relaxed), 1);
        assert_eq!(e.in_flight(), 2);
        // 10 bytes at 8 Mbit/s: 10 us each, then 1 us of delay
        e.pass(&stats, 11_000, &mut frames);
        assert_eq!(frames.len(), 1);
        frames.clear();
        e.pass(&stats, 21_000, &mut frames);
        assert_eq!((frames.len(), e.in_flight()), (1, 0));
    }
}
