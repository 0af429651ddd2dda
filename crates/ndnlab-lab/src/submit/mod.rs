//! Campaigns on a Slurm cluster: `ndnlab submit slurm|status|resume`.
//!
//! A campaign of R runs goes to Slurm as a job array of N tasks and a merge
//! job. Task I runs `ndnlab run FILE --shard I/N --out DIR/slices/I --resume`
//! (the runs whose id is I modulo N); the merge job, submitted with
//! `--dependency=afterok:<array>`, runs `ndnlab merge` of the N slices into
//! `DIR` itself, which then holds the campaign as a straight `ndnlab run` would
//! have written it, report included. The campaign directory:
//!
//! ```text
//! DIR/slurm/submit.json     the record: options, run ids, every submission
//! DIR/slurm/array.sbatch    the job array (script::array_script)
//! DIR/slurm/merge.sbatch    the merge job (script::merge_script)
//! DIR/slurm/logs/           task-I.JOB.out, merge.JOB.out
//! DIR/slices/I/             task I's campaign directory
//! DIR/results.csv ...       the merged campaign
//! ```
//!
//! [`status`] reads the queue (`squeue`, then `sacct` for what squeue no
//! longer holds) and the slices' `results.csv` ([`status::compute`]);
//! [`resume`] submits again the tasks with failed or missing runs (their
//! `--resume` runs only those) and a new merge job. Slurm is used through its
//! commands only ([`slurm::Queue`]); the jobs find the binary, the experiment
//! file and `DIR` at the same absolute paths, so these must be on a file
//! system every node sees.

pub mod script;
pub mod slurm;
pub mod status;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::campaign::{Campaign, Options};
use crate::design;
use slurm::{Activity, Queue};
use status::{Slices, Status};

/// What a submitted campaign is: how it was submitted and every submission
/// since (`DIR/slurm/submit.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The experiment's name (the jobs' names).
    pub name: String,
    /// The experiment file, absolute.
    pub experiment: PathBuf,
    /// The `ndnlab` binary the jobs run, absolute.
    pub ndnlab: PathBuf,
    /// The campaign directory, absolute.
    pub dir: PathBuf,
    /// Array tasks (N of `--shard I/N`).
    pub tasks: usize,
    /// The campaign's run ids.
    pub runs: Vec<usize>,
    /// At most this many tasks at once (`--array=...%K`).
    pub parallel: Option<usize>,
    pub partition: Option<String>,
    /// Each job's time limit (`--time`).
    pub time: Option<String>,
    /// CPUs of each task, and its `ndnlab run --jobs`.
    pub cpus_per_task: usize,
    /// `ndnlab run --quick`.
    pub quick: bool,
    /// `ndnlab run --runner`.
    pub runner: Option<String>,
    /// `ndnlab run --set KEY=VALUE`, in order.
    pub sets: Vec<String>,
    /// Further `#SBATCH` options of both jobs.
    pub sbatch: Vec<String>,
    /// The first submission, then each resume's.
    pub submissions: Vec<Submission>,
}

/// One submission: an array job over some tasks and the merge job after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// `None` when only the merge was submitted again.
    pub array_job: Option<String>,
    pub tasks: Vec<usize>,
    /// `None` when sbatch refused the merge job.
    pub merge_job: Option<String>,
}

/// `ndnlab submit slurm`'s options.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    pub tasks: usize,
    pub parallel: Option<usize>,
    pub partition: Option<String>,
    pub time: Option<String>,
    pub cpus_per_task: usize,
    /// The campaign directory (new or empty); `None`: `results/<experiment name>`.
    pub out: Option<PathBuf>,
    /// The binary the jobs run.
    pub ndnlab: PathBuf,
    pub quick: bool,
    pub runner: Option<String>,
    pub sets: Vec<String>,
    pub sbatch: Vec<String>,
}

/// A campaign ready to submit: its record and both scripts.
#[derive(Debug, Clone)]
pub struct Plan {
    pub record: Record,
    pub array_script: String,
    pub merge_script: String,
}

impl Record {
    fn path(dir: &Path) -> PathBuf {
        dir.join("slurm").join("submit.json")
    }

    /// The record of the campaign submitted into `dir`.
    pub fn load(dir: &Path) -> anyhow::Result<Record> {
        let path = Record::path(dir);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: not a submitted campaign (no {})",
                dir.display(),
                path.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a record", path.display()))
    }

    fn save(&self) -> anyhow::Result<()> {
        let path = Record::path(&self.dir);
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))
    }

    /// Writes both scripts into `DIR/slurm/` (the same from one record).
    fn write_scripts(&self) -> anyhow::Result<(PathBuf, PathBuf)> {
        let slurm = self.dir.join("slurm");
        std::fs::create_dir_all(slurm.join("logs"))
            .with_context(|| format!("creating {}", slurm.display()))?;
        let array = slurm.join("array.sbatch");
        let merge = slurm.join("merge.sbatch");
        std::fs::write(&array, script::array_script(self))
            .with_context(|| format!("writing {}", array.display()))?;
        std::fs::write(&merge, script::merge_script(self))
            .with_context(|| format!("writing {}", merge.display()))?;
        Ok((array, merge))
    }

    #[cfg(test)]
    pub(crate) fn example() -> Record {
        Record {
            name: "tiny".into(),
            experiment: PathBuf::from("/exp/tiny sim.toml"),
            ndnlab: PathBuf::from("/usr/bin/ndnlab"),
            dir: PathBuf::from("/scratch/tiny"),
            tasks: 3,
            runs: (0..8).collect(),
            parallel: Some(2),
            partition: Some("lab".into()),
            time: Some("10:00".into()),
            cpus_per_task: 2,
            quick: true,
            runner: None,
            sets: vec!["experiment.duration_s=0.5".into(), "x.name='a b'".into()],
            sbatch: vec!["--account=ndn".into()],
            submissions: Vec::new(),
        }
    }
}

/// Checks the options, loads the campaign (every design point checked, as
/// `ndnlab run` does) and writes the scripts' text; nothing touches the disk.
pub fn plan(experiment: &Path, o: &SlurmOptions) -> anyhow::Result<Plan> {
    if o.tasks == 0 {
        bail!("--tasks 0: a job array has at least 1 task");
    }
    if o.parallel == Some(0) {
        bail!("--parallel 0: at least 1 task at once");
    }
    if o.cpus_per_task == 0 {
        bail!("--cpus-per-task 0: at least 1");
    }
    if let Some(p) = &o.partition {
        script::check_word("--partition", p).map_err(anyhow::Error::msg)?;
    }
    if let Some(t) = &o.time {
        script::check_time(t).map_err(anyhow::Error::msg)?;
    }
    for a in &o.sbatch {
        if !a.starts_with('-') || a.contains(['\n', '\r']) {
            bail!("--sbatch '{a}': expected one sbatch option, such as --account=NAME");
        }
    }
    let absolute = |what: &str, p: &Path| -> anyhow::Result<PathBuf> {
        let abs = std::path::absolute(p).with_context(|| format!("{what} {}", p.display()))?;
        let text = abs
            .to_str()
            .ok_or_else(|| anyhow::anyhow!("{what} {}: not UTF-8", p.display()))?;
        script::check_word(what, text).map_err(anyhow::Error::msg)?;
        Ok(abs)
    };
    let ndnlab = absolute("--ndnlab", &o.ndnlab)?;
    if !ndnlab.is_file() {
        bail!("--ndnlab {}: no such file", ndnlab.display());
    }
    let experiment = std::path::absolute(experiment)
        .with_context(|| format!("experiment {}", experiment.display()))?;
    let sets = o
        .sets
        .iter()
        .map(|s| design::parse_assignment(s).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<_>>()?;
    let campaign = Campaign::load(
        Some(&experiment),
        &Options {
            runner: o.runner.clone(),
            quick: o.quick,
            sets,
            ..Default::default()
        },
    )?;
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(&campaign.exp.experiment.name));
    let dir = absolute("--out", &out)?;
    let runs: Vec<usize> = campaign.runs.iter().map(|r| r.id).collect();
    if o.tasks > runs.len() {
        bail!(
            "--tasks {}: {} has {} runs; at most {} tasks",
            o.tasks,
            campaign.file,
            runs.len(),
            runs.len()
        );
    }
    let name: String = campaign
        .exp
        .experiment
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let record = Record {
        name: if name.is_empty() {
            "campaign".into()
        } else {
            name
        },
        experiment,
        ndnlab,
        dir,
        tasks: o.tasks,
        runs,
        parallel: o.parallel,
        partition: o.partition.clone(),
        time: o.time.clone(),
        cpus_per_task: o.cpus_per_task,
        quick: o.quick,
        runner: o.runner.clone(),
        sets: o.sets.clone(),
        sbatch: o.sbatch.clone(),
        submissions: Vec::new(),
    };
    Ok(Plan {
        array_script: script::array_script(&record),
        merge_script: script::merge_script(&record),
        record,
    })
}

/// Writes the plan into its directory (new or empty) and submits the array,
/// then the merge job after it. The record, with its submission.
pub fn submit(plan: &Plan, queue: &dyn Queue) -> anyhow::Result<Record> {
    let mut record = plan.record.clone();
    let dir = &record.dir;
    if Record::path(dir).exists() {
        bail!(
            "{}: a campaign was submitted here already; see `ndnlab submit status {}` or `ndnlab submit resume {}`",
            dir.display(),
            dir.display(),
            dir.display()
        );
    }
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        bail!(
            "--out {}: not empty; submit into a new or empty directory",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir.join("slices"))
        .with_context(|| format!("creating {}", dir.display()))?;
    let (array, merge) = record.write_scripts()?;
    record.save()?;
    let array_job = queue.submit(&array, None, None)?;
    let merged = queue.submit(&merge, None, Some(&array_job));
    record.submissions.push(Submission {
        array_job: Some(array_job.clone()),
        tasks: (0..record.tasks).collect(),
        merge_job: merged.as_ref().ok().cloned(),
    });
    record.save()?;
    if let Err(e) = merged {
        return Err(e.context(format!(
            "array job {array_job} submitted, not its merge job; `ndnlab submit resume {}` submits it once the array is done",
            dir.display()
        )));
    }
    Ok(record)
}

/// The rows of each slice on disk, and notes for slices that cannot be read.
fn read_slices(r: &Record, dir: &Path, notes: &mut Vec<String>) -> Slices {
    let mut out = Slices::new();
    for task in 0..r.tasks {
        let slice = dir.join("slices").join(task.to_string());
        match crate::results::read(&slice, &[]) {
            Ok(rows) => {
                let rows: BTreeMap<usize, String> =
                    rows.into_iter().map(|(id, (st, _))| (id, st)).collect();
                out.insert(task, rows);
            }
            Err(e) => notes.push(format!("{}: {e:#}", slice.display())),
        }
    }
    out
}

/// Where the campaign in `dir` stands.
pub fn status(dir: &Path, queue: &dyn Queue) -> anyhow::Result<Status> {
    let record = Record::load(dir)?;
    let mut jobs: Vec<String> = Vec::new();
    for s in &record.submissions {
        jobs.extend(s.array_job.iter().cloned());
        jobs.extend(s.merge_job.iter().cloned());
    }
    let (states, mut notes) = queue.states(&jobs)?;
    let slices = read_slices(&record, dir, &mut notes);
    let merged = dir.join("merge.json").is_file();
    let report = Some(dir.join("index.html")).filter(|p| merged && p.is_file());
    Ok(status::compute(
        &record,
        dir.to_path_buf(),
        &states,
        &slices,
        merged,
        report,
        notes,
    ))
}

/// What [`resume`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resumed {
    /// The new array job, over `tasks`; `None` when only the merge was
    /// submitted again.
    pub array_job: Option<String>,
    pub tasks: Vec<usize>,
    pub merge_job: String,
    /// Jobs cancelled: a merge job waiting for tasks that failed.
    pub cancelled: Vec<String>,
}

/// Submits again the tasks of `dir` with failed or missing runs, and a merge
/// job after them; `Ok(None)` when the campaign is finished. Refused while
/// tasks or the merge are queued or running. A merge job left waiting on a
/// failed array is cancelled, and the earlier merged results are removed (the
/// new merge writes them again).
pub fn resume(dir: &Path, queue: &dyn Queue) -> anyhow::Result<Option<Resumed>> {
    let st = status(dir, queue)?;
    let mut record = Record::load(dir)?;
    let active = st.active();
    if !active.is_empty() {
        let jobs: Vec<String> = active
            .iter()
            .map(|t| t.job.clone().unwrap_or_else(|| t.task.to_string()))
            .collect();
        bail!(
            "{}: {} tasks are still queued or running ({}); wait for them, or scancel them and resume",
            dir.display(),
            jobs.len(),
            jobs.join(", ")
        );
    }
    let merge_state = slurm::JobState {
        state: st.merge.state.clone(),
        reason: st.merge.reason.clone(),
    };
    let merge_job = st.merge.job.clone().unwrap_or_default();
    let merge_waits = st.merge.job.is_some() && merge_state.activity() == Activity::Queued;
    if st.merge.job.is_some() && merge_state.activity() == Activity::Running {
        bail!(
            "{}: the merge job {merge_job} is running; wait for it",
            dir.display()
        );
    }
    let rerun = st.to_rerun();
    let blocked = st.merge.reason.as_deref() == Some(status::NEVER_SATISFIED);
    if rerun.is_empty() {
        if st.merge.merged {
            return Ok(None);
        }
        if merge_waits && !blocked {
            bail!(
                "{}: every run is done; the merge job {merge_job} is {} ({}) and starts by itself",
                dir.display(),
                st.merge.state,
                st.merge.reason.as_deref().unwrap_or("queued")
            );
        }
    }
    let mut cancelled = Vec::new();
    if merge_waits {
        queue.cancel(&merge_job)?;
        cancelled.push(merge_job);
    }
    clear_merged(dir)?;
    let (array, merge) = record.write_scripts()?;
    let array_job = if rerun.is_empty() {
        None
    } else {
        let spec = script::array_spec(&rerun, record.parallel);
        Some(queue.submit(&array, Some(&spec), None)?)
    };
    let merged = queue.submit(&merge, None, array_job.as_deref());
    record.submissions.push(Submission {
        array_job: array_job.clone(),
        tasks: rerun.clone(),
        merge_job: merged.as_ref().ok().cloned(),
    });
    record.save()?;
    Ok(Some(Resumed {
        array_job,
        tasks: rerun,
        merge_job: merged?,
        cancelled,
    }))
}

/// Removes an earlier merge's output from `dir`: everything but `slices/`
/// and `slurm/` (the directory was new or empty when submitted).
fn clear_merged(dir: &Path) -> anyhow::Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        if matches!(e.file_name().to_str(), Some("slices" | "slurm")) {
            continue;
        }
        let p = e.path();
        if e.file_type()?.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        }
        .with_context(|| format!("removing {}", p.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
