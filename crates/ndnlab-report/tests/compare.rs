//! The comparison of hand-made results with a `[reference]`: exact values,
//! interpolation, missing points, shapes, shares, and the files and section
//! the report writes.

use ndnlab_analysis::Table;
use ndnlab_report::compare::{comparison, Counterpart, Row};
use ndnlab_report::reference::Reference;
use ndnlab_report::{write_report, ReportOptions};

/// window in {1, 2, 4, 8}, payload in {1000, 8192}, two replications each:
/// throughput = 10 * window (capped at 40) for 8192, half that for 1000,
/// replications at +-1.
fn results() -> String {
    let mut csv = String::from("run_id,apps.client.window,apps.server.payload,replicate,seed,status,throughput_mbps,delay_p50_us\n");
    let mut id = 0;
    for w in [1, 2, 4, 8] {
        for p in [1000, 8192] {
            for (rep, d) in [(0, -1.0), (1, 1.0)] {
                let base = (10.0 * w as f64).min(40.0) * if p == 8192 { 1.0 } else { 0.5 };
                csv += &format!(
                    "r{id},{w},{p},{rep},{},ok,{},{}\n",
                    100 + id,
                    base + d,
                    100.0 * w as f64
                );
                id += 1;
            }
        }
    }
    csv += "r99,8,8192,2,199,failed,,\n";
    csv
}

const REFERENCE: &str = r#"
citation = "Marchal, Cholez and Festor, \"Server-side performance evaluation of NDN\", ACM ICN 2016"
figure = "Fig. 3"
finding = "no real gain past a window of 4"

[[series]]
label = "8192 B"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "apps.server.payload" = "8192" }
unit = "Gbit/s"
scale = 1000.0
source = "figure"
points = [[1, 0.01, 0.002], [3.0, 0.03], [16, 0.05], ["8", 0.04]]

[[series]]
label = "one cell"
metric = "throughput_mbps"
where = { "apps.server.payload" = 1000, "apps.client.window" = 8.0 }
unit = "Mbit/s"
source = "table"
value = 25.0

[[series]]
label = "no such column"
metric = "data_per_sec"
x = "apps.client.window"
unit = "Data/s"
source = "text"
points = [[1, 5.0]]

[[shape]]
label = "plateau at 4"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "apps.server.payload" = 8192 }
kind = "plateau"
threshold = 0.05
paper = 4
source = "text"

[[shape]]
label = "delay passes 300 us"
metric = "delay_p50_us"
x = "apps.client.window"
kind = "crossing"
threshold = 300.0
paper = 3
source = "text"

[[variation]]
label = "window"
metric = "throughput_mbps"
effect = ["apps.client.window"]
share = 60.0
source = "table"

[[variation]]
label = "interaction"
metric = "throughput_mbps"
effect = ["apps.server.payload", "apps.client.window"]
share = 5.0
source = "table"
"#;

fn factors() -> Vec<String> {
    vec!["apps.client.window".into(), "apps.server.payload".into()]
}

fn rows() -> Vec<Row> {
    let t = Table::from_csv_str(&results()).unwrap();
    let ok = t.filter(|r| t.cell(r, 5) == "ok");
    let r: Reference = toml::from_str(REFERENCE).unwrap();
    r.validate(&factors(), &|_| true).unwrap();
    comparison(r, &ok, &factors(), 0.05).rows
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

#[test]
fn exact_levels_are_measured_and_scaled() {
    let rows = rows();
    let r = &rows[0];
    assert_eq!((r.kind, r.x.as_str()), ("series", "apps.client.window=1"));
    assert_eq!(r.where_, "apps.server.payload=8192");
    assert_eq!(r.counterpart, Counterpart::Measured);
    // mean of 9 and 11 Mbit/s, in Gbit/s
    assert!(close(r.ndnlab, 0.010), "{r:?}");
    assert!(close(r.ratio, 1.0));
    assert_eq!(r.paper_error, Some(0.002));
    // t[0.975; 1] * sd / sqrt(2) = 12.706 * 1.414 / 1.414
    let half = (r.ndnlab_ci_hi.unwrap() - r.ndnlab_ci_lo.unwrap()) / 2.0;
    assert!((half - 0.012706).abs() < 1e-5, "{half}");
    // "8" as text matches the cell 8
    assert_eq!(rows[3].counterpart, Counterpart::Measured);
    assert!(close(rows[3].ndnlab, 0.040));
    // a single cell, levels written as 1000 and 8.0
    assert_eq!(rows[4].x, "");
    assert_eq!(rows[4].counterpart, Counterpart::Measured);
    assert!(close(rows[4].ndnlab, 20.0), "{:?}", rows[4]);
    assert!(close(rows[4].ratio, 0.8));
}

#[test]
fn levels_between_are_interpolated_and_outside_missing() {
    let rows = rows();
    // window 3: halfway between 20 (w=2) and 40 (w=4)
    assert_eq!(rows[1].counterpart, Counterpart::Interpolated);
    assert!(close(rows[1].ndnlab, 0.030), "{:?}", rows[1]);
    assert!(rows[1].ndnlab_ci_lo.unwrap() < 0.030);
    // window 16: beyond the last level
    assert_eq!(rows[2].counterpart, Counterpart::Missing);
    assert_eq!(rows[2].ndnlab, None);
    assert!(!rows[2].note.is_empty());
    // no column
    assert_eq!(rows[5].counterpart, Counterpart::Missing);
    assert!(
        rows[5].note.contains("no column 'data_per_sec'"),
        "{}",
        rows[5].note
    );
}

#[test]
fn shapes_are_read_from_ndnlabs_means() {
    let rows = rows();
    let plateau = rows.iter().find(|r| r.label == "plateau at 4").unwrap();
    assert_eq!(plateau.kind, "shape");
    assert_eq!(plateau.counterpart, Counterpart::Measured);
    assert_eq!(plateau.ndnlab, Some(4.0));
    assert!(close(plateau.ratio, 1.0));
    // delay 100 * window: 300 is crossed at window 3, between 2 and 4
    let crossing = rows
        .iter()
        .find(|r| r.label == "delay passes 300 us")
        .unwrap();
    assert_eq!(crossing.counterpart, Counterpart::Interpolated);
    assert!(close(crossing.ndnlab, 3.0), "{crossing:?}");
}

#[test]
fn shapes_not_reached_are_beyond_the_last_level_without_a_ratio() {
    let t = Table::from_csv_str(&results()).unwrap();
    let ok = t.filter(|r| t.cell(r, 5) == "ok");
    // delay is 100 us per window, 800 us at the last window (8): 5000 us is
    // never passed; throughput 10, 20, 40, 40 never gains less than 0.
    let late = REFERENCE
        .replace("threshold = 300.0", "threshold = 5000.0")
        .replace("threshold = 0.05", "threshold = 0.0");
    let r: Reference = toml::from_str(&late).unwrap();
    let rows = comparison(r, &ok, &factors(), 0.05).rows;
    for label in ["delay passes 300 us", "plateau at 4"] {
        let row = rows.iter().find(|r| r.label == label).unwrap();
        assert_eq!(row.counterpart, Counterpart::Beyond, "{row:?}");
        assert_eq!(row.ndnlab, Some(8.0));
        assert_eq!(row.ratio, None);
        assert!(row.note.contains("past 8"), "{}", row.note);
    }
}

#[test]
fn relative_series_are_scaled_by_ndnlabs_own_value_at_the_base_level() {
    let t = Table::from_csv_str(&results()).unwrap();
    let ok = t.filter(|r| t.cell(r, 5) == "ok");
    // throughput at payload 8192 is 10, 20, 40, 40 Mbit/s for windows 1, 2, 4, 8:
    // relative to window 2 = 100, ndnlab reads 50, 100, 200.
    let r: Reference = toml::from_str(
        r#"
citation = "c"
figure = "f"
finding = "x"

[[series]]
label = "relative"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "apps.server.payload" = 8192 }
unit = "window 2 = 100"
relative_to = 2
source = "text"
points = [[1, 40.0], [2, 100.0], [4, 210.0]]
"#,
    )
    .unwrap();
    r.validate(&factors(), &|_| true).unwrap();
    let rows = comparison(r, &ok, &factors(), 0.05).rows;
    let got: Vec<f64> = rows.iter().map(|r| r.ndnlab.unwrap()).collect();
    assert!(
        close(Some(got[0]), 50.0) && close(Some(got[1]), 100.0) && close(Some(got[2]), 200.0),
        "{got:?}"
    );
    assert!(close(rows[1].ratio, 1.0));
    let bad: Reference = toml::from_str(
        r#"
citation = "c"
figure = "f"
finding = "x"

[[series]]
label = "relative"
metric = "throughput_mbps"
x = "apps.client.window"
unit = "%"
relative_to = 16
source = "text"
points = [[1, 40.0]]
"#,
    )
    .unwrap();
    let e = bad.validate(&factors(), &|_| true).unwrap_err();
    assert!(e.contains("series[0].relative_to"), "{e}");
}

#[test]
fn a_ratio_shape_divides_the_metric_at_two_levels() {
    let t = Table::from_csv_str(&results()).unwrap();
    let ok = t.filter(|r| t.cell(r, 5) == "ok");
    // throughput at payload 8192: 10 Mbit/s at window 1, 40 at window 8.
    let r: Reference = toml::from_str(
        r#"
citation = "c"
figure = "f"
finding = "x"

[[shape]]
label = "four times from window 1 to 8"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "apps.server.payload" = 8192 }
kind = "ratio"
from = 1
to = 8
paper = 5.0
source = "text"
"#,
    )
    .unwrap();
    r.validate(&factors(), &|_| true).unwrap();
    let rows = comparison(r.clone(), &ok, &factors(), 0.05).rows;
    assert_eq!(rows[0].counterpart, Counterpart::Measured);
    assert!(close(rows[0].ndnlab, 4.0), "{:?}", rows[0]);
    assert!(close(rows[0].ratio, 0.8));
    let mut bad = r;
    bad.shape[0].threshold = Some(0.1);
    let e = bad.validate(&factors(), &|_| true).unwrap_err();
    assert!(e.contains("shape[0].threshold"), "{e}");
    bad.shape[0].threshold = None;
    bad.shape[0].to = None;
    let e = bad.validate(&factors(), &|_| true).unwrap_err();
    assert!(e.contains("needs from and to"), "{e}");
}

fn curves(reference: &str) -> Vec<ndnlab_report::compare::Curve> {
    let t = Table::from_csv_str(&results()).unwrap();
    let ok = t.filter(|r| t.cell(r, 5) == "ok");
    let r: Reference = toml::from_str(reference).unwrap();
    comparison(r, &ok, &factors(), 0.05).curves
}

#[test]
fn shapes_are_drawn_from_ndnlabs_curve_in_the_metrics_unit() {
    let cs = curves(REFERENCE);
    let keys: Vec<(&str, &str)> = cs
        .iter()
        .map(|c| (c.metric.as_str(), c.unit.as_str()))
        .collect();
    // The series in Gbit/s (scale 1000) and the one without runs, then a
    // figure per shape in the metric's unit.
    assert_eq!(
        keys,
        [
            ("throughput_mbps", "Gbit/s"),
            ("data_per_sec", "Data/s"),
            ("throughput_mbps", "Mbit/s"),
            ("delay_p50_us", "µs")
        ]
    );
    let plateau = &cs[2].series;
    assert_eq!(plateau.len(), 1);
    assert!(!plateau[0].paper);
    assert_eq!(plateau[0].label, "ndnlab, apps.server.payload=8192");
    let means: Vec<f64> = plateau[0].points.iter().map(|p| p.mean).collect();
    assert_eq!(means, [10.0, 20.0, 40.0, 40.0]);
    // A series in the metric's own unit (scale 1) holds its shapes' curve.
    let cs = curves(&REFERENCE.replace("scale = 1000.0", "scale = 1.0"));
    assert_eq!(cs.len(), 3);
    let labels: Vec<&str> = cs[0].series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        ["ndnlab, apps.server.payload=8192", "8192 B (paper)"]
    );
}

#[test]
fn shares_come_from_the_allocation_of_variation() {
    let rows = rows();
    let w = rows.iter().find(|r| r.label == "window").unwrap();
    assert_eq!((w.kind, w.unit.as_str()), ("variation", "%"));
    assert_eq!(w.counterpart, Counterpart::Measured);
    let share = w.ndnlab.unwrap();
    assert!(share > 50.0 && share < 100.0, "{share}");
    let (lo, hi) = (w.ndnlab_ci_lo.unwrap(), w.ndnlab_ci_hi.unwrap());
    assert!(lo <= hi && hi <= 100.0);
    let i = rows.iter().find(|r| r.label == "interaction").unwrap();
    assert_eq!(i.counterpart, Counterpart::Measured);
    assert!(i.ndnlab.unwrap() < share);
}

#[test]
fn the_report_writes_the_comparison_files_and_section() {
    let dir = std::env::temp_dir().join(format!("ndnlab-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("results.csv"), results()).unwrap();
    let doc = format!(
        "[experiment]\nname = \"fig3\"\nmetrics = [\"throughput_mbps\", \"delay_p50_us\"]\n\n[factors]\n\"apps.client.window\" = [1, 2, 4, 8]\n\"apps.server.payload\" = [1000, 8192]\n\n{}",
        REFERENCE
            .replace("[[series]]", "[[reference.series]]")
            .replace("[[shape]]", "[[reference.shape]]")
            .replace("[[variation]]", "[[reference.variation]]")
            .replace("citation =", "[reference]\ncitation =")
    );
    std::fs::write(dir.join("experiment.toml"), doc).unwrap();
    let index = write_report(&dir, &ReportOptions::default()).unwrap();
    let html = std::fs::read_to_string(index).unwrap();
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s} missing"));
    // Findings first, the paper next, the configuration and machine last.
    assert!(at("<h2 id=\"findings\"") < at("<h2 id=\"paper\""));
    assert!(at("<h2 id=\"paper\"") < at("<h2 id=\"summary\""));
    assert!(at("<h2 id=\"summary\"") < at("<h2 id=\"experiment\""));
    assert!(at("<h2 id=\"experiment\"") < at("<h2 id=\"machine\""));
    // Declared order, not alphabetical.
    assert!(at("Factorial analysis of throughput_mbps") < at("Factorial analysis of delay_p50_us"));
    assert!(html.contains("8192 B (paper)"));
    assert!(html.contains("fig-paper-throughput-mbps-apps-client-window-0"));
    let csv = std::fs::read_to_string(dir.join("reference.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("figure,kind,label,metric,x,where,paper,paper_error,unit,ndnlab,ndnlab_ci_lo,ndnlab_ci_hi,ratio,counterpart,source"));
    assert_eq!(lines.count(), 10);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json")).unwrap())
            .unwrap();
    assert_eq!(json["figure"], "Fig. 3");
    assert_eq!(json["rows"].as_array().unwrap().len(), 10);
    assert_eq!(json["rows"][1]["counterpart"], "interpolated");
    let _ = std::fs::remove_dir_all(&dir);
}

const KINDS: &str = r#"
citation = "Ada Tester, \"Two forwarders\", 2024"
figure = "Fig. 1"
finding = "the throughput doubles with the window"

[[series]]
label = "window"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "forwarder.kind" = "ndnlab" }
unit = "Mbit/s"
source = "text"
points = [[1, 10.0], [2, 20.0]]

[[series]]
label = "window"
metric = "throughput_mbps"
x = "apps.client.window"
where = { "forwarder.kind" = "nfd" }
unit = "Mbit/s"
source = "text"
points = [[1, 10.0], [2, 20.0]]
"#;

fn kinds(nfd_status: &str) -> (Table, ndnlab_report::compare::Comparison) {
    let mut csv = String::from(
        "run_id,apps.client.window,forwarder.kind,replicate,seed,status,throughput_mbps\n",
    );
    csv += "0,1,ndnlab,0,1,ok,10\n1,2,ndnlab,0,2,ok,20\n";
    let nfd = |v: &str| {
        if nfd_status == "ok" {
            v.to_string()
        } else {
            String::new()
        }
    };
    csv += &format!("2,1,nfd,0,3,{nfd_status},{}\n", nfd("5"));
    csv += &format!("3,2,nfd,0,4,{nfd_status},{}\n", nfd("8"));
    let all = Table::from_csv_str(&csv).unwrap();
    let ok = all.filter(|r| all.cell(r, 5) == "ok");
    let r: Reference = toml::from_str(KINDS).unwrap();
    let factors = [
        "apps.client.window".to_string(),
        "forwarder.kind".to_string(),
    ];
    (all, comparison(r, &ok, &factors, 0.05))
}

#[test]
fn one_paper_series_is_drawn_once_beside_each_forwarder_kind() {
    let (_, c) = kinds("ok");
    assert_eq!(c.curves.len(), 1);
    let labels: Vec<&str> = c.curves[0]
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels, ["ndnlab fwd", "NFD", "window (paper)"]);
    let nfd: Vec<f64> = c.curves[0].series[1]
        .points
        .iter()
        .map(|p| p.mean)
        .collect();
    assert_eq!(nfd, [5.0, 8.0]);
}

#[test]
fn points_whose_runs_were_all_skipped_say_so() {
    let (all, mut c) = kinds("skipped");
    ndnlab_report::compare::mark_skipped(&mut c, &all);
    let how: Vec<Counterpart> = c.rows.iter().map(|r| r.counterpart).collect();
    use Counterpart::{Measured, Skipped};
    assert_eq!(how, [Measured, Measured, Skipped, Skipped]);
    assert!(
        c.rows[2].note.contains("forwarder.kind=nfd"),
        "{:?}",
        c.rows[2]
    );
    // a failed run is not a skipped one: the point stays missing
    let (all, mut c) = kinds("failed");
    ndnlab_report::compare::mark_skipped(&mut c, &all);
    assert_eq!(c.rows[3].counterpart, Counterpart::Missing);
}
