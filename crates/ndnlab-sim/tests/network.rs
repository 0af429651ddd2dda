//! The simulated network against values computed by hand: delivery time on a
//! line of forwarders, and the accounting of every packet lost.

mod common;

use bytes::Bytes;
use common::{fwd, interest, Consumer, Producer, TestApp};
use ndnlab_proto::emu::LinkParams;
use ndnlab_proto::lp::{LinkSender, LpFields};
use ndnlab_sim::{Class, CostModel, DropPolicy, Network, ServiceDist};
use ndnlab_wire::{Data, Name};

/// Bytes of a packet on a link: wrapped in an LpPacket with an 8-byte PIT token.
fn on_link(pkt: &Bytes) -> u64 {
    let f = LpFields {
        pit_token: Some(Bytes::from_static(&[0; 8])),
        ..Default::default()
    };
    let mut out = Vec::new();
    LinkSender::new(None, 0).encode_datagrams(&f, pkt, &mut out);
    out[0].len() as u64
}

fn serialization_ns(bytes: u64, rate_bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(rate_bps)
}

/// A line of `n` nodes, consumer on the first, producer of `/p` on the last.
fn line(n: u32, params: &[LinkParams], threads: usize, schedule: Vec<u64>) -> Network<TestApp> {
    let mut net = Network::new();
    for i in 0..n {
        net.add_node(&format!("r{i}"), &fwd(threads)).unwrap();
    }
    let p = Name::from_uri("/p").unwrap();
    for i in 0..n - 1 {
        let (fa, _) = net.add_link(
            i,
            i + 1,
            params[i as usize].clone(),
            11 + i as u64,
            97 + i as u64,
        );
        net.add_route(i, &p, fa, 1);
    }
    let (_, pf) = net.add_app(n - 1, TestApp::Producer(Producer::new(100)));
    net.add_route(n - 1, &p, pf, 0);
    net.add_app(0, TestApp::Consumer(Consumer::new(schedule)));
    net
}

fn consumer(net: &Network<TestApp>) -> &Consumer {
    net.apps
        .iter()
        .find_map(|a| match &a.app {
            TestApp::Consumer(c) => Some(c),
            _ => None,
        })
        .unwrap()
}

#[test]
fn delivery_time_on_a_line_is_the_sum_of_delays_and_serialization_both_ways() {
    for threads in [1, 3] {
        let n = 5u32;
        let delays = [1_000_000u64, 2_500_000, 333_333, 7_000_001];
        let rate = 10_000_000u64;
        let params: Vec<LinkParams> = delays
            .iter()
            .map(|&d| LinkParams {
                delay_ns: d,
                rate_bps: Some(rate),
                ..Default::default()
            })
            .collect();
        // one Interest at a time, far apart: no queueing
        let schedule: Vec<u64> = (0..10).map(|k| 1_000_000_000 * k + 17).collect();
        let mut net = line(n, &params, threads, schedule.clone());
        net.run_until(20_000_000_000);
        let c = consumer(&net);
        assert_eq!(c.answered.len(), 10, "threads={threads}");
        let data = Data::builder(Name::from_uri("/p/0").unwrap())
            .content(Bytes::from(vec![7u8; 100]))
            .sign_digest();
        let (si, sd) = (on_link(&interest(0)), on_link(&data));
        let want: u64 = delays
            .iter()
            .map(|d| 2 * d + serialization_ns(si, rate) + serialization_ns(sd, rate))
            .sum();
        for (i, sent) in &c.sent {
            // names /p/0../p/9 encode to the same sizes
            assert_eq!(
                c.answered[i] - sent,
                want,
                "Interest {i}, threads={threads}"
            );
        }
        assert_eq!(net.drops.total(), 0);
        assert_eq!(net.in_network(), 0);
    }
}

#[test]
fn every_interest_is_answered_or_lost_by_a_counted_cause_or_still_in_the_network() {
    let n = 4u32;
    let params: Vec<LinkParams> = (0..n - 1)
        .map(|i| LinkParams {
            delay_ns: 2_000_000,
            loss: 0.05,
            // the middle link is slower, with a short queue
            rate_bps: Some(if i == 1 { 2_000_000 } else { 20_000_000 }),
            queue_frames: Some(if i == 1 { 8 } else { 1000 }),
            ..Default::default()
        })
        .collect();
    // bursts that overflow the middle link's queue of 8
    let schedule: Vec<u64> = (0..3000).map(|k| (k / 30) * 20_000_000 + k).collect();
    let mut net = line(n, &params, 2, schedule);
    // the third forwarder is slow, with short input queues
    let slow = CostModel::uniform(ServiceDist::Constant(400_000));
    net.nodes[2].set_cost(&slow, 4, DropPolicy::TailDrop, 5);
    // stop while packets are still on the way
    net.run_until(1_000_100_000);
    let c = consumer(&net);
    let sent = c.sent.len() as u64;
    let answered = c.answered.len() as u64;
    let d = net.drops;
    assert!(
        d.link_lost > 0 && d.link_queue_full > 0 && d.input_queue > 0,
        "{d:?}"
    );
    assert!(net.in_network() > 0);
    assert_eq!(c.nacks, 0);
    // unique names, no CS, no Nacks: an Interest or its Data is dropped at
    // most once, somewhere
    assert_eq!(
        sent,
        answered + d.total() + net.in_network(),
        "sent {sent}, answered {answered}, drops {d:?}, in the network {}",
        net.in_network()
    );
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let run = || {
        let params: Vec<LinkParams> = (0..3)
            .map(|_| LinkParams {
                delay_ns: 1_000_000,
                jitter_ns: 500_000,
                loss: 0.1,
                ..Default::default()
            })
            .collect();
        let schedule: Vec<u64> = (0..500).map(|k| k * 1_000_003).collect();
        let mut net = line(4, &params, 2, schedule);
        net.run_until(3_000_000_000);
        let c = consumer(&net);
        (c.answered.clone(), net.drops, net.events())
    };
    assert_eq!(run(), run());
}

#[test]
fn an_interest_costs_its_content_store_outcome() {
    // Two consumers on r0 both ask for /p/0, one second apart: the first
    // misses r0's Content Store, the second hits it. r0 serves a miss in
    // 1 ms and a hit in 10 µs; nothing else costs time.
    let mut net: Network<TestApp> = Network::new();
    let mut cfg = fwd(1);
    cfg.cs.capacity = 100;
    cfg.cs.admit = true;
    net.add_node("r0", &cfg).unwrap();
    net.add_node("r1", &fwd(1)).unwrap();
    let p = Name::from_uri("/p").unwrap();
    let (fa, _) = net.add_link(0, 1, LinkParams::default(), 1, 2);
    net.add_route(0, &p, fa, 1);
    let (_, pf) = net.add_app(1, TestApp::Producer(Producer::new(100)));
    net.add_route(1, &p, pf, 0);
    net.add_app(0, TestApp::Consumer(Consumer::new(vec![0])));
    net.add_app(0, TestApp::Consumer(Consumer::new(vec![1_000_000_000])));
    let cost = CostModel::zero()
        .with(Class::CsMiss, ServiceDist::Constant(1_000_000))
        .with(Class::CsHit, ServiceDist::Constant(10_000));
    net.nodes[0].set_cost(&cost, 0, DropPolicy::TailDrop, 1);
    net.run_until(2_000_000_000);
    let delivery: Vec<u64> = net
        .apps
        .iter()
        .filter_map(|a| match &a.app {
            TestApp::Consumer(c) => Some(c.answered[&0] - c.sent[&0]),
            _ => None,
        })
        .collect();
    assert_eq!(delivery, vec![1_000_000, 10_000], "miss, then hit");
}
