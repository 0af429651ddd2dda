//! `ndnlab model simulate` and `ndnlab model check` end to end on the shipped
//! NDN-DPDK model: tables, JSON, the trace and its plot, determinism, and the
//! errors a user meets (a bad key, a bad parameter, a bad property).

use std::path::PathBuf;

mod cli_common;

use cli_common::{fails, ndnlab, ok};

fn model() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/ndnlab-dpdk.toml")
        .display()
        .to_string()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(ndnlab(args))).unwrap()
}

#[test]
fn simulate_prints_a_table_and_the_same_json_for_the_same_seed() {
    let m = model();
    let base = [
        "model",
        "simulate",
        &m,
        "--runs",
        "3",
        "--set",
        "interests=4000",
        "--set",
        "warmup=0",
    ];
    let table = ok(ndnlab(&base));
    assert!(
        table.contains("satisfaction") && table.contains("latency_p99"),
        "{table}"
    );
    let mut args = base.to_vec();
    args.extend(["--json", "--set", "threads=8"]);
    let a = json(&args);
    let b = json(&[&args[..], &["--threads", "1"]].concat());
    assert_eq!(a["runs"], b["runs"], "the same seed, whatever the threads");
    let sat = |v: &serde_json::Value| v["runs"][0]["satisfaction"].as_f64().unwrap();
    assert_eq!(sat(&a), 1.0, "8 threads keep up with 2 Mpps");
    let one = json(
        &[
            &base[..],
            &["--json", "--set", "threads=1", "--set", "queue=128"],
        ]
        .concat(),
    );
    assert!(sat(&one) < 0.5, "one thread cannot: {}", sat(&one));
}

#[test]
fn simulate_writes_the_trace_and_its_plot() {
    let dir = cli_common::tmp("model-dp", "trace");
    let csv = dir.join("trace.csv");
    let m = model();
    ok(ndnlab(&[
        "model",
        "simulate",
        &m,
        "--runs",
        "1",
        "--set",
        "interests=3000",
        "--set",
        "warmup=0",
        "--trace",
        csv.to_str().unwrap(),
        "--trace-interval",
        "50us",
    ]));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("t_ns,pit,queue0\n"), "{text}");
    assert!(text.lines().count() > 10);
    assert!(std::fs::read_to_string(dir.join("trace.svg"))
        .unwrap()
        .contains("<svg"));
    assert!(std::fs::metadata(dir.join("trace.png")).unwrap().len() > 1000);
}

#[test]
fn check_estimates_with_the_method_asked_and_says_how_it_stopped() {
    let m = model();
    let small = ["--set", "interests=3000", "--set", "warmup=0"];
    let v = json(
        &[
            &[
                "model",
                "check",
                &m,
                "--property",
                "all-satisfied",
                "--set",
                "threads=8",
                "--json",
            ][..],
            &small[..],
        ]
        .concat(),
    );
    assert_eq!(v["outcome"]["runs"], 150, "{v}");
    assert_eq!(v["outcome"]["estimate"], 1.0);
    let v = json(
        &[
            &[
                "model",
                "check",
                &m,
                "--property",
                "satisfaction >= 0.5",
                "--method",
                "sprt",
                "--theta",
                "0.5",
                "--indifference",
                "0.05",
                "--set",
                "threads=1",
                "--json",
            ][..],
            &small[..],
        ]
        .concat(),
    );
    let text = v.to_string();
    assert!(
        text.contains("reject") || text.contains("P < "),
        "one thread fails it: {text}"
    );
    let table = ok(ndnlab(
        &[
            &[
                "model",
                "check",
                &m,
                "--property",
                "latency_p99",
                "--method",
                "chow-robbins",
                "--delta",
                "5000",
                "--set",
                "threads=8",
            ][..],
            &small[..],
        ]
        .concat(),
    ));
    assert!(
        table.contains("Chow-Robbins") && table.contains("stopped after"),
        "{table}"
    );
}

#[test]
fn errors_name_what_is_wrong() {
    let m = model();
    fails(
        ndnlab(&["model", "simulate", &m, "--set", "cores=2"]),
        &["cores", "threads"],
    );
    fails(
        ndnlab(&["model", "simulate", &m, "--set", "threads=0"]),
        &["forwarder.threads"],
    );
    fails(
        ndnlab(&["model", "check", &m, "--property", "latency_p98 < 1ms"]),
        &["latency_p98", "latency_p99"],
    );
    fails(
        ndnlab(&[
            "model",
            "check",
            &m,
            "--property",
            "all-satisfied",
            "--method",
            "magic",
        ]),
        &["magic"],
    );
    fails(
        ndnlab(&[
            "model",
            "check",
            &m,
            "--property",
            "all-satisfied",
            "--alpha",
            "2",
        ]),
        &["--alpha"],
    );
    let dir = cli_common::tmp("model-dp", "bad");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "format = \"ndnlab-dataplane/1\"\n[forwarder]\npolicy = \"lifo\"\n",
    )
    .unwrap();
    fails(
        ndnlab(&["model", "simulate", bad.to_str().unwrap()]),
        &["bad.toml", "forwarder.policy"],
    );
}
