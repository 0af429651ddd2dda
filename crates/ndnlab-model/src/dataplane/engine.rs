//! One bounded run of the data-plane model, event by event in virtual time.
//!
//! The forwarder is a network of queueing stations ([`ndnlab_des::fifo::Server`]):
//!
//! ```text
//! consumer ─link─▶ input(face0) ─NDT─▶ fwd[k] ─▶ output(face1) ─link─▶ producer
//! consumer ◀─link─ output(face0) ◀──── fwd[k] ◀─token─ input(face1) ◀─link─┘
//! ```
//!
//! An Interest goes to the forwarding thread its name prefix hashes to in the
//! Name Dispatch Table; its Data comes back to the same thread (the PIT token).
//! Every station serves one packet at a time from a bounded queue; the
//! forwarding threads' queues follow the drop policy (tail drop, or Data before
//! Interests). A packet that comes from a thread on another NUMA node pays the
//! penalty distribution on top of its service time. Links are pure delays.
//!
//! There is no general event heap (`ndnlab_des::EventQueue`): every event
//! source has at most one event pending, so the pending times sit in one
//! array and the next event is `ndnlab_des::earliest` of it (the specialised
//! copy of the event queue; its module says why). Events are only needed where packets from
//! different places meet in a queue: the input threads (their completions
//! feed the forwarding threads) and the forwarding threads. Downstream of a
//! forwarding thread nothing competes before a constant delay or the end of
//! the path, so the output threads and the producer are [`Passage`]s: a
//! packet's departure is computed when it arrives, and an Interest's Data is
//! put straight on the return line with its arrival time at the producer's
//! input thread (FIFO stations and constant delays keep that line in order).
//! The next event is then the earliest of the consumer's next Interest
//! ([`ARRIVAL`]), the return line's head ([`BACK`]) and the stations'
//! completion times (from [`STATION`] on). Ties go to the lowest index, so a
//! seed always gives the same run.

use std::collections::VecDeque;

use ndnlab_des::fifo::{Offered, Passage, Server};
use ndnlab_des::rng::{fast_rng, mix, FastRng};
use ndnlab_des::{earliest, Class, DropPolicy, Tabulated, IDLE};
use rand::Rng;
use rand_distr::{Distribution, Exp};

use super::observe::{Cause, Observables, Trace};
use super::spec::{Pattern, Resolved};

/// A packet in flight: which Interest it belongs to, its forwarding thread,
/// and the NUMA node of the thread that handed it over.
#[derive(Debug, Clone, Copy)]
struct Pkt {
    seq: u32,
    thread: u16,
    from: u8,
    data: bool,
}

/// A station's kind; the first three index `Resolved::wakeup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Input = 0,
    Fwd = 1,
    Output = 2,
    Producer = 3,
}

/// Where an Interest stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Sent,
    InPit,
    Satisfied,
    Done,
}

/// The pending times' index of the consumer's next Interest.
const ARRIVAL: usize = 0;
/// ... of the return line's head.
const BACK: usize = 1;
/// ... of the first station's completion (station `s` is `STATION + s`).
const STATION: usize = 2;

/// A run in progress. `Clone` (with [`Sim::reseed`]) is what importance
/// splitting needs.
#[derive(Clone)]
pub struct Sim<'a> {
    r: &'a Resolved,
    rng: FastRng,
    now: u64,
    st: Vec<Server<Pkt>>,
    kind: Vec<Kind>,
    node: Vec<u8>,
    /// The pending time of every event source ([`ARRIVAL`], [`BACK`],
    /// [`STATION`]...), [`IDLE`] when it has none.
    due: Vec<u64>,
    first_fwd: usize,
    /// Thread of each prefix (the Name Dispatch Table).
    ndt: Vec<u16>,
    emitted: u32,
    emit_at: f64,
    sent_at: Vec<u64>,
    state: Vec<State>,
    /// The output threads (by face) and the producer.
    outputs: Vec<Passage>,
    producer: Passage,
    /// Data on their way to the producer's input thread, in arrival order.
    back: VecDeque<(u64, Pkt)>,
    pit: u32,
    pit_expiry: VecDeque<(u64, u32)>,
    obs: Observables,
    latencies: Vec<u32>,
    trace: Option<Trace>,
    exp: Exp<f64>,
}

#[inline(always)]
fn service(r: &Resolved, kind: Kind, node: u8, rng: &mut FastRng, class: Class, p: &Pkt) -> u64 {
    let d = class == Class::Data;
    let base: &Tabulated = match kind {
        Kind::Input => &r.input[d as usize],
        Kind::Fwd => &r.fwd[d as usize],
        Kind::Output => &r.output[d as usize],
        Kind::Producer => &r.producer,
    };
    let mut t = base.sample(rng);
    if p.from != node && kind != Kind::Producer && !r.penalty.is_zero() {
        t += r.penalty.sample(rng);
    }
    t
}

impl<'a> Sim<'a> {
    /// A run of `r` seeded by `seed`; `trace_ns` > 0 samples queue lengths
    /// and PIT size that often.
    pub fn new(r: &'a Resolved, seed: u64, trace_ns: u64) -> Sim<'a> {
        Sim::with_scratch(r, seed, trace_ns, Scratch::default())
    }

    /// As [`Sim::new`], reusing another run's buffers (no fresh pages to fault in).
    fn with_scratch(r: &'a Resolved, seed: u64, trace_ns: u64, mut b: Scratch) -> Sim<'a> {
        let rng = fast_rng(seed);
        let pl = &r.placement;
        let mut kind = Vec::new();
        let mut node = Vec::new();
        let mut st = Vec::new();
        for f in 0..r.input_threads as u8 {
            kind.push(Kind::Input);
            node.push(if f == 0 { pl.face0 } else { pl.face1 });
            st.push(Server::new(r.input_queue, DropPolicy::TailDrop));
        }
        let first_fwd = kind.len();
        for _ in 0..r.threads {
            kind.push(Kind::Fwd);
            node.push(pl.fwd);
            st.push(Server::new(r.queue, r.policy));
        }
        // The same table in every run, as a forwarder's is fixed: prefix p
        // goes to the thread its hash picks.
        let ndt = (0..r.prefixes)
            .map(|p| (mix(u64::from(p)) % r.threads as u64) as u16)
            .collect();
        let n = r.interests as usize;
        let mut sim = Sim {
            r,
            rng,
            now: 0,
            due: vec![IDLE; STATION + st.len()],
            st,
            kind,
            node,
            first_fwd,
            ndt,
            emitted: 0,
            emit_at: 0.0,
            sent_at: {
                b.sent_at.clear();
                b.sent_at.resize(n, 0);
                b.sent_at
            },
            state: {
                b.state.clear();
                b.state.resize(n, State::Sent);
                b.state
            },
            outputs: vec![Passage::new(r.output_queue); r.output_threads],
            producer: Passage::new(0),
            back: {
                b.back.clear();
                b.back
            },
            pit: 0,
            pit_expiry: {
                b.pit_expiry.clear();
                b.pit_expiry
            },
            obs: Observables::default(),
            latencies: {
                b.latencies.clear();
                b.latencies.reserve(n);
                b.latencies
            },
            trace: (trace_ns > 0).then(|| Trace::new(trace_ns, r.threads)),
            exp: Exp::new(1.0 / r.interval_ns).expect("a positive interval"),
        };
        sim.due[ARRIVAL] = sim.emit_time() + r.consumer_link_ns;
        sim
    }

    /// Gives the run a new random stream (a clone goes its own way).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = fast_rng(seed);
    }

    /// Virtual time of the last event, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The send time of Interest `self.emitted`.
    fn emit_time(&mut self) -> u64 {
        let k = self.emitted;
        match self.r.pattern {
            Pattern::Constant => self.emit_at = f64::from(k) * self.r.interval_ns,
            Pattern::Poisson => {
                if k > 0 {
                    self.emit_at += self.exp.sample(&mut self.rng);
                }
            }
            Pattern::Burst(n) => {
                self.emit_at = f64::from(k / n) * f64::from(n) * self.r.interval_ns
            }
        }
        self.emit_at.round() as u64
    }

    fn observed(&self, seq: u32) -> bool {
        seq >= self.r.warmup
    }

    /// Processes the next event; `false` once the run is over.
    pub fn step(&mut self) -> bool {
        let Some((which, best)) = earliest(&self.due) else {
            return false;
        };
        self.now = best;
        if let Some(tr) = self.trace.as_mut() {
            if best >= tr.next_at {
                self.sample_trace();
            }
        }
        match which {
            ARRIVAL => self.emit(),
            BACK => {
                let (_, p) = self.back.pop_front().expect("a head");
                self.due[BACK] = self.back.front().map_or(IDLE, |e| e.0);
                self.obs.packets += 1.0;
                self.offer(self.r.input_threads - 1, p);
            }
            s => self.complete(s - STATION),
        }
        true
    }

    /// The consumer's next Interest reaches the input thread of face 0.
    fn emit(&mut self) {
        let seq = self.emitted;
        let prefix = self.rng.gen_range(0..self.r.prefixes) as usize;
        let p = Pkt {
            seq,
            thread: self.ndt[prefix],
            from: self.r.placement.face0,
            data: false,
        };
        self.sent_at[seq as usize] = self.now - self.r.consumer_link_ns;
        self.emitted += 1;
        self.due[ARRIVAL] = if self.emitted < self.r.interests {
            self.emit_time() + self.r.consumer_link_ns
        } else {
            IDLE
        };
        self.obs.packets += 1.0;
        self.offer(0, p);
    }

    /// Runs to the end.
    pub fn run(mut self) -> (Observables, Option<Trace>) {
        while self.step() {}
        self.finish()
    }

    /// Steps until `score()` reaches `level` (`true`) or the run ends (`false`).
    pub fn run_until(&mut self, level: f64) -> bool {
        while self.score() < level {
            if !self.step() {
                return false;
            }
        }
        true
    }

    /// How close the run came to losing a packet in a forwarding queue: the
    /// longest any forwarding queue has been, plus one once a packet was lost
    /// there. A loss is `score() >= queue + 1`.
    pub fn score(&self) -> f64 {
        self.obs.max_queue
            + f64::from(u8::from(
                self.obs.loss_queue + self.obs.loss_pushed_out > 0.0,
            ))
    }

    fn offer(&mut self, s: usize, mut p: Pkt) {
        let class = if p.data { Class::Data } else { Class::Interest };
        if self.kind[s] == Kind::Input {
            p.from = self.node[s];
        }
        let (r, kind, node, rng) = (self.r, self.kind[s], self.node[s], &mut self.rng);
        // A packet that finds the thread idle waits for it to wake up.
        let wake = (self.due[STATION + s] == IDLE)
            .then(|| &r.wakeup[kind as usize])
            .filter(|w| !w.is_zero());
        let mut cost = |c: Class, p: &mut Pkt| {
            let t = service(r, kind, node, rng, c, p);
            t + wake.map_or(0, |w| w.sample(rng))
        };
        let dropped = match self.st[s].offer(self.now, class, p, &mut cost) {
            Offered::Queued(started) => {
                if let Some(d) = started {
                    self.due[STATION + s] = d;
                }
                None
            }
            Offered::PushedOut(started, x) => {
                if let Some(d) = started {
                    self.due[STATION + s] = d;
                }
                self.lost(x, Cause::PushedOut);
                None
            }
            Offered::Full(x) => Some(x),
        };
        if let Some(x) = dropped {
            let cause = match kind {
                Kind::Fwd => Cause::QueueFull,
                _ => Cause::InputFull,
            };
            self.lost(x, cause);
            return;
        }
        let q = self.st[s].queue_len() as f64;
        match kind {
            Kind::Fwd if q > self.obs.max_queue => self.obs.max_queue = q,
            Kind::Input if q > self.obs.max_input_queue => self.obs.max_input_queue = q,
            _ => {}
        }
    }

    fn complete(&mut self, s: usize) {
        let (r, kind, node, rng) = (self.r, self.kind[s], self.node[s], &mut self.rng);
        let mut cost = |c: Class, p: &mut Pkt| service(r, kind, node, rng, c, p);
        let (mut p, next) = self.st[s].complete(self.now, &mut cost);
        self.due[STATION + s] = next.unwrap_or(IDLE);
        p.from = node;
        match kind {
            Kind::Fwd if !p.data => {
                self.expire();
                self.state[p.seq as usize] = State::InPit;
                self.pit += 1;
                self.pit_expiry
                    .push_back((self.now + self.r.lifetime_ns, p.seq));
                if f64::from(self.pit) > self.obs.max_pit {
                    self.obs.max_pit = f64::from(self.pit);
                }
                self.send_to_producer(p);
            }
            Kind::Fwd => {
                self.expire();
                if self.state[p.seq as usize] == State::InPit {
                    self.state[p.seq as usize] = State::Satisfied;
                    self.pit -= 1;
                    self.send_to_consumer(p);
                } else {
                    self.lost(p, Cause::Expired);
                }
            }
            _ => self.offer(self.first_fwd + p.thread as usize, p),
        }
    }

    /// An Interest leaves a forwarding thread: through the output thread of
    /// face 1 and the link to the producer, whose Data goes on the return line.
    fn send_to_producer(&mut self, mut p: Pkt) {
        let (r, rng) = (self.r, &mut self.rng);
        let o = r.output_threads - 1;
        let node = if o == 0 {
            r.placement.face0
        } else {
            r.placement.face1
        };
        let mut d = service(r, Kind::Output, node, rng, Class::Interest, &p);
        let wake = &r.wakeup[Kind::Output as usize];
        if !wake.is_zero() && self.outputs[o].idle_at(self.now) {
            d += wake.sample(rng);
        }
        let Some(out) = self.outputs[o].pass(self.now, d) else {
            self.lost(p, Cause::OutputFull);
            return;
        };
        let d = service(r, Kind::Producer, node, rng, Class::Interest, &p);
        let answered = self
            .producer
            .pass(out + r.producer_link_ns, d)
            .expect("an unbounded producer");
        p.data = true;
        let at = answered + r.producer_link_ns;
        if self.back.is_empty() {
            self.due[BACK] = at;
        }
        self.back.push_back((at, p));
    }

    /// A Data leaves a forwarding thread: through the output thread of face 0
    /// and the link to the consumer.
    fn send_to_consumer(&mut self, p: Pkt) {
        let (r, rng) = (self.r, &mut self.rng);
        let node = r.placement.face0;
        let mut d = service(r, Kind::Output, node, rng, Class::Data, &p);
        let wake = &r.wakeup[Kind::Output as usize];
        if !wake.is_zero() && self.outputs[0].idle_at(self.now) {
            d += wake.sample(rng);
        }
        match self.outputs[0].pass(self.now, d) {
            Some(out) => self.deliver(p, out + r.consumer_link_ns),
            None => self.lost(p, Cause::OutputFull),
        }
    }

    /// PIT entries whose lifetime is over leave the PIT.
    fn expire(&mut self) {
        while let Some(&(at, seq)) = self.pit_expiry.front() {
            if at > self.now {
                break;
            }
            self.pit_expiry.pop_front();
            if self.state[seq as usize] == State::InPit {
                self.state[seq as usize] = State::Done;
                self.pit -= 1;
            }
        }
    }

    /// Data reaches the consumer at `at`.
    fn deliver(&mut self, p: Pkt, at: u64) {
        let latency = at - self.sent_at[p.seq as usize];
        if latency > self.r.lifetime_ns {
            self.lost(p, Cause::Expired);
            return;
        }
        self.state[p.seq as usize] = State::Done;
        if self.observed(p.seq) {
            self.obs.satisfied += 1.0;
            self.latencies.push(latency.min(u64::from(u32::MAX)) as u32);
            if at as f64 > self.obs.duration {
                self.obs.duration = at as f64;
            }
        }
    }

    /// The Interest of `p` will not be satisfied: counts its cause once.
    fn lost(&mut self, p: Pkt, cause: Cause) {
        if !self.observed(p.seq) {
            return;
        }
        let t = self.now as f64;
        if t < self.obs.first_loss {
            self.obs.first_loss = t;
        }
        self.obs.count_loss(cause);
    }

    fn sample_trace(&mut self) {
        self.expire();
        let tr = self.trace.as_mut().expect("tracing");
        while tr.next_at <= self.now {
            let at = tr.next_at;
            let queues = self.st[self.first_fwd..self.first_fwd + self.r.threads]
                .iter()
                .map(|s| s.queue_len() as u32);
            tr.push(at, queues, self.pit);
            tr.next_at += tr.interval_ns;
        }
    }

    fn finish(self) -> (Observables, Option<Trace>) {
        self.finish_into(&mut Scratch::default())
    }

    fn finish_into(mut self, keep: &mut Scratch) -> (Observables, Option<Trace>) {
        let observed = f64::from(self.r.interests - self.r.warmup);
        // Little's law over the whole run: the time-average number waiting is
        // the total time waited over the run's length.
        let span = self.now.max(1) as f64;
        let fwd = self.first_fwd..self.first_fwd + self.r.threads;
        let waited = |r: std::ops::Range<usize>| -> f64 {
            self.st[r].iter().map(Server::wait_ns).sum::<f64>() / span
        };
        self.obs.queue_mean = waited(fwd.clone());
        self.obs.input_queue_mean = waited(0..self.first_fwd);
        self.obs.utilization = self.st[fwd]
            .iter()
            .map(|s| s.busy_ns() / span)
            .fold(0.0, f64::max);
        self.obs.finish(observed, &mut self.latencies);
        keep.sent_at = self.sent_at;
        keep.state = self.state;
        keep.latencies = self.latencies;
        keep.pit_expiry = self.pit_expiry;
        keep.back = self.back;
        (self.obs, self.trace)
    }
}

/// Per-Interest buffers, kept from one run to the next on a thread.
#[derive(Default)]
struct Scratch {
    sent_at: Vec<u64>,
    state: Vec<State>,
    latencies: Vec<u32>,
    pit_expiry: VecDeque<(u64, u32)>,
    back: VecDeque<(u64, Pkt)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// One run of `r` with `seed`: its observables (and trace when `trace_ns` > 0).
pub fn simulate(r: &Resolved, seed: u64, trace_ns: u64) -> (Observables, Option<Trace>) {
    SCRATCH.with(|cell| {
        let mut keep = cell.take();
        let b = std::mem::take(&mut keep);
        let mut sim = Sim::with_scratch(r, seed, trace_ns, b);
        while sim.step() {}
        let out = sim.finish_into(&mut keep);
        cell.replace(keep);
        out
    })
}
