//! A tiny exploration end to end, in a temporary directory: complete CSV,
//! the same CSV whatever the threads, resume, shards and merge, the report.

use std::path::{Path, PathBuf};

use ndnlab_model::smc::{Method, Spec};

use super::merge::merge;
use super::report::{write, ReportOptions};
use super::run::{explore, Options, Ran};
use super::*;

/// One thread is overloaded (1.5 Interests per µs against 1 µs of work each);
/// four are not.
const MODEL: &str = r#"format = "ndnlab-dataplane/1"
name = "explore test"
[consumer]
pattern = "poisson"
rate = 1500000
interests = 1500
[forwarder]
threads = 1
queue = 64
[service.fwd]
interest = "exp:1us"
"#;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndnlab-explore-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn manifest(dir: &Path, seed: u64) -> Manifest {
    let file = dir.join("m.toml");
    std::fs::write(&file, MODEL).unwrap();
    let model = ModelSpec::load(&file).unwrap();
    let grid = Grid::parse(&["threads=1,4".into(), "queue=32,256".into()], &model).unwrap();
    let spec = Spec {
        method: Method::ClopperPearson,
        runs: Some(20),
        ..Spec::default()
    };
    Manifest::new(&file, &model, grid, "all-satisfied", &spec, seed)
}

fn run(
    m: &Manifest,
    out: &Path,
    threads: usize,
    shard: Option<(usize, usize)>,
    resume: bool,
) -> Result<Ran> {
    let opts = Options {
        threads,
        shard,
        out: Some(out),
        resume,
    };
    explore(m, &opts, &|_, _| {})
}

fn csv(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(points::FILE)).unwrap()
}

#[test]
fn explore_resume_shard_and_merge_agree() {
    let base = temp("all");
    let m = manifest(&base, 7);
    let (a, b) = (base.join("a"), base.join("b"));

    let ran = run(&m, &a, 2, None, false).unwrap();
    assert!(ran.complete);
    assert_eq!(
        (ran.points, ran.checked, ran.skipped, ran.runs),
        (4, 4, 0, 80)
    );
    let full = csv(&a);
    assert_eq!(full.lines().count(), 5, "{full}");
    assert!(full.starts_with(
        "point,threads,queue,runs,successes,estimate,lo,hi,confidence,method,mean_satisfaction"
    ));

    // The same CSV on one thread.
    run(&m, &b, 1, None, false).unwrap();
    assert_eq!(csv(&b), full);

    // Not over existing results without --resume, nor with other options.
    let e = run(&m, &b, 1, None, false).unwrap_err().to_string();
    assert!(e.contains("--resume"), "{e}");
    let e = run(&manifest(&base, 8), &b, 1, None, true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--seed"), "{e}");

    // Resume after losing one row: only that point runs again.
    let lines: Vec<&str> = full.lines().collect();
    let cut: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    std::fs::write(b.join(points::FILE), cut).unwrap();
    let ran = run(&m, &b, 2, None, true).unwrap();
    assert_eq!((ran.checked, ran.skipped, ran.runs), (1, 3, 20));
    assert_eq!(csv(&b), full);

    // Two shards, merged, give the one run's CSV.
    let (s0, s1, merged) = (base.join("s0"), base.join("s1"), base.join("merged"));
    let r0 = run(&m, &s0, 2, Some((0, 2)), false).unwrap();
    assert_eq!((r0.points, r0.complete), (2, false));
    run(&m, &s1, 1, Some((1, 2)), false).unwrap();
    let e = merge(std::slice::from_ref(&s0), &merged)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 of 4 points") && e.contains("threads=1 queue=256"),
        "{e}"
    );
    let e = merge(&[s0.clone(), s0.clone()], &merged)
        .unwrap_err()
        .to_string();
    assert!(e.contains("found twice"), "{e}");
    let mm = merge(&[s0, s1], &merged).unwrap();
    assert_eq!(mm.rows.len(), 4);
    assert_eq!(csv(&merged), full);

    // The obvious answer: one thread loses Interests, four do not; the
    // smaller queue is enough.
    let rows = &ran.rows;
    assert!(
        rows.iter()
            .all(|r| (r.levels[0] == "4") == (r.successes == Some(20))),
        "{rows:?}"
    );
    let opts = ReportOptions {
        require: Requirement::AtLeast(0.8),
        ..ReportOptions::default()
    };
    let w = write(&merged, &mm.manifest, &mm.rows, &opts).unwrap();
    assert_eq!(w.recommendations.len(), 1);
    let rec = &w.recommendations[0];
    assert!(rec.meets);
    assert_eq!(rec.row.levels, ["4", "32"]);
    assert_eq!(w.figures.len(), 2);
    for f in &w.figures {
        assert!(f.exists() && f.with_extension("png").exists());
    }
    let text = std::fs::read_to_string(&w.recommended_csv).unwrap();
    assert!(
        text.starts_with("threads,queue,meets,estimate") && text.contains("4,32,yes,1,"),
        "{text}"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn manifests_round_trip_and_name_their_differences() {
    let base = temp("manifest");
    let m = manifest(&base, 1);
    let out = base.join("x");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join(MANIFEST), m.to_toml()).unwrap();
    let back = Manifest::load(&out).unwrap();
    assert_eq!(back.difference(&m), None);
    let mut other = m.clone();
    other.smc.runs = Some(30);
    assert!(other.difference(&m).unwrap().contains("--runs"));
    let mut other = m.clone();
    other.model.set("rate", "1e6").unwrap();
    assert!(other.difference(&m).unwrap().contains("model"));
    let mut s = m.clone();
    s.smc.method = ndnlab_model::smc::Method::Splitting;
    assert!(s
        .spec()
        .unwrap_err()
        .to_string()
        .contains("model check --method splitting"));
    std::fs::remove_dir_all(&base).unwrap();
}
