//! The simulated network against values computed by hand: delivery time on a
//! line of forwarders, and the accounting of every packet lost.

mod common;

use bytes::Bytes;
use common::{fwd, interest, node, Consumer, Producer, TestApp};
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
        net.add_node(&format!("r{i}"), fwd(threads));
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
    net.add_node("r0", node(1, 100));
    net.add_node("r1", fwd(1));
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

/// One forwarder with a consumer and a producer on app faces, the forwarder
/// serving every packet in 1 µs (500,000 Interest-Data pairs a second), the
/// consumer asking for an Interest every `gap` ns (1,000: 1,000,000 a second,
/// twice what the forwarder serves), 50,000 in all.
fn saturated(threads: usize, capacity: usize, gap: u64) -> Network<TestApp> {
    let mut net = Network::new();
    net.add_node("r0", fwd(threads));
    let p = Name::from_uri("/p").unwrap();
    let (_, pf) = net.add_app(0, TestApp::Producer(Producer::new(100)));
    net.add_route(0, &p, pf, 0);
    let schedule: Vec<u64> = (0..50_000).map(|k| k * gap).collect();
    net.add_app(0, TestApp::Consumer(Consumer::new(schedule)));
    let cost = CostModel::uniform(ServiceDist::Constant(1_000));
    net.nodes[0].set_cost(&cost, capacity, DropPolicy::TailDrop, 1);
    net
}

#[test]
fn a_saturated_forwarder_holds_back_its_app_faces_at_its_service_rate() {
    let mut net = saturated(1, 64, 1_000);
    let served = |net: &Network<TestApp>| {
        let k = net.nodes[0].station_counters(0).unwrap();
        (
            k.served[Class::Interest.index()],
            k.served[Class::Data.index()],
        )
    };
    net.run_until(10_000_000);
    let (h0, (i0, d0)) = (net.handled(), served(&net));
    net.run_until(40_000_000);
    let (h1, (i1, d1)) = (net.handled(), served(&net));
    // throughput is the service rate: 1 packet per µs, Interests and Data
    // in about equal shares (the consumer cannot crowd the producer out)
    let per_s = |x: u64| x as f64 / 0.030;
    let rate = per_s(h1 - h0);
    assert!((rate / 1e6 - 1.0).abs() < 0.01, "{rate} packets/s");
    for (what, r) in [("Interests", per_s(i1 - i0)), ("Data", per_s(d1 - d0))] {
        assert!((r / 5e5 - 1.0).abs() < 0.05, "{r} {what}/s");
    }
    // the consumer is held back: by 40 ms it sent far fewer than the 40,000
    // it was asked for, and what it sent beyond what the forwarder took
    // waits in it (not in the input queue, not dropped)
    let sent = consumer(&net).sent.len() as u64;
    assert!(sent < 30_000, "{sent} sent");
    let k = net.nodes[0].station_counters(0).unwrap();
    assert_eq!(k.dropped_total(), 0);
    assert!(k.max_queue <= 64, "{}", k.max_queue);
    // nothing is lost, everything is answered in the end
    net.run_until(1_000_000_000);
    let c = consumer(&net);
    assert_eq!(net.drops.total(), 0, "{:?}", net.drops);
    assert_eq!(c.sent.len(), 50_000);
    assert_eq!(c.answered.len(), c.sent.len());
    assert_eq!(net.in_network(), 0);
}

#[test]
fn app_faces_of_a_multi_threaded_forwarder_and_link_faces_still_tail_drop() {
    // Two forwarding threads: app bursts go to the shard queues and what does
    // not fit is dropped, as `ndnlab fwd` does.
    let mut net = saturated(2, 64, 500);
    net.run_until(1_000_000_000);
    let c = consumer(&net);
    assert!(net.drops.input_queue > 0, "{:?}", net.drops);
    assert_eq!(
        c.sent.len() as u64,
        c.answered.len() as u64 + net.drops.total() + net.in_network()
    );

    // One thread, but the consumer is behind a link: the link's Interests are
    // tail-dropped at the input queue, the producer's Data (an app face) never.
    let mut net: Network<TestApp> = Network::new();
    net.add_node("r0", fwd(1));
    net.add_node("r1", fwd(1));
    let p = Name::from_uri("/p").unwrap();
    let (fa, _) = net.add_link(0, 1, LinkParams::default(), 1, 2);
    net.add_route(0, &p, fa, 1);
    let (_, pf) = net.add_app(1, TestApp::Producer(Producer::new(100)));
    net.add_route(1, &p, pf, 0);
    let schedule: Vec<u64> = (0..20_000).map(|k| k * 1_000).collect();
    net.add_app(0, TestApp::Consumer(Consumer::new(schedule)));
    let cost = CostModel::uniform(ServiceDist::Constant(1_000));
    net.nodes[1].set_cost(&cost, 16, DropPolicy::TailDrop, 1);
    net.run_until(1_000_000_000);
    let c = consumer(&net);
    let k = net.nodes[1].station_counters(0).unwrap();
    let dropped_interests = k.dropped_full[Class::Interest.index()];
    assert!(dropped_interests > 0, "{k:?}");
    assert_eq!(k.dropped_full[Class::Data.index()], 0, "{k:?}");
    assert_eq!(net.drops.input_queue, dropped_interests);
    assert_eq!(net.drops.total(), dropped_interests, "{:?}", net.drops);
    assert_eq!(net.in_network(), 0);
    assert_eq!(
        c.sent.len() as u64,
        c.answered.len() as u64 + dropped_interests
    );
}
