//! Small applications for the network tests: a consumer that sends Interests
//! for unique names at given times and records when each was answered, and a
//! producer that answers every Interest at once.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use ndnlab_core::{Forwarder, ForwarderConfig};
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};
use ndnlab_sim::{App, Nanos, NodeSpec};
use ndnlab_wire::{Data, Interest, Name, Packet};

pub enum TestApp {
    Consumer(Consumer),
    Producer(Producer),
}

pub struct Consumer {
    /// When to send Interest `i` (for `/p/<i>`).
    pub schedule: Vec<Nanos>,
    next: usize,
    pub sent: BTreeMap<u64, Nanos>,
    pub answered: BTreeMap<u64, Nanos>,
    pub nacks: u64,
    rx: LinkReceiver,
}

impl Consumer {
    pub fn new(schedule: Vec<Nanos>) -> Self {
        Consumer {
            schedule,
            next: 0,
            sent: BTreeMap::new(),
            answered: BTreeMap::new(),
            nacks: 0,
            rx: LinkReceiver::new(),
        }
    }
}

pub struct Producer {
    pub payload: usize,
    rx: LinkReceiver,
    tx: LinkSender,
}

impl Producer {
    pub fn new(payload: usize) -> Self {
        Producer {
            payload,
            rx: LinkReceiver::new(),
            tx: LinkSender::new(None, 0),
        }
    }
}

pub fn interest(i: u64) -> Bytes {
    Interest::builder(Name::from_uri(&format!("/p/{i}")).unwrap())
        .nonce(i as u32 ^ 0x5a5a)
        .lifetime(std::time::Duration::from_secs(100))
        .build()
}

impl App for TestApp {
    fn on_frames(&mut self, now: Nanos, frames: &mut Vec<Bytes>, out: &mut Vec<Bytes>) {
        match self {
            TestApp::Consumer(c) => {
                for f in frames.drain(..) {
                    let Ok(Some((fields, pkt))) = c.rx.receive(now, f) else {
                        continue;
                    };
                    if fields.nack.is_some() {
                        c.nacks += 1;
                        continue;
                    }
                    if let Ok(Packet::Data(d)) = Packet::decode(pkt) {
                        let last = d.name().get(d.name().len() - 1).unwrap();
                        let i: u64 = std::str::from_utf8(last.value).unwrap().parse().unwrap();
                        c.answered.entry(i).or_insert(now);
                    }
                }
            }
            TestApp::Producer(p) => {
                for f in frames.drain(..) {
                    let Ok(Some((fields, pkt))) = p.rx.receive(now, f) else {
                        continue;
                    };
                    let Ok(i) = Interest::decode(pkt) else {
                        continue;
                    };
                    let data = Data::builder(i.name().clone())
                        .content(Bytes::from(vec![7u8; p.payload]))
                        .sign_digest();
                    let f = LpFields {
                        pit_token: fields.pit_token,
                        ..Default::default()
                    };
                    let mut b = BytesMut::new();
                    p.tx.encode_stream(&f, &data, &mut b);
                    out.push(b.freeze());
                }
            }
        }
    }

    fn on_timer(&mut self, now: Nanos, out: &mut Vec<Bytes>) {
        if let TestApp::Consumer(c) = self {
            while c.next < c.schedule.len() && c.schedule[c.next] <= now {
                let i = c.next as u64;
                out.push(interest(i));
                c.sent.insert(i, now);
                c.next += 1;
            }
        }
    }

    fn next_timer(&self) -> Option<Nanos> {
        match self {
            TestApp::Consumer(c) => c.schedule.get(c.next).copied(),
            TestApp::Producer(_) => None,
        }
    }
}

/// A node for tests: `threads` shards, CS off.
pub fn fwd(threads: usize) -> NodeSpec {
    node(threads, 0)
}

/// A node for tests: `threads` shards sharing a CS of `cs_capacity` packets
/// (0: off), as `ndnlab fwd` splits its CS between shards.
pub fn node(threads: usize, cs_capacity: usize) -> NodeSpec {
    let shards = (0..threads)
        .map(|i| {
            let mut fw = Forwarder::new(ForwarderConfig {
                cs_capacity: cs_capacity / threads + usize::from(i < cs_capacity % threads),
                shard: (i, threads),
                ..Default::default()
            });
            fw.cs().set_admit(cs_capacity > 0);
            fw
        })
        .collect();
    NodeSpec {
        shards,
        dispatch_components: 1,
    }
}
