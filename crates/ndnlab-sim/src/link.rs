//! One direction of a link: the sending face's NDNLPv2 link service (framing
//! and fragmentation at the MTU, `ndnlab_proto::lp::LinkSender`), then the
//! emulated link (`ndnlab_proto::emu::LinkEmulator`: serialization at the rate
//! behind a bounded queue, loss, delay and jitter), in virtual time.

use bytes::Bytes;
use ndnlab_proto::emu::{EmuDrop, LinkEmulator, LinkParams};
use ndnlab_proto::lp::{CongestionLimits, CongestionMarker, LinkSender, LpFields};

use crate::stats::Drops;
use ndnlab_des::Nanos;

/// Where frames of a direction arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    pub node: u32,
    /// Index of the face on that node.
    pub face: u32,
}

/// One direction of a link.
pub struct LinkDir {
    pub(crate) emu: LinkEmulator,
    sender: LinkSender,
    marker: CongestionMarker,
    /// Congestion marking on the transmit queue (NFD's defaults), if on.
    marking: Option<CongestionLimits>,
    /// The face frames arrive on.
    pub to: End,
    /// The face frames leave from.
    pub from: End,
    /// When an arrival event is scheduled (`u64::MAX`: none).
    pub(crate) armed: Nanos,
    frames: Vec<Bytes>,
}

impl LinkDir {
    pub fn new(params: LinkParams, seed: u64, from: End, to: End) -> LinkDir {
        LinkDir {
            sender: LinkSender::new(params.mtu, seed ^ 0x4c50),
            emu: LinkEmulator::new(params, seed),
            marker: CongestionMarker::default(),
            marking: None,
            to,
            from,
            armed: u64::MAX,
            frames: Vec::new(),
        }
    }

    /// Marks packets with NFD's CoDel-style marker once the transmit queue stays
    /// above `limits.threshold` bytes (estimated as frames queued × this frame's
    /// size) for `limits.interval_ns`.
    pub fn set_marking(&mut self, limits: Option<CongestionLimits>) {
        self.marking = limits;
    }

    /// Frames waiting for the transmitter at `now` (the face's queue length).
    pub fn queue_len(&mut self, now: Nanos) -> usize {
        self.emu.queue_len(now)
    }

    /// Bytes waiting for the transmitter at `now`.
    pub fn queue_bytes(&mut self, now: Nanos) -> usize {
        self.emu.queue_bytes(now)
    }

    /// The emulated link's counters (frames and bytes sent, delivered, dropped
    /// by cause).
    pub fn counters(&self) -> ndnlab_proto::emu::EmuCounters {
        self.emu.counters()
    }

    /// Frames in flight or queued.
    pub fn in_flight(&self) -> usize {
        self.emu.in_flight()
    }

    /// Sends one network-layer packet: frames it and offers the frames to the
    /// emulated link. Losses are counted in `drops`.
    pub fn send(&mut self, now: Nanos, mut fields: LpFields, pkt: &Bytes, drops: &mut Drops) {
        if let Some(limits) = &self.marking {
            let queued = self.emu.queue_len(now) * pkt.len();
            if self.marker.should_mark(now, queued, limits) {
                fields.congestion_mark = 1;
                drops.marks_set += 1;
            }
        }
        self.sender.encode_datagrams(&fields, pkt, &mut self.frames);
        for f in self.frames.drain(..) {
            match self.emu.send(now, f) {
                Ok(()) => {}
                Err(EmuDrop::Lost) => drops.link_lost += 1,
                Err(EmuDrop::QueueFull) => drops.link_queue_full += 1,
                Err(EmuDrop::OverMtu) => drops.link_over_mtu += 1,
            }
        }
    }

    /// When the next frame arrives.
    pub fn next_arrival(&self) -> Option<Nanos> {
        self.emu.next_arrival()
    }

    /// The next frame that has arrived by `now`.
    pub fn poll(&mut self, now: Nanos) -> Option<Bytes> {
        self.emu.poll(now)
    }
}
