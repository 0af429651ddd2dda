//! The data-plane model against queueing theory: one station of the pipeline
//! given a known service law, every other stage free, must reproduce the
//! analytic M/M/1, M/M/1/K and M/D/1 results within stated tolerances.

use std::path::Path;

use ndnlab_des::theory;
use ndnlab_model::dataplane::{simulate, ModelSpec, Observables};

fn run(toml: &str, seeds: u64) -> Vec<Observables> {
    let m = ModelSpec::from_toml(
        &format!("format = \"ndnlab-dataplane/1\"\n{toml}"),
        Path::new("queueing.toml"),
    )
    .unwrap();
    let r = m.resolve().unwrap();
    (1..=seeds).map(|s| simulate(&r, s, 0).0).collect()
}

fn mean(v: &[Observables], f: impl Fn(&Observables) -> f64) -> f64 {
    v.iter().map(f).sum::<f64>() / v.len() as f64
}

fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want,
        "{what}: {got:.4} against {want:.4} (tolerance {:.1}%)",
        rel * 100.0
    );
}

/// Poisson Interests at λ = 0.8/µs into an input thread serving in `service`;
/// every other stage takes no time, so delivery time is the input's sojourn.
fn input_station(service: &str) -> String {
    format!(
        "[consumer]\npattern = \"poisson\"\nrate = 800000\ninterests = 400000\nwarmup = 10000\n\
         [forwarder]\ninput_threads = 2\n[service.input]\ninterest = \"{service}\"\n"
    )
}

#[test]
fn mm1_waiting_time_and_queue_length() {
    let (lambda, mu) = (0.8e-3, 1e-3); // per ns
    let v = run(&input_station("exp:1us"), 4);
    let w = mean(&v, |o| o.latency_mean);
    close(
        "M/M/1 sojourn W",
        w,
        theory::mm1_wait(lambda, mu) + 1.0 / mu,
        0.05,
    );
    close(
        "M/M/1 wait Wq",
        w - 1.0 / mu,
        theory::mm1_wait(lambda, mu),
        0.06,
    );
    close(
        "M/M/1 queue length Lq",
        mean(&v, |o| o.input_queue_mean),
        theory::mm1_queue_len(lambda, mu),
        0.06,
    );
    assert!(v.iter().all(|o| o.satisfaction == 1.0));
}

#[test]
fn md1_waiting_time_is_pollaczek_khinchine() {
    let (lambda, mu) = (0.8e-3, 1e-3);
    let v = run(&input_station("constant:1us"), 4);
    let wq = mean(&v, |o| o.latency_mean) - 1.0 / mu;
    close("M/D/1 wait Wq", wq, theory::md1_wait(lambda, mu), 0.05);
}

#[test]
fn mm1k_loss_in_a_forwarding_queue() {
    // K = queue + 1 places. Data come back 10 s later (after every Interest),
    // and take no time, so the forwarding thread sees the Interests alone.
    for (rate, queue) in [(900_000, 4u32), (1_000_000, 9), (1_500_000, 2)] {
        let v = run(
            &format!(
                "[consumer]\npattern = \"poisson\"\nrate = {rate}\ninterests = 300000\nlifetime = \"100s\"\n\
                 [forwarder]\nqueue = {queue}\n[producer]\nlink = \"10s\"\n\
                 [service.fwd]\ninterest = \"exp:1us\"\n"
            ),
            3,
        );
        let p = mean(&v, |o| o.loss_queue / o.sent);
        let want = theory::mm1k_loss(rate as f64 * 1e-9, 1e-3, queue + 1);
        close(
            &format!("M/M/1/K loss at {rate}/s, K={}", queue + 1),
            p,
            want,
            0.06,
        );
        assert!(v.iter().all(|o| o.unsatisfied == o.loss_queue));
    }
}

#[test]
fn a_seed_gives_the_same_run_and_another_seed_another() {
    let t = "[consumer]\npattern = \"poisson\"\nrate = 2000000\ninterests = 5000\n\
             [forwarder]\nthreads = 2\nqueue = 64\n\
             [service.fwd]\ninterest = \"gamma:shape=2,scale=400ns\"\ndata = \"exp:300ns\"\n";
    let a = run(t, 2);
    let b = run(t, 2);
    assert_eq!(a, b);
    assert_ne!(a[0], a[1]);
    // Every observed Interest is either satisfied or lost for one cause.
    for o in &a {
        let causes =
            o.loss_input + o.loss_queue + o.loss_pushed_out + o.loss_output + o.loss_expired;
        assert_eq!(o.satisfied + causes, o.sent);
        assert!(o.loss_queue > 0.0, "overloaded: {o:?}");
    }
}

#[test]
fn a_parked_thread_wakes_up_for_the_first_packet_of_a_burst_only() {
    // Input threads: 1 µs per packet, 10 µs to wake when idle; nothing else
    // takes time. Alone, an Interest and its Data each wake their input
    // thread: 11 + 11 µs. In bursts of 10 only the first of each wakes one:
    // the k-th Interest leaves at 11 + k, its Data arrives then and leaves at
    // 22 + k (the first Data's wake-up holds the others), mean 26.5 µs.
    let model = |pattern: &str| {
        format!(
            "[consumer]\npattern = \"{pattern}\"\nburst = 10\ninterval = \"100us\"\ninterests = 1000\n\
             [service.input]\ninterest = \"constant:1us\"\ndata = \"constant:1us\"\n\
             wakeup = \"constant:10us\"\n"
        )
    };
    let alone = run(&model("constant"), 1);
    assert_eq!(alone[0].latency_mean, 22_000.0);
    assert_eq!(alone[0].latency_max, 22_000.0);
    let bursts = run(&model("burst"), 1);
    assert_eq!(bursts[0].latency_mean, 26_500.0);
    assert_eq!(bursts[0].latency_max, 31_000.0);
}
