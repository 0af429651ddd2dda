//! The forwarder keys the papers vary: `verify_data` with the producers' keys
//! trusted (inproc and sim), and `prefixes` with `dispatch_components` spreading
//! Interests over the forwarding threads (per-shard counters of the sim runner,
//! which runs the real core shards behind the Name Dispatch Table).

use std::path::PathBuf;

use ndnlab_lab::experiment;
use ndnlab_lab::runner::{by_name, Metrics, RunPlan};

fn out(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-knobs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn plan(text: &str) -> RunPlan {
    let (_, exp) = experiment::parse(text, "test.toml").unwrap();
    RunPlan::new(0, 1, exp).unwrap()
}

fn run_one(runner: &str, tag: &str, text: &str) -> Metrics {
    let dir = out(tag);
    let m = by_name(runner).unwrap().run(&plan(text), &dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    m
}

const SIGNED: &str = r#"
[experiment]
duration_s = 0.4
warmup_s = 0.1
[topology]
kind = "line"
n = 2
[forwarder]
verify_data = "signature"
cs_capacity = 0
[apps.c]
kind = "consumer"
nodes = ["first"]
pattern = "constant"
rate = 400.0
lifetime_ms = 500
[apps.p]
kind = "producer"
nodes = ["last"]
payload = 100
signature = "ecdsa-p256"
"#;

#[test]
fn producers_keys_are_trusted_under_inproc_and_sim() {
    for runner in ["inproc", "sim"] {
        let m = run_one(runner, &format!("sig-{runner}"), SIGNED);
        assert_eq!(m["satisfaction"], 1.0, "{runner}: {m:?}");
        // both forwarders check every Data they receive
        assert!(m["data_verified"] >= 2.0 * m["data"], "{runner}: {m:?}");
        assert_eq!(m["data_refused"], 0.0, "{runner}: {m:?}");
    }
}

#[test]
fn digest_mode_computes_and_none_reports_nothing() {
    let digest = SIGNED.replace("\"signature\"\ncs", "\"digest\"\ncs");
    let m = run_one("sim", "digest", &digest);
    // as with signatures: both forwarders check every Data they receive
    assert!(m["data"] > 0.0, "{m:?}");
    assert!(m["data_verified"] >= 2.0 * m["data"], "{m:?}");
    assert_eq!(m["data_refused"], 0.0, "{m:?}");
    let none = SIGNED.replace("verify_data = \"signature\"\n", "");
    let m = run_one("sim", "none", &none);
    assert!(!m.contains_key("data_verified"), "{m:?}");
}

#[test]
fn one_node_may_verify_alone() {
    let per_node = SIGNED.replace("verify_data = \"signature\"\n", "")
        + "[nodes.r0]\nverify_data = \"signature\"\n";
    let both = run_one("sim", "both", SIGNED);
    let one = run_one("sim", "per-node", &per_node);
    assert_eq!(one["satisfaction"], 1.0, "{one:?}");
    assert_eq!(one["data_refused"], 0.0, "{one:?}");
    // virtual time: the same Data flow, checked by one forwarder instead of two
    assert_eq!(
        one["data_verified"] * 2.0,
        both["data_verified"],
        "{one:?} {both:?}"
    );
}

const SPREAD: &str = r#"
[experiment]
runner = "sim"
duration_s = 0.2
warmup_s = 0.05
[forwarder]
threads = 2
dispatch_components = 2
cs_capacity = 0
[apps.c]
kind = "consumer"
prefix = "/dp"
prefixes = 4
pattern = "constant"
rate = 2000.0
name_components = 3
[apps.p]
kind = "producer"
nodes = ["last"]
prefix = "/dp"
prefixes = 4
"#;

/// Interests each shard of the one node received.
fn per_shard(text: &str) -> (Vec<u64>, f64) {
    let p = plan(text);
    let mut b = ndnlab_lab::runner::sim::build(&p).unwrap();
    let dir = out("spread");
    let m = ndnlab_lab::runner::sim::run(&p, &mut b, &dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let shards = b.net.nodes[0]
        .shards
        .iter()
        .map(|s| s.fw.counters().n_in_interests)
        .collect();
    (shards, m["satisfaction"])
}

#[test]
fn prefixes_and_two_dispatch_components_spread_interests_over_both_shards() {
    let (shards, sat) = per_shard(SPREAD);
    assert_eq!(sat, 1.0);
    assert!(shards.iter().all(|n| *n > 50), "{shards:?}");
    // One dispatch component: every name of /dp goes to one shard.
    let (shards, sat) =
        per_shard(&SPREAD.replace("dispatch_components = 2", "dispatch_components = 1"));
    assert_eq!(sat, 1.0);
    assert!(shards.contains(&0), "{shards:?}");
    // Under inproc too the four prefixes are registered and answered.
    let m = run_one(
        "inproc",
        "spread-inproc",
        &SPREAD.replace("runner = \"sim\"\n", ""),
    );
    assert_eq!(m["satisfaction"], 1.0, "{m:?}");
}

#[test]
fn keys_are_checked_naming_them() {
    let bad = |text: &str, key: &str| {
        let e = experiment::parse(text, "test.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{key}: {e}");
    };
    bad(
        &SIGNED.replace("\"signature\"\ncs", "\"rsa\"\ncs"),
        "forwarder.verify_data",
    );
    bad(
        &format!("{SIGNED}[nodes.r1]\nverify_data = \"x\"\n"),
        "nodes.r1.verify_data",
    );
    bad(
        &format!("{SIGNED}[nodes.r1]\ndispatch_components = 0\n"),
        "nodes.r1.dispatch_components",
    );
    bad(
        &SPREAD.replace("prefixes = 4\npattern", "prefixes = 0\npattern"),
        "apps.c.prefixes",
    );
    bad(
        &SPREAD.replace("name_components = 3", "name_components = 2"),
        "apps.c.name_components",
    );
}
