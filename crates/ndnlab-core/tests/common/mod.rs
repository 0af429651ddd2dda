//! Scenario harness: a forwarder, a fake clock and recording faces.
#![allow(dead_code)]

use bytes::Bytes;
use ndnlab_core::{
    FaceId, FaceScope, Forwarder, ForwarderConfig, LinkType, LpMeta, OutPacket, Time, Transmit, MS,
};
use ndnlab_wire::{Data, Interest, InterestBuilder, Nack, NackReason, Name};

pub const A: FaceId = FaceId(256);
pub const B: FaceId = FaceId(257);
pub const C: FaceId = FaceId(258);
pub const D: FaceId = FaceId(259);
pub const APP: FaceId = FaceId(300);

pub fn name(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

/// An Interest with a nonce and optional tweaks.
pub fn interest_with(
    uri: &str,
    nonce: u32,
    f: impl FnOnce(InterestBuilder) -> InterestBuilder,
) -> Interest {
    f(Interest::builder(name(uri)).nonce(nonce))
        .build_view()
        .unwrap()
}

pub fn interest(uri: &str, nonce: u32) -> Interest {
    interest_with(uri, nonce, |b| b)
}

pub fn data_fresh(uri: &str, freshness_ms: Option<u64>) -> Data {
    let mut b = Data::builder(name(uri)).content(Bytes::from_static(b"hello"));
    if let Some(f) = freshness_ms {
        b = b.freshness_ms(f);
    }
    Data::decode(b.sign_digest()).unwrap()
}

pub fn data(uri: &str) -> Data {
    data_fresh(uri, Some(10_000))
}

pub struct Lab {
    pub fw: Forwarder,
    pub now: Time,
}

impl Lab {
    pub fn new(config: ForwarderConfig) -> Self {
        Lab {
            fw: Forwarder::new(config),
            now: 1_000 * MS,
        }
    }

    /// Faces A, B, C, D (non-local point-to-point) and APP (local).
    pub fn standard() -> Self {
        Self::standard_with(ForwarderConfig::default())
    }

    pub fn standard_with(config: ForwarderConfig) -> Self {
        let mut lab = Lab::new(config);
        for f in [A, B, C, D] {
            lab.fw
                .add_face(f, FaceScope::NonLocal, LinkType::PointToPoint);
        }
        lab.fw
            .add_face(APP, FaceScope::Local, LinkType::PointToPoint);
        lab
    }

    pub fn route(&mut self, prefix: &str, face: FaceId, cost: u64) {
        self.fw.fib().add_nexthop(&name(prefix), face, cost);
    }

    pub fn advance_ms(&mut self, ms: u64) {
        self.now += ms * MS;
        self.fw.handle_timeout(self.now);
    }

    /// Run timers up to `now + ms` one deadline at a time (as a runtime would).
    pub fn run_for_ms(&mut self, ms: u64) {
        let end = self.now + ms * MS;
        while let Some(t) = self.fw.poll_timeout() {
            if t > end {
                break;
            }
            self.now = self.now.max(t);
            self.fw.handle_timeout(self.now);
        }
        self.now = end;
        self.fw.handle_timeout(self.now);
    }

    pub fn send_interest(&mut self, from: FaceId, i: Interest) {
        self.fw
            .handle_interest(self.now, from, i, LpMeta::default());
    }

    pub fn send_interest_meta(&mut self, from: FaceId, i: Interest, meta: LpMeta) {
        self.fw.handle_interest(self.now, from, i, meta);
    }

    pub fn send_data(&mut self, from: FaceId, d: Data, token: Option<Bytes>) {
        self.fw.handle_data(
            self.now,
            from,
            d,
            LpMeta {
                pit_token: token,
                ..Default::default()
            },
        );
    }

    pub fn send_nack(
        &mut self,
        from: FaceId,
        i: Interest,
        reason: NackReason,
        token: Option<Bytes>,
    ) {
        self.fw.handle_nack(
            self.now,
            from,
            Nack::new(i, reason),
            LpMeta {
                pit_token: token,
                ..Default::default()
            },
        );
    }

    /// Every queued output.
    pub fn take(&mut self) -> Vec<Transmit> {
        let mut v = Vec::new();
        self.fw.drain_transmits(&mut v);
        v
    }
}

/// The Interest of an output (decoded from the bytes the forwarder sends).
pub fn as_interest(t: &Transmit) -> Interest {
    t.packet
        .to_interest()
        .unwrap_or_else(|| panic!("expected Interest, got {:?}", t.packet))
}

/// The Data of an output (decoded from the bytes the forwarder sends).
pub fn as_data(t: &Transmit) -> Data {
    t.packet
        .to_data()
        .unwrap_or_else(|| panic!("expected Data, got {:?}", t.packet))
}

/// The Nack of an output (decoded from the bytes the forwarder sends).
pub fn as_nack(t: &Transmit) -> Nack {
    t.packet
        .to_nack()
        .unwrap_or_else(|| panic!("expected Nack, got {:?}", t.packet))
}

/// `(face, kind)` summary of outputs: kind is "I", "D" or "N:<reason>".
pub fn summary(ts: &[Transmit]) -> Vec<(u64, String)> {
    ts.iter()
        .map(|t| {
            let k = match &t.packet {
                OutPacket::Interest(_) => "I".to_string(),
                OutPacket::Data(_) => "D".to_string(),
                OutPacket::Nack(n) => format!("N:{}", n.reason.as_str()),
            };
            (t.face.0, k)
        })
        .collect()
}
