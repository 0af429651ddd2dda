//! The data-plane model against queueing theory: one station of the pipeline
//! given a known service law, every other stage free, must reproduce the
//! analytic M/M/1, M/M/1/K and M/D/1 results within stated tolerances.

use std::path::Path;

use ndnlab_dataplane::{simulate, ModelSpec, Observables};
use ndnlab_sim::theory;

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
