//! The simulated network: nodes, links and applications advanced by one event
//! queue in virtual nanoseconds.
//!
//! Events are link arrivals (one pending event per link direction, at its
//! emulator's next arrival), forwarder timers (one per shard, at its core's
//! `poll_timeout`), application timers and deliveries to applications. After
//! each event, every shard that received packets runs them through its core as
//! one burst (`handle_burst`), fires due timers and hands its transmits to
//! their faces: a link direction's link service and emulator, or an app.
//! Processing takes no virtual time (zero cost) unless a node has a cost
//! model ([`Node::set_cost`]): each shard is then a station (a server with a
//! bounded input queue, [`ndnlab_des::station`]) and a packet reaches the core when
//! its service completes; an Interest is priced as a CS hit or miss when its
//! service starts.
//!
//! # Back-pressure on app faces
//!
//! A frame from a link that finds its shard's input queue full is dropped
//! (`input_queue`), as a real link or socket buffer overflows. On a node of
//! one forwarding thread with a cost ([`Node::app_backpressure`]) an app face
//! pushes back instead, as `ndnlab fwd`'s single inline shard does: the
//! application's packets wait in the application (`held`) while the queue is
//! full and are offered again, one per service completion and the waiting
//! apps in turn; and the application is *stalled* while any packet it sent is
//! still held or queued or in service (its `send_burst` has not returned): its
//! timers and deliveries wait until the forwarder has handled its last burst.
//! A rate consumer then sends no faster than the forwarder serves, and counts
//! as sent only what it could send.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};
use ndnlab_core::Transmit;
use ndnlab_proto::emu::LinkParams;
use ndnlab_proto::lp::LinkSender;
use ndnlab_wire::Name;

use crate::app::App;
use crate::link::{End, LinkDir};
use crate::node::{class_of, face_index, FaceKind, Inbound, Node, NodeSpec};
use crate::stats::Drops;
use ndnlab_des::Class;
use ndnlab_des::{EventQueue, Nanos};

const NONE: Nanos = u64::MAX;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Link(u32),
    Timer(u32, u32),
    App(u32),
    ToApp(u32),
    /// A forwarding thread finished serving a packet.
    Served(u32, u32),
}

/// An application on a node.
pub struct AppSlot<A> {
    pub app: A,
    pub node: u32,
    pub face: u32,
    armed: Nanos,
    /// Frames from the forwarder waiting for the delivery event.
    inbox: Vec<Bytes>,
    /// When the delivery event is scheduled (`u64::MAX`: none).
    delivery: Nanos,
    /// Packets sent and waiting for room in their shard's input queue, with
    /// their shard (back-pressure only).
    held: VecDeque<(u32, Inbound)>,
    /// Packets sent and not yet served by a forwarding thread (back-pressure only).
    in_fwd: u64,
    /// Whether the app is in its head packet's shard's `waiting` list.
    queued_for_room: bool,
}

impl<A> AppSlot<A> {
    /// Whether the app is stalled: a packet it sent is still held back or in
    /// a forwarding thread (back-pressure, see the module documentation).
    pub fn is_stalled(&self) -> bool {
        self.in_fwd > 0 || !self.held.is_empty()
    }
}

/// See the module documentation.
pub struct Network<A: App> {
    q: EventQueue<Ev>,
    pub nodes: Vec<Node>,
    pub links: Vec<LinkDir>,
    pub apps: Vec<AppSlot<A>>,
    pub drops: Drops,
    /// Shards with packets to run, as (node, shard).
    dirty: Vec<(u32, u32)>,
    transmits: Vec<Transmit>,
    frames: Vec<Bytes>,
    app_sender: LinkSender,
    events: u64,
    /// The clock as `run_until` left it.
    clock: Nanos,
    /// Virtual time an app face takes to hand a frame to its application.
    app_delay: Nanos,
    /// Wall-clock time spent inside forwarder cores, when profiling
    /// ([`Network::set_profile`]); it never feeds back into the run.
    core_wall: Option<std::time::Duration>,
}

impl<A: App> Default for Network<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: App> Network<A> {
    pub fn new() -> Self {
        Network {
            q: EventQueue::new(),
            nodes: Vec::new(),
            links: Vec::new(),
            apps: Vec::new(),
            drops: Drops::default(),
            dirty: Vec::new(),
            transmits: Vec::new(),
            frames: Vec::new(),
            app_sender: LinkSender::new(None, 0),
            events: 0,
            clock: 0,
            app_delay: 0,
            core_wall: None,
        }
    }

    /// Sets the virtual time an app face takes to hand frames to its
    /// application (0 by default). With zero-cost forwarders and no link delay
    /// a window consumer would otherwise loop forever at one instant.
    pub fn set_app_delay(&mut self, ns: Nanos) {
        self.app_delay = ns;
    }

    /// Measures the wall-clock time spent inside forwarder cores (for
    /// `ndnlab bench sim`: the share of a run the simulator itself takes).
    /// Reading the wall clock here changes nothing in the run.
    pub fn set_profile(&mut self, on: bool) {
        self.core_wall = on.then_some(std::time::Duration::ZERO);
    }

    /// Wall-clock time spent inside forwarder cores so far, if profiling.
    pub fn core_wall(&self) -> Option<std::time::Duration> {
        self.core_wall
    }

    /// The virtual time of the last event.
    pub fn now(&self) -> Nanos {
        self.clock.max(self.q.now())
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Packets handled by forwarder cores so far, over every node.
    pub fn handled(&self) -> u64 {
        self.nodes.iter().map(|n| n.handled).sum()
    }

    /// Adds a node of the shards of `spec`; returns its index.
    pub fn add_node(&mut self, name: &str, spec: NodeSpec) -> u32 {
        self.nodes.push(Node::new(name, spec));
        self.nodes.len() as u32 - 1
    }

    /// Links nodes `a` and `b` with one emulator per direction (`a`→`b` seeded
    /// with `seed_ab`, `b`→`a` with `seed_ba`). Returns the face indices on `a`
    /// and on `b`.
    pub fn add_link(
        &mut self,
        a: u32,
        b: u32,
        params: LinkParams,
        seed_ab: u64,
        seed_ba: u64,
    ) -> (u32, u32) {
        let ab = self.links.len() as u32;
        let fa = self.nodes[a as usize].add_face(FaceKind::Link(ab));
        let fb = self.nodes[b as usize].add_face(FaceKind::Link(ab + 1));
        let ea = End { node: a, face: fa };
        let eb = End { node: b, face: fb };
        self.links
            .push(LinkDir::new(params.clone(), seed_ab, ea, eb));
        self.links.push(LinkDir::new(params, seed_ba, eb, ea));
        (fa, fb)
    }

    /// Routes `prefix` on `node` to face `face` with `cost`.
    pub fn add_route(&mut self, node: u32, prefix: &Name, face: u32, cost: u64) {
        let now = self.now();
        self.nodes[node as usize].add_route(now, prefix, face, cost);
    }

    /// Puts `app` on `node` behind a new app face; returns the app's index
    /// and its face index. Its first timer is scheduled now.
    pub fn add_app(&mut self, node: u32, app: A) -> (u32, u32) {
        let id = self.apps.len() as u32;
        let face = self.nodes[node as usize].add_face(FaceKind::App(id));
        self.apps.push(AppSlot {
            app,
            node,
            face,
            armed: NONE,
            inbox: Vec::new(),
            delivery: NONE,
            held: VecDeque::new(),
            in_fwd: 0,
            queued_for_room: false,
        });
        self.arm_app(id);
        (id, face)
    }

    /// Processes every event due at or before `until`, then sets the clock
    /// there (so that samples taken now see the state at `until`).
    pub fn run_until(&mut self, until: Nanos) {
        while let Some((now, ev)) = self.q.pop_until(until) {
            self.events += 1;
            match ev {
                Ev::Link(l) => self.on_link(now, l),
                Ev::Timer(n, s) => {
                    let sh = &mut self.nodes[n as usize].shards[s as usize];
                    if sh.armed != now {
                        continue;
                    }
                    sh.armed = NONE;
                    self.mark_dirty(n, s);
                }
                Ev::App(a) => {
                    let slot = &mut self.apps[a as usize];
                    if slot.armed != now {
                        continue;
                    }
                    slot.armed = NONE;
                    if slot.is_stalled() {
                        continue; // re-armed when the forwarder has its packets
                    }
                    if !matches!(slot.app.next_timer(), Some(t) if t <= now) {
                        self.arm_app(a);
                        continue;
                    }
                    let slot = &mut self.apps[a as usize];
                    slot.app.on_timer(now, &mut self.frames);
                    let idle = self.frames.is_empty();
                    self.app_sent(now, a);
                    let slot = &mut self.apps[a as usize];
                    if idle && slot.armed == now {
                        // still due after a call that sent nothing: asked
                        // again at this instant it would loop without end
                        slot.armed = now + 1;
                        self.q.schedule(now + 1, Ev::App(a));
                    }
                }
                Ev::Served(n, s) => {
                    let sh = &mut self.nodes[n as usize].shards[s as usize];
                    let done = match &mut sh.station {
                        Some((st, cost)) => st.complete(now, &mut classed(&sh.fw, cost)),
                        None => None,
                    };
                    if let Some((item, next)) = done {
                        let from = self.app_of(n, item.0);
                        let sh = &mut self.nodes[n as usize].shards[s as usize];
                        sh.inbox.push(item);
                        if let Some(t) = next {
                            self.q.schedule(t, Ev::Served(n, s));
                        }
                        self.mark_dirty(n, s);
                        self.offer_waiting(now, n, s);
                        if let Some(a) = from {
                            self.served_for_app(now, a);
                        }
                    }
                }
                Ev::ToApp(a) => {
                    let slot = &mut self.apps[a as usize];
                    slot.delivery = NONE;
                    if slot.is_stalled() {
                        continue; // delivered when the app is back
                    }
                    let mut inbox = std::mem::take(&mut slot.inbox);
                    slot.app.on_frames(now, &mut inbox, &mut self.frames);
                    inbox.clear();
                    if slot.inbox.is_empty() {
                        slot.inbox = inbox;
                    }
                    self.app_sent(now, a);
                }
            }
            self.run_dirty(now);
        }
        self.clock = self.clock.max(until);
    }

    /// Whether no event is waiting.
    pub fn is_idle(&self) -> bool {
        self.q.is_empty()
    }

    fn mark_dirty(&mut self, n: u32, s: u32) {
        let sh = &mut self.nodes[n as usize].shards[s as usize];
        if !sh.dirty {
            sh.dirty = true;
            self.dirty.push((n, s));
        }
    }

    /// A packet for shard `s` of node `n`: straight to its core (zero cost),
    /// or into its station's input queue.
    fn arrive(&mut self, now: Nanos, n: u32, s: u32, p: Inbound) {
        let sh = &mut self.nodes[n as usize].shards[s as usize];
        match &mut sh.station {
            None => {
                sh.inbox.push(p);
                self.mark_dirty(n, s);
            }
            Some((st, cost)) => {
                let class = class_of(&p.1);
                match st.offer(now, class, p, &mut classed(&sh.fw, cost)) {
                    Ok(a) => {
                        if a.pushed_out.is_some() {
                            self.drops.input_queue += 1;
                        }
                        if let Some(t) = a.started {
                            self.q.schedule(t, Ev::Served(n, s));
                        }
                    }
                    Err(_) => self.drops.input_queue += 1,
                }
            }
        }
    }

    fn on_link(&mut self, now: Nanos, l: u32) {
        let link = &mut self.links[l as usize];
        if link.armed != now {
            return;
        }
        link.armed = NONE;
        let to = link.to;
        while let Some(frame) = self.links[l as usize].poll(now) {
            if let Some((s, p)) =
                self.nodes[to.node as usize].receive(now, to.face, frame, &mut self.drops)
            {
                self.arrive(now, to.node, s as u32, p);
            }
        }
        self.arm_link(l);
    }

    /// Frames an app emitted (in `self.frames`) go to its node: straight to
    /// their shards, or, under back-pressure, through the app's `held` queue.
    fn app_sent(&mut self, now: Nanos, a: u32) {
        let (node, face) = {
            let s = &self.apps[a as usize];
            (s.node, s.face)
        };
        let push_back = self.nodes[node as usize].app_backpressure();
        let mut frames = std::mem::take(&mut self.frames);
        for f in frames.drain(..) {
            if let Some((s, p)) = self.nodes[node as usize].receive(now, face, f, &mut self.drops) {
                if push_back {
                    self.apps[a as usize].held.push_back((s as u32, p));
                } else {
                    self.arrive(now, node, s as u32, p);
                }
            }
        }
        self.frames = frames;
        if push_back && !self.apps[a as usize].queued_for_room {
            self.offer_held(now, a);
        }
        self.arm_app(a);
    }

    /// The app whose face a packet served on node `n` came from, if it is an
    /// app face of a back-pressure node.
    fn app_of(&self, n: u32, face: ndnlab_core::FaceId) -> Option<u32> {
        let node = &self.nodes[n as usize];
        if !node.app_backpressure() {
            return None;
        }
        match node.faces.get(face_index(face)? as usize)?.kind {
            FaceKind::App(a) => Some(a),
            FaceKind::Link(_) => None,
        }
    }

    /// Offers app `a`'s held packets to their shards while there is room;
    /// when the head packet finds its shard's queue full, the app waits in
    /// that shard's `waiting` list.
    fn offer_held(&mut self, now: Nanos, a: u32) {
        let slot = &mut self.apps[a as usize];
        let n = slot.node;
        while let Some(&(s, _)) = slot.held.front() {
            let sh = &mut self.nodes[n as usize].shards[s as usize];
            let Some((st, cost)) = sh.station.as_mut() else {
                // no station (not a back-pressure node): straight to the core
                let (_, p) = slot.held.pop_front().expect("front");
                sh.inbox.push(p);
                if !sh.dirty {
                    sh.dirty = true;
                    self.dirty.push((n, s));
                }
                continue;
            };
            if !st.has_room() {
                sh.waiting.push_back(a);
                slot.queued_for_room = true;
                return;
            }
            let (_, p) = slot.held.pop_front().expect("front");
            let class = class_of(&p.1);
            match st.offer(now, class, p, &mut classed(&sh.fw, cost)) {
                Ok(adm) => {
                    slot.in_fwd += 1;
                    if let Some(t) = adm.started {
                        self.q.schedule(t, Ev::Served(n, s));
                    }
                }
                // `has_room` said it would be taken
                Err(_) => self.drops.input_queue += 1,
            }
        }
    }

    /// After a completion on shard `s` of node `n`: apps waiting for room
    /// offer their packets, in turn, while there is room.
    fn offer_waiting(&mut self, now: Nanos, n: u32, s: u32) {
        loop {
            let sh = &mut self.nodes[n as usize].shards[s as usize];
            let room = sh.station.as_ref().is_some_and(|(st, _)| st.has_room());
            if !room {
                return;
            }
            let Some(a) = sh.waiting.pop_front() else {
                return;
            };
            self.apps[a as usize].queued_for_room = false;
            self.offer_held(now, a);
        }
    }

    /// A packet app `a` sent has been served: once none is left in the
    /// forwarder, the app runs again (deliveries and timers that waited).
    fn served_for_app(&mut self, now: Nanos, a: u32) {
        let slot = &mut self.apps[a as usize];
        debug_assert!(slot.in_fwd > 0);
        slot.in_fwd = slot.in_fwd.saturating_sub(1);
        if slot.is_stalled() {
            return;
        }
        if !slot.inbox.is_empty() && slot.delivery == NONE {
            slot.delivery = now;
            self.q.schedule(now, Ev::ToApp(a));
        }
        self.arm_app(a);
    }

    fn run_dirty(&mut self, now: Nanos) {
        let mut i = 0;
        while i < self.dirty.len() {
            let (n, s) = self.dirty[i];
            i += 1;
            let mut tx = std::mem::take(&mut self.transmits);
            let started = self.core_wall.map(|_| std::time::Instant::now());
            let next = self.nodes[n as usize].process(now, s as usize, &mut tx);
            if let (Some(total), Some(t0)) = (&mut self.core_wall, started) {
                *total += t0.elapsed();
            }
            for t in tx.drain(..) {
                self.egress(now, n, t);
            }
            self.transmits = tx;
            self.arm_timer(n, s, next);
        }
        self.dirty.clear();
    }

    fn egress(&mut self, now: Nanos, n: u32, t: Transmit) {
        let Some(idx) = face_index(t.face) else {
            return;
        };
        let Some(face) = self.nodes[n as usize].faces.get(idx as usize) else {
            return;
        };
        let kind = face.kind;
        let (pkt, fields) = t.packet.into_lp(t.meta, false);
        match kind {
            FaceKind::Link(l) => {
                self.links[l as usize].send(now, fields, &pkt, &mut self.drops);
                self.arm_link(l);
            }
            FaceKind::App(a) => {
                let frame = if fields.is_empty() {
                    pkt
                } else {
                    let mut b = BytesMut::new();
                    self.app_sender.encode_stream(&fields, &pkt, &mut b);
                    b.freeze()
                };
                let slot = &mut self.apps[a as usize];
                if slot.delivery == NONE {
                    slot.delivery = now + self.app_delay;
                    self.q.schedule(slot.delivery, Ev::ToApp(a));
                }
                slot.inbox.push(frame);
            }
        }
    }

    fn arm_link(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        if let Some(t) = link.next_arrival() {
            if t < link.armed {
                link.armed = t;
                self.q.schedule(t, Ev::Link(l));
            }
        }
    }

    /// Schedules shard `s`'s timer event at `next` (its core's
    /// `poll_timeout`) unless one is due earlier.
    fn arm_timer(&mut self, n: u32, s: u32, next: Option<Nanos>) {
        let sh = &mut self.nodes[n as usize].shards[s as usize];
        if let Some(t) = next {
            if t < sh.armed {
                sh.armed = t;
                self.q.schedule(t, Ev::Timer(n, s));
            }
        }
    }

    fn arm_app(&mut self, a: u32) {
        let now = self.now();
        let slot = &mut self.apps[a as usize];
        if slot.is_stalled() {
            return; // armed again by `served_for_app`
        }
        if let Some(t) = slot.app.next_timer() {
            let t = t.max(now);
            if t < slot.armed {
                slot.armed = t;
                self.q.schedule(t, Ev::App(a));
            }
        }
    }

    /// Frames and packets still in the network: in flight on links or waiting
    /// in a forwarding thread's inbox, frames waiting for an app, and packets
    /// an app sent that wait for room in an input queue.
    pub fn in_network(&self) -> u64 {
        let links: usize = self.links.iter().map(|l| l.in_flight()).sum();
        let inbox: usize = self
            .nodes
            .iter()
            .flat_map(|n| n.shards.iter().map(|s| s.inbox.len()))
            .sum::<usize>()
            + self.nodes.iter().map(|n| n.queued()).sum::<usize>();
        let apps: usize = self.apps.iter().map(|a| a.inbox.len() + a.held.len()).sum();
        (links + inbox + apps) as u64
    }
}

/// A shard's service time: an Interest is a Content Store hit or miss as the
/// shard's CS stands when its service starts (an exact-name lookup; the
/// forwarder itself then answers it as it would), other packets their class.
fn classed<'a>(
    fw: &'a ndnlab_core::Forwarder,
    cost: &'a mut ndnlab_des::CostSampler,
) -> impl FnMut(Class, &mut Inbound) -> Nanos + 'a {
    move |class, item| {
        let class = match (&item.1, class) {
            (ndnlab_core::InPacket::Interest(i), Class::Interest) => {
                let cs = fw.cs_ref();
                if cs.serve() && cs.contains(i.name()) {
                    Class::CsHit
                } else {
                    Class::CsMiss
                }
            }
            _ => class,
        };
        cost.sample(class)
    }
}
