//! `ndnlab submit slurm|status|resume`: a campaign as a Slurm job array and a
//! merge job (`ndnlab_lab::submit`), its state, and the resubmission of what
//! failed.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use ndnlab_lab::submit::slurm::Slurm;
use ndnlab_lab::submit::{self, SlurmOptions};

/// Run a campaign on a cluster.
#[derive(Subcommand, Debug)]
pub enum SubmitCmd {
    /// Submit a campaign as a job array of N tasks (task I runs `ndnlab run
    /// --shard I/N --resume` into DIR/slices/I) and a merge job after it
    /// (`--dependency=afterok`) that writes DIR and its report.
    Slurm(SlurmArgs),
    /// How many runs of a submitted campaign are done, running, queued or
    /// failed (from squeue, sacct and the slices on disk), and its merge.
    Status(DirArgs),
    /// Submit again the tasks with failed or missing runs (each runs only
    /// those) and a new merge job.
    Resume(DirArgs),
}

#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The experiment file (TOML).
    experiment: PathBuf,
    /// Array tasks: the campaign's runs are split in N shards.
    #[arg(long, value_name = "N")]
    tasks: usize,
    /// At most K tasks at once (`--array=...%K`).
    #[arg(long, value_name = "K")]
    parallel: Option<usize>,
    /// The Slurm partition of both jobs.
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// Each job's time limit, as sbatch takes it (MM, HH:MM:SS, D-HH:MM, ...).
    #[arg(long, value_name = "T")]
    time: Option<String>,
    /// CPUs of each task (`ndnlab run --jobs C` within it).
    #[arg(long, value_name = "C", default_value_t = 1)]
    cpus_per_task: usize,
    /// The campaign directory, on a file system every node sees (default:
    /// results/<experiment name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The experiment's scaled-down values ([experiment.quick]).
    #[arg(long)]
    quick: bool,
    /// inproc, processes, netns, slurm or sim (overrides experiment.runner).
    #[arg(long)]
    runner: Option<String>,
    /// Set any key of the experiment: --set topology.n=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// A further sbatch option for both jobs: --sbatch=--account=NAME (repeatable).
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    sbatch: Vec<String>,
    /// The ndnlab binary the jobs run (default: this one).
    #[arg(long, value_name = "PATH")]
    ndnlab: Option<PathBuf>,
    /// Print both scripts and submit nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the record (or, with --dry-run, the scripts) as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct DirArgs {
    /// The campaign directory given to `ndnlab submit slurm --out`.
    dir: PathBuf,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(c: SubmitCmd) -> anyhow::Result<()> {
    match c {
        SubmitCmd::Slurm(a) => slurm(a),
        SubmitCmd::Status(a) => status(a),
        SubmitCmd::Resume(a) => resume(a),
    }
}

fn slurm(a: SlurmArgs) -> anyhow::Result<()> {
    let ndnlab = match a.ndnlab {
        Some(p) => p,
        None => std::env::current_exe()?,
    };
    let plan = submit::plan(
        &a.experiment,
        &SlurmOptions {
            tasks: a.tasks,
            parallel: a.parallel,
            partition: a.partition,
            time: a.time,
            cpus_per_task: a.cpus_per_task,
            out: a.out,
            ndnlab,
            quick: a.quick,
            runner: a.runner,
            sets: a.sets,
            sbatch: a.sbatch,
        },
    )?;
    let dir = plan.record.dir.clone();
    if a.dry_run {
        if a.json {
            let v = serde_json::json!({
                "record": plan.record,
                "array_script": plan.array_script,
                "merge_script": plan.merge_script,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            println!("# {}", dir.join("slurm/array.sbatch").display());
            print!("{}", plan.array_script);
            println!();
            println!(
                "# {} (sbatch --dependency=afterok:<array job id>)",
                dir.join("slurm/merge.sbatch").display()
            );
            print!("{}", plan.merge_script);
        }
        return Ok(());
    }
    let r = submit::submit(&plan, &Slurm)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    let s = &r.submissions[0];
    println!("{}: {} runs in {} tasks", r.name, r.runs.len(), r.tasks);
    println!(
        "array job {} ({})",
        s.array_job.as_deref().unwrap_or("-"),
        dir.join("slurm/array.sbatch").display()
    );
    println!(
        "merge job {} after it ({})",
        s.merge_job.as_deref().unwrap_or("-"),
        dir.join("slurm/merge.sbatch").display()
    );
    println!("status: ndnlab submit status {}", dir.display());
    Ok(())
}

fn status(a: DirArgs) -> anyhow::Result<()> {
    let st = submit::status(&a.dir, &Slurm)?;
    if a.json {
        let v = serde_json::json!({
            "status": st,
            "finished": st.finished(),
            "to_rerun": st.to_rerun(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print!("{}", st.text());
    Ok(())
}

fn resume(a: DirArgs) -> anyhow::Result<()> {
    let r = submit::resume(&a.dir, &Slurm)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    let Some(r) = r else {
        println!(
            "{}: every run is done and merged; nothing to resume",
            a.dir.display()
        );
        return Ok(());
    };
    for j in &r.cancelled {
        println!("cancelled merge job {j} (it waited on failed tasks)");
    }
    let dir: &Path = &a.dir;
    match &r.array_job {
        Some(j) => {
            let tasks: Vec<String> = r.tasks.iter().map(|t| t.to_string()).collect();
            let which = if tasks.len() == 1 { "task" } else { "tasks" };
            println!(
                "array job {j}: {which} {} again, for the runs missing",
                tasks.join(",")
            );
            println!("merge job {} after it", r.merge_job);
        }
        None => println!("merge job {} (every run was done)", r.merge_job),
    }
    println!("status: ndnlab submit status {}", dir.display());
    Ok(())
}
