//! `ndnlab submit slurm` on a real Slurm cluster on this machine: munged,
//! slurmctld and three slurmd, each slurmd a host in a network namespace of
//! its own (`scripts/slurm-cluster.sh`). A campaign submitted as a job array
//! and merged equals a straight `ndnlab run` of the same file (same runs,
//! seeds, levels and metrics: the sim runner is deterministic), and a task
//! killed while it runs is completed by `ndnlab submit resume`.
//!
//! Needs root and Debian's slurm-wlm and munge (scripts/test.sh installs them
//! where it may); without them the test says why and passes. The cluster is
//! brought up if it is not (and then down at the end).

mod slurm_common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use slurm_common::{root, slurm_cmd, unavailable, Cluster};

/// A sim campaign of 2 x 2 points and 6 replicates: 24 runs of a fraction of
/// a second each.
const EXPERIMENT: &str = r#"
[experiment]
name = "slurm-sim"
runner = "sim"
duration_s = 0.5
warmup_s = 0.1
repetitions = 6
[topology]
kind = "line"
n = 2
[apps.client]
kind = "consumer"
nodes = ["first"]
rate = 500.0
[apps.server]
kind = "producer"
nodes = ["last"]
[factors]
"link.delay_ms" = [1.0, 5.0]
"link.loss_pct" = [0.0, 2.0]
"#;

const RUNS: usize = 24;

/// How long a campaign may take on the cluster.
const CAMPAIGN_TIMEOUT: Duration = Duration::from_secs(120);

fn ndnlab(args: &[&str]) -> Output {
    slurm_cmd(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .output()
        .expect("run ndnlab")
}

fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn status(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(ndnlab(&["submit", "status", p(dir), "--json"]))).unwrap()
}

/// Polls the status until `done` holds; the last status.
fn wait(dir: &Path, what: &str, done: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let st = status(dir);
        if done(&st) {
            return st;
        }
        assert!(
            start.elapsed() < CAMPAIGN_TIMEOUT,
            "{what}: not after {CAMPAIGN_TIMEOUT:?}:\n{}\n{}",
            serde_json::to_string_pretty(&st).unwrap(),
            ok(ndnlab(&["submit", "status", p(dir)]))
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn count(st: &serde_json::Value, what: &str) -> u64 {
    st["status"]["counts"][what].as_u64().unwrap()
}

/// Submits the experiment and returns the array job's id.
fn submit(exp: &Path, dir: &Path, tasks: &str) -> String {
    let rec: serde_json::Value = serde_json::from_str(&ok(ndnlab(&[
        "submit",
        "slurm",
        p(exp),
        "--tasks",
        tasks,
        "--out",
        p(dir),
        "--json",
    ])))
    .unwrap();
    assert_eq!(rec["runs"].as_array().unwrap().len(), RUNS);
    rec["submissions"][0]["array_job"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The merged campaign holds what the straight run holds.
fn same_as_straight(dir: &Path, straight: &Path) {
    let a = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let b = std::fs::read_to_string(straight.join("results.csv")).unwrap();
    assert_eq!(a.lines().count(), RUNS + 1);
    assert_eq!(
        a, b,
        "the merged results.csv differs from the straight run's"
    );
    for f in ["experiment.toml", "merge.json", "index.html"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    for id in 0..RUNS {
        let s = format!("samples/{id}.csv");
        assert_eq!(
            std::fs::read(dir.join(&s)).unwrap(),
            std::fs::read(straight.join(&s)).unwrap(),
            "{s}"
        );
    }
}

#[test]
fn campaigns_on_a_real_slurm_cluster() {
    if let Some(why) = unavailable() {
        eprintln!("submit_slurm: skipped: {why}");
        return;
    }
    let _cluster = Cluster::up();
    let base = std::env::temp_dir().join(format!("ndnlab-submit-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let exp = base.join("slurm-sim.toml");
    std::fs::write(&exp, EXPERIMENT).unwrap();
    let straight = base.join("straight");
    ok(ndnlab(&["run", p(&exp), "--out", p(&straight), "--json"]));

    array_and_merge_equal_a_straight_run(&base, &exp, &straight);
    a_killed_task_is_completed_by_resume(&base, &exp, &straight);
    the_deploy_scripts_give_the_same_campaign(&base, &exp, &straight);
    let _ = std::fs::remove_dir_all(&base);
}

/// deploy/slurm's two sbatch files, submitted by hand as their comments say.
fn the_deploy_scripts_give_the_same_campaign(base: &Path, exp: &Path, straight: &Path) {
    let dir = base.join("by-hand");
    let deploy = root().join("deploy/slurm");
    let sbatch = |args: &[&str]| -> String {
        let o = slurm_cmd("sbatch")
            .current_dir(base)
            .env("NDNLAB", env!("CARGO_BIN_EXE_ndnlab"))
            .env("NDNLAB_EXPERIMENT", exp)
            .env("NDNLAB_DIR", &dir)
            .env("NDNLAB_TASKS", "3")
            .args(args)
            .output()
            .unwrap();
        ok(o).trim().to_string()
    };
    let array = sbatch(&[
        "--parsable",
        "--array=0-2",
        p(&deploy.join("campaign-array.sbatch")),
    ]);
    let merge = sbatch(&[
        "--parsable",
        &format!("--dependency=afterok:{array}"),
        p(&deploy.join("campaign-merge.sbatch")),
    ]);
    let start = Instant::now();
    loop {
        let o = slurm_cmd("squeue")
            .args([
                "--noheader",
                "--states=all",
                "--format=%T",
                "--jobs",
                &merge,
            ])
            .output()
            .unwrap();
        let state = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if state == "COMPLETED" {
            break;
        }
        assert!(
            start.elapsed() < CAMPAIGN_TIMEOUT
                && matches!(state.as_str(), "PENDING" | "RUNNING" | "COMPLETING"),
            "merge job {merge}: {state}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    same_as_straight(&dir, straight);
}

#[test]
fn bad_input_is_refused_by_name() {
    let base = std::env::temp_dir().join(format!("ndnlab-submit-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let exp = base.join("slurm-sim.toml");
    std::fs::write(&exp, EXPERIMENT).unwrap();
    let out = base.join("c");
    let fails = |args: &[&str], needle: &str| {
        let o = ndnlab(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    };
    let submit = |more: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["submit", "slurm", p(&exp), "--out", p(&out), "--dry-run"]
            .map(String::from)
            .into();
        a.extend(more.iter().map(|s| s.to_string()));
        a
    };
    let run = |more: &[&str], needle: &str| {
        let a = submit(more);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        fails(&a, needle);
    };
    run(&["--tasks", "0"], "--tasks 0");
    run(&["--tasks", "25"], "--tasks 25: ");
    run(&["--tasks", "2", "--time", "1h"], "--time '1h'");
    run(&["--tasks", "2", "--partition", "a%b"], "--partition 'a%b'");
    run(&["--tasks", "2", "--set", "topology.nosuch=1"], "nosuch");
    let bad = base.join("bad.toml");
    std::fs::write(
        &bad,
        EXPERIMENT.replace("repetitions = 6", "repetitions = \"x\""),
    )
    .unwrap();
    fails(
        &["submit", "slurm", p(&bad), "--tasks", "2", "--dry-run"],
        "bad.toml",
    );
    fails(
        &[
            "submit",
            "slurm",
            p(&base.join("none.toml")),
            "--tasks",
            "2",
        ],
        "none.toml",
    );
    fails(&["submit", "status", p(&base)], "not a submitted campaign");
    fails(&["submit", "resume", p(&base)], "not a submitted campaign");

    // --dry-run prints both scripts and writes nothing
    let a = submit(&["--tasks", "3", "--parallel", "2", "--time", "30:00"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let text = ok(ndnlab(&a));
    for want in [
        "#SBATCH --array=0-2%2",
        "#SBATCH --time=30:00",
        "--shard \"$SLURM_ARRAY_TASK_ID/3\"",
        "--dependency=afterok:",
        " merge \"${slices[@]}\"",
    ] {
        assert!(text.contains(want), "{want} not in\n{text}");
    }
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&base);
}

fn array_and_merge_equal_a_straight_run(base: &Path, exp: &Path, straight: &Path) {
    let dir = base.join("array");
    let array = submit(exp, &dir, "3");
    let st = wait(&dir, "the campaign finished", |s| {
        s["finished"].as_bool().unwrap()
    });
    assert_eq!(count(&st, "done"), RUNS as u64);
    let tasks = st["status"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    for (i, t) in tasks.iter().enumerate() {
        assert_eq!(t["job"], format!("{array}_{i}"), "{t}");
        assert_eq!(t["state"], "COMPLETED", "{t}");
        assert_eq!(t["counts"]["done"], 8, "{t}");
    }
    assert_eq!(st["status"]["merge"]["state"], "COMPLETED");
    same_as_straight(&dir, straight);
    // the human table says the same
    let table = ok(ndnlab(&["submit", "status", p(&dir)]));
    assert!(
        table.contains(&format!(
            "runs: {RUNS} done, 0 skipped, 0 running, 0 queued, 0 failed"
        )),
        "{table}"
    );
    // finished: nothing to resume
    let out = ok(ndnlab(&["submit", "resume", p(&dir)]));
    assert!(out.contains("nothing to resume"), "{out}");
}

fn a_killed_task_is_completed_by_resume(base: &Path, exp: &Path, straight: &Path) {
    let dir = base.join("killed");
    let array = submit(exp, &dir, "2");
    // task 1 has written its first run of 12: cancel it
    let slice = dir.join("slices/1/results.csv");
    let start = Instant::now();
    while std::fs::read_to_string(&slice).map_or(0, |t| t.lines().count()) < 2 {
        assert!(start.elapsed() < CAMPAIGN_TIMEOUT, "task 1 wrote no run");
        std::thread::sleep(Duration::from_millis(20));
    }
    let task = format!("{array}_1");
    let o = slurm_cmd("scancel").arg(&task).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let st = wait(&dir, "task 0 done and task 1 cancelled", |s| {
        s["status"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["state"] == "COMPLETED" || t["state"] == "CANCELLED")
            && s["status"]["merge"]["reason"] == "DependencyNeverSatisfied"
    });
    let t1 = &st["status"]["tasks"][1];
    assert_eq!(t1["state"], "CANCELLED", "{t1}");
    let failed = t1["counts"]["failed"].as_u64().unwrap();
    assert!(failed > 0, "task 1 was cancelled before its last run: {t1}");
    assert_eq!(count(&st, "failed"), failed);
    assert_eq!(st["to_rerun"], serde_json::json!([1]));
    assert!(!dir.join("results.csv").exists());

    let r: serde_json::Value =
        serde_json::from_str(&ok(ndnlab(&["submit", "resume", p(&dir), "--json"]))).unwrap();
    assert_eq!(r["tasks"], serde_json::json!([1]), "{r}");
    assert_eq!(r["cancelled"].as_array().unwrap().len(), 1, "{r}");
    let resumed = r["array_job"].as_str().unwrap().to_string();
    let st = wait(&dir, "the resumed campaign finished", |s| {
        s["finished"].as_bool().unwrap()
    });
    assert_eq!(st["status"]["tasks"][1]["job"], format!("{resumed}_1"));
    assert_eq!(st["status"]["tasks"][0]["job"], format!("{array}_0"));
    same_as_straight(&dir, straight);
    // the resumed task ran only the runs the cancelled one left
    let log = std::fs::read_dir(dir.join("slurm/logs"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name() == format!("task-1.{resumed}.out").as_str())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("the resumed task's log");
    assert!(log.contains(&format!("{} resumed", 12 - failed)), "{log}");
}
