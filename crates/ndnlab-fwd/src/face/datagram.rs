//! The writer of a datagram face (UDP unicast and multicast, Ethernet): one loop
//! for every such face, over a [`DatagramSink`] that knows how to put datagrams on
//! its medium. Each wake-up takes every burst waiting in the face's queue,
//! encodes it (NDNLPv2 fields, fragments, congestion marks: [`DatagramEncoder`]),
//! passes it through the face's emulated link if it has one, and sends it. An
//! on-demand face idle for longer than its timeout is closed.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::emu::FaceEmulator;
use super::link::DatagramEncoder;
use super::stream::Ingress;
use super::{FaceEntry, Persistency, SendQueueRx};

/// Where a datagram face's frames go.
pub trait DatagramSink: Send + Sync + 'static {
    /// Sends every datagram (counting bytes and drops on `face`); an error ends
    /// the face.
    fn send(
        &self,
        face: &FaceEntry,
        dgrams: &[Bytes],
    ) -> impl std::future::Future<Output = io::Result<()>> + Send;
}

/// How a datagram writer runs.
pub struct WriterParams {
    /// For on-demand faces: when the last packet came in.
    pub idle: Option<Arc<AtomicU64>>,
    pub idle_timeout_ns: u64,
    /// Datagrams encoded before sending, at most (more bursts wait).
    pub batch: usize,
    /// "UDP", "Ethernet": for logs.
    pub medium: &'static str,
}

/// Runs the writer until the queue ends, the face closes, the face stays idle
/// too long, or the sink fails (the error is returned).
pub async fn run_writer<S: DatagramSink>(
    sink: &S,
    face: &Arc<FaceEntry>,
    mut queue: SendQueueRx,
    ingress: &dyn Ingress,
    p: WriterParams,
) -> io::Result<()> {
    let mut enc = DatagramEncoder::new(face);
    let mut emu = FaceEmulator::for_face(face, false);
    let mut dgrams: Vec<Bytes> = Vec::with_capacity(64);
    let mut timed = crate::latency::OutSamples::default();
    let idle_check = p.idle_timeout_ns.min(3600 * 1_000_000_000) / 2;
    let mut tick = tokio::time::interval(Duration::from_nanos(idle_check.max(1_000_000)));
    loop {
        let items = tokio::select! {
            i = queue.recv() => match i { Some(i) => Some(i), None => return Ok(()) },
            _ = face.closed() => return Ok(()),
            // Frames of an emulated link that are due now.
            _ = FaceEmulator::due(emu.as_mut(), ingress), if emu.is_some() => None,
            _ = tick.tick() => {
                let on_demand = face.persistency.get() == Persistency::OnDemand;
                if let Some(seen) = p.idle.as_ref().filter(|_| on_demand) {
                    if ingress.now().saturating_sub(seen.load(Relaxed)) > p.idle_timeout_ns {
                        tracing::debug!(face = face.id, medium = p.medium, "idle on-demand face closed");
                        return Ok(());
                    }
                }
                continue;
            }
        };
        dgrams.clear();
        if let Some(items) = items {
            enc.encode_waiting(
                face,
                items,
                &mut queue,
                ingress,
                p.batch,
                &mut dgrams,
                &mut timed,
            );
        }
        if let Some(e) = emu.as_mut() {
            e.pass(&face.stats, ingress.now(), &mut dgrams);
        }
        sink.send(face, &dgrams).await?;
        timed.finish();
    }
}
