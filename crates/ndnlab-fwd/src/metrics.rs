//! Prometheus text-format metrics (`ndnlab fwd --metrics ADDR`): forwarder counters
//! summed over shards, the forwarder's drops by reason, shard queue drops, per-face counters (with the drops of
//! emulated links, reasons `emu-*`, on faces that have one), Ethernet frames
//! dropped per channel, the NDNLPv2 reliability counters of the faces that
//! have reliability on, and the latency histograms when `[latency]` is on
//! (`ndnlab_latency_seconds{stage,class}`).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::runtime::Shared;
use ndnlab_proto::lp::reliability::ReliabilityCounters;
use ndnlab_proto::lp::LpDrop;

/// An exported reliability counter: name (after `ndnlab_face_lp_`), help, value.
type LpCounter = (&'static str, &'static str, fn(&ReliabilityCounters) -> u64);

/// The NDNLPv2 reliability counters of a face, as exported (NFD's names in
/// parentheses).
const LP_COUNTERS: [LpCounter; 11] = [
    (
        "frames_sent_total",
        "LP frames sent for the first time (each with a TxSequence)",
        |c| c.frames_sent,
    ),
    (
        "acknowledged_total",
        "LP frames acknowledged by the peer (NFD nAcknowledged)",
        |c| c.acknowledged,
    ),
    (
        "retransmitted_total",
        "LP frames sent again (NFD nRetransmitted)",
        |c| c.retransmitted,
    ),
    (
        "retx_exhausted_total",
        "network packets given up after max_retx retransmissions (NFD nRetxExhausted)",
        |c| c.retx_exhausted,
    ),
    (
        "lost_by_gap_total",
        "LP frames declared lost by the sequence-gap rule",
        |c| c.lost_by_gap,
    ),
    (
        "lost_by_timeout_total",
        "LP frames declared lost by their retransmission timer",
        |c| c.lost_by_timeout,
    ),
    (
        "duplicate_sequence_total",
        "received LP frames dropped as duplicates (NFD nDuplicateSequence)",
        |c| c.duplicates,
    ),
    ("acks_sent_total", "LP acks sent", |c| c.acks_sent),
    (
        "acks_piggybacked_total",
        "LP acks carried on frames with a packet",
        |c| c.acks_piggybacked,
    ),
    (
        "idle_ack_packets_total",
        "IDLE LpPackets sent to carry acks alone",
        |c| c.idle_ack_packets,
    ),
    (
        "unknown_acks_total",
        "LP acks received for a TxSequence not awaiting one",
        |c| c.unknown_acks,
    ),
];

/// Renders every counter in the Prometheus text exposition format.
pub async fn render(shared: &Shared) -> String {
    let mut s = String::new();
    let reports = shared.query_shards().await;
    let mut line = |name: &str, help: &str, v: u64| {
        let _ = writeln!(
            s,
            "# HELP ndnlab_{name} {help}\n# TYPE ndnlab_{name} counter\nndnlab_{name} {v}"
        );
    };
    let sum =
        |f: &dyn Fn(&crate::runtime::shard::ShardReport) -> u64| reports.iter().map(f).sum::<u64>();
    line(
        "in_interests_total",
        "Interests received",
        sum(&|r| r.counters.n_in_interests),
    );
    line(
        "in_data_total",
        "Data received",
        sum(&|r| r.counters.n_in_data),
    );
    line(
        "in_nacks_total",
        "Nacks received",
        sum(&|r| r.counters.n_in_nacks),
    );
    line(
        "out_interests_total",
        "Interests sent",
        sum(&|r| r.counters.n_out_interests),
    );
    line(
        "out_data_total",
        "Data sent",
        sum(&|r| r.counters.n_out_data),
    );
    line(
        "out_nacks_total",
        "Nacks sent",
        sum(&|r| r.counters.n_out_nacks),
    );
    line(
        "satisfied_interests_total",
        "PIT entries satisfied",
        sum(&|r| r.counters.n_satisfied_interests),
    );
    line(
        "unsatisfied_interests_total",
        "PIT entries expired or Nacked",
        sum(&|r| r.counters.n_unsatisfied_interests),
    );
    line("cs_hits_total", "Content Store hits", sum(&|r| r.cs.n_hits));
    line(
        "cs_evictions_total",
        "Content Store entries evicted to stay within capacity (packets or bytes)",
        sum(&|r| r.cs.n_evictions),
    );
    line(
        "cs_misses_total",
        "Content Store misses",
        sum(&|r| r.cs.n_misses),
    );
    line(
        "decode_drops_total",
        "packets that failed to decode",
        shared.counters.decode_drops.load(Relaxed),
    );
    line(
        "oversize_drops_total",
        "packets over max_packet_size dropped on receive",
        shared.counters.oversize_drops.load(Relaxed),
    );
    line(
        "shard_queue_drops_total",
        "packets dropped on full shard queues",
        shared.counters.shard_drops.load(Relaxed),
    );
    // The forwarder's drops by reason (the resource bounds among them:
    // interest-rate-limit, pit-full, pit-face-full).
    let _ = writeln!(
        s,
        "# HELP ndnlab_drops_total packets the forwarder dropped, by reason\n# TYPE ndnlab_drops_total counter"
    );
    for reason in ndnlab_core::DropReason::ALL {
        let v = sum(&|r| r.counters.drops.get(reason));
        let _ = writeln!(s, "ndnlab_drops_total{{reason=\"{reason}\"}} {v}");
    }
    let _ = writeln!(
        s,
        "# TYPE ndnlab_pit_entries gauge\nndnlab_pit_entries {}",
        sum(&|r| r.n_pit as u64)
    );
    let _ = writeln!(
        s,
        "# TYPE ndnlab_cs_entries gauge\nndnlab_cs_entries {}",
        sum(&|r| r.cs.n_entries as u64)
    );
    let _ = writeln!(s, "# TYPE ndnlab_face_packets_total counter");
    for f in shared.faces.list() {
        let st = &f.stats;
        for (dir, kind, v) in [
            ("in", "interest", st.in_interests.load(Relaxed)),
            ("in", "data", st.in_data.load(Relaxed)),
            ("in", "nack", st.in_nacks.load(Relaxed)),
            ("out", "interest", st.out_interests.load(Relaxed)),
            ("out", "data", st.out_data.load(Relaxed)),
            ("out", "nack", st.out_nacks.load(Relaxed)),
        ] {
            let _ = writeln!(
                s,
                "ndnlab_face_packets_total{{face=\"{}\",dir=\"{dir}\",kind=\"{kind}\"}} {v}",
                f.id
            );
        }
    }
    let _ = writeln!(s, "# TYPE ndnlab_face_drops_total counter");
    for f in shared.faces.list() {
        let st = &f.stats;
        for (reason, v) in [
            ("malformed", st.in_drops.load(Relaxed)),
            ("send-queue-full", st.queue_drops.load(Relaxed)),
            ("send-queue-bytes", st.queue_byte_drops.load(Relaxed)),
            ("shard-queue-full", st.shard_drops.load(Relaxed)),
            ("reassembly-timeout", st.reassembly_timeouts.load(Relaxed)),
        ] {
            let _ = writeln!(
                s,
                "ndnlab_face_drops_total{{face=\"{}\",reason=\"{reason}\"}} {v}",
                f.id
            );
        }
        // Frames the face's emulated link dropped (faces with one only).
        if f.emulation().is_some() {
            for (reason, v) in [
                ("emu-queue-full", st.emu_queue_drops.load(Relaxed)),
                ("emu-lost", st.emu_lost.load(Relaxed)),
                ("emu-over-mtu", st.emu_over_mtu.load(Relaxed)),
            ] {
                let _ = writeln!(
                    s,
                    "ndnlab_face_drops_total{{face=\"{}\",reason=\"{reason}\"}} {v}",
                    f.id
                );
            }
        }
        for (reason, v) in LpDrop::REASONS.iter().zip(&st.lp_drops) {
            let v = v.load(Relaxed);
            if v > 0 {
                let _ = writeln!(
                    s,
                    "ndnlab_face_lp_drops_total{{face=\"{}\",reason=\"{reason}\"}} {v}",
                    f.id
                );
            }
        }
    }
    render_ether(&mut s, shared);
    render_lp(&mut s, &shared.faces.list());
    render_latency(&mut s, shared);
    s
}

/// Appends the latency histograms and the instrumentation's counters (nothing when
/// it is off).
fn render_latency(s: &mut String, shared: &Shared) {
    let Some(l) = &shared.latency else { return };
    let _ = writeln!(
        s,
        "# HELP ndnlab_latency_samples_total packets timed by the latency instrumentation
         # TYPE ndnlab_latency_samples_total counter
         ndnlab_latency_samples_total {}
         # HELP ndnlab_latency_log_drops_total raw samples dropped because the log thread fell behind
         # TYPE ndnlab_latency_log_drops_total counter
         ndnlab_latency_log_drops_total {}",
        l.recorded.load(Relaxed),
        l.log_drops()
    );
    l.merged().render_prometheus(s);
}

/// Appends the frames each Ethernet channel dropped before they reached a face,
/// by reason (nothing when no Ethernet channel is open).
fn render_ether(s: &mut String, shared: &Shared) {
    let chans = shared
        .ether
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    if chans.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "# HELP ndnlab_ether_frame_drops_total Ethernet frames dropped before reaching a face\n\
         # TYPE ndnlab_ether_frame_drops_total counter"
    );
    for ch in &chans {
        for (reason, v) in ch.drop_counts() {
            let _ = writeln!(
                s,
                "ndnlab_ether_frame_drops_total{{dev=\"{}\",reason=\"{reason}\"}} {v}",
                ch.netif().name
            );
        }
    }
}

/// Appends the NDNLPv2 reliability counters of the faces that have reliability on
/// (nothing when none has). Counters start from zero each time reliability is
/// turned on (a counter reset, for Prometheus).
fn render_lp(s: &mut String, faces: &[Arc<crate::face::FaceEntry>]) {
    let lp: Vec<(u64, ReliabilityCounters, usize)> = faces
        .iter()
        .filter_map(|f| {
            let r = &f.link.reliability;
            r.counters().map(|c| (f.id, c, r.unacked()))
        })
        .collect();
    if lp.is_empty() {
        return;
    }
    for (name, help, get) in LP_COUNTERS {
        let _ = writeln!(
            s,
            "# HELP ndnlab_face_lp_{name} {help}\n# TYPE ndnlab_face_lp_{name} counter"
        );
        for (id, c, _) in &lp {
            let _ = writeln!(s, "ndnlab_face_lp_{name}{{face=\"{id}\"}} {}", get(c));
        }
    }
    let _ = writeln!(
        s,
        "# HELP ndnlab_face_lp_unacked_frames LP frames sent and not yet acknowledged\n\
         # TYPE ndnlab_face_lp_unacked_frames gauge"
    );
    for (id, _, unacked) in &lp {
        let _ = writeln!(
            s,
            "ndnlab_face_lp_unacked_frames{{face=\"{id}\"}} {unacked}"
        );
    }
}

/// Serves `GET /metrics` (any path) on `addr`.
pub async fn serve(
    addr: SocketAddr,
    shared: Arc<Shared>,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot bind metrics endpoint {addr}: {e}"))?;
    Ok(tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                continue;
            };
            let sh = shared.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 2048];
                let _ =
                    tokio::time::timeout(std::time::Duration::from_secs(2), sock.read(&mut buf))
                        .await;
                let body = render(&sh).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
            });
        }
    }))
}
