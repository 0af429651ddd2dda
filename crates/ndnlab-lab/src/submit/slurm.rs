//! Slurm through its commands: `sbatch` submits, `squeue` and `sacct` tell
//! job states, `scancel` cancels. Nothing here speaks a Slurm protocol; the
//! commands find the cluster as they always do (`slurm.conf`, `SLURM_CONF`).
//!
//! The output formats read, one job or array task a line, fields split by `|`:
//!
//! ```text
//! squeue --noheader --array --states=all --format=%i|%T|%r --jobs=J,...
//!     6_0|RUNNING|None           one line per array task (--array)
//!     7|PENDING|Dependency       a plain job
//! sacct --noheader --parsable2 --format=JobID,State,ExitCode --jobs=J,...
//!     6_1|FAILED|3:0
//!     6_1.batch|FAILED|3:0       a step: skipped
//!     6_2|CANCELLED by 0|0:0     the state's first word counts
//!     12_[2-3%1]|PENDING|0:0     tasks not started yet, as a range
//! ```
//!
//! `squeue` knows the jobs `slurmctld` still holds (finished ones for
//! `MinJobAge` seconds); `sacct` knows every job where accounting is on
//! (`slurmdbd`) and fails where it is off, which is not an error here.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use serde::Serialize;

/// A job, or one task of a job array: `(job id, array task)`.
pub type JobKey = (String, Option<usize>);

/// What a job or task is doing, as Slurm names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobState {
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, ...
    pub state: String,
    /// squeue's reason (`Dependency`, `DependencyNeverSatisfied`,
    /// `NonZeroExitCode`, ...); `None` where it says `None` or for sacct.
    pub reason: Option<String>,
}

/// What a state means for the runs of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Waiting for resources, a dependency or a hold.
    Queued,
    /// Started and not finished.
    Running,
    /// Finished, `ok` when it exited with status 0.
    Ended { ok: bool },
}

impl JobState {
    /// See [`Activity`]; a state this module does not know counts as ended.
    pub fn activity(&self) -> Activity {
        match self.state.as_str() {
            "PENDING" | "REQUEUED" | "REQUEUE_HOLD" | "REQUEUE_FED" | "RESV_DEL_HOLD"
            | "SPECIAL_EXIT" => Activity::Queued,
            "RUNNING" | "COMPLETING" | "CONFIGURING" | "SUSPENDED" | "STAGE_OUT" | "SIGNALING"
            | "RESIZING" | "STOPPED" => Activity::Running,
            "COMPLETED" => Activity::Ended { ok: true },
            _ => Activity::Ended { ok: false },
        }
    }
}

/// Job states by job and task.
pub type States = BTreeMap<JobKey, JobState>;

/// A job id as squeue and sacct print it: `7`, `6_1`, or a range of tasks
/// not started yet, `12_[2-3%1]` or `12_[1,4-6]`: the job and its tasks
/// (`None` for a plain job).
pub fn parse_job_id(text: &str) -> Result<(String, Vec<Option<usize>>), String> {
    let bad = || format!("job id '{text}': expected J, J_T or J_[T-U,...]");
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let Some((job, tasks)) = text.split_once('_') else {
        return if digits(text) {
            Ok((text.to_string(), vec![None]))
        } else {
            Err(bad())
        };
    };
    if !digits(job) {
        return Err(bad());
    }
    if digits(tasks) {
        return Ok((
            job.to_string(),
            vec![Some(tasks.parse().map_err(|_| bad())?)],
        ));
    }
    let inner = tasks
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(bad)?;
    // `%K` is the throttle, not a task.
    let inner = inner.split_once('%').map_or(inner, |(r, _)| r);
    let list = parse_task_list(inner).map_err(|_| bad())?;
    Ok((job.to_string(), list.into_iter().map(Some).collect()))
}

/// `1,4-6` → `[1, 4, 5, 6]`.
fn parse_task_list(text: &str) -> Result<Vec<usize>, std::num::ParseIntError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse()?, b.parse()?);
                out.extend(a..=b);
            }
            None => out.push(part.parse()?),
        }
    }
    Ok(out)
}

/// The lines of `squeue --noheader --array --states=all --format=%i|%T|%r`.
pub fn parse_squeue(text: &str) -> Result<States, String> {
    let mut out = States::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.trim().split('|').collect();
        let [id, state, reason] = f[..] else {
            return Err(format!(
                "squeue line {}: '{line}': expected JOBID|STATE|REASON",
                n + 1
            ));
        };
        let (job, tasks) = parse_job_id(id).map_err(|e| format!("squeue line {}: {e}", n + 1))?;
        let reason = Some(reason.to_string()).filter(|r| r != "None" && !r.is_empty());
        for t in tasks {
            out.insert(
                (job.clone(), t),
                JobState {
                    state: state.to_string(),
                    reason: reason.clone(),
                },
            );
        }
    }
    Ok(out)
}

/// The lines of `sacct --noheader --parsable2 --format=JobID,State,ExitCode`:
/// jobs and tasks, not their steps (`6_1.batch`).
pub fn parse_sacct(text: &str) -> Result<States, String> {
    let mut out = States::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.trim().split('|').collect();
        let [id, state, _exit] = f[..] else {
            return Err(format!(
                "sacct line {}: '{line}': expected JobID|State|ExitCode",
                n + 1
            ));
        };
        if id.contains('.') {
            continue;
        }
        let (job, tasks) = parse_job_id(id).map_err(|e| format!("sacct line {}: {e}", n + 1))?;
        let state = state.split_whitespace().next().unwrap_or("").to_string();
        for t in tasks {
            out.insert(
                (job.clone(), t),
                JobState {
                    state: state.clone(),
                    reason: None,
                },
            );
        }
    }
    Ok(out)
}

/// The job id `sbatch --parsable` prints: `ID` or `ID;CLUSTER`.
pub fn parse_sbatch(stdout: &str) -> Result<String, String> {
    let line = stdout.trim();
    let id = line.split(';').next().unwrap_or("");
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("sbatch --parsable printed '{line}', not a job id"));
    }
    Ok(id.to_string())
}

/// The cluster's scheduler, as the campaign code uses it.
pub trait Queue {
    /// Submits `script` with `sbatch`: with `--array=SPEC` and
    /// `--dependency=afterok:JOB` where given; the job id.
    fn submit(
        &self,
        script: &Path,
        array: Option<&str>,
        after_ok: Option<&str>,
    ) -> anyhow::Result<String>;
    /// The states of these jobs (and their tasks) Slurm still knows: squeue's,
    /// then sacct's for the jobs squeue does not hold; a note where sacct could
    /// not be asked (accounting off).
    fn states(&self, jobs: &[String]) -> anyhow::Result<(States, Vec<String>)>;
    /// Cancels a job (`scancel`).
    fn cancel(&self, job: &str) -> anyhow::Result<()>;
}

/// [`Queue`] through the Slurm commands on the PATH.
#[derive(Debug, Clone, Copy, Default)]
pub struct Slurm;

/// Runs a Slurm command: (success, stdout, stderr); an error if it cannot start.
fn command(name: &str, args: &[String]) -> anyhow::Result<(bool, String, String)> {
    let o = Command::new(name).args(args).output().with_context(|| {
        format!("cannot run `{name}`: is Slurm installed and on the PATH (and SLURM_CONF set)?")
    })?;
    Ok((
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).trim().to_string(),
    ))
}

impl Queue for Slurm {
    fn submit(
        &self,
        script: &Path,
        array: Option<&str>,
        after_ok: Option<&str>,
    ) -> anyhow::Result<String> {
        let mut args = vec!["--parsable".to_string()];
        if let Some(a) = array {
            args.push(format!("--array={a}"));
        }
        if let Some(j) = after_ok {
            args.push(format!("--dependency=afterok:{j}"));
        }
        args.push(script.display().to_string());
        let (ok, out, err) = command("sbatch", &args)?;
        if !ok {
            bail!("sbatch {}: {err}", args.join(" "));
        }
        parse_sbatch(&out).map_err(anyhow::Error::msg)
    }

    fn states(&self, jobs: &[String]) -> anyhow::Result<(States, Vec<String>)> {
        let mut notes = Vec::new();
        if jobs.is_empty() {
            return Ok((States::new(), notes));
        }
        let list = format!("--jobs={}", jobs.join(","));
        let args: Vec<String> = [
            "--noheader",
            "--array",
            "--states=all",
            "--format=%i|%T|%r",
            &list,
        ]
        .map(String::from)
        .into();
        let (ok, out, err) = command("squeue", &args)?;
        // squeue refuses a list in which it knows no job at all.
        let mut states = if ok {
            parse_squeue(&out).map_err(anyhow::Error::msg)?
        } else if err.contains("Invalid job id") {
            States::new()
        } else {
            bail!("squeue {}: {err}", args.join(" "));
        };
        // sacct for the jobs squeue no longer holds at all.
        let gone: Vec<&str> = jobs
            .iter()
            .map(String::as_str)
            .filter(|j| !states.keys().any(|(k, _)| k == j))
            .collect();
        if gone.is_empty() {
            return Ok((states, notes));
        }
        let list = format!("--jobs={}", gone.join(","));
        let args: Vec<String> = [
            "--noheader",
            "--parsable2",
            "--format=JobID,State,ExitCode",
            &list,
        ]
        .map(String::from)
        .into();
        match command("sacct", &args) {
            Ok((true, out, _)) => {
                for (k, v) in parse_sacct(&out).map_err(anyhow::Error::msg)? {
                    // squeue's state is the live one.
                    states.entry(k).or_insert(v);
                }
            }
            Ok((false, _, err)) => notes.push(format!("sacct: {err}")),
            Err(e) => notes.push(format!("{e:#}")),
        }
        Ok((states, notes))
    }

    fn cancel(&self, job: &str) -> anyhow::Result<()> {
        let (ok, _, err) = command("scancel", &[job.to_string()])?;
        if !ok {
            bail!("scancel {job}: {err}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(job: &str, task: Option<usize>) -> JobKey {
        (job.to_string(), task)
    }

    fn state<'a>(s: &'a States, job: &str, task: Option<usize>) -> (&'a str, Option<&'a str>) {
        let st = &s[&key(job, task)];
        (st.state.as_str(), st.reason.as_deref())
    }

    #[test]
    fn job_ids_are_jobs_tasks_or_ranges() {
        assert_eq!(parse_job_id("7"), Ok(("7".into(), vec![None])));
        assert_eq!(parse_job_id("6_1"), Ok(("6".into(), vec![Some(1)])));
        assert_eq!(
            parse_job_id("12_[2-3%1]"),
            Ok(("12".into(), vec![Some(2), Some(3)]))
        );
        assert_eq!(
            parse_job_id("12_[1,4-6]"),
            Ok(("12".into(), vec![Some(1), Some(4), Some(5), Some(6)]))
        );
        for bad in ["", "x", "6_", "6_x", "6_[1-", "_1", "6_[a]"] {
            let e = parse_job_id(bad).unwrap_err();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
    }

    // The captures: an array of 6 tasks at most 3 at once (`--array=0-5%3`)
    // whose task 1 exits with 3, tasks 2 (running) and 5 (pending) cancelled,
    // and a job after it (`--dependency=afterok`).

    #[test]
    fn squeue_of_a_submitted_array_lists_every_task() {
        let s = parse_squeue(include_str!("testdata/squeue-submitted.txt")).unwrap();
        assert_eq!(s.len(), 7);
        for t in 0..6 {
            assert_eq!(state(&s, "6", Some(t)), ("PENDING", None));
        }
        assert_eq!(state(&s, "7", None), ("PENDING", Some("Dependency")));
        assert_eq!(s[&key("7", None)].activity(), Activity::Queued);
    }

    #[test]
    fn squeue_tells_failed_cancelled_and_running_tasks() {
        let s = parse_squeue(include_str!("testdata/squeue-running.txt")).unwrap();
        assert_eq!(state(&s, "6", Some(1)), ("FAILED", Some("NonZeroExitCode")));
        assert_eq!(state(&s, "6", Some(2)), ("CANCELLED", None));
        for t in [0, 3, 4] {
            assert_eq!(s[&key("6", Some(t))].activity(), Activity::Running);
        }
        // a task cancelled before it started is gone from the queue
        assert!(!s.contains_key(&key("6", Some(5))));
        assert_eq!(
            s[&key("6", Some(1))].activity(),
            Activity::Ended { ok: false }
        );
    }

    #[test]
    fn squeue_holds_finished_jobs_and_a_dependency_never_satisfied() {
        let s = parse_squeue(include_str!("testdata/squeue-finished.txt")).unwrap();
        for t in [0, 3, 4] {
            assert_eq!(state(&s, "6", Some(t)), ("COMPLETED", None));
            assert_eq!(
                s[&key("6", Some(t))].activity(),
                Activity::Ended { ok: true }
            );
        }
        assert_eq!(
            state(&s, "7", None),
            ("PENDING", Some("DependencyNeverSatisfied"))
        );
    }

    #[test]
    fn squeue_of_a_throttled_array() {
        let s = parse_squeue(include_str!("testdata/squeue-throttled.txt")).unwrap();
        assert_eq!(state(&s, "12", Some(0)), ("RUNNING", None));
        for t in 1..4 {
            assert_eq!(
                state(&s, "12", Some(t)),
                ("PENDING", Some("JobArrayTaskLimit"))
            );
        }
    }

    #[test]
    fn sacct_skips_steps_and_keeps_the_first_word_of_a_state() {
        let s = parse_sacct(include_str!("testdata/sacct-running.txt")).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!(state(&s, "7", None), ("PENDING", None));
        assert_eq!(state(&s, "6", Some(1)), ("FAILED", None));
        assert_eq!(state(&s, "6", Some(2)), ("CANCELLED", None));
        assert_eq!(state(&s, "6", Some(0)), ("RUNNING", None));
        let s = parse_sacct(include_str!("testdata/sacct-finished.txt")).unwrap();
        for t in [0, 3, 4] {
            assert_eq!(state(&s, "6", Some(t)), ("COMPLETED", None));
        }
        assert!(!s.contains_key(&key("6", Some(5))));
    }

    #[test]
    fn sacct_expands_the_tasks_not_started() {
        let s = parse_sacct(include_str!("testdata/sacct-throttled.txt")).unwrap();
        assert_eq!(state(&s, "12", Some(0)), ("COMPLETED", None));
        assert_eq!(state(&s, "12", Some(2)), ("PENDING", None));
        assert_eq!(state(&s, "12", Some(3)), ("PENDING", None));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn malformed_lines_are_named() {
        let e = parse_squeue("6_0|RUNNING\n").unwrap_err();
        assert!(
            e.contains("line 1") && e.contains("JOBID|STATE|REASON"),
            "{e}"
        );
        let e = parse_sacct("6_0|RUNNING|0:0\nzz|FAILED|1:0\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("'zz'"), "{e}");
    }

    #[test]
    fn sbatch_parsable_prints_the_id_and_maybe_the_cluster() {
        assert_eq!(parse_sbatch("14\n"), Ok("14".into()));
        assert_eq!(parse_sbatch("14;ndnlab\n"), Ok("14".into()));
        assert!(parse_sbatch("Submitted batch job 14").is_err());
    }
}
