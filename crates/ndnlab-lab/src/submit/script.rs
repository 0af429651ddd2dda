//! The two batch scripts of a campaign on Slurm, written from its
//! [`Record`]: the job array (task I runs `ndnlab run --shard I/N`) and the
//! merge job (`ndnlab merge` of every slice into the campaign directory).
//! `deploy/slurm/` holds the same scripts by hand, for users who write their own.

use super::Record;

/// The job array: each task runs its shard of the campaign into
/// `DIR/slices/$SLURM_ARRAY_TASK_ID`, skipping the runs the slice already
/// holds (`--resume`), so that a task submitted again runs only what is missing.
pub fn array_script(r: &Record) -> String {
    let dir = r.dir.display().to_string();
    let all: Vec<usize> = (0..r.tasks).collect();
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!(
        "# ndnlab campaign '{}' ({} runs) as a job array of {} tasks: task I runs the\n\
         # runs whose id is I modulo {} (`ndnlab run --shard I/{}`) into slices/I.\n\
         # --resume skips the runs a slice already holds: a task submitted again\n\
         # (`ndnlab submit resume`, which gives --array on the command line) runs\n\
         # only the missing ones.\n",
        r.name,
        r.runs.len(),
        r.tasks,
        r.tasks,
        r.tasks
    ));
    s.push_str(&format!("#SBATCH --job-name=ndnlab-{}\n", r.name));
    s.push_str(&format!(
        "#SBATCH --array={}\n",
        array_spec(&all, r.parallel)
    ));
    s.push_str(&format!(
        "#SBATCH --output={dir}/slurm/logs/task-%a.%A.out\n"
    ));
    s.push_str(&common_lines(r, r.cpus_per_task));
    s.push_str("set -euo pipefail\n");
    let mut cmd = vec![
        quote(&r.ndnlab.display().to_string()),
        "run".into(),
        quote(&r.experiment.display().to_string()),
        "--shard".into(),
        format!("\"$SLURM_ARRAY_TASK_ID/{}\"", r.tasks),
        "--out".into(),
        format!("{}/slices/\"$SLURM_ARRAY_TASK_ID\"", quote(&dir)),
        "--resume".into(),
        "--jobs".into(),
        r.cpus_per_task.to_string(),
    ];
    cmd.extend(run_options(r));
    s.push_str(&format!("exec {}\n", cmd.join(" ")));
    s
}

/// The options of `ndnlab run` a campaign was submitted with, quoted.
fn run_options(r: &Record) -> Vec<String> {
    let mut out = Vec::new();
    if r.quick {
        out.push("--quick".into());
    }
    if let Some(runner) = &r.runner {
        out.push("--runner".into());
        out.push(quote(runner));
    }
    for set in &r.sets {
        out.push("--set".into());
        out.push(quote(set));
    }
    out
}

/// The merge job, submitted with `--dependency=afterok:<array job>`: the
/// slices joined into the campaign directory, with its report.
pub fn merge_script(r: &Record) -> String {
    let dir = r.dir.display().to_string();
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!(
        "# ndnlab campaign '{}': the {} slices of the job array joined into one\n\
         # campaign directory and its report (`ndnlab merge`). Submitted with\n\
         # --dependency=afterok:<array job id>, so it starts once every task exited 0.\n",
        r.name, r.tasks
    ));
    s.push_str(&format!("#SBATCH --job-name=ndnlab-{}-merge\n", r.name));
    s.push_str(&format!("#SBATCH --output={dir}/slurm/logs/merge.%j.out\n"));
    s.push_str(&common_lines(r, 1));
    s.push_str("set -euo pipefail\n");
    s.push_str(&format!("dir={}\n", quote(&dir)));
    s.push_str("slices=()\n");
    s.push_str(&format!(
        "for i in $(seq 0 {}); do slices+=(\"$dir/slices/$i\"); done\n",
        r.tasks - 1
    ));
    s.push_str(&format!(
        "exec {} merge \"${{slices[@]}}\" --out \"$dir\"\n",
        quote(&r.ndnlab.display().to_string())
    ));
    s
}

/// The `#SBATCH` lines both jobs share.
fn common_lines(r: &Record, cpus: usize) -> String {
    let mut s = String::new();
    s.push_str(&format!("#SBATCH --chdir={}\n", r.dir.display()));
    s.push_str("#SBATCH --ntasks=1\n");
    s.push_str(&format!("#SBATCH --cpus-per-task={cpus}\n"));
    if let Some(p) = &r.partition {
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &r.time {
        s.push_str(&format!("#SBATCH --time={t}\n"));
    }
    for a in &r.sbatch {
        s.push_str(&format!("#SBATCH {a}\n"));
    }
    s
}

/// `--array` for these tasks: ranges joined by commas, `%K` for at most K at
/// once: `[0, 1, 2, 5]`, `Some(2)` → `0-2,5%2`.
pub fn array_spec(tasks: &[usize], parallel: Option<usize>) -> String {
    let mut sorted = tasks.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    let mut spec = parts.join(",");
    if let Some(k) = parallel {
        spec.push_str(&format!("%{k}"));
    }
    spec
}

/// `text` as one bash word: as is when it holds only safe characters, else
/// in single quotes.
pub fn quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./=:,+-@%".contains(&b));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A Slurm time limit: `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM`,
/// `D-HH:MM:SS`, or `UNLIMITED`/`INFINITE`.
pub fn check_time(text: &str) -> Result<(), String> {
    let bad = || {
        format!(
            "--time '{text}': expected a Slurm time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"
        )
    };
    if matches!(text, "UNLIMITED" | "INFINITE") {
        return Ok(());
    }
    let num = |s: &str| !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
    let (days, rest) = match text.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, text),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let ok = days.map_or(true, num) && parts.len() <= 3 && parts.iter().all(|p| num(p));
    if ok {
        Ok(())
    } else {
        Err(bad())
    }
}

/// A word that goes into an `#SBATCH` line as is (a partition name, a path):
/// no white space, quotes or `%` (a file name pattern of Slurm's).
pub fn check_word(what: &str, text: &str) -> Result<(), String> {
    let bad = text.is_empty()
        || text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "'\"%\\".contains(c));
    if bad {
        return Err(format!(
            "{what} '{text}': must be non-empty, without white space, quotes, backslashes or '%' (it goes into #SBATCH lines)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record::example()
    }

    #[test]
    fn the_array_runs_each_shard_into_its_slice() {
        let s = array_script(&record());
        for want in [
            "#SBATCH --array=0-2%2\n",
            "#SBATCH --job-name=ndnlab-tiny\n",
            "#SBATCH --output=/scratch/tiny/slurm/logs/task-%a.%A.out\n",
            "#SBATCH --partition=lab\n",
            "#SBATCH --time=10:00\n",
            "#SBATCH --cpus-per-task=2\n",
            "#SBATCH --account=ndn\n",
            "exec /usr/bin/ndnlab run '/exp/tiny sim.toml' --shard \"$SLURM_ARRAY_TASK_ID/3\" \
             --out /scratch/tiny/slices/\"$SLURM_ARRAY_TASK_ID\" --resume --jobs 2 --quick \
             --set experiment.duration_s=0.5 --set 'x.name='\\''a b'\\'''\n",
        ] {
            assert!(s.contains(want), "{want:?} not in\n{s}");
        }
        assert!(s.starts_with("#!/bin/bash\n"));
    }

    #[test]
    fn the_merge_joins_every_slice_into_the_directory() {
        let s = merge_script(&record());
        for want in [
            "#SBATCH --job-name=ndnlab-tiny-merge\n",
            "#SBATCH --cpus-per-task=1\n",
            "dir=/scratch/tiny\n",
            "for i in $(seq 0 2); do slices+=(\"$dir/slices/$i\"); done\n",
            "exec /usr/bin/ndnlab merge \"${slices[@]}\" --out \"$dir\"\n",
        ] {
            assert!(s.contains(want), "{want:?} not in\n{s}");
        }
    }

    #[test]
    fn array_specs_are_ranges_with_a_throttle() {
        assert_eq!(array_spec(&[0, 1, 2, 3], None), "0-3");
        assert_eq!(array_spec(&[5, 0, 2, 1], Some(2)), "0-2,5%2");
        assert_eq!(array_spec(&[7], None), "7");
        assert_eq!(array_spec(&[1, 3, 4, 6], Some(1)), "1,3-4,6%1");
    }

    #[test]
    fn quoting_keeps_one_word() {
        assert_eq!(quote("/a/b.toml"), "/a/b.toml");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn time_limits_follow_slurm() {
        for ok in [
            "30",
            "30:00",
            "1:00:00",
            "2-0",
            "2-12:00",
            "1-00:00:00",
            "UNLIMITED",
        ] {
            assert_eq!(check_time(ok), Ok(()), "{ok}");
        }
        for bad in ["", "1h", "1:2:3:4", "-1", "1-", "a:00", "1-2:3:4:5"] {
            let e = check_time(bad).unwrap_err();
            assert!(
                e.contains("--time") && e.contains(&format!("'{bad}'")),
                "{e}"
            );
        }
    }

    #[test]
    fn sbatch_words_refuse_spaces_quotes_and_patterns() {
        assert_eq!(check_word("--partition", "gpu-a100"), Ok(()));
        for bad in ["", "a b", "a'b", "a%b", "a\nb"] {
            let e = check_word("--partition", bad).unwrap_err();
            assert!(e.contains("--partition"), "{e}");
        }
    }
}
