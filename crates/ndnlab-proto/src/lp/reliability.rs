//! NDNLPv2 link reliability (NFD's `LpReliability`), as a sans-IO state machine.
//!
//! Optional per face and off by default. When it is on, every frame the link
//! service sends is an LpPacket with a `Sequence` (so the peer can drop
//! retransmitted duplicates) and this machine adds, just before the `Fragment`
//! (fields stay in increasing type order):
//!
//! * the `Ack`s (836, fixed 8 bytes each) owed to the peer, as many as fit in the MTU
//!   ("piggybacking"); acks still owed after `idle_ack` (5 ms) leave on their own in
//!   IDLE LpPackets (no Fragment);
//! * a `TxSequence` (840, fixed 8 bytes), fresh for every transmission.
//!
//! A sent frame waits in the unacknowledged table until the peer acks its
//! TxSequence. It is considered lost when its retransmission timer (RTO, from an
//! RFC 6298 RTT estimator sampled on never-retransmitted frames: Karn's rule) fires,
//! or when `loss_threshold` (3) acks for greater TxSequences arrived first (NFD's
//! "seq + 3" rule). A lost frame is sent again with a new TxSequence, up to
//! `max_retx` (3) times; after that the whole network-layer packet it belongs to is
//! given up (all its fragments leave the table) and counted.
//!
//! Call order (quinn-proto style; time is passed in, nothing here does I/O):
//! [`LpReliability::send`] for each outgoing network packet's frames,
//! [`LpReliability::on_receive`] for each incoming LpPacket's reliability fields
//! (false = a duplicate to drop), then whenever [`LpReliability::poll_timeout`] is
//! due: [`LpReliability::handle_timeout`] and [`LpReliability::poll_transmit`].

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use bytes::{BufMut, Bytes, BytesMut};
use ndnlab_wire::tlv::{self, types as t};

use ndnlab_wire::LpPacket;

use super::Nanos;

/// Encoded size of one `Ack` or `TxSequence` field: 3-byte type, length 8, value.
pub const SEQ_FIELD_LEN: usize = 3 + 1 + 8;

/// Tuning, with NFD's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReliabilityOptions {
    /// Retransmissions of a frame before its packet is given up (NFD: 3).
    pub max_retx: u32,
    /// How long an owed Ack may wait for a packet to ride on (NFD: 5 ms).
    pub idle_ack_ns: Nanos,
    /// Acks of greater TxSequences after which an unacked frame is lost (NFD: 3).
    pub loss_threshold: u32,
    /// RTO before the first RTT sample (RFC 6298: 1 s).
    pub initial_rto_ns: Nanos,
    /// Lower bound of the RTO (NFD's RttEstimator: 200 ms).
    pub min_rto_ns: Nanos,
    /// Upper bound of the RTO.
    pub max_rto_ns: Nanos,
    /// Most frames kept for retransmission; beyond it the oldest is given up.
    pub max_unacked: usize,
    /// How long a received `Sequence` is remembered to drop duplicates.
    pub dup_window_ns: Nanos,
}

impl Default for ReliabilityOptions {
    fn default() -> Self {
        ReliabilityOptions {
            max_retx: 3,
            idle_ack_ns: 5_000_000,
            loss_threshold: 3,
            initial_rto_ns: 1_000_000_000,
            min_rto_ns: 200_000_000,
            max_rto_ns: 4_000_000_000,
            max_unacked: 16_384,
            dup_window_ns: 2_000_000_000,
        }
    }
}

/// One frame to send reliably: its LP header fields whose types are below `Ack`
/// (Sequence, FragIndex, FragCount, PitToken, Nack, ..., CongestionMark), already
/// encoded, and the Fragment's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub header: Bytes,
    /// Header fields whose types follow TxSequence (NonDiscovery, PrefixAnnouncement),
    /// written after it.
    pub tail: Bytes,
    pub fragment: Bytes,
}

/// The reliability fields of one received LpPacket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxInfo {
    pub sequence: Option<u64>,
    pub tx_sequence: Option<u64>,
    pub acks: Vec<u64>,
    pub has_fragment: bool,
}

/// What happened, for the face counters (NFD's GenericLinkService counters and more).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReliabilityCounters {
    /// Frames sent for the first time (each with a TxSequence).
    pub frames_sent: u64,
    /// Frames the peer acknowledged (NFD: nAcknowledged).
    pub acknowledged: u64,
    /// Frames sent again (NFD: nRetransmitted).
    pub retransmitted: u64,
    /// Network packets given up after `max_retx` retransmissions (NFD: nRetxExhausted).
    pub retx_exhausted: u64,
    /// Frames declared lost by the sequence-gap rule.
    pub lost_by_gap: u64,
    /// Frames declared lost by their retransmission timer.
    pub lost_by_timeout: u64,
    /// Received frames dropped as duplicates of a recent Sequence (NFD: nDuplicateSequence).
    pub duplicates: u64,
    /// Acks sent (piggybacked or idle).
    pub acks_sent: u64,
    /// Acks that rode on a frame carrying a packet.
    pub acks_piggybacked: u64,
    /// IDLE LpPackets sent to carry acks alone.
    pub idle_ack_packets: u64,
    /// Acks received for a TxSequence not in the table (late, duplicate or unknown).
    pub unknown_acks: u64,
}

/// RFC 6298 RTT estimator (alpha 1/8, beta 1/4, K 4), bounded.
#[derive(Debug, Clone, Copy)]
struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    rto: Nanos,
}

impl RttEstimator {
    fn new(opts: &ReliabilityOptions) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            rto: opts.initial_rto_ns,
        }
    }

    fn add_sample(&mut self, rtt: Nanos, opts: &ReliabilityOptions) {
        let r = rtt as f64;
        let srtt = match self.srtt {
            None => {
                self.rttvar = r / 2.0;
                r
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                0.875 * s + 0.125 * r
            }
        };
        self.srtt = Some(srtt);
        let rto = (srtt + (4.0 * self.rttvar).max(1_000_000.0)) as Nanos;
        self.rto = rto.clamp(opts.min_rto_ns, opts.max_rto_ns);
    }
}

#[derive(Debug)]
struct Unacked {
    frame: Frame,
    /// The network-layer packet the frame belongs to.
    net: u64,
    sent_at: Nanos,
    deadline: Nanos,
    retx: u32,
    greater_acks: u32,
}

/// One face's reliability state (both directions).
#[derive(Debug)]
pub struct LpReliability {
    opts: ReliabilityOptions,
    mtu: usize,
    next_tx_seq: u64,
    next_net: u64,
    unacked: BTreeMap<u64, Unacked>,
    /// (deadline, TxSequence) of every unacked frame.
    timers: BTreeSet<(Nanos, u64)>,
    /// Frames found lost, to retransmit (or give up) in `poll_transmit`.
    lost: Vec<u64>,
    ack_queue: VecDeque<u64>,
    ack_deadline: Option<Nanos>,
    rtt: RttEstimator,
    recent: HashMap<u64, Nanos>,
    recent_order: VecDeque<(Nanos, u64)>,
    counters: ReliabilityCounters,
}

impl LpReliability {
    /// `mtu`: the largest frame the face sends; `seed`: the first TxSequence.
    pub fn new(opts: ReliabilityOptions, mtu: usize, seed: u64) -> Self {
        LpReliability {
            rtt: RttEstimator::new(&opts),
            opts,
            mtu,
            next_tx_seq: seed,
            next_net: 0,
            unacked: BTreeMap::new(),
            timers: BTreeSet::new(),
            lost: Vec::new(),
            ack_queue: VecDeque::new(),
            ack_deadline: None,
            recent: HashMap::new(),
            recent_order: VecDeque::new(),
            counters: ReliabilityCounters::default(),
        }
    }

    /// A new MTU (faces/update): later frames and ack packets fit in it.
    pub fn set_mtu(&mut self, mtu: usize) {
        self.mtu = mtu;
    }

    pub fn options(&self) -> &ReliabilityOptions {
        &self.opts
    }

    pub fn counters(&self) -> ReliabilityCounters {
        self.counters
    }

    /// Frames waiting for an ack.
    pub fn unacked(&self) -> usize {
        self.unacked.len()
    }

    /// Acks owed to the peer.
    pub fn pending_acks(&self) -> usize {
        self.ack_queue.len()
    }

    /// The current retransmission timeout.
    pub fn rto(&self) -> Nanos {
        self.rtt.rto
    }

    /// Room a frame's header and fragment may take so that the TxSequence and the
    /// LpPacket header still fit in the MTU (what the fragmenter must stay under).
    pub fn frame_budget(mtu: usize) -> usize {
        mtu.saturating_sub(SEQ_FIELD_LEN + 4)
    }

    /// Sends the frames of one network-layer packet: each gets a TxSequence and the
    /// acks that fit, and is kept for retransmission. Encoded frames go to `out`.
    pub fn send(
        &mut self,
        now: Nanos,
        frames: impl IntoIterator<Item = Frame>,
        out: &mut Vec<Bytes>,
    ) {
        let net = self.next_net;
        self.next_net = self.next_net.wrapping_add(1);
        for frame in frames {
            self.transmit(now, frame, net, 0, out);
            self.counters.frames_sent += 1;
        }
        self.bound_unacked();
    }

    fn transmit(&mut self, now: Nanos, frame: Frame, net: u64, retx: u32, out: &mut Vec<Bytes>) {
        let tx_seq = self.next_tx_seq;
        self.next_tx_seq = self.next_tx_seq.wrapping_add(1);
        let fixed = frame.header.len()
            + SEQ_FIELD_LEN
            + frame.tail.len()
            + tlv::tlv_len(t::FRAGMENT, frame.fragment.len());
        let nacks = self.acks_that_fit(fixed);
        let inner = fixed + nacks * SEQ_FIELD_LEN;
        let mut b = BytesMut::with_capacity(tlv::tlv_len(t::LP_PACKET, inner));
        tlv::put_header(&mut b, t::LP_PACKET, inner);
        b.extend_from_slice(&frame.header);
        self.put_acks(nacks, &mut b);
        if nacks > 0 {
            self.counters.acks_piggybacked += nacks as u64;
        }
        tlv::put_header(&mut b, t::TX_SEQUENCE, 8);
        b.put_u64(tx_seq);
        b.extend_from_slice(&frame.tail);
        tlv::put_tlv(&mut b, t::FRAGMENT, &frame.fragment);
        out.push(b.freeze());
        let deadline = now.saturating_add(self.rtt.rto);
        self.timers.insert((deadline, tx_seq));
        self.unacked.insert(
            tx_seq,
            Unacked {
                frame,
                net,
                sent_at: now,
                deadline,
                retx,
                greater_acks: 0,
            },
        );
    }

    /// How many queued acks fit beside `inner_without_acks` bytes of LpPacket value.
    fn acks_that_fit(&self, inner_without_acks: usize) -> usize {
        let mut k = self.ack_queue.len();
        if k == 0 {
            return 0;
        }
        let room = self
            .mtu
            .saturating_sub(tlv::tlv_len(t::LP_PACKET, inner_without_acks));
        k = k.min(room / SEQ_FIELD_LEN);
        while k > 0 && tlv::tlv_len(t::LP_PACKET, inner_without_acks + k * SEQ_FIELD_LEN) > self.mtu
        {
            k -= 1;
        }
        k
    }

    fn put_acks(&mut self, n: usize, b: &mut BytesMut) {
        for _ in 0..n {
            let Some(a) = self.ack_queue.pop_front() else {
                break;
            };
            tlv::put_header(b, t::ACK, 8);
            b.put_u64(a);
            self.counters.acks_sent += 1;
        }
        if self.ack_queue.is_empty() {
            self.ack_deadline = None;
        }
    }

    /// Keeps the table bounded: the oldest frames' packets are given up.
    fn bound_unacked(&mut self) {
        while self.unacked.len() > self.opts.max_unacked {
            let Some((&seq, _)) = self.unacked.iter().next() else {
                break;
            };
            self.give_up(seq);
        }
    }

    /// Processes the reliability fields of a received LpPacket. Returns false when
    /// the packet repeats a recently received Sequence (drop it; it is still acked).
    pub fn on_receive(&mut self, now: Nanos, rx: &RxInfo) -> bool {
        for &ack in &rx.acks {
            self.on_ack(now, ack);
        }
        if !rx.has_fragment {
            return true;
        }
        if let Some(tx) = rx.tx_sequence {
            if self.ack_queue.is_empty() {
                self.ack_deadline = Some(now.saturating_add(self.opts.idle_ack_ns));
            }
            self.ack_queue.push_back(tx);
        }
        let Some(seq) = rx.sequence else {
            return true;
        };
        self.forget_old_sequences(now);
        if self.recent.contains_key(&seq) {
            self.counters.duplicates += 1;
            return false;
        }
        let until = now.saturating_add(self.opts.dup_window_ns);
        self.recent.insert(seq, until);
        self.recent_order.push_back((until, seq));
        true
    }

    fn forget_old_sequences(&mut self, now: Nanos) {
        const MAX_RECENT: usize = 65_536;
        while let Some(&(until, seq)) = self.recent_order.front() {
            if until > now && self.recent_order.len() <= MAX_RECENT {
                break;
            }
            self.recent_order.pop_front();
            if self.recent.get(&seq) == Some(&until) {
                self.recent.remove(&seq);
            }
        }
    }

    fn on_ack(&mut self, now: Nanos, ack: u64) {
        let Some(frame) = self.unacked.remove(&ack) else {
            self.counters.unknown_acks += 1;
            return;
        };
        self.timers.remove(&(frame.deadline, ack));
        self.counters.acknowledged += 1;
        if frame.retx == 0 {
            self.rtt
                .add_sample(now.saturating_sub(frame.sent_at), &self.opts);
        }
        // Every older frame still unacked saw one more greater ack.
        let threshold = self.opts.loss_threshold;
        for (&seq, f) in self.unacked.range_mut(..ack) {
            f.greater_acks += 1;
            if f.greater_acks == threshold {
                self.lost.push(seq);
                self.counters.lost_by_gap += 1;
            }
        }
    }

    /// Expires retransmission timers whose time has come.
    pub fn handle_timeout(&mut self, now: Nanos) {
        while let Some(&(deadline, seq)) = self.timers.first() {
            if deadline > now {
                break;
            }
            self.timers.pop_first();
            if let Some(f) = self.unacked.get_mut(&seq) {
                // Already queued by the gap rule: do not count it twice.
                if f.greater_acks < self.opts.loss_threshold {
                    f.greater_acks = self.opts.loss_threshold;
                    self.lost.push(seq);
                    self.counters.lost_by_timeout += 1;
                }
            }
        }
    }

    /// When to call `handle_timeout` + `poll_transmit` next.
    pub fn poll_timeout(&self) -> Option<Nanos> {
        if !self.lost.is_empty() {
            return Some(0);
        }
        let ack = self.ack_deadline.filter(|_| !self.ack_queue.is_empty());
        let rto = self.timers.first().map(|&(d, _)| d);
        match (ack, rto) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    }

    /// Retransmissions of lost frames (or give-ups), then IDLE packets for acks
    /// whose idle timer expired.
    pub fn poll_transmit(&mut self, now: Nanos, out: &mut Vec<Bytes>) {
        let mut lost = std::mem::take(&mut self.lost);
        lost.sort_unstable();
        for seq in lost.drain(..) {
            let Some(f) = self.unacked.get(&seq) else {
                continue; // acked meanwhile, or its packet was given up
            };
            if f.retx >= self.opts.max_retx {
                self.give_up(seq);
                continue;
            }
            let Some(f) = self.unacked.remove(&seq) else {
                continue;
            };
            self.timers.remove(&(f.deadline, seq));
            self.counters.retransmitted += 1;
            self.transmit(now, f.frame, f.net, f.retx + 1, out);
        }
        self.lost = lost;
        if self.ack_deadline.is_some_and(|d| d <= now) {
            self.flush_acks(out);
        }
    }

    /// Sends every owed ack now in IDLE LpPackets.
    pub fn flush_acks(&mut self, out: &mut Vec<Bytes>) {
        while !self.ack_queue.is_empty() {
            let n = self.acks_that_fit(0).max(1);
            let inner = n.min(self.ack_queue.len()) * SEQ_FIELD_LEN;
            let mut b = BytesMut::with_capacity(tlv::tlv_len(t::LP_PACKET, inner));
            tlv::put_header(&mut b, t::LP_PACKET, inner);
            self.put_acks(n, &mut b);
            self.counters.idle_ack_packets += 1;
            out.push(b.freeze());
        }
        self.ack_deadline = None;
    }

    /// Gives up the network packet `seq` belongs to: all its frames leave the table.
    fn give_up(&mut self, seq: u64) {
        let Some(net) = self.unacked.get(&seq).map(|f| f.net) else {
            return;
        };
        let gone: Vec<(u64, Nanos)> = self
            .unacked
            .iter()
            .filter(|(_, f)| f.net == net)
            .map(|(&s, f)| (s, f.deadline))
            .collect();
        for (s, deadline) in gone {
            self.unacked.remove(&s);
            self.timers.remove(&(deadline, s));
        }
        self.counters.retx_exhausted += 1;
    }
}

impl RxInfo {
    /// The reliability fields of a decoded LpPacket.
    pub fn of(lp: &LpPacket) -> RxInfo {
        RxInfo {
            sequence: lp.sequence(),
            tx_sequence: lp.tx_sequence(),
            acks: lp.acks().to_vec(),
            has_fragment: lp.fragment().is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lp::{LinkReceiver, LinkSender, LpFields};

    const MS: Nanos = 1_000_000;
    const MTU: usize = 1400;

    fn data(len: usize, tag: u8) -> Bytes {
        let mut b = BytesMut::new();
        tlv::put_header(&mut b, t::DATA, len);
        b.extend((0..len).map(|i| (i as u8) ^ tag));
        b.freeze()
    }

    /// One end of a link: a link service with reliability on.
    struct End {
        tx: LinkSender,
        rx: LinkReceiver,
        rel: LpReliability,
        delivered: Vec<Bytes>,
    }

    impl End {
        fn new(seed: u64) -> End {
            End::with(seed, ReliabilityOptions::default())
        }

        fn with(seed: u64, opts: ReliabilityOptions) -> End {
            End {
                tx: LinkSender::new(Some(MTU), seed),
                rx: LinkReceiver::new(),
                rel: LpReliability::new(opts, MTU, seed * 7),
                delivered: Vec::new(),
            }
        }

        fn send(&mut self, now: Nanos, pkt: &Bytes, wire: &mut Vec<Bytes>) {
            let mut frames = Vec::new();
            self.tx.reliable_frames(
                &LpFields::default(),
                pkt,
                LpReliability::frame_budget(MTU),
                &mut frames,
            );
            self.rel.send(now, frames, wire);
        }

        fn receive(&mut self, now: Nanos, frame: Bytes) {
            let rel = &mut self.rel;
            let got = self
                .rx
                .receive_with(now, frame, |lp| rel.on_receive(now, &RxInfo::of(lp)));
            if let Some((_, p)) = got.expect("well-formed") {
                self.delivered.push(p);
            }
        }

        fn poll(&mut self, now: Nanos, wire: &mut Vec<Bytes>) {
            self.rel.handle_timeout(now);
            self.rel.poll_transmit(now, wire);
        }
    }

    /// A lossy in-memory link in virtual time: every `drop_every`-th frame in each
    /// direction is lost, the others arrive `delay` later.
    struct Link {
        drop_every: u64,
        delay: Nanos,
        sent: [u64; 2],
        dropped: u64,
        in_flight: Vec<(Nanos, usize, Bytes)>,
    }

    impl Link {
        fn carry(&mut self, now: Nanos, to: usize, frames: &mut Vec<Bytes>) {
            for f in frames.drain(..) {
                assert!(f.len() <= MTU, "frame of {} bytes over the MTU", f.len());
                self.sent[to] += 1;
                if self.sent[to].checked_rem(self.drop_every) == Some(0) {
                    self.dropped += 1;
                    continue;
                }
                self.in_flight.push((now + self.delay, to, f));
            }
        }
    }

    /// Runs `a` sending `pkts` to `b` over the lossy link until everything settles.
    fn run(drop_every: u64, opts: ReliabilityOptions, pkts: &[Bytes]) -> (End, End, Link) {
        let mut ends = [End::with(1, opts), End::with(2, opts)];
        let mut link = Link {
            drop_every,
            delay: 2 * MS,
            sent: [0, 0],
            dropped: 0,
            in_flight: Vec::new(),
        };
        let mut wire = Vec::new();
        let mut now = 0;
        for (i, p) in pkts.iter().enumerate() {
            ends[0].send(now, p, &mut wire);
            link.carry(now, 1, &mut wire);
            if i % 8 == 7 {
                now += MS; // a burst of 8 per millisecond
            }
            step(&mut ends, &mut link, now, &mut wire);
        }
        // Let timers and acks settle (a minute of virtual time at most).
        let end = now + 60_000 * MS;
        while now < end {
            now += MS;
            step(&mut ends, &mut link, now, &mut wire);
            if link.in_flight.is_empty()
                && ends
                    .iter()
                    .all(|e| e.rel.unacked() == 0 && e.rel.pending_acks() == 0)
            {
                break;
            }
        }
        let [a, b] = ends;
        (a, b, link)
    }

    fn step(ends: &mut [End; 2], link: &mut Link, now: Nanos, wire: &mut Vec<Bytes>) {
        let (due, later): (Vec<_>, Vec<_>) =
            link.in_flight.drain(..).partition(|(t, _, _)| *t <= now);
        link.in_flight = later;
        for (_, to, f) in due {
            ends[to].receive(now, f);
        }
        for (i, e) in ends.iter_mut().enumerate() {
            if e.rel.poll_timeout().is_some_and(|t| t <= now) {
                e.poll(now, wire);
                link.carry(now, 1 - i, wire);
            }
        }
    }

    #[test]
    fn lossless_link_delivers_and_acks_everything() {
        let pkts: Vec<Bytes> = (0..100).map(|i| data(300, i as u8)).collect();
        let (a, b, link) = run(0, ReliabilityOptions::default(), &pkts);
        assert_eq!(b.delivered, pkts);
        let c = a.rel.counters();
        assert_eq!(c.frames_sent, 100);
        assert_eq!(c.acknowledged, 100);
        assert_eq!(c.retransmitted, 0);
        assert_eq!(b.rel.counters().acks_sent, 100);
        assert_eq!(link.dropped, 0);
        // The RTO learned from samples of about 2-7 ms is the 200 ms floor.
        assert_eq!(a.rel.rto(), 200 * MS);
    }

    #[test]
    fn lossy_link_dropping_every_nth_frame_still_delivers_everything() {
        let mut duplicates = 0;
        for n in [3, 5, 10] {
            // Packets of 300 B and of 5 KB (4 fragments each) mixed.
            let pkts: Vec<Bytes> = (0..200)
                .map(|i| data(if i % 4 == 0 { 5000 } else { 300 }, i as u8))
                .collect();
            // A fixed drop pattern hits the same places of a retransmitted batch
            // round after round (a batch of 10 over a link dropping every 5th
            // frame loses the same 2 each time until other traffic shifts the
            // count), so at these heavy loss rates the link gets more
            // retransmissions than NFD's 3 (which suffice at 1 in 10 and less,
            // next test; at 1 in 7 one frame in 350 is given up). The give-up
            // after max_retx is tested below.
            let opts = ReliabilityOptions {
                max_retx: 10,
                ..Default::default()
            };
            let (a, b, link) = run(n, opts, &pkts);
            assert!(link.dropped > 0);
            let c = a.rel.counters();
            assert_eq!(
                b.delivered.len(),
                pkts.len(),
                "every {n}th frame dropped: {c:?} {:?} reassembly timeouts {}",
                b.rel.counters(),
                b.rx.reassembly_timeouts
            );
            // Each packet exactly once (repairs may reorder them).
            let mut got = b.delivered.clone();
            let mut want = pkts.clone();
            got.sort();
            want.sort();
            assert!(
                got == want,
                "every {n}th frame dropped: delivered packets differ"
            );
            let c = a.rel.counters();
            assert!(c.retransmitted > 0, "{c:?}");
            assert_eq!(c.retx_exhausted, 0, "{c:?}");
            duplicates += b.rel.counters().duplicates;
            assert!(c.lost_by_gap > 0, "the seq+3 rule found losses: {c:?}");
            assert_eq!(a.rel.unacked(), 0);
        }
        assert!(
            duplicates > 0,
            "retransmissions of frames that had arrived (their ack was lost) are dropped"
        );
    }

    #[test]
    fn nfd_defaults_repair_one_loss_in_ten() {
        let pkts: Vec<Bytes> = (0..200)
            .map(|i| data(if i % 4 == 0 { 5000 } else { 300 }, i as u8))
            .collect();
        for n in [10, 13, 20] {
            let (a, b, link) = run(n, ReliabilityOptions::default(), &pkts);
            let c = a.rel.counters();
            assert!(link.dropped > 0);
            assert_eq!(
                b.delivered.len(),
                pkts.len(),
                "every {n}th frame dropped: {c:?}"
            );
            assert_eq!(c.retx_exhausted, 0, "{c:?}");
        }
    }

    #[test]
    fn acks_are_well_formed_and_in_type_order() {
        let mut a = End::new(1);
        let mut b = End::new(2);
        let mut wire = Vec::new();
        a.send(0, &data(100, 1), &mut wire);
        a.send(0, &data(100, 2), &mut wire);
        let tx_seqs: Vec<u64> = wire
            .iter()
            .map(|f| LpPacket::decode(f.clone()).unwrap().tx_sequence().unwrap())
            .collect();
        for f in wire.drain(..) {
            b.receive(MS, f);
        }
        // b piggybacks both acks on its next packet, between the header and the Fragment.
        b.send(2 * MS, &data(50, 3), &mut wire);
        let frame = wire.pop().unwrap();
        let lp = LpPacket::decode(frame.clone()).expect("the codec accepts it");
        assert_eq!(lp.acks(), tx_seqs.as_slice());
        assert!(lp.tx_sequence().is_some() && lp.sequence().is_some());
        let el = tlv::read_element(&frame, 0, frame.len()).unwrap();
        let types: Vec<u64> = tlv::Elements::new(&frame, el.value.clone())
            .map(|e| e.unwrap().typ)
            .collect();
        assert_eq!(types, vec![81, 836, 836, 840, 80]);
        // Ack: FD 03 44 (836), length 8, the TxSequence big-endian.
        let ack_at = frame
            .windows(4)
            .position(|w| w == [0xFD, 0x03, 0x44, 8])
            .unwrap();
        assert_eq!(&frame[ack_at + 4..ack_at + 12], &tx_seqs[0].to_be_bytes());
        assert_eq!(b.rel.pending_acks(), 0);
        assert_eq!(b.rel.counters().acks_piggybacked, 2);
    }

    #[test]
    fn idle_acks_leave_alone_after_the_timer() {
        let mut a = End::new(1);
        let mut b = End::new(2);
        let mut wire = Vec::new();
        for i in 0..300 {
            a.send(0, &data(20, i as u8), &mut wire);
        }
        for f in wire.drain(..) {
            b.receive(10 * MS, f);
        }
        assert_eq!(b.rel.poll_timeout(), Some(15 * MS));
        b.poll(14 * MS, &mut wire);
        assert!(wire.is_empty());
        b.poll(15 * MS, &mut wire);
        // 300 acks of 12 B: three IDLE packets under a 1400-byte MTU.
        assert_eq!(wire.len(), 3);
        let mut acked = 0;
        for f in wire.drain(..) {
            assert!(f.len() <= MTU);
            let lp = LpPacket::decode(f.clone()).unwrap();
            assert!(lp.fragment().is_none() && lp.tx_sequence().is_none());
            acked += lp.acks().len();
            a.receive(16 * MS, f);
        }
        assert_eq!(acked, 300);
        assert_eq!(a.rel.unacked(), 0);
        assert_eq!(a.rel.counters().acknowledged, 300);
        assert_eq!(b.rel.counters().idle_ack_packets, 3);
        assert_eq!(b.rel.poll_timeout(), None);
    }

    #[test]
    fn rto_retransmits_with_a_new_tx_sequence_then_gives_up() {
        let mut a = End::new(1);
        let mut wire = Vec::new();
        a.send(0, &data(3000, 1), &mut wire); // 3 fragments
        assert_eq!(wire.len(), 3);
        let first: Vec<u64> = wire
            .iter()
            .map(|f| LpPacket::decode(f.clone()).unwrap().tx_sequence().unwrap())
            .collect();
        let seqs: Vec<u64> = wire
            .iter()
            .map(|f| LpPacket::decode(f.clone()).unwrap().sequence().unwrap())
            .collect();
        wire.clear();
        assert_eq!(a.rel.poll_timeout(), Some(1000 * MS));
        let mut now = 1000 * MS;
        for round in 1..=3u64 {
            a.poll(now, &mut wire);
            assert_eq!(wire.len(), 3, "round {round}");
            for (i, f) in wire.drain(..).enumerate() {
                let lp = LpPacket::decode(f).unwrap();
                assert!(!first.contains(&lp.tx_sequence().unwrap()));
                assert_eq!(
                    lp.sequence(),
                    Some(seqs[i]),
                    "same Sequence: the peer can drop duplicates"
                );
            }
            now = a.rel.poll_timeout().unwrap();
        }
        a.poll(now, &mut wire);
        assert!(wire.is_empty());
        let c = a.rel.counters();
        assert_eq!(c.retransmitted, 9);
        assert_eq!(c.lost_by_timeout, 12);
        assert_eq!(c.retx_exhausted, 1);
        assert_eq!(a.rel.unacked(), 0);
        assert_eq!(a.rel.poll_timeout(), None);
    }

    #[test]
    fn gap_of_three_acks_declares_a_frame_lost() {
        let mut a = End::new(1);
        let mut wire = Vec::new();
        for i in 0..5 {
            a.send(0, &data(10, i), &mut wire);
        }
        let tx: Vec<u64> = wire
            .iter()
            .map(|f| LpPacket::decode(f.clone()).unwrap().tx_sequence().unwrap())
            .collect();
        wire.clear();
        let ack = |a: &mut End, s: u64| {
            a.rel.on_receive(
                MS,
                &RxInfo {
                    acks: vec![s],
                    ..Default::default()
                },
            )
        };
        ack(&mut a, tx[1]);
        ack(&mut a, tx[2]);
        assert_ne!(a.rel.poll_timeout(), Some(0));
        ack(&mut a, tx[3]);
        assert_eq!(
            a.rel.poll_timeout(),
            Some(0),
            "tx[0] lost after 3 greater acks"
        );
        a.poll(MS, &mut wire);
        assert_eq!(wire.len(), 1);
        let c = a.rel.counters();
        assert_eq!((c.lost_by_gap, c.retransmitted, c.acknowledged), (1, 1, 3));
        // An ack for an unknown TxSequence is only counted.
        ack(&mut a, 999_999);
        assert_eq!(a.rel.counters().unknown_acks, 1);
    }

    #[test]
    fn duplicate_sequence_is_dropped_but_acked() {
        let mut b = End::new(2);
        let info = RxInfo {
            sequence: Some(42),
            tx_sequence: Some(7),
            acks: vec![],
            has_fragment: true,
        };
        assert!(b.rel.on_receive(0, &info));
        let again = RxInfo {
            tx_sequence: Some(8),
            ..info.clone()
        };
        assert!(!b.rel.on_receive(MS, &again));
        assert_eq!(b.rel.counters().duplicates, 1);
        assert_eq!(b.rel.pending_acks(), 2);
        // Forgotten after the window.
        assert!(b.rel.on_receive(3000 * MS, &info));
    }

    #[test]
    fn fragments_with_fields_and_many_acks_fit_the_mtu() {
        let mut a = End::new(1);
        let mut b = End::new(2);
        // b owes a 200 acks.
        for s in 0..200 {
            b.rel.on_receive(
                0,
                &RxInfo {
                    tx_sequence: Some(s),
                    has_fragment: true,
                    ..Default::default()
                },
            );
        }
        let fields = LpFields {
            pit_token: Some(Bytes::from_static(&[7; 8])),
            congestion_mark: 1,
            ..Default::default()
        };
        let pkt = data(5000, 9);
        let mut frames = Vec::new();
        b.tx.reliable_frames(&fields, &pkt, LpReliability::frame_budget(MTU), &mut frames);
        assert_eq!(frames.len(), 4);
        let mut wire = Vec::new();
        b.rel.send(MS, frames, &mut wire);
        let mut acks = 0;
        for f in &wire {
            assert!(f.len() <= MTU, "{} > {MTU}", f.len());
            let lp = LpPacket::decode(f.clone()).unwrap();
            acks += lp.acks().len();
            assert_eq!(lp.frag_count(), Some(4));
        }
        // Full fragments leave little room: what did not fit waits for the idle timer.
        assert!(acks > 0, "acks rode in the fragments' spare room");
        assert_eq!(acks + b.rel.pending_acks(), 200);
        // a reassembles the packet with its fields, and acks the four frames.
        for f in wire {
            a.receive(2 * MS, f);
        }
        assert_eq!(a.delivered, vec![pkt]);
        assert_eq!(a.rel.counters().acknowledged, 0);
        assert_eq!(a.rel.pending_acks(), 4);
    }

    #[test]
    fn unacked_table_is_bounded() {
        let opts = ReliabilityOptions {
            max_unacked: 10,
            ..Default::default()
        };
        let mut r = LpReliability::new(opts, MTU, 0);
        let mut out = Vec::new();
        for i in 0..25u8 {
            let f = Frame {
                header: Bytes::new(),
                tail: Bytes::new(),
                fragment: data(10, i),
            };
            r.send(0, [f], &mut out);
        }
        assert_eq!(r.unacked(), 10);
        assert_eq!(r.counters().retx_exhausted, 15);
    }
}
