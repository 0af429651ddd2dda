//! Shard dispatch consistency: with N shards, each owning its PIT-CS, Interests are
//! dispatched by name and Data/Nacks by PIT token (or by name without one); the Data
//! must always reach the shard holding the PIT entry.

mod common;

use common::*;
use ndnlab_core::{
    dispatch_by_token, dispatch_interest, FaceId, FaceScope, Forwarder, ForwarderConfig, LinkType,
    LpMeta, OutPacket, Transmit, MS,
};
use ndnlab_wire::{Nack, NackReason};

const K: usize = 2;

struct Sharded {
    shards: Vec<Forwarder>,
    now: u64,
}

impl Sharded {
    fn new(n: usize) -> Self {
        let shards = (0..n)
            .map(|i| {
                let mut fw = Forwarder::new(ForwarderConfig {
                    shard: (i, n),
                    ..Default::default()
                });
                for f in [A, B] {
                    fw.add_face(f, FaceScope::NonLocal, LinkType::PointToPoint);
                }
                // FIB replica on every shard.
                fw.fib().add_nexthop(&name("/"), B, 1);
                fw
            })
            .collect();
        Sharded {
            shards,
            now: 1_000 * MS,
        }
    }

    fn n(&self) -> usize {
        self.shards.len()
    }

    fn interest(&mut self, from: FaceId, i: ndnlab_wire::Interest) -> (usize, Vec<Transmit>) {
        let s = dispatch_interest(i.name(), K, self.n());
        self.shards[s].handle_interest(self.now, from, i, LpMeta::default());
        let mut out = Vec::new();
        self.shards[s].drain_transmits(&mut out);
        (s, out)
    }

    fn data(
        &mut self,
        from: FaceId,
        d: ndnlab_wire::Data,
        token: Option<bytes::Bytes>,
    ) -> (usize, Vec<Transmit>) {
        let s = token
            .as_deref()
            .and_then(|t| dispatch_by_token(t, self.n()))
            .unwrap_or_else(|| dispatch_interest(d.name(), K, self.n()));
        self.shards[s].handle_data(
            self.now,
            from,
            d,
            LpMeta {
                pit_token: token,
                ..Default::default()
            },
        );
        let mut out = Vec::new();
        self.shards[s].drain_transmits(&mut out);
        (s, out)
    }
}

#[test]
fn data_always_reaches_the_shard_holding_the_pit_entry() {
    for n in [1, 2, 3, 4, 8] {
        let mut sh = Sharded::new(n);
        let mut used = vec![0u32; n];
        for k in 0..200u32 {
            let uri = format!("/app{}/obj{}/seg={}", k % 7, k, k % 5);
            let (si, out) = sh.interest(A, interest(&uri, k + 1));
            assert_eq!(out.len(), 1);
            used[si] += 1;
            let token = out[0].meta.pit_token.clone().unwrap();
            assert_eq!(
                dispatch_by_token(&token, n),
                Some(si),
                "token names the shard"
            );
            // Half the upstreams echo the token, half do not.
            let echoed = (k % 2 == 0).then_some(token);
            let (sd, out) = sh.data(B, data(&uri), echoed);
            assert_eq!(sd, si, "{uri}: Data reached shard {sd}, entry is on {si}");
            assert_eq!(summary(&out), vec![(A.0, "D".into())]);
        }
        let total_pit: usize = sh.shards.iter().map(|s| s.pit_len()).sum();
        assert_eq!(total_pit, 0);
        if n > 1 {
            assert!(used.iter().all(|&u| u > 0), "every shard used: {used:?}");
        }
        let satisfied: u64 = sh
            .shards
            .iter()
            .map(|s| s.counters().n_satisfied_interests)
            .sum();
        assert_eq!(satisfied, 200);
    }
}

#[test]
fn nack_dispatched_by_token_reaches_the_entry() {
    let mut sh = Sharded::new(4);
    for k in 0..20u32 {
        let uri = format!("/n/{k}");
        let i = interest(&uri, k + 1);
        let (si, out) = sh.interest(A, i.clone());
        let token = out[0].meta.pit_token.clone().unwrap();
        let s = dispatch_by_token(&token, 4).unwrap();
        assert_eq!(s, si);
        sh.shards[s].handle_nack(
            sh.now,
            B,
            Nack::new(i, NackReason::NoRoute),
            LpMeta {
                pit_token: Some(token),
                ..Default::default()
            },
        );
        let t = sh.shards[s].poll_transmit().unwrap();
        assert!(matches!(t.packet, OutPacket::Nack(..)));
        assert_eq!(t.face, A);
    }
}

#[test]
fn a_shard_ignores_tokens_of_other_shards() {
    let mut sh = Sharded::new(2);
    // Find a name on shard 0 and forge its Data with a token naming shard 1's entry 0.
    let uri = (0..100)
        .map(|k| format!("/x/{k}"))
        .find(|u| dispatch_interest(&name(u), K, 2) == 0)
        .unwrap();
    let (_, out) = sh.interest(A, interest(&uri, 1));
    let mut forged = out[0].meta.pit_token.clone().unwrap().to_vec();
    forged[0] = 1;
    sh.shards[0].handle_data(
        sh.now,
        B,
        data(&uri),
        LpMeta {
            pit_token: Some(forged.into()),
            ..Default::default()
        },
    );
    let t = sh.shards[0]
        .poll_transmit()
        .expect("matched by name instead");
    assert_eq!(t.face, A);
}
