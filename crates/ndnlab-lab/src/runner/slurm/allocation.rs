//! The Slurm allocation the `slurm` runner runs in: the one this process is
//! inside (`SLURM_JOB_ID`, `SLURM_JOB_NODELIST`), or one it asks for with
//! `salloc --no-shell` (`[slurm] submit = true`) and releases with `scancel`
//! when dropped. Every host is probed once, through a step on it, for its
//! address and CPUs.

use std::process::{Command, Stdio};

use anyhow::Context;

use crate::experiment::SlurmSpec;

/// One host of the allocation.
#[derive(Debug, Clone)]
pub struct Host {
    /// Its Slurm node name (`srun -w`).
    pub name: String,
    /// Its first IPv4 address, as `hostname -I` prints it on the host.
    pub address: String,
    /// The allocation's CPUs on it (`SLURM_CPUS_ON_NODE` in a step there).
    pub cpus: u32,
}

/// See the module documentation.
#[derive(Debug)]
pub struct Allocation {
    pub job: String,
    pub hosts: Vec<Host>,
    /// Whether this process asked for it (and cancels it when dropped).
    ours: bool,
}

impl Allocation {
    /// The allocation this process is in, or, with `spec.submit`, a new one.
    pub fn get(spec: &SlurmSpec) -> anyhow::Result<Allocation> {
        let (job, ours) = match std::env::var("SLURM_JOB_ID") {
            Ok(job) if !job.is_empty() => (job, false),
            _ if spec.submit => (salloc(spec)?, true),
            _ => anyhow::bail!(
                "the slurm runner runs inside a Slurm allocation (SLURM_JOB_ID is not set): \
                 start it under salloc or sbatch, or set [slurm] submit = true"
            ),
        };
        let mut a = Allocation {
            job,
            hosts: Vec::new(),
            ours,
        };
        let names = match std::env::var("SLURM_JOB_NODELIST") {
            Ok(list) if !a.ours && !list.is_empty() => hostnames(&list)?,
            _ => hostnames(&job_field(&a.job, "NodeList")?)?,
        };
        a.hosts = probe(&a.job, &names)?;
        Ok(a)
    }

    /// The `srun` prefix that runs one task on `host` as a step of its own,
    /// overlapping the others, killed with the job.
    pub fn srun(&self, host: &str, name: &str) -> Vec<String> {
        srun_args(&self.job, host, name)
    }
}

fn srun_args(job: &str, host: &str, name: &str) -> Vec<String> {
    [
        "srun",
        &format!("--jobid={job}"),
        "--nodes=1",
        "--ntasks=1",
        "--ntasks-per-node=1",
        &format!("--nodelist={host}"),
        "--overlap",
        "--kill-on-bad-exit=1",
        "--input=none",
        "--quiet",
        &format!("--job-name={name}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if self.ours {
            let _ = Command::new("scancel")
                .arg(&self.job)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Runs `program args`; its stdout, or an error with its stderr.
fn output(program: &str, args: &[&str]) -> anyhow::Result<String> {
    let o = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {program} (is Slurm installed?)"))?;
    if !o.status.success() {
        anyhow::bail!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// `salloc --no-shell`: the job id it was granted.
fn salloc(spec: &SlurmSpec) -> anyhow::Result<String> {
    let mut args = vec![
        "--no-shell".to_string(),
        format!("--nodes={}", spec.hosts),
        "--job-name=ndnlab-slurm-runner".to_string(),
    ];
    if !spec.partition.is_empty() {
        args.push(format!("--partition={}", spec.partition));
    }
    if !spec.time.is_empty() {
        args.push(format!("--time={}", spec.time));
    }
    let o = Command::new("salloc")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .context("cannot run salloc (is Slurm installed?)")?;
    let err = String::from_utf8_lossy(&o.stderr);
    granted(&err).ok_or_else(|| {
        anyhow::anyhow!(
            "salloc {} granted no allocation: {}",
            args.join(" "),
            err.trim()
        )
    })
}

/// The job id in salloc's "Granted job allocation N".
fn granted(stderr: &str) -> Option<String> {
    stderr.lines().find_map(|l| {
        let id = l.split("Granted job allocation ").nth(1)?.trim();
        (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_string())
    })
}

/// `KEY=value` of `scontrol show job -o JOB`.
fn job_field(job: &str, key: &str) -> anyhow::Result<String> {
    let text = output("scontrol", &["show", "job", "-o", job])?;
    let want = format!("{key}=");
    text.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&want))
        .map(str::to_string)
        .ok_or_else(|| anyhow::anyhow!("scontrol show job {job}: no {key}"))
}

/// `scontrol show hostnames LIST`.
fn hostnames(list: &str) -> anyhow::Result<Vec<String>> {
    let text = output("scontrol", &["show", "hostnames", list])?;
    let names: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    anyhow::ensure!(!names.is_empty(), "node list '{list}' names no host");
    Ok(names)
}

/// Each host's address and CPUs, from a step on it (all at once).
fn probe(job: &str, names: &[String]) -> anyhow::Result<Vec<Host>> {
    let mut running = Vec::new();
    for name in names {
        let args = srun_args(job, name, "ndnlab-probe");
        let child = Command::new(&args[0])
            .args(&args[1..])
            .args(["sh", "-c", "echo ${SLURM_CPUS_ON_NODE:-1}; hostname -I"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run srun (is Slurm installed?)")?;
        running.push((name, child));
    }
    let mut hosts = Vec::new();
    for (name, child) in running {
        let o = child.wait_with_output()?;
        let out = String::from_utf8_lossy(&o.stdout);
        let host = parse_probe(name, &out).ok_or_else(|| {
            anyhow::anyhow!(
                "host {name}: no address from `hostname -I` in a step there ({}{})",
                out.trim(),
                String::from_utf8_lossy(&o.stderr).trim()
            )
        })?;
        hosts.push(host);
    }
    Ok(hosts)
}

/// The CPUs line and the first IPv4 address of `hostname -I`.
fn parse_probe(name: &str, out: &str) -> Option<Host> {
    let mut lines = out.lines();
    let cpus = lines.next()?.trim().parse().ok()?;
    let address = lines
        .flat_map(str::split_whitespace)
        .find(|a| a.parse::<std::net::Ipv4Addr>().is_ok())?;
    Some(Host {
        name: name.to_string(),
        address: address.to_string(),
        cpus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salloc_and_probe_output_are_read() {
        let err = "salloc: Granted job allocation 42\nsalloc: Waiting for resource configuration\n";
        assert_eq!(granted(err).as_deref(), Some("42"));
        assert_eq!(granted("salloc: error: no nodes"), None);
        let h = parse_probe("host2", "2\nfe80::1 10.36.0.2 172.17.0.1 \n").unwrap();
        assert_eq!((h.address.as_str(), h.cpus), ("10.36.0.2", 2));
        assert!(parse_probe("h", "2\n\n").is_none());
    }

    #[test]
    fn a_step_is_one_task_on_the_host_overlapping_the_others() {
        let a = srun_args("7", "host3", "ndnlab-r0");
        assert_eq!(a[0], "srun");
        for want in ["--jobid=7", "--nodelist=host3", "--overlap", "--ntasks=1"] {
            assert!(a.iter().any(|x| x == want), "{a:?}");
        }
    }
}
