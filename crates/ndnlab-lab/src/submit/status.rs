//! Where a submitted campaign stands: each task's state from the queue, each
//! run's from the slices on disk, and the merge.
//!
//! A run is
//! * `done` when its slice holds an `ok` row, `skipped` when it holds a
//!   `skipped` one (the runner cannot carry out its point: final);
//! * else `queued` or `running` with its task (a running task's runs not
//!   written yet are all counted running: the task works through them);
//! * else `failed`: its row says `failed`, or its task ended (or Slurm no
//!   longer knows it, as with a task cancelled before it started) without
//!   writing it. These are the runs `ndnlab submit resume` runs again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::slurm::{Activity, JobState, States};
use super::Record;

/// Runs by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub runs: usize,
    pub done: usize,
    pub skipped: usize,
    pub running: usize,
    pub queued: usize,
    pub failed: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.runs += o.runs;
        self.done += o.done;
        self.skipped += o.skipped;
        self.running += o.running;
        self.queued += o.queued;
        self.failed += o.failed;
    }
}

/// One array task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskStatus {
    pub task: usize,
    /// `ARRAY_TASK` (`6_1`) of its latest submission; `None` if never submitted.
    pub job: Option<String>,
    /// Slurm's state, `unknown` where neither squeue nor sacct knows the
    /// task, `unsubmitted` where no submission holds it.
    pub state: String,
    pub reason: Option<String>,
    pub counts: Counts,
}

/// The merge job and the merged directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeStatus {
    pub job: Option<String>,
    pub state: String,
    pub reason: Option<String>,
    /// The campaign directory holds the merged results (`merge.json`) and
    /// the merge job is not at work.
    pub merged: bool,
    pub report: Option<PathBuf>,
}

/// A submitted campaign's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub dir: PathBuf,
    pub experiment: PathBuf,
    pub counts: Counts,
    pub tasks: Vec<TaskStatus>,
    pub merge: MergeStatus,
    /// What could not be asked (sacct where accounting is off).
    pub notes: Vec<String>,
}

impl Status {
    /// Every run done or skipped, and merged.
    pub fn finished(&self) -> bool {
        self.counts.done + self.counts.skipped == self.counts.runs && self.merge.merged
    }

    /// Tasks queued or running.
    pub fn active(&self) -> Vec<&TaskStatus> {
        self.tasks
            .iter()
            .filter(|t| t.counts.queued + t.counts.running > 0 || is_active(&t.state))
            .collect()
    }

    /// The merge job is running, or queued and able to start (not waiting on
    /// failed tasks).
    pub fn merge_pending(&self) -> bool {
        let s = JobState {
            state: self.merge.state.clone(),
            reason: self.merge.reason.clone(),
        };
        self.merge.job.is_some()
            && match s.activity() {
                Activity::Running => true,
                Activity::Queued => s.reason.as_deref() != Some(NEVER_SATISFIED),
                Activity::Ended { .. } => false,
            }
    }

    /// Tasks with failed (or missing) runs: what a resume submits again.
    pub fn to_rerun(&self) -> Vec<usize> {
        self.tasks
            .iter()
            .filter(|t| t.counts.failed > 0)
            .map(|t| t.task)
            .collect()
    }
}

/// squeue's reason for a job whose dependency can no longer be met (an
/// `afterok` job after a task that failed).
pub const NEVER_SATISFIED: &str = "DependencyNeverSatisfied";

fn is_active(state: &str) -> bool {
    let s = JobState {
        state: state.to_string(),
        reason: None,
    };
    !matches!(s.activity(), Activity::Ended { .. }) && state != "unknown" && state != "unsubmitted"
}

/// What the slices on disk say: task → run id → row status.
pub type Slices = BTreeMap<usize, BTreeMap<usize, String>>;

/// The campaign's state from its record, the queue's states and the slices.
pub fn compute(
    record: &Record,
    dir: PathBuf,
    states: &States,
    slices: &Slices,
    merged: bool,
    report: Option<PathBuf>,
    notes: Vec<String>,
) -> Status {
    let empty = BTreeMap::new();
    let mut tasks = Vec::new();
    let mut total = Counts::default();
    for task in 0..record.tasks {
        let latest = record
            .submissions
            .iter()
            .rev()
            .find_map(|s| s.array_job.as_ref().filter(|_| s.tasks.contains(&task)));
        let known = latest.and_then(|j| states.get(&(j.clone(), Some(task))));
        let (state, reason, activity) = match (latest, known) {
            (None, _) => (
                "unsubmitted".to_string(),
                None,
                Activity::Ended { ok: false },
            ),
            (Some(_), None) => ("unknown".to_string(), None, Activity::Ended { ok: false }),
            (Some(_), Some(s)) => (s.state.clone(), s.reason.clone(), s.activity()),
        };
        let rows = slices.get(&task).unwrap_or(&empty);
        let mut c = Counts::default();
        for id in record.runs.iter().filter(|id| *id % record.tasks == task) {
            c.runs += 1;
            match (rows.get(id).map(String::as_str), activity) {
                (Some("ok"), _) => c.done += 1,
                (Some("skipped"), _) => c.skipped += 1,
                (_, Activity::Queued) => c.queued += 1,
                (_, Activity::Running) => c.running += 1,
                (_, Activity::Ended { .. }) => c.failed += 1,
            }
        }
        total.add(&c);
        tasks.push(TaskStatus {
            task,
            job: latest.map(|j| format!("{j}_{task}")),
            state,
            reason,
            counts: c,
        });
    }
    let merge_job = record.submissions.last().and_then(|s| s.merge_job.clone());
    let (state, reason, activity) = match merge_job.as_ref() {
        None => ("unsubmitted".to_string(), None, None),
        Some(j) => match states.get(&(j.clone(), None)) {
            Some(s) => (s.state.clone(), s.reason.clone(), Some(s.activity())),
            None => ("unknown".to_string(), None, None),
        },
    };
    // A merge job at work has written part of the directory.
    let merged = merged && !matches!(activity, Some(Activity::Queued | Activity::Running));
    Status {
        dir,
        experiment: record.experiment.clone(),
        counts: total,
        tasks,
        merge: MergeStatus {
            job: merge_job,
            state,
            reason,
            merged,
            report: report.filter(|_| merged),
        },
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::super::slurm::{parse_sacct, parse_squeue};
    use super::super::Submission;
    use super::*;

    /// The campaign of the captures: 12 runs in 6 tasks (2 each), array job
    /// 6 and merge job 7.
    fn record() -> Record {
        let mut r = Record::example();
        r.tasks = 6;
        r.runs = (0..12).collect();
        r.submissions = vec![Submission {
            array_job: Some("6".into()),
            tasks: (0..6).collect(),
            merge_job: Some("7".into()),
        }];
        r
    }

    fn slices(rows: &[(usize, &str)], tasks: usize) -> Slices {
        let mut s = Slices::new();
        for (id, st) in rows {
            s.entry(id % tasks).or_default().insert(*id, st.to_string());
        }
        s
    }

    fn status(states: &States, sl: &Slices, merged: bool) -> Status {
        compute(
            &record(),
            PathBuf::from("/c"),
            states,
            sl,
            merged,
            None,
            Vec::new(),
        )
    }

    #[test]
    fn a_submitted_campaign_is_queued() {
        let q = parse_squeue(include_str!("testdata/squeue-submitted.txt")).unwrap();
        let s = status(&q, &Slices::new(), false);
        assert_eq!(
            s.counts,
            Counts {
                runs: 12,
                queued: 12,
                ..Default::default()
            }
        );
        assert_eq!(s.tasks[3].job.as_deref(), Some("6_3"));
        assert_eq!(s.merge.state, "PENDING");
        assert_eq!(s.merge.reason.as_deref(), Some("Dependency"));
        assert_eq!(s.active().len(), 6);
        assert!(s.to_rerun().is_empty());
    }

    #[test]
    fn running_failed_and_cancelled_tasks_count_their_runs() {
        let q = parse_squeue(include_str!("testdata/squeue-running.txt")).unwrap();
        // task 0 wrote run 0, task 1 wrote a failed run 7, task 2 (cancelled
        // while running) wrote run 2; task 5 was cancelled before it started
        let sl = slices(&[(0, "ok"), (7, "failed"), (2, "ok")], 6);
        let s = status(&q, &sl, false);
        let c = |t: usize| s.tasks[t].counts;
        assert_eq!((c(0).done, c(0).running), (1, 1));
        assert_eq!((c(1).failed, c(1).done), (2, 0));
        assert_eq!((c(2).done, c(2).failed), (1, 1));
        assert_eq!(c(3).running, 2);
        assert_eq!(s.tasks[5].state, "unknown");
        assert_eq!(c(5).failed, 2);
        assert_eq!(
            s.counts,
            Counts {
                runs: 12,
                done: 2,
                skipped: 0,
                running: 5,
                queued: 0,
                failed: 5,
            }
        );
        assert_eq!(s.to_rerun(), vec![1, 2, 5]);
        let active: Vec<usize> = s.active().iter().map(|t| t.task).collect();
        assert_eq!(active, vec![0, 3, 4]);
    }

    #[test]
    fn finished_tasks_leave_the_failed_runs_and_a_blocked_merge() {
        let q = parse_squeue(include_str!("testdata/squeue-finished.txt")).unwrap();
        let done: Vec<(usize, &str)> = [0, 6, 3, 9, 4, 10, 2].map(|i| (i, "ok")).to_vec();
        let s = status(&q, &slices(&done, 6), false);
        assert_eq!(s.counts.done, 7);
        assert_eq!(s.counts.failed, 5);
        assert!(s.active().is_empty());
        assert_eq!(s.to_rerun(), vec![1, 2, 5]);
        assert_eq!(s.merge.reason.as_deref(), Some("DependencyNeverSatisfied"));
        assert!(!s.finished());
    }

    #[test]
    fn a_merge_at_work_has_not_merged_yet() {
        let mut q = parse_squeue(include_str!("testdata/squeue-finished.txt")).unwrap();
        let all: Vec<(usize, &str)> = (0..12).map(|i| (i, "ok")).collect();
        let running = JobState {
            state: "RUNNING".into(),
            reason: None,
        };
        q.insert(("7".into(), None), running);
        let s = status(&q, &slices(&all, 6), true);
        assert!(!s.merge.merged && !s.finished() && s.merge_pending());
        let blocked = parse_squeue(include_str!("testdata/squeue-finished.txt")).unwrap();
        let s = status(&blocked, &slices(&all, 6), false);
        assert!(!s.merge_pending());
    }

    #[test]
    fn sacct_alone_gives_the_same_picture() {
        let q = parse_sacct(include_str!("testdata/sacct-finished.txt")).unwrap();
        let done: Vec<(usize, &str)> = [0, 6, 3, 9, 4, 10, 2].map(|i| (i, "ok")).to_vec();
        let s = status(&q, &slices(&done, 6), false);
        assert_eq!(s.to_rerun(), vec![1, 2, 5]);
        assert_eq!(s.tasks[1].state, "FAILED");
        assert_eq!(s.merge.state, "PENDING");
    }

    #[test]
    fn the_latest_submission_of_a_task_counts() {
        let mut r = record();
        r.submissions.push(Submission {
            array_job: Some("20".into()),
            tasks: vec![1, 2, 5],
            merge_job: Some("21".into()),
        });
        let mut q = parse_squeue(include_str!("testdata/squeue-finished.txt")).unwrap();
        for t in [1, 2, 5] {
            q.insert(
                ("20".into(), Some(t)),
                JobState {
                    state: "COMPLETED".into(),
                    reason: None,
                },
            );
        }
        q.insert(
            ("21".into(), None),
            JobState {
                state: "COMPLETED".into(),
                reason: None,
            },
        );
        let all: Vec<(usize, &str)> = (0..12).map(|i| (i, "ok")).collect();
        let s = compute(
            &r,
            PathBuf::from("/c"),
            &q,
            &slices(&all, 6),
            true,
            None,
            Vec::new(),
        );
        assert_eq!(s.tasks[1].job.as_deref(), Some("20_1"));
        assert_eq!(s.tasks[0].job.as_deref(), Some("6_0"));
        assert_eq!(s.merge.job.as_deref(), Some("21"));
        assert!(s.finished());
        assert!(s.to_rerun().is_empty());
    }
}
