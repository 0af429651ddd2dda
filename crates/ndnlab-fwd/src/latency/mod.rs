//! Data-plane latency instrumentation (`[latency]` in fwd.toml, `ndnlab fwd
//! --latency-sample N --latency-log FILE`), after NDN-DPDK's input/forwarding
//! thread instrumentation in the seed paper (Khoussi et al.).
//!
//! One packet in `sample` is timed through four stages:
//!
//! * **input**: from the moment a face reader hands its burst to the router to the
//!   moment the packet's shard burst is handed off (network-layer decode, dispatch
//!   by the Name Dispatch Table or PIT token);
//! * **queue**: from that hand-off to the start of the packet's own pipeline: the
//!   shard queue (with a single inline shard, the wait for the shard's lock), then
//!   the core's batched prefetch stages for the packet's burst and the pipelines of
//!   the packets ahead of it in the burst;
//! * **forwarding**: the core's Interest, Data or Nack pipeline for that packet (CS,
//!   PIT, FIB, strategy), run inside its burst as every packet is (the burst is
//!   not split: [`ndnlab_core::Forwarder::handle_burst_probed`] reads the clock
//!   around the packet's pipeline);
//! * **output**: from the end of its pipeline to the packet's first transmission
//!   encoded and written by the face's writer (the rest of the burst, the shard's
//!   flush and the face send-queue wait included).
//!
//! Each stage is the difference of two readings of one monotonic clock, so the four
//! stages add up to the total exactly. A packet that causes no transmission (an
//! aggregated Interest, unsolicited Data, a drop) has no output stage: its output is
//! 0 in the raw log and it is not counted in the output histogram.
//!
//! Sampled packets are numbered in the order the readers count them; sample `k`
//! (packet `k * sample`) is kept when `skip <= k < skip + keep` (`keep = 0`: no end),
//! the seed's warm-up and sample-count windows. Switched on, a burst costs one
//! atomic add (the count), and a burst with a timed packet runs through a copy of
//! the core's burst loop that checks each packet's index against the next timed
//! one; a timed packet costs a boxed record, five clock readings and the histogram
//! updates. Off, the data path tests one `Option` per received and per sent packet.
//!
//! Results go to per-shard HDR histograms ([`hist`], merged on read: the
//! `/localhost/nfd/ndnlab/latency` dataset in [`dataset`], Prometheus histograms) and,
//! when a log file is set, to a CSV written by a thread of its own ([`log`]), fed
//! through a bounded channel that drops (and counts) rather than blocks.

pub mod dataset;
pub mod hist;
pub mod log;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ndnlab_core::InPacket;

use crate::config::LatencySection;
use hist::StageHists;

/// The packet types timed (and the CS outcome of Interests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PktType {
    Interest,
    Data,
    Nack,
}

impl PktType {
    pub fn of(p: &InPacket) -> Self {
        match p {
            InPacket::Interest(_) => PktType::Interest,
            InPacket::Data(_) => PktType::Data,
            InPacket::Nack(_) => PktType::Nack,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PktType::Interest => "interest",
            PktType::Data => "data",
            PktType::Nack => "nack",
        }
    }
}

/// An Interest's Content Store lookup: hit, miss, or none (`-`: not an Interest, or
/// dropped before the lookup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsOutcome {
    Hit,
    Miss,
    None,
}

impl CsOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            CsOutcome::Hit => "hit",
            CsOutcome::Miss => "miss",
            CsOutcome::None => "-",
        }
    }
}

/// One timed packet: what it is and its stage times (one line of the raw log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// The packet's number in the readers' count.
    pub seq: u64,
    pub typ: PktType,
    pub cs: CsOutcome,
    pub input_ns: u64,
    pub queue_ns: u64,
    pub fwd_ns: u64,
    /// `None`: the packet caused no transmission.
    pub output_ns: Option<u64>,
    pub total_ns: u64,
    /// Packets in the shard queue when the packet's burst arrived.
    pub queue_len: u64,
    /// PIT entries of the shard after the burst that carried the packet.
    pub pit_size: u64,
}

/// A packet being timed: clock readings (ns since the instrumentation's epoch) taken
/// as it passes each stage. Travels with the packet (boxed, 1 in `sample`).
#[derive(Debug)]
pub struct Sample {
    lat: Arc<Latency>,
    shard: usize,
    seq: u64,
    typ: PktType,
    cs: CsOutcome,
    t_recv: u64,
    t_dispatched: u64,
    t_fwd_start: u64,
    t_fwd_end: u64,
    queue_len: u64,
    pit_size: u64,
}

impl Sample {
    /// The instrumentation's clock.
    #[inline]
    pub fn now(&self) -> u64 {
        self.lat.now()
    }

    /// Whether the packet is an Interest.
    #[inline]
    pub fn is_interest(&self) -> bool {
        self.typ == PktType::Interest
    }

    /// The forwarding stage ran from `start` to `end`; `cs` is the Interest's CS outcome.
    pub fn forwarded(&mut self, shard: usize, start: u64, end: u64, cs: CsOutcome) {
        self.shard = shard;
        self.t_fwd_start = start;
        self.t_fwd_end = end;
        self.cs = cs;
    }

    /// The shard's PIT size after the packet's burst.
    pub fn set_pit_size(&mut self, n: usize) {
        self.pit_size = n as u64;
    }

    /// The packet caused no transmission: recorded without an output stage.
    pub fn finish_without_output(self) {
        let end = self.t_fwd_end;
        self.finish(None, end);
    }

    /// The packet's first transmission left now: recorded with its output stage.
    pub fn finish_sent(self) {
        let now = self.lat.now();
        let output = now.saturating_sub(self.t_fwd_end);
        self.finish(Some(output), now);
    }

    fn finish(self, output_ns: Option<u64>, end: u64) {
        let rec = Record {
            seq: self.seq,
            typ: self.typ,
            cs: self.cs,
            input_ns: self.t_dispatched.saturating_sub(self.t_recv),
            queue_ns: self.t_fwd_start.saturating_sub(self.t_dispatched),
            fwd_ns: self.t_fwd_end.saturating_sub(self.t_fwd_start),
            output_ns,
            total_ns: end.saturating_sub(self.t_recv),
            queue_len: self.queue_len,
            pit_size: self.pit_size,
        };
        self.lat.record(self.shard, &rec);
    }
}

/// Samples waiting for their face writer's system call (see [`OutSamples::finish`]).
#[derive(Default)]
pub struct OutSamples(Vec<Sample>);

impl OutSamples {
    /// Takes the sample riding on an item being encoded, if any.
    #[inline]
    pub fn take(&mut self, sample: &mut Option<Box<Sample>>) {
        if let Some(s) = sample.take() {
            self.0.push(*s);
        }
    }

    /// The items taken were sent: records their samples.
    #[inline]
    pub fn finish(&mut self) {
        for s in self.0.drain(..) {
            s.finish_sent();
        }
    }
}

/// The instrumentation of one daemon: sampler, per-shard histograms, raw log.
#[derive(Debug)]
pub struct Latency {
    every: u64,
    skip: u64,
    keep: u64,
    /// Packets counted by the readers.
    seen: AtomicU64,
    epoch: Instant,
    shards: Vec<Mutex<StageHists>>,
    log: Option<log::LogSender>,
    /// Samples recorded (histograms).
    pub recorded: AtomicU64,
}

impl Latency {
    /// The instrumentation for `shards` shards, or `None` when `[latency] sample` is 0.
    /// Starts the raw log's thread when a log file is set.
    pub fn start(cfg: &LatencySection, shards: usize) -> anyhow::Result<Option<Arc<Latency>>> {
        if cfg.sample == 0 {
            return Ok(None);
        }
        let log = match &cfg.log {
            Some(path) => Some(log::LogSender::create(path, cfg.log_queue)?),
            None => None,
        };
        Ok(Some(Arc::new(Self::new(cfg, shards, log))))
    }

    /// The instrumentation with a given log sender (tests).
    pub fn new(cfg: &LatencySection, shards: usize, log: Option<log::LogSender>) -> Latency {
        Latency {
            every: cfg.sample.max(1),
            skip: cfg.skip,
            keep: cfg.keep,
            seen: AtomicU64::new(0),
            epoch: Instant::now(),
            shards: (0..shards.max(1))
                .map(|_| Mutex::new(StageHists::new()))
                .collect(),
            log,
            recorded: AtomicU64::new(0),
        }
    }

    /// The clock: ns since the instrumentation started.
    #[inline]
    pub fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// One packet in how many is timed.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// The (skip, keep) windows.
    pub fn windows(&self) -> (u64, u64) {
        (self.skip, self.keep)
    }

    /// Packets counted so far.
    pub fn seen(&self) -> u64 {
        self.seen.load(Relaxed)
    }

    /// Raw samples dropped because the log thread fell behind.
    pub fn log_drops(&self) -> u64 {
        self.log.as_ref().map_or(0, |l| l.drops())
    }

    /// Counts a burst of `n` packets; returns the sampler's cursor over it (which
    /// of its packets to time).
    #[inline]
    pub fn burst(&self, n: usize) -> Sampler {
        let base = self.seen.fetch_add(n as u64, Relaxed);
        let first = (self.every - base % self.every) % self.every;
        // The clock is read once per burst, and only for a burst with a sample.
        let t_recv = if first < n as u64 { self.now() } else { 0 };
        Sampler {
            base,
            next: first,
            len: n as u64,
            every: self.every,
            t_recv,
        }
    }

    /// Starts timing packet `seq` (received at `t_recv`) if its sample is inside the
    /// skip/keep window.
    pub fn begin(self: &Arc<Self>, seq: u64, typ: PktType, t_recv: u64) -> Option<Box<Sample>> {
        let k = seq / self.every;
        if k < self.skip || (self.keep > 0 && k >= self.skip + self.keep) {
            return None;
        }
        Some(Box::new(Sample {
            lat: self.clone(),
            shard: 0,
            seq,
            typ,
            cs: CsOutcome::None,
            t_recv,
            t_dispatched: t_recv,
            t_fwd_start: t_recv,
            t_fwd_end: t_recv,
            queue_len: 0,
            pit_size: 0,
        }))
    }

    /// Records a finished sample in its shard's histograms and the raw log.
    pub fn record(&self, shard: usize, rec: &Record) {
        if let Some(h) = self.shards.get(shard) {
            h.lock().unwrap_or_else(|e| e.into_inner()).record(rec);
        }
        self.recorded.fetch_add(1, Relaxed);
        if let Some(l) = &self.log {
            l.send(*rec);
        }
    }

    /// Every shard's histograms merged.
    pub fn merged(&self) -> StageHists {
        let mut all = StageHists::new();
        for h in &self.shards {
            all.add(&h.lock().unwrap_or_else(|e| e.into_inner()));
        }
        all
    }

    /// Writes out what the raw log holds so far and waits for it (shutdown, tests).
    pub fn flush_log(&self) {
        if let Some(l) = &self.log {
            l.flush();
        }
    }
}

/// Which packets of one burst are timed (from [`Latency::burst`]).
pub struct Sampler {
    base: u64,
    next: u64,
    len: u64,
    every: u64,
    /// When the burst reached the router (read only for a burst with a sample).
    pub t_recv: u64,
}

impl Sampler {
    /// Whether the burst's packet `i` (called for each in order) is timed; gives its
    /// sequence number then.
    #[inline]
    pub fn pick(&mut self, i: usize) -> Option<u64> {
        let i = i as u64;
        if i != self.next || i >= self.len {
            return None;
        }
        self.next += self.every;
        Some(self.base + i)
    }
}

/// What the shard does with the samples of a burst (see [`crate::runtime::shard`]).
pub type Samples = Vec<(usize, Box<Sample>)>;

/// Marks the sample's dispatch: the time its burst was handed to the shard and the
/// shard queue length then.
pub fn dispatched(samples: &mut Samples, now: u64, queue_len: usize) {
    for (_, s) in samples.iter_mut() {
        s.t_dispatched = now;
        s.queue_len = queue_len as u64;
    }
}
