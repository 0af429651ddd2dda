//! Statistical model checking of the data-plane model: properties over the
//! observables of one bounded run ([`crate::observe::NAMES`]), checked with
//! `ndnlab_smc`'s methods, and importance splitting for a rare queue overflow.

use crate::smc::splitting::estimate;
use crate::smc::{
    check_property, Aliases, Method, Outcome, Property, Spec, Splittable, SplittingOutcome,
    SplittingSpec,
};

use super::engine::{simulate, Sim};
use super::observe::NAMES;
use super::runs::run_seed;
use super::spec::Resolved;
use super::{Error, Result};

/// The aliases of this model's properties: `all-satisfied`
/// (`unsatisfied == 0`) and `queue-loss` (a forwarding queue dropped a packet).
pub fn aliases() -> Aliases {
    Aliases::default().with("queue-loss", "loss_queue + loss_pushed_out > 0")
}

/// Parses a property over this model's observables.
pub fn parse_property(text: &str) -> Result<Property> {
    Property::parse_with(text, NAMES, &aliases())
        .map_err(|e| Error::Usage(format!("--property {text:?}: {e}")))
}

/// Checks `property` over seeded runs of `r` (run `i` is seeded
/// `run_seed(seed, i)`, as `model simulate`'s).
pub fn check(
    r: &Resolved,
    property: &Property,
    spec: &Spec,
    seed: u64,
    threads: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<Outcome> {
    if spec.method == Method::Splitting {
        return Err(Error::Usage(
            "--method splitting estimates a rare event: use check_rare (the CLI does)".into(),
        ));
    }
    check_property(
        spec,
        property,
        |i| simulate(r, run_seed(seed, i), 0).0.values(),
        threads,
        progress,
    )
    .map_err(|e| Error::Usage(e.to_string()))
}

impl Splittable for Sim<'_> {
    fn reseed(&mut self, seed: u64) {
        Sim::reseed(self, seed);
    }

    fn score(&self) -> f64 {
        Sim::score(self)
    }

    fn run_until(&mut self, level: f64) -> bool {
        Sim::run_until(self, level)
    }

    fn run_max(&mut self, cap: f64) -> f64 {
        Sim::run_until(self, cap);
        Sim::score(self)
    }
}

/// The level of the score ([`Sim::score`]) a rare-event property asks about:
/// `max_queue >= N` is N, `queue-loss` is the queue capacity plus one.
pub fn rare_target(text: &str, r: &Resolved) -> Result<f64> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if t == "queue-loss" || t == "loss_queue+loss_pushed_out>0" {
        if r.queue == 0 {
            return Err(Error::Usage(
                "queue-loss: the forwarding queues are unbounded (forwarder.queue = 0)".into(),
            ));
        }
        return Ok(r.queue as f64 + 1.0);
    }
    if let Some(n) = t.strip_prefix("max_queue>=") {
        return n.parse::<f64>().ok().filter(|n| *n >= 1.0).ok_or_else(|| {
            Error::Usage(format!("--property {text:?}: {n:?} is not a level >= 1"))
        });
    }
    Err(Error::Usage(format!(
        "--property {text:?}: splitting estimates how likely a forwarding queue is to reach \
         a level; write 'max_queue >= N' or 'queue-loss'"
    )))
}

/// Estimates a rare event's probability by importance splitting: the run
/// reaching `target` on [`Sim::score`]. `levels` fixed, or adaptive if `None`.
pub fn check_rare(
    r: &Resolved,
    target: f64,
    spec: &Spec,
    levels: Option<Vec<f64>>,
    keep: Option<f64>,
    seed: u64,
    threads: usize,
) -> Result<SplittingOutcome> {
    let mut s = SplittingSpec::from_spec(spec, target, seed);
    s.levels = levels;
    if let Some(k) = keep {
        s.keep = k;
    }
    let initial = Sim::new(r, run_seed(seed, u64::MAX), 0);
    estimate(&initial, &s, threads).map_err(|e| Error::Usage(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataplane::spec::ModelSpec;
    use std::path::Path;

    fn model(extra: &str) -> Resolved {
        ModelSpec::from_toml(
            &format!("format = \"ndnlab-dataplane/1\"\n{extra}"),
            Path::new("m.toml"),
        )
        .unwrap()
        .resolve()
        .unwrap()
    }

    #[test]
    fn a_light_load_is_all_satisfied_and_an_overload_is_not() {
        let p = parse_property("all-satisfied").unwrap();
        let spec = Spec {
            method: Method::ClopperPearson,
            runs: Some(20),
            ..Spec::default()
        };
        let light = model(
            "[consumer]\ninterests = 2000\nrate = 100000\n[service.fwd]\ninterest = \"exp:1us\"\n",
        );
        let Outcome::Probability(o) = check(&light, &p, &spec, 1, 2, &mut |_| {}).unwrap() else {
            panic!("a Boolean property")
        };
        assert_eq!(o.successes, 20);
        let heavy = model(
            "[consumer]\ninterests = 2000\nrate = 3000000\n[forwarder]\nqueue = 16\n\
             [service.fwd]\ninterest = \"exp:1us\"\n",
        );
        let Outcome::Probability(o) = check(&heavy, &p, &spec, 1, 2, &mut |_| {}).unwrap() else {
            panic!("a Boolean property")
        };
        assert_eq!(o.successes, 0);
    }

    #[test]
    fn rare_targets_and_their_errors() {
        let r = model("[forwarder]\nqueue = 64\n");
        assert_eq!(rare_target("queue-loss", &r).unwrap(), 65.0);
        assert_eq!(rare_target("max_queue >= 40", &r).unwrap(), 40.0);
        assert!(rare_target("latency_p99 < 1ms", &r)
            .unwrap_err()
            .to_string()
            .contains("max_queue >= N"));
        assert!(parse_property("latency_p98 < 1ms")
            .unwrap_err()
            .to_string()
            .contains("latency_p99"));
    }

    #[test]
    fn splitting_agrees_with_plain_runs_on_a_not_so_rare_overflow() {
        // M/M/1 at ρ = 0.7 over 3000 Interests: the queue reaches 30 waiting
        // in a few percent of runs, often enough to count directly.
        let r = model(
            "[consumer]\npattern = \"poisson\"\ninterests = 3000\nrate = 700000\n\
             [forwarder]\nqueue = 0\n[service.fwd]\ninterest = \"exp:1us\"\n",
        );
        let direct = (0..4000)
            .filter(|&i| simulate(&r, run_seed(9, i), 0).0.max_queue >= 30.0)
            .count() as f64
            / 4000.0;
        let spec = Spec {
            runs: Some(400),
            ..Spec::default()
        };
        let levels = Some(vec![10.0, 15.0, 20.0, 25.0]);
        let s = check_rare(&r, 30.0, &spec, levels, None, 3, 2).unwrap();
        let re = s.relative_error.unwrap();
        assert!(
            (s.estimate - direct).abs() <= 3.0 * re * direct + 3.0 * (direct / 4000.0).sqrt(),
            "splitting {} (RE {re}) against {direct} counted",
            s.estimate
        );
    }
}
