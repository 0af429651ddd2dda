//! Submitting, status and resume against a queue that records what it is
//! asked and answers with the states a test sets (the real Slurm commands are
//! exercised by `crates/ndnlab/tests/submit_slurm.rs`).

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::slurm::{JobState, Queue, States};
use super::*;

/// A sim campaign of 2 points x 3 replicates: 6 runs.
const EXPERIMENT: &str = r#"
[experiment]
name = "tiny sim"
runner = "sim"
duration_s = 0.2
warmup_s = 0.05
repetitions = 3
[topology]
kind = "line"
n = 2
[apps.client]
kind = "consumer"
nodes = ["first"]
rate = 100.0
[apps.server]
kind = "producer"
nodes = ["last"]
[factors]
"link.delay_ms" = [1.0, 5.0]
"#;

/// One sbatch call: (script file name, --array, afterok, job id).
type Sbatch = (String, Option<String>, Option<String>, String);

#[derive(Default)]
struct FakeQueue {
    submitted: RefCell<Vec<Sbatch>>,
    states: RefCell<States>,
    cancelled: RefCell<Vec<String>>,
}

impl FakeQueue {
    fn set(&self, job: &str, task: Option<usize>, state: &str, reason: Option<&str>) {
        self.states.borrow_mut().insert(
            (job.to_string(), task),
            JobState {
                state: state.into(),
                reason: reason.map(String::from),
            },
        );
    }
}

impl Queue for FakeQueue {
    fn submit(
        &self,
        script: &Path,
        array: Option<&str>,
        after_ok: Option<&str>,
    ) -> anyhow::Result<String> {
        let mut s = self.submitted.borrow_mut();
        let id = (100 + s.len()).to_string();
        s.push((
            script.file_name().unwrap().to_string_lossy().into_owned(),
            array.map(String::from),
            after_ok.map(String::from),
            id.clone(),
        ));
        Ok(id)
    }

    fn states(&self, jobs: &[String]) -> anyhow::Result<(States, Vec<String>)> {
        let s = self
            .states
            .borrow()
            .iter()
            .filter(|((j, _), _)| jobs.contains(j))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok((s, Vec::new()))
    }

    fn cancel(&self, job: &str) -> anyhow::Result<()> {
        self.cancelled.borrow_mut().push(job.to_string());
        Ok(())
    }
}

/// A fresh directory with the experiment file; the campaign goes to `out`.
fn setup(tag: &str) -> (PathBuf, PathBuf, SlurmOptions) {
    let base = std::env::temp_dir().join(format!("ndnlab-submit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let exp = base.join("tiny.toml");
    std::fs::write(&exp, EXPERIMENT).unwrap();
    let opts = SlurmOptions {
        tasks: 3,
        parallel: Some(2),
        cpus_per_task: 1,
        out: Some(base.join("out")),
        ndnlab: exp.clone(),
        ..Default::default()
    };
    (base, exp, opts)
}

/// Writes rows for these run ids with this status into slice `task`.
fn write_slice(dir: &Path, task: usize, ids: &[usize], status: &str) {
    let slice = dir.join("slices").join(task.to_string());
    std::fs::create_dir_all(&slice).unwrap();
    let mut rows: Vec<crate::results::RunRow> = crate::results::read(&slice, &[])
        .unwrap()
        .into_iter()
        .map(|(id, (st, m))| row(id, &st, m))
        .collect();
    rows.extend(ids.iter().map(|id| row(*id, status, Default::default())));
    crate::results::write(&slice, &[], &rows).unwrap();
}

fn row(id: usize, status: &str, metrics: crate::runner::Metrics) -> crate::results::RunRow {
    crate::results::RunRow {
        spec: crate::design::RunSpec {
            id,
            point: 0,
            levels: Vec::new(),
            replicate: 0,
            seed: id as u64,
        },
        status: status.into(),
        metrics,
    }
}

#[test]
fn bad_options_are_refused_by_name() {
    let (_, exp, opts) = setup("bad");
    let cases: Vec<(SlurmOptions, &str)> = vec![
        (
            SlurmOptions {
                tasks: 0,
                ..opts.clone()
            },
            "--tasks 0",
        ),
        (
            SlurmOptions {
                tasks: 7,
                ..opts.clone()
            },
            "--tasks 7: ",
        ),
        (
            SlurmOptions {
                parallel: Some(0),
                ..opts.clone()
            },
            "--parallel 0",
        ),
        (
            SlurmOptions {
                time: Some("1h".into()),
                ..opts.clone()
            },
            "--time '1h'",
        ),
        (
            SlurmOptions {
                partition: Some("a b".into()),
                ..opts.clone()
            },
            "--partition 'a b'",
        ),
        (
            SlurmOptions {
                sets: vec!["nokey".into()],
                ..opts.clone()
            },
            "--set 'nokey'",
        ),
        (
            SlurmOptions {
                sbatch: vec!["account=x".into()],
                ..opts.clone()
            },
            "--sbatch 'account=x'",
        ),
        (
            SlurmOptions {
                ndnlab: PathBuf::from("/no/such/ndnlab"),
                ..opts.clone()
            },
            "--ndnlab /no/such/ndnlab",
        ),
    ];
    for (o, want) in cases {
        let e = format!("{:#}", plan(&exp, &o).unwrap_err());
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
    let e = format!(
        "{:#}",
        plan(&exp.with_file_name("none.toml"), &opts).unwrap_err()
    );
    assert!(e.contains("none.toml"), "{e}");
}

#[test]
fn a_plan_holds_the_runs_and_both_scripts() {
    let (base, exp, opts) = setup("plan");
    let p = plan(&exp, &opts).unwrap();
    assert_eq!(p.record.runs, (0..6).collect::<Vec<_>>());
    assert_eq!(p.record.name, "tiny-sim");
    assert!(p.record.experiment.is_absolute() && p.record.dir.is_absolute());
    assert!(p.array_script.contains("#SBATCH --array=0-2%2\n"));
    assert!(p.merge_script.contains("seq 0 2"));
    // nothing written
    assert!(!base.join("out").exists());
}

#[test]
fn submit_writes_the_scripts_then_the_array_then_the_merge_after_it() {
    let (_, exp, opts) = setup("submit");
    let out = opts.out.clone().unwrap();
    let q = FakeQueue::default();
    let p = plan(&exp, &opts).unwrap();
    let r = submit(&p, &q).unwrap();
    assert_eq!(
        *q.submitted.borrow(),
        vec![
            ("array.sbatch".into(), None, None, "100".into()),
            (
                "merge.sbatch".into(),
                None,
                Some("100".into()),
                "101".into()
            ),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("slurm/array.sbatch")).unwrap(),
        p.array_script
    );
    assert_eq!(Record::load(&out).unwrap(), r);
    assert_eq!(r.submissions[0].tasks, vec![0, 1, 2]);
    // once only
    let e = submit(&p, &q).unwrap_err().to_string();
    assert!(e.contains("submitted here already"), "{e}");
    // and never into a directory with other things in it
    let (_, exp, mut opts) = setup("submit-full");
    std::fs::create_dir_all(opts.out.as_ref().unwrap()).unwrap();
    std::fs::write(opts.out.as_ref().unwrap().join("x"), "").unwrap();
    opts.tasks = 2;
    let e = submit(&plan(&exp, &opts).unwrap(), &q)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not empty"), "{e}");
}

#[test]
fn resume_submits_the_tasks_with_missing_runs_and_a_new_merge() {
    let (_, exp, opts) = setup("resume");
    let q = FakeQueue::default();
    submit(&plan(&exp, &opts).unwrap(), &q).unwrap();
    let dir = opts.out.as_ref().unwrap();
    // task 0 runs, task 1 waits, task 2 done: nothing can be resumed yet
    q.set("100", Some(0), "RUNNING", None);
    q.set("100", Some(1), "PENDING", Some("JobArrayTaskLimit"));
    q.set("100", Some(2), "COMPLETED", None);
    q.set("101", None, "PENDING", Some("Dependency"));
    write_slice(dir, 2, &[2, 5], "ok");
    let st = status(dir, &q).unwrap();
    assert_eq!(
        (st.counts.done, st.counts.running, st.counts.queued),
        (2, 2, 2)
    );
    let e = resume(dir, &q).unwrap_err().to_string();
    assert!(e.contains("100_0, 100_1"), "{e}");

    // task 0 killed after run 0, task 1 done with a failed run 4
    q.set("100", Some(0), "CANCELLED", None);
    q.set("100", Some(1), "COMPLETED", None);
    q.set("101", None, "PENDING", Some("DependencyNeverSatisfied"));
    write_slice(dir, 0, &[0], "ok");
    write_slice(dir, 1, &[1], "ok");
    write_slice(dir, 1, &[4], "failed");
    std::fs::write(dir.join("results.csv"), "left by an earlier merge").unwrap();
    let st = status(dir, &q).unwrap();
    assert_eq!((st.counts.done, st.counts.failed), (4, 2));
    assert_eq!(st.to_rerun(), vec![0, 1]);
    let r = resume(dir, &q).unwrap().unwrap();
    assert_eq!(
        r,
        Resumed {
            array_job: Some("102".into()),
            tasks: vec![0, 1],
            merge_job: "103".into(),
            cancelled: vec!["101".into()],
        }
    );
    assert_eq!(
        q.submitted.borrow()[2..],
        [
            (
                "array.sbatch".into(),
                Some("0-1%2".into()),
                None,
                "102".into()
            ),
            (
                "merge.sbatch".into(),
                None,
                Some("102".into()),
                "103".into()
            ),
        ]
    );
    assert!(!dir.join("results.csv").exists());
    assert!(dir.join("slices/2/results.csv").exists());
    assert_eq!(Record::load(dir).unwrap().submissions.len(), 2);

    // the new tasks are the ones that count; done and merged, nothing to resume
    q.set("102", Some(0), "COMPLETED", None);
    q.set("102", Some(1), "COMPLETED", None);
    q.set("103", None, "COMPLETED", None);
    write_slice(dir, 0, &[3], "ok");
    let slice1 = dir.join("slices/1");
    crate::results::write(
        &slice1,
        &[],
        &[
            row(1, "ok", Default::default()),
            row(4, "ok", Default::default()),
        ],
    )
    .unwrap();
    std::fs::write(dir.join("merge.json"), "{}").unwrap();
    let st = status(dir, &q).unwrap();
    assert!(st.finished(), "{st:?}");
    assert_eq!(resume(dir, &q).unwrap(), None);
}

#[test]
fn resume_submits_the_merge_alone_when_every_run_is_done() {
    let (_, exp, opts) = setup("resume-merge");
    let q = FakeQueue::default();
    submit(&plan(&exp, &opts).unwrap(), &q).unwrap();
    let dir = opts.out.as_ref().unwrap();
    for t in 0..3 {
        write_slice(dir, t, &[t, t + 3], "ok");
        q.set("100", Some(t), "COMPLETED", None);
    }
    // the merge still waits for the scheduler: resume leaves it
    q.set("101", None, "PENDING", Some("Dependency"));
    let e = resume(dir, &q).unwrap_err().to_string();
    assert!(e.contains("starts by itself"), "{e}");
    // the merge failed: it alone is submitted again, with no dependency
    q.set("101", None, "FAILED", None);
    let r = resume(dir, &q).unwrap().unwrap();
    assert_eq!(r.array_job, None);
    assert_eq!(
        q.submitted.borrow().last().unwrap(),
        &("merge.sbatch".to_string(), None, None, r.merge_job.clone())
    );
}
