//! One bounded run of the data-plane model, event by event in virtual time.
//!
//! The forwarder is a network of queueing stations ([`ndnlab_sim::Station`]):
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
//! There is no general event heap: each station has at most one service in
//! progress, so the next event is the earliest of the stations' completion
//! times, the consumer's next Interest and the heads of the two link lines
//! (constant delays keep them in order). Ties go to the consumer, then the
//! links, then the stations in index order, so a seed always gives the same run.

use std::collections::VecDeque;

use ndnlab_sim::{Class, DropReason, Station};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};

use crate::observe::{Cause, Observables, Trace};
use crate::spec::{Pattern, Resolved};

/// A packet in flight: which Interest it belongs to, its forwarding thread,
/// and the NUMA node of the thread that handed it over.
#[derive(Debug, Clone, Copy)]
struct Pkt {
    seq: u32,
    thread: u16,
    from: u8,
    data: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Input(u8),
    Fwd,
    Output(u8),
    Producer,
}

/// Where an Interest stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Sent,
    InPit,
    Satisfied,
    Done,
}

const IDLE: u64 = u64::MAX;

/// A run in progress. `Clone` (with [`Sim::reseed`]) is what importance
/// splitting needs.
#[derive(Clone)]
pub struct Sim<'a> {
    r: &'a Resolved,
    rng: SmallRng,
    now: u64,
    st: Vec<Station<Pkt>>,
    kind: Vec<Kind>,
    node: Vec<u8>,
    /// Completion time per station, [`IDLE`] when idle.
    done: Vec<u64>,
    first_fwd: usize,
    /// Thread of each prefix (the Name Dispatch Table).
    ndt: Vec<u16>,
    emitted: u32,
    emit_at: f64,
    /// Arrival at the input of the next Interest, [`IDLE`] when all are sent.
    next_arrival: u64,
    sent_at: Vec<u64>,
    state: Vec<State>,
    to_producer: VecDeque<(u64, Pkt)>,
    from_producer: VecDeque<(u64, Pkt)>,
    pit: u32,
    pit_expiry: VecDeque<(u64, u32)>,
    obs: Observables,
    latencies: Vec<u32>,
    trace: Option<Trace>,
    exp: Exp<f64>,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser: the hash of a prefix number.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn service(
    r: &Resolved,
    kind: Kind,
    node: u8,
    rng: &mut SmallRng,
    class: Class,
    p: &Pkt,
) -> u64 {
    let d = class == Class::Data;
    let base: &crate::draw::Draw = match kind {
        Kind::Input(_) => &r.input[d as usize],
        Kind::Fwd => &r.fwd[d as usize],
        Kind::Output(_) => &r.output[d as usize],
        Kind::Producer => &r.producer,
    };
    let mut t = base.sample(rng);
    if p.from != node && kind != Kind::Producer {
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
        let mut rng = SmallRng::seed_from_u64(seed);
        let pl = &r.placement;
        let mut kind = Vec::new();
        let mut node = Vec::new();
        let mut st = Vec::new();
        for f in 0..r.input_threads as u8 {
            kind.push(Kind::Input(f));
            node.push(if f == 0 { pl.face0 } else { pl.face1 });
            st.push(Station::new(r.input_queue, ndnlab_sim::DropPolicy::TailDrop));
        }
        let first_fwd = kind.len();
        for _ in 0..r.threads {
            kind.push(Kind::Fwd);
            node.push(pl.fwd);
            st.push(Station::new(r.queue, r.policy));
        }
        for f in 0..r.output_threads as u8 {
            kind.push(Kind::Output(f));
            node.push(if f == 0 { pl.face0 } else { pl.face1 });
            st.push(Station::new(r.output_queue, ndnlab_sim::DropPolicy::TailDrop));
        }
        kind.push(Kind::Producer);
        node.push(pl.face1);
        st.push(Station::new(0, ndnlab_sim::DropPolicy::TailDrop));
        let salt: u64 = rng.gen();
        let ndt = (0..r.prefixes)
            .map(|p| (mix(u64::from(p) ^ salt) % r.threads as u64) as u16)
            .collect();
        let n = r.interests as usize;
        let mut sim = Sim {
            r,
            rng,
            now: 0,
            done: vec![IDLE; st.len()],
            st,
            kind,
            node,
            first_fwd,
            ndt,
            emitted: 0,
            emit_at: 0.0,
            next_arrival: IDLE,
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
            to_producer: VecDeque::new(),
            from_producer: VecDeque::new(),
            pit: 0,
            pit_expiry: VecDeque::new(),
            obs: Observables::default(),
            latencies: {
                b.latencies.clear();
                b.latencies.reserve(n);
                b.latencies
            },
            trace: (trace_ns > 0).then(|| Trace::new(trace_ns, r.threads)),
            exp: Exp::new(1.0 / r.interval_ns).expect("a positive interval"),
        };
        sim.next_arrival = sim.emit_time() + r.consumer_link_ns;
        sim
    }

    /// Gives the run a new random stream (a clone goes its own way).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
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
        let mut best = self.next_arrival;
        let mut which = usize::MAX;
        let to_p = self.to_producer.front().map_or(IDLE, |e| e.0);
        if to_p < best {
            best = to_p;
            which = usize::MAX - 1;
        }
        let from_p = self.from_producer.front().map_or(IDLE, |e| e.0);
        if from_p < best {
            best = from_p;
            which = usize::MAX - 2;
        }
        for (i, &d) in self.done.iter().enumerate() {
            if d < best {
                best = d;
                which = i;
            }
        }
        if best == IDLE {
            return false;
        }
        self.now = best;
        if let Some(tr) = self.trace.as_mut() {
            if best >= tr.next_at {
                self.sample_trace();
            }
        }
        match which {
            usize::MAX => {
                let seq = self.emitted;
                let prefix = self.rng.gen_range(0..self.r.prefixes) as usize;
                let p = Pkt {
                    seq,
                    thread: self.ndt[prefix],
                    from: self.r.placement.face0,
                    data: false,
                };
                self.sent_at[seq as usize] = best - self.r.consumer_link_ns;
                self.emitted += 1;
                self.next_arrival = if self.emitted < self.r.interests {
                    self.emit_time() + self.r.consumer_link_ns
                } else {
                    IDLE
                };
                self.obs.packets += 1.0;
                self.offer(0, p);
            }
            w if w == usize::MAX - 1 => {
                let (_, p) = self.to_producer.pop_front().expect("a head");
                let prod = self.st.len() - 1;
                self.offer(prod, p);
            }
            w if w == usize::MAX - 2 => {
                let (_, p) = self.from_producer.pop_front().expect("a head");
                self.obs.packets += 1.0;
                let input = self.r.input_threads - 1;
                self.offer(input, p);
            }
            s => self.complete(s),
        }
        true
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
        self.obs.max_queue + f64::from(u8::from(self.obs.loss_queue + self.obs.loss_pushed_out > 0.0))
    }

    fn offer(&mut self, s: usize, mut p: Pkt) {
        let class = if p.data { Class::Data } else { Class::Interest };
        if matches!(self.kind[s], Kind::Input(_)) {
            p.from = self.node[s];
        }
        let (r, kind, node, rng) = (self.r, self.kind[s], self.node[s], &mut self.rng);
        let mut cost = |c: Class, p: &mut Pkt| service(r, kind, node, rng, c, p);
        match self.st[s].offer(self.now, class, p, &mut cost) {
            Ok(a) => {
                if let Some(d) = a.started {
                    self.done[s] = d;
                }
                if let Some(x) = a.pushed_out {
                    self.lost(x.item, Cause::PushedOut);
                }
                if kind == Kind::Fwd {
                    let q = self.st[s].queue_len() as f64;
                    if q > self.obs.max_queue {
                        self.obs.max_queue = q;
                    }
                } else if matches!(kind, Kind::Input(_)) {
                    let q = self.st[s].queue_len() as f64;
                    if q > self.obs.max_input_queue {
                        self.obs.max_input_queue = q;
                    }
                }
            }
            Err(d) => {
                let cause = match (kind, d.reason) {
                    (Kind::Fwd, DropReason::PushedOut) => Cause::PushedOut,
                    (Kind::Fwd, DropReason::QueueFull) => Cause::QueueFull,
                    (Kind::Input(_), _) => Cause::InputFull,
                    _ => Cause::OutputFull,
                };
                self.lost(d.item, cause);
            }
        }
    }

    fn complete(&mut self, s: usize) {
        let (r, kind, node, rng) = (self.r, self.kind[s], self.node[s], &mut self.rng);
        let mut cost = |c: Class, p: &mut Pkt| service(r, kind, node, rng, c, p);
        let (mut p, next) = self.st[s].complete(self.now, &mut cost).expect("busy");
        self.done[s] = next.unwrap_or(IDLE);
        p.from = node;
        match kind {
            Kind::Input(_) => self.offer(self.first_fwd + p.thread as usize, p),
            Kind::Fwd if !p.data => {
                self.expire();
                self.state[p.seq as usize] = State::InPit;
                self.pit += 1;
                self.pit_expiry
                    .push_back((self.now + self.r.lifetime_ns, p.seq));
                if f64::from(self.pit) > self.obs.max_pit {
                    self.obs.max_pit = f64::from(self.pit);
                }
                let out = self.output(1);
                self.offer(out, p);
            }
            Kind::Fwd => {
                self.expire();
                if self.state[p.seq as usize] == State::InPit {
                    self.state[p.seq as usize] = State::Satisfied;
                    self.pit -= 1;
                    let out = self.output(0);
                    self.offer(out, p);
                } else {
                    self.lost(p, Cause::Expired);
                }
            }
            Kind::Output(_) if !p.data => {
                let at = self.now + self.r.producer_link_ns;
                if self.r.producer_link_ns == 0 {
                    let prod = self.st.len() - 1;
                    self.offer(prod, p);
                } else {
                    self.to_producer.push_back((at, p));
                }
            }
            Kind::Output(_) => self.deliver(p),
            Kind::Producer => {
                p.data = true;
                let at = self.now + self.r.producer_link_ns;
                if self.r.producer_link_ns == 0 {
                    self.obs.packets += 1.0;
                    let input = self.r.input_threads - 1;
                    self.offer(input, p);
                } else {
                    self.from_producer.push_back((at, p));
                }
            }
        }
    }

    /// The output thread of `face` (0: the consumer's, 1: the producer's).
    fn output(&self, face: usize) -> usize {
        self.first_fwd + self.r.threads + face.min(self.r.output_threads - 1)
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

    /// Data reaches the consumer.
    fn deliver(&mut self, p: Pkt) {
        let at = self.now + self.r.consumer_link_ns;
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
            self.st[r].iter().map(|s| s.counters().wait_ns as f64).sum::<f64>() / span
        };
        self.obs.queue_mean = waited(fwd.clone());
        self.obs.input_queue_mean = waited(0..self.first_fwd);
        self.obs.utilization = self.st[fwd]
            .iter()
            .map(|s| s.counters().busy_ns as f64 / span)
            .fold(0.0, f64::max);
        self.obs.finish(observed, &mut self.latencies);
        keep.sent_at = self.sent_at;
        keep.state = self.state;
        keep.latencies = self.latencies;
        (self.obs, self.trace)
    }
}

/// Per-Interest buffers, kept from one run to the next on a thread.
#[derive(Default)]
struct Scratch {
    sent_at: Vec<u64>,
    state: Vec<State>,
    latencies: Vec<u32>,
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
