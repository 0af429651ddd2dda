//! The local Slurm cluster of the tests that need one
//! (`scripts/slurm-cluster.sh`): why this machine cannot hold it, bringing it
//! up (and down again if the test brought it up), and commands that find it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn script() -> PathBuf {
    root().join("scripts/slurm-cluster.sh")
}

/// The cluster's directory and configuration (the script's defaults unless
/// NDNLAB_SLURM_DIR says otherwise).
pub fn slurm_conf() -> PathBuf {
    let dir = std::env::var_os("NDNLAB_SLURM_DIR")
        .map_or_else(|| PathBuf::from("/var/tmp/ndnlab-slurm"), PathBuf::from);
    dir.join("slurm.conf")
}

/// Why this machine cannot hold the cluster, if it cannot.
pub fn unavailable() -> Option<String> {
    let euid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&euid.stdout).trim() != "0" {
        return Some("needs root (network namespaces and the Slurm daemons)".into());
    }
    for tool in [
        "munged",
        "slurmctld",
        "slurmd",
        "sbatch",
        "squeue",
        "scancel",
        "ip",
        "nsenter",
    ] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return Some(format!(
                "`{tool}` not found (apt-get install slurm-wlm munge iproute2)"
            ));
        }
    }
    None
}

/// The cluster, brought down on drop if this test brought it up.
pub struct Cluster {
    ours: bool,
}

impl Cluster {
    pub fn up() -> Cluster {
        let was_up = cluster("status").status.success();
        if !was_up {
            let o = cluster("up");
            assert!(
                o.status.success(),
                "slurm-cluster.sh up: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        Cluster { ours: !was_up }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.ours {
            let o = cluster("down");
            if !o.status.success() {
                eprintln!(
                    "slurm-cluster.sh down: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
}

pub fn cluster(verb: &str) -> Output {
    Command::new("bash")
        .arg(script())
        .arg(verb)
        .output()
        .expect("run slurm-cluster.sh")
}

/// A command with the cluster's SLURM_CONF.
pub fn slurm_cmd(program: &str) -> Command {
    let mut c = Command::new(program);
    c.env("SLURM_CONF", slurm_conf());
    c
}
