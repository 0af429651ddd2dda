//! The station against queueing theory: Poisson arrivals through the event
//! queue into one [`Station`], service times from the cost model, seeded.
//! Every figure is deterministic (fixed seeds), so the tolerances cannot flake.

use ndnlab_des::rng::rng;
use ndnlab_des::theory;
use ndnlab_des::{Class, CostModel, Dist, DropPolicy, EventQueue, Nanos, ServiceDist, Station};

enum Ev {
    Arrival,
    Done,
}

struct Outcome {
    arrived: u64,
    dropped: u64,
    mean_wait_ns: f64,
    /// Time-average number waiting.
    mean_queue_len: f64,
}

/// `n` Poisson arrivals at mean interval `interarrival_ns` into a station of
/// `capacity` with service `service`.
fn run(n: u64, interarrival_ns: f64, service: ServiceDist, capacity: usize, seed: u64) -> Outcome {
    let arrivals = ServiceDist::Dist(Dist::Exponential {
        scale: interarrival_ns,
        location: 0.0,
    });
    let mut arrival_rng = rng(seed);
    let mut cost = CostModel::uniform(service).sampler(seed ^ 0x5eed);
    let mut st: Station<u64> = Station::new(capacity, DropPolicy::TailDrop);
    let mut q = EventQueue::new();
    q.schedule(arrivals.sample(&mut arrival_rng), Ev::Arrival);
    let (mut offered, mut last, mut area) = (0u64, 0 as Nanos, 0u128);
    while let Some((now, ev)) = q.pop() {
        area += (now - last) as u128 * st.queue_len() as u128;
        last = now;
        match ev {
            Ev::Arrival => {
                offered += 1;
                if let Ok(a) = st.offer(now, Class::Interest, offered, &mut cost) {
                    if let Some(done) = a.started {
                        q.schedule(done, Ev::Done);
                    }
                }
                if offered < n {
                    q.schedule_in(arrivals.sample(&mut arrival_rng), Ev::Arrival);
                }
            }
            Ev::Done => {
                let (_, next) = st.complete(now, &mut cost).expect("a packet in service");
                if let Some(done) = next {
                    q.schedule(done, Ev::Done);
                }
            }
        }
    }
    let c = st.counters();
    assert_eq!(c.arrived_total(), n);
    assert_eq!(c.arrived_total(), c.served_total() + c.dropped_total());
    Outcome {
        arrived: c.arrived_total(),
        dropped: c.dropped_total(),
        mean_wait_ns: c.mean_wait_ns(),
        mean_queue_len: area as f64 / last as f64,
    }
}

fn within(what: &str, got: f64, want: f64, tol: f64) {
    let err = (got - want).abs() / want;
    // The table docs/SIMULATOR.md quotes (`--nocapture` shows it).
    println!(
        "{what:<34} simulated {got:>12.4}  theory {want:>12.4}  error {:>5.2}%",
        err * 100.0
    );
    assert!(
        err <= tol,
        "{what}: simulated {got:.4}, theory {want:.4}, off by {:.2}% (> {:.0}%)",
        err * 100.0,
        tol * 100.0
    );
}

const SERVICE_NS: f64 = 1_000.0;

#[test]
fn mm1_wait_and_queue_length_within_3_percent() {
    for rho in [0.5, 0.8] {
        let o = run(
            1_000_000,
            SERVICE_NS / rho,
            ServiceDist::Dist(Dist::Exponential {
                scale: SERVICE_NS,
                location: 0.0,
            }),
            0,
            22,
        );
        let (lambda, mu) = (rho / SERVICE_NS, 1.0 / SERVICE_NS);
        within(
            &format!("M/M/1 Wq at rho {rho}"),
            o.mean_wait_ns,
            theory::mm1_wait(lambda, mu),
            0.03,
        );
        within(
            &format!("M/M/1 Lq at rho {rho}"),
            o.mean_queue_len,
            theory::mm1_queue_len(lambda, mu),
            0.03,
        );
    }
}

#[test]
fn mm1k_loss_within_5_percent() {
    // capacity c waiting places = K = c + 1 in the system.
    for (rho, capacity) in [(0.9, 4usize), (1.2, 9)] {
        let o = run(
            1_000_000,
            SERVICE_NS / rho,
            ServiceDist::Dist(Dist::Exponential {
                scale: SERVICE_NS,
                location: 0.0,
            }),
            capacity,
            24,
        );
        let want = theory::mm1k_loss(rho / SERVICE_NS, 1.0 / SERVICE_NS, capacity as u32 + 1);
        within(
            &format!("M/M/1/K loss at rho {rho}, K {}", capacity + 1),
            o.dropped as f64 / o.arrived as f64,
            want,
            0.05,
        );
    }
}

#[test]
fn md1_wait_pollaczek_khinchine_within_3_percent() {
    let rho = 0.8;
    let o = run(
        1_000_000,
        SERVICE_NS / rho,
        ServiceDist::Constant(SERVICE_NS as Nanos),
        0,
        3,
    );
    within(
        "M/D/1 Wq",
        o.mean_wait_ns,
        theory::md1_wait(rho / SERVICE_NS, 1.0 / SERVICE_NS),
        0.03,
    );
}

#[test]
fn the_cost_model_feeds_the_station_mg1_gamma() {
    // Gamma service, shape 2: E[S²] = shape (shape + 1) scale².
    let (shape, scale) = (2.0, SERVICE_NS / 2.0);
    let rho = 0.7;
    let o = run(
        1_000_000,
        SERVICE_NS / rho,
        ServiceDist::Dist(Dist::Gamma { shape, scale }),
        0,
        5,
    );
    within(
        "M/G/1 (gamma) Wq",
        o.mean_wait_ns,
        theory::mg1_wait(
            rho / SERVICE_NS,
            SERVICE_NS,
            shape * (shape + 1.0) * scale * scale,
        ),
        0.03,
    );
}
