//! `ndnlab model fit` and `ndnlab model sample` end to end: a sample file to a
//! model file, the seeded generator and its comparison, and the errors a user
//! meets (a bad value, an ambiguous entry).

use std::fmt::Write;
use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Gamma, Normal};

mod cli_common;

use cli_common::{fails, ndnlab, ok};

fn tmp(tag: &str) -> PathBuf {
    cli_common::tmp("model-cli", tag)
}

/// A forwarder sample log: Interest CS misses gamma, hits normal.
fn samples(path: &PathBuf) {
    let mut rng = StdRng::seed_from_u64(5);
    let miss = Gamma::new(3.2, 41.0).unwrap();
    let hit = Normal::new(300.0, 20.0).unwrap();
    let mut s = String::from(
        "seq,type,cs,input_ns,queue_ns,fwd_ns,output_ns,total_ns,queue_len,pit_size\n",
    );
    for i in 0..2000 {
        let (cs, f) = if i % 2 == 0 {
            ("miss", miss.sample(&mut rng))
        } else {
            ("hit", hit.sample(&mut rng))
        };
        writeln!(s, "{i},interest,{cs},-,-,{f:.3},-,-,0,0").unwrap();
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn fit_then_sample() {
    let d = tmp("e2e");
    let csv = d.join("samples.csv");
    samples(&csv);
    let model = d.join("model.toml");
    let (c, m) = (csv.to_str().unwrap(), model.to_str().unwrap());
    let table = ok(ndnlab(&["model", "fit", c, "--out", m]));
    assert!(
        table.contains("fwd/interest/miss  1000  gamma (shape"),
        "{table}"
    );
    assert!(
        table.contains("fwd/interest/hit   1000  normal (mean"),
        "{table}"
    );
    assert!(table.contains("normal rejected (PPCC"), "{table}");
    let json = ok(ndnlab(&["model", "fit", c, "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["model"]["entry"][1]["dist"]["family"], "gamma", "{json}");
    assert!(v["fits"][1]["fit"]["boxcox"]["lambda"].is_number());

    let draw = |seed: &str| {
        ok(ndnlab(&[
            "model", "sample", m, "--stage", "fwd", "--cs", "miss", "-n", "50", "--seed", seed,
        ]))
    };
    assert_eq!(draw("3"), draw("3"));
    assert_ne!(draw("3"), draw("4"));
    assert_eq!(draw("3").lines().count(), 50);

    let plots = d.join("cmp");
    let out = ok(ndnlab(&[
        "model",
        "sample",
        m,
        "--cs",
        "miss",
        "--compare",
        c,
        "--plots",
        plots.to_str().unwrap(),
    ]));
    assert!(out.contains("two-sample Kolmogorov-Smirnov D"), "{out}");
    assert!(plots.join("compare-bihistogram.svg").exists());
    assert!(plots.join("compare-qq.png").exists());

    fails(
        ndnlab(&["model", "sample", m, "--stage", "fwd"]),
        &["2 entries match", "fwd/interest/hit"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_values_name_file_and_line() {
    let d = tmp("bad");
    let f = d.join("lat.txt");
    std::fs::write(&f, "12\n13\n1x\n").unwrap();
    fails(
        ndnlab(&["model", "fit", f.to_str().unwrap()]),
        &["lat.txt:3: \"1x\" is not a number"],
    );
    fails(
        ndnlab(&["model", "fit", f.to_str().unwrap(), "--families", "cauchy"]),
        &["unknown family \"cauchy\""],
    );
    let _ = std::fs::remove_dir_all(&d);
}
