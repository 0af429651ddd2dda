//! `model validate` for real: the quick grid of experiments/validate-fwd.toml
//! runs through the in-process forwarder and through the shipped calibrated
//! model (models/ndnlab-fwd.toml), and the table must be complete, with both
//! sides satisfying every Interest at that low load. Bad input is refused
//! before anything runs, naming what is wrong. Nothing here bounds speed.

use std::path::{Path, PathBuf};

use ndnlab_lab::validate::{self, Options, Step, COLUMNS};

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
    }
}

#[test]
fn quick_validation_is_complete_and_satisfied_at_low_load() {
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
    for row in &r.rows {
        let (m, p) = (&row.measured, &row.model);
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
    let written = validate::write(&r, &dir).unwrap();
    assert!(written.iter().any(|p| p.ends_with("satisfaction.png")));
    let csv = std::fs::read_to_string(dir.join("validation.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], COLUMNS.join(","));
    assert_eq!(lines.len(), 3);
    for l in &lines[1..] {
        // every measured and model cell is filled
        assert!(!l.split(',').skip(5).any(str::is_empty), "{l}");
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
