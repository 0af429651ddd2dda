//! The runner as a factor: one campaign runs each design point on the runner
//! it names, real time and virtual time into one results table; `--runner`
//! keeps one runner's points.

use std::path::PathBuf;

use ndnlab_lab::campaign::{Campaign, Options};

const BOTH: &str = r#"
[experiment]
name = "runner-factor"
duration_s = 0.4
warmup_s = 0.1
[topology]
kind = "line"
n = 2
[link]
delay_ms = 5.0
[apps.c]
kind = "consumer"
nodes = ["first"]
window = 2
count = 20
[apps.p]
kind = "producer"
nodes = ["last"]
payload = 300
[factors]
"experiment.runner" = ["inproc", "sim"]
"#;

fn setup(tag: &str) -> (PathBuf, PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("ndnlab-runner-factor-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("both.toml");
    std::fs::write(&file, BOTH).unwrap();
    (file, dir.join("out"))
}

fn rows(out: &std::path::Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let head = r.headers().unwrap().clone();
    assert!(head.iter().any(|h| h == "experiment.runner"), "{head:?}");
    r.records().map(|x| x.unwrap()).collect()
}

fn column(out: &std::path::Path, name: &str) -> usize {
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    r.headers()
        .unwrap()
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

#[test]
fn each_point_runs_on_the_runner_it_names() {
    let (file, out) = setup("both");
    let opts = Options {
        out: out.clone(),
        ..Default::default()
    };
    let c = Campaign::load(Some(&file), &opts).unwrap();
    let s = c.run(&opts, &mut |_| {}).unwrap();
    assert_eq!(s.failed, 0, "{:?}", s.rows);
    let (runner, cpu, data) = (
        column(&out, "experiment.runner"),
        column(&out, "cpu_cores"),
        column(&out, "data"),
    );
    let rs = rows(&out);
    assert_eq!(rs.len(), 2);
    for r in &rs {
        assert_eq!(&r[data], "20", "{r:?}");
        // virtual time charges no CPU: only the real-time run reports it
        match &r[runner] {
            "inproc" => assert!(!r[cpu].is_empty(), "{r:?}"),
            "sim" => assert!(r[cpu].is_empty(), "{r:?}"),
            other => panic!("runner {other}"),
        }
    }
}

#[test]
fn the_runner_flag_keeps_that_runners_points() {
    let (file, out) = setup("only");
    let opts = Options {
        out: out.clone(),
        runner: Some("sim".into()),
        ..Default::default()
    };
    let c = Campaign::load(Some(&file), &opts).unwrap();
    assert_eq!(c.runs.len(), 1);
    c.run(&opts, &mut |_| {}).unwrap();
    let runner = column(&out, "experiment.runner");
    let rs = rows(&out);
    assert_eq!(rs.len(), 1);
    assert_eq!(&rs[0][runner], "sim");
}

#[test]
fn a_runner_level_that_is_no_runner_is_refused_at_load() {
    let (file, out) = setup("bad");
    std::fs::write(&file, BOTH.replace("\"sim\"]", "\"simulated\"]")).unwrap();
    let opts = Options {
        out,
        ..Default::default()
    };
    let Err(e) = Campaign::load(Some(&file), &opts) else {
        panic!("a bad runner level loads");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("experiment.runner") && msg.contains("simulated"),
        "{msg}"
    );
}
