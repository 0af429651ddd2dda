//! `model validate` for real, and its verdict on known answers.
//!
//! * A model whose every stage takes a constant time predicts one delivery
//!   time in closed form; against a measured table written by hand the
//!   errors and the verdict are exact, and the same model with a stage 100
//!   times too slow, or saturated, fails on the metrics it gets wrong.
//! * The quick grid of experiments/validate-fwd.toml runs through the
//!   in-process forwarder and the shipped calibrated model
//!   (models/ndnlab-fwd.toml), and every configuration must be inside the
//!   tolerance stated below ([`QUICK`]); a model whose links take longer than
//!   the Interest lifetime fails on the same measurements.
//! * Bad input is refused before anything runs, naming what is wrong.
//!
//! Nothing here bounds speed.

use std::path::{Path, PathBuf};

use ndnlab_lab::validate::{self, Measured, Measurement, Options, Step, Tolerance, COLUMNS};
use ndnlab_model::dataplane::ModelSpec;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn out(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-validate-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn options(experiment: &Path, out: &Path) -> Options {
    Options {
        experiment: experiment.to_path_buf(),
        out: out.to_path_buf(),
        quick: true,
        sets: Vec::new(),
        model_runs: 3,
        seed: 1,
        threads: 2,
        tolerance: QUICK,
    }
}

/// The quick validation's tolerance, from what the two sides are.
///
/// * Satisfaction within 0.01 (10 of the 1000 Interests of the 0.5 s window):
///   at 2000 Interests/s, one every 500 µs against a few µs of forwarding per
///   exchange, the model loses nothing, and the lab loses an Interest only
///   if the forwarder is stalled for its whole lifetime (1 s).
/// * Each latency percentile at most twice the measured one (relative error
///   <= +100%), with no bound below. The model is calibrated on the release
///   build of the forwarder on an idle machine (docs/model.md: at 20 000/s,
///   the load nearest its calibration, its p50 is 18-42% above that
///   measurement and its p90 and p99 below it). This test measures the debug
///   build beside the rest of the suite, which only adds time: the
///   measurement may exceed the model by any amount, but a model more than
///   twice as slow as even this measurement is wrong about the forwarder.
const QUICK: Tolerance = Tolerance {
    satisfaction: 0.01,
    p50: (-1.0, 1.0),
    p90: (-1.0, 1.0),
    p99: (-1.0, 1.0),
};

/// A model of every stage at a constant time, the consumer at a constant
/// rate: each Interest crosses the consumer link (10 µs), the input (2 µs)
/// and forwarding (1 µs) stages, the producer link (10 µs), and its Data the
/// producer link, the input and forwarding stages and the consumer link
/// again; outputs and the producer take no time. At 2000/s an exchange is
/// over long before the next Interest, so nothing queues and every delivery
/// time is 2·10 + 2 + 1 + 2·10 + 2 + 1 = 46 µs. `fwd` replaces the
/// forwarding stage's time.
fn closed_form(fwd: &str) -> ModelSpec {
    let text = format!(
        "format = \"ndnlab-dataplane/1\"\n\
         [consumer]\npattern = \"constant\"\nrate = 2000.0\nlifetime = \"1s\"\n\
         prefixes = 1\nlink = \"10us\"\n\
         [forwarder]\ninput_threads = 2\nthreads = 1\nqueue = 0\noutput_threads = 2\n\
         [producer]\nlink = \"10us\"\nservice = \"zero\"\n\
         [service.input]\ninterest = \"constant:2us\"\ndata = \"constant:2us\"\n\
         [service.fwd]\ninterest = \"constant:{fwd}\"\ndata = \"constant:{fwd}\"\n\
         [service.output]\ninterest = \"zero\"\ndata = \"zero\"\n"
    );
    ModelSpec::from_toml(&text, Path::new("closed-form.toml")).unwrap()
}

/// A measured configuration written by hand: one or two forwarding threads
/// at 2000 Interests/s.
fn measured(run_id: usize, threads: i64, satisfaction: f64, p: [f64; 3]) -> Measurement {
    Measurement {
        run_id,
        levels: vec![
            ("forwarder.threads".into(), toml::Value::Integer(threads)),
            ("apps.client.rate".into(), toml::Value::Float(2000.0)),
        ],
        measured: Measured {
            sent_rate: 2000.0,
            satisfaction,
            p50_us: p[0],
            p90_us: p[1],
            p99_us: p[2],
        },
    }
}

fn outside(row: &validate::Row) -> Vec<&'static str> {
    row.outside.iter().map(|m| m.metric).collect()
}

#[test]
fn a_wrong_model_fails_on_a_hand_made_table_and_the_right_one_passes() {
    let table = [
        // the closed form itself
        measured(0, 1, 1.0, [46.0, 46.0, 46.0]),
        // a spread around it, inside a factor of 2
        measured(1, 2, 1.0, [40.0, 50.0, 80.0]),
    ];
    let mut o = options(Path::new("unused.toml"), Path::new("unused"));
    o.tolerance = Tolerance::default();
    let rows = validate::compare(&closed_form("1us"), &table, 0.25, 0.5, &o, &mut |_| {}).unwrap();
    for row in &rows {
        let p = &row.model;
        assert_eq!(p.satisfaction, 1.0, "{row:?}");
        assert_eq!([p.p50_us, p.p90_us, p.p99_us], [46.0; 3], "{row:?}");
    }
    let e = |i: usize| {
        let e = &rows[i].errors;
        [e.satisfaction, e.p50, e.p90, e.p99]
    };
    assert_eq!(e(0), [0.0; 4]);
    // (46 - 40)/40, (46 - 50)/50, (46 - 80)/80
    for (got, want) in e(1).iter().zip([0.0, 0.15, -0.08, -0.425]) {
        assert!((got - want).abs() < 1e-12, "{:?}", e(1));
    }
    assert!(rows.iter().all(|r| r.outside.is_empty()), "{rows:?}");

    // Forwarding 100 times too slow: 46 + 2·99 = 244 µs, still no queue; the
    // satisfaction is right, every latency is not.
    let rows =
        validate::compare(&closed_form("100us"), &table, 0.25, 0.5, &o, &mut |_| {}).unwrap();
    assert_eq!([rows[0].model.p50_us, rows[0].model.p99_us], [244.0, 244.0]);
    // (244 - 46)/46, and (244 - 80)/80 for the second row's p99
    assert!((rows[0].errors.p50 - 198.0 / 46.0).abs() < 1e-12);
    assert!((rows[1].errors.p99 - 2.05).abs() < 1e-12);
    for row in &rows {
        assert_eq!(outside(row), ["p50", "p90", "p99"], "{row:?}");
    }
    // Forwarding at 1 ms per packet against an Interest every 500 µs: the
    // queue grows for the whole run, Interests time out, and the
    // satisfaction fails too.
    let rows = validate::compare(&closed_form("1ms"), &table, 0.25, 0.5, &o, &mut |_| {}).unwrap();
    for row in &rows {
        assert!(row.model.satisfaction < 0.98, "{row:?}");
        assert_eq!(
            outside(row),
            ["satisfaction", "p50", "p90", "p99"],
            "{row:?}"
        );
    }
}

#[test]
fn quick_validation_is_complete_and_within_its_tolerance() {
    let dir = out("quick");
    let model = root().join("models/ndnlab-fwd.toml");
    let exp = root().join("experiments/validate-fwd.toml");
    let mut steps = Vec::new();
    let r = validate::validate(&model, &options(&exp, &dir), &mut |s| steps.push(s)).unwrap();
    // the quick scale: one and two threads at 2000 Interests/s
    assert_eq!(r.rows.len(), 2, "{:?}", r.failed);
    assert!(r.failed.is_empty());
    assert!(matches!(
        steps.last(),
        Some(Step::Model { done: 2, total: 2 })
    ));
    eprint!("{}", r.verdict_text());
    for row in &r.rows {
        let (m, p) = (&row.measured, &row.model);
        eprintln!(
            "run {}: satisfaction {} / {}; p50 {} / {} µs, p90 {} / {}, p99 {} / {} (measured / model)",
            row.run_id,
            m.satisfaction,
            p.satisfaction,
            m.p50_us,
            p.p50_us,
            m.p90_us,
            p.p90_us,
            m.p99_us,
            p.p99_us
        );
        // the errors are the model's against this measurement, and inside
        // the stated tolerance
        assert_eq!(row.errors, validate::errors(m, p));
        assert!(row.outside.is_empty(), "{}", r.verdict_text());
        assert!(
            m.sent_rate > 0.0 && m.satisfaction >= 0.99,
            "measured {row:?}"
        );
        assert!(p.satisfaction >= 0.99, "model {row:?}");
        for x in [m.p50_us, m.p90_us, m.p99_us, p.p50_us, p.p90_us, p.p99_us] {
            assert!(x.is_finite() && x > 0.0, "{row:?}");
        }
        assert!(m.p50_us <= m.p90_us && m.p90_us <= m.p99_us, "{row:?}");
        assert!(p.p50_us <= p.p99_us, "{row:?}");
        // the design's factors and the measured rate went to the model
        assert!(row.params.contains_key("threads") && row.params.contains_key("rate"));
    }
    assert!(r.passed() && r.tolerance == QUICK);
    // The same measurements against the shipped model with links longer than
    // the Interest lifetime: nothing is delivered in time, so the model's
    // satisfaction is 0 and it has no latencies to compare.
    let mut wrong = ModelSpec::load(&model).unwrap();
    wrong.consumer.link = "2s".into();
    wrong.producer.link = "2s".into();
    let lab: Vec<Measurement> = r.rows.iter().map(|row| row.measurement()).collect();
    let o = options(&exp, &dir);
    let rows = validate::compare(&wrong, &lab, r.warmup_s, r.duration_s, &o, &mut |_| {}).unwrap();
    for row in &rows {
        assert_eq!(row.model.satisfaction, 0.0, "{row:?}");
        assert_eq!(
            outside(row),
            ["satisfaction", "p50", "p90", "p99"],
            "{row:?}"
        );
    }
    let written = validate::write(&r, &dir).unwrap();
    assert!(written.iter().any(|p| p.ends_with("satisfaction.png")));
    let csv = std::fs::read_to_string(dir.join("validation.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], COLUMNS.join(","));
    assert_eq!(lines.len(), 3);
    for l in &lines[1..] {
        // every measured and model cell is filled, and the verdict is ok
        assert!(!l.split(',').skip(5).any(str::is_empty), "{l}");
        assert!(l.ends_with(",ok"), "{l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_factor_or_key_is_named_before_anything_runs() {
    let dir = out("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let model = root().join("models/ndnlab-fwd.toml");
    let base = std::fs::read_to_string(root().join("experiments/validate-fwd.toml")).unwrap();
    // a factor the model has no parameter for
    let exp = dir.join("payload.toml");
    let text = base.replace(
        "\"apps.client.name_components\" = [3, 7, 13]",
        "\"apps.producer.payload\" = [0, 1200]",
    );
    std::fs::write(&exp, text).unwrap();
    let mut o = options(&exp, &dir.join("o1"));
    o.quick = false;
    let e = validate::validate(&model, &o, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("apps.producer.payload"), "{e}");
    assert!(!dir.join("o1/measured/results.csv").exists(), "nothing ran");
    // an unknown key in the experiment
    let exp = dir.join("key.toml");
    std::fs::write(
        &exp,
        base.replace("cs_capacity = 0", "cs_capacity = 0\nbogus_key = 1"),
    )
    .unwrap();
    let e = validate::validate(&model, &options(&exp, &dir.join("o2")), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("bogus_key"), "{e}");
    // a model file that does not exist
    let e = validate::validate(
        &dir.join("none.toml"),
        &options(&exp, &dir.join("o3")),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("none.toml"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
