//! `ndnlab analyze ...` and `ndnlab report` end to end on small CSV files,
//! including the failures a user meets: bad CSV, missing column, unbalanced design.

use std::path::PathBuf;

mod cli_common;

use cli_common::{fails, ndnlab, ok};

fn tmp(tag: &str) -> PathBuf {
    cli_common::tmp("analyze-cli", tag)
}

const SEED001: &str = "run,A,B,C,D,Mbps\n\
    1,-1,-1,-1,-1,25\n2,1,-1,-1,-1,27\n3,-1,1,-1,-1,21\n4,1,1,-1,-1,18\n\
    5,-1,-1,1,-1,97\n6,1,-1,1,-1,103\n7,-1,1,1,-1,46\n8,1,1,1,-1,48\n\
    9,-1,-1,-1,1,26\n10,1,-1,-1,1,24\n11,-1,1,-1,1,15\n12,1,1,-1,1,13\n\
    13,-1,-1,1,1,61\n14,1,-1,1,1,59\n15,-1,1,1,1,31\n16,1,1,1,1,28\n";

#[test]
fn factorial_on_seed001_table5() {
    let d = tmp("seed001");
    let f = d.join("t5.csv");
    std::fs::write(&f, SEED001).unwrap();
    let f = f.to_str().unwrap();
    // Factors found by themselves: the columns with exactly two levels.
    let out = ok(ndnlab(&["analyze", "factorial", f, "--response", "Mbps"]));
    assert!(out.contains("2^4 (unreplicated) design"), "{out}");
    let top = &out[out.find("top contributors").unwrap()..];
    let rows: Vec<&str> = top
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(rows, ["C", "B", "BC", "D", "CD"]);
    let json: serde_json::Value = serde_json::from_str(&ok(ndnlab(&[
        "analyze",
        "factorial",
        f,
        "--response",
        "Mbps",
        "--factors",
        "A,B,C,D",
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["ranking"][0], "C");
    let c = json["analysis"]["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["term"] == "C")
        .unwrap();
    assert!((c["percent"].as_f64().unwrap() - 51.0).abs() < 0.5);
    // The multiplicative model.
    let out = ok(ndnlab(&[
        "analyze",
        "factorial",
        f,
        "--response",
        "Mbps",
        "--log",
    ]));
    assert!(out.contains("log10(Mbps)"), "{out}");
}

#[test]
fn anova_and_summary() {
    let d = tmp("anova");
    let f = d.join("cache.csv");
    std::fs::write(
        &f,
        "workload,cache,time\nASM,two,54\nASM,one,55\nASM,none,106\nTECO,two,60\nTECO,one,60\nTECO,none,123\n\
         SIEVE,two,43\nSIEVE,one,43\nSIEVE,none,120\nDHRYSTONE,two,49\nDHRYSTONE,one,52\nDHRYSTONE,none,111\n\
         SORT,two,49\nSORT,one,50\nSORT,none,108\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let out = ok(ndnlab(&[
        "analyze",
        "anova",
        f,
        "--response",
        "time",
        "--factors",
        "cache,workload",
    ]));
    assert!(
        out.contains("cache × workload interaction serves as the error"),
        "{out}"
    );
    assert!(out.contains("95.93%"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&ok(ndnlab(&[
        "analyze",
        "anova",
        f,
        "--response",
        "time",
        "--factors",
        "cache,workload",
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["rows"][0]["source"], "cache");
    let out = ok(ndnlab(&[
        "analyze",
        "summary",
        f,
        "--by",
        "cache",
        "--metrics",
        "time",
    ]));
    assert!(out.contains("== time") && out.contains("113.6"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&ok(ndnlab(&[
        "analyze", "summary", f, "--by", "cache", "--json",
    ])))
    .unwrap();
    assert_eq!(json.as_array().unwrap().len(), 3);
}

#[test]
fn bad_input_fails_naming_file_column_and_line() {
    let d = tmp("bad");
    let ragged = d.join("ragged.csv");
    std::fs::write(&ragged, "A,y\n-1,1\n1\n").unwrap();
    let r = ragged.to_str().unwrap();
    fails(
        ndnlab(&["analyze", "factorial", r, "--response", "y"]),
        &["ragged.csv", "line 3"],
    );
    let good = d.join("good.csv");
    std::fs::write(&good, "A,B,y\n-1,-1,1\n1,-1,2\n-1,1,3\n1,1,4\n1,1,x\n").unwrap();
    let g = good.to_str().unwrap();
    fails(
        ndnlab(&["analyze", "factorial", g, "--response", "z"]),
        &["good.csv", "no column named \"z\""],
    );
    fails(
        ndnlab(&["analyze", "factorial", g, "--response", "y"]),
        &["column \"y\", line 6", "not a number"],
    );
    let unbalanced = d.join("unbalanced.csv");
    std::fs::write(
        &unbalanced,
        "A,B,y\n-1,-1,1\n1,-1,2\n-1,1,3\n1,1,4\n1,1,5\n",
    )
    .unwrap();
    fails(
        ndnlab(&[
            "analyze",
            "factorial",
            unbalanced.to_str().unwrap(),
            "--response",
            "y",
        ]),
        &["unbalanced design", "A=-1, B=-1"],
    );
    let one = d.join("one.csv");
    std::fs::write(&one, "p,y\nR,1\nV,2\nZ,3\n").unwrap();
    fails(
        ndnlab(&[
            "analyze",
            "anova",
            one.to_str().unwrap(),
            "--response",
            "y",
            "--factors",
            "p",
        ]),
        &["at least 2 replicates"],
    );
    fails(
        ndnlab(&[
            "analyze",
            "factorial",
            "/nonexistent/x.csv",
            "--response",
            "y",
        ]),
        &["cannot read /nonexistent/x.csv"],
    );
    fails(ndnlab(&["report", d.to_str().unwrap()]), &["results.csv"]);
}

#[test]
fn report_writes_the_page() {
    let d = tmp("report");
    let mut csv = String::from("run_id,A,B,replicate,seed,status,rate_per_sec\n");
    let mut id = 0;
    for rep in 0..3 {
        for (a, b, y) in [
            ("off", "small", 10.0),
            ("on", "small", 20.0),
            ("off", "large", 12.0),
            ("on", "large", 30.0),
        ] {
            csv += &format!("{id},{a},{b},{rep},{id},ok,{}\n", y + rep as f64);
            id += 1;
        }
    }
    std::fs::write(d.join("results.csv"), csv).unwrap();
    let out = ok(ndnlab(&["report", d.to_str().unwrap()]));
    assert!(out.contains("index.html"), "{out}");
    let html = std::fs::read_to_string(d.join("index.html")).unwrap();
    assert!(html.contains("with r = 3 replicates"));
    assert!(d.join("figures/rate-per-sec-allocation.png").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn plot_draws_svg_and_png_and_names_a_bad_column() {
    let d = tmp("plot");
    let csv = d.join("soak.csv");
    std::fs::write(
        &csv,
        "t_s,rss_kib,fds\n0,20480,13\n1,122880,14\n2,131072,14\n",
    )
    .unwrap();
    let c = csv.to_str().unwrap();
    let out = d.join("soak-rss");
    let o = out.to_str().unwrap();
    let printed = ok(ndnlab(&[
        "analyze",
        "plot",
        c,
        "--x",
        "t_s",
        "--y",
        "rss_kib",
        "--scale",
        "0.0009765625",
        "--out",
        o,
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert!(v["svg"].as_str().unwrap().ends_with("soak-rss.svg"));
    let svg = std::fs::read_to_string(d.join("soak-rss.svg")).unwrap();
    assert!(svg.contains("rss_kib"));
    assert!(std::fs::read(d.join("soak-rss.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    fails(
        ndnlab(&["analyze", "plot", c, "--x", "t_s", "--y", "rss", "--out", o]),
        &["soak.csv", "no column named \"rss\""],
    );
}
