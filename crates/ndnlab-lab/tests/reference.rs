//! `[reference]` in an experiment file: parsed with the experiment, checked
//! against its factors (at both scales) and the metrics it keeps, errors
//! naming the file and the key.

use ndnlab_lab::experiment::parse;

const BASE: &str = r#"
[experiment]
name = "ref"
quick = { "experiment.duration_s" = 0.5, factors = { "apps.c.window" = [1, 8], "apps.p.payload" = [1000] } }

[apps.c]
kind = "consumer"
[apps.p]
kind = "producer"
nodes = ["last"]

[factors]
"apps.c.window" = [1, 8, 16]
"apps.p.payload" = [1000, 8192]
"forwarder.cs_capacity" = [0, 1000]
"#;

const REFERENCE: &str = r#"
[reference]
citation = "Marchal, Cholez and Festor, \"Server-side performance evaluation of NDN\", ACM ICN 2016"
figure = "Fig. 3"
finding = "the best window is 8 Interests"

[[reference.series]]
label = "8192 B"
metric = "data_per_sec"
x = "apps.c.window"
where = { "apps.p.payload" = 8192 }
unit = "Data/s"
source = "figure"
points = [[1, 20.0], [8, 60.0, 5.0]]

[[reference.series]]
label = "one node"
metric = "data_per_sec.c1"
unit = "kData/s"
scale = 1000.0
source = "text"
value = 3.5
"#;

fn error(text: &str) -> String {
    parse(text, "seed.toml").unwrap_err().to_string()
}

#[test]
fn a_reference_is_parsed_with_the_experiment() {
    let (_, e) = parse(&format!("{BASE}{REFERENCE}"), "seed.toml").unwrap();
    let r = e.reference.expect("[reference]");
    assert_eq!(r.figure, "Fig. 3");
    assert_eq!(r.series.len(), 2);
    assert_eq!(r.series[1].scale, 1000.0);
    let (_, e) = parse(BASE, "seed.toml").unwrap();
    assert!(e.reference.is_none());
}

#[test]
fn an_unknown_factor_is_named_by_key() {
    let text = format!("{BASE}{REFERENCE}").replace("x = \"apps.c.window\"", "x = \"apps.c.rate\"");
    let e = error(&text);
    assert!(
        e.starts_with("seed.toml: reference.series[0].x: 'apps.c.rate' is not a factor"),
        "{e}"
    );
}

#[test]
fn an_unknown_metric_is_named_by_key() {
    let text = format!("{BASE}{REFERENCE}").replace("\"data_per_sec.c1\"", "\"speed.c1\"");
    assert_eq!(
        error(&text),
        "seed.toml: reference.series[1].metric: no metric 'speed.c1'"
    );
}

#[test]
fn a_metric_the_results_do_not_keep_is_an_error() {
    let text = format!("{BASE}{REFERENCE}").replace(
        "name = \"ref\"",
        "name = \"ref\"\nmetrics = [\"satisfaction\"]",
    );
    let e = error(&text);
    assert!(
        e.contains("reference.series[0].metric: no metric 'data_per_sec'")
            && e.contains("experiment.metrics does not keep it"),
        "{e}"
    );
}

#[test]
fn a_factor_the_quick_scale_drops_is_an_error() {
    let text = format!("{BASE}{REFERENCE}").replace(
        "[[reference.series]]\nlabel = \"one node\"",
        "[[reference.variation]]\nlabel = \"A\"\nmetric = \"data_per_sec\"\neffect = [\"forwarder.cs_capacity\"]\nshare = 40.0\nsource = \"table\"\n\n[[reference.series]]\nlabel = \"one node\"",
    );
    let e = error(&text);
    assert!(
        e.starts_with(
            "seed.toml: reference.variation[0].effect[0]: 'forwarder.cs_capacity' is not a factor"
        ) && e.contains("under --quick"),
        "{e}"
    );
}

#[test]
fn an_unknown_key_is_a_syntax_error_naming_it() {
    let text = format!("{BASE}{REFERENCE}")
        .replace("figure = \"Fig. 3\"", "figure = \"Fig. 3\"\npage = 4");
    let e = error(&text);
    assert!(e.contains("seed.toml:") && e.contains("page"), "{e}");
}

/// Every experiment file of the reproductions (`experiments/seedNNN/*.toml`
/// but `paper.toml`) parses, `[reference]` included.
#[test]
fn the_reproductions_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut seen = 0;
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        if !name.starts_with("seed") || !dir.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "toml")
                && p.file_name().is_some_and(|n| n != "paper.toml")
            {
                let (_, e) = ndnlab_lab::experiment::load(&p).unwrap_or_else(|e| panic!("{e}"));
                seen += usize::from(e.reference.is_some());
            }
        }
    }
    assert!(seen > 0, "no [reference] under {}", root.display());
}
