//! deploy/kubernetes: the Indexed Job's and the merge Job's commands, run as
//! their pods would run them (each completion index in turn, `/campaign` a
//! directory, `ndnlab` on the PATH), give the campaign of a straight `ndnlab
//! run`; N is the same in every place the manifests name it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A sim campaign of 2 points and 3 replicates: 6 runs.
const EXPERIMENT: &str = r#"
[experiment]
name = "k8s-sim"
runner = "sim"
duration_s = 0.3
warmup_s = 0.1
repetitions = 3
[topology]
kind = "line"
n = 2
[apps.client]
kind = "consumer"
nodes = ["first"]
rate = 300.0
[apps.server]
kind = "producer"
nodes = ["last"]
[factors]
"link.delay_ms" = [1.0, 5.0]
"#;

/// Tasks the test runs (the manifests' N is for a real cluster).
const TASKS: usize = 3;

fn manifest(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy/kubernetes")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The container's one `args` entry, a folded block scalar (`- >-`): its
/// lines joined by spaces.
fn args(yaml: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == "- >-")
        .expect("an args entry `- >-`");
    let indent = |l: &str| l.len() - l.trim_start().len();
    let base = indent(lines[start]);
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty() && indent(l) > base)
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The value of the env var `name` in a manifest.
fn env_value(yaml: &str, name: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == format!("- name: {name}"))
        .unwrap_or_else(|| panic!("no env {name}"));
    lines[at + 1]
        .trim()
        .strip_prefix("value: ")
        .expect("value: on the next line")
        .trim_matches('"')
        .to_string()
}

/// Runs a pod's command: `sh -c ARGS` with /campaign at `campaign`.
fn pod(cmd: &str, campaign: &Path, env: &[(&str, String)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_ndnlab")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let cmd = cmd.replace("/campaign", campaign.to_str().unwrap());
    let mut c = Command::new("sh");
    c.args(["-c", &cmd]).env("PATH", path);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run sh")
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

#[test]
fn the_indexed_job_and_the_merge_give_the_straight_campaign() {
    let campaign_yaml = manifest("campaign.yaml");
    let merge_yaml = manifest("merge.yaml");
    // N in all three places
    let completions = campaign_yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions: "))
        .expect("spec.completions");
    assert_eq!(env_value(&campaign_yaml, "NDNLAB_TASKS"), completions);
    assert_eq!(env_value(&merge_yaml, "NDNLAB_TASKS"), completions);
    assert!(campaign_yaml.contains("completionMode: Indexed"));

    let base: PathBuf =
        std::env::temp_dir().join(format!("ndnlab-deploy-k8s-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let campaign = base.join("campaign");
    std::fs::create_dir_all(&campaign).unwrap();
    let exp = base.join("experiment.toml");
    std::fs::write(&exp, EXPERIMENT).unwrap();
    let straight = base.join("straight");
    ok(Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args([
            "run",
            exp.to_str().unwrap(),
            "--out",
            straight.to_str().unwrap(),
        ])
        .output()
        .unwrap());

    let shard = args(&campaign_yaml);
    assert!(shard.contains("--resume"), "{shard}");
    for i in 0..TASKS {
        ok(pod(
            &shard,
            &campaign,
            &[
                ("JOB_COMPLETION_INDEX", i.to_string()),
                ("NDNLAB_TASKS", TASKS.to_string()),
                ("NDNLAB_EXPERIMENT", exp.display().to_string()),
            ],
        ));
    }
    // a retried index runs nothing again
    let again = ok(pod(
        &shard,
        &campaign,
        &[
            ("JOB_COMPLETION_INDEX", "1".into()),
            ("NDNLAB_TASKS", TASKS.to_string()),
            ("NDNLAB_EXPERIMENT", exp.display().to_string()),
        ],
    ));
    assert!(again.contains("2 resumed"), "{again}");
    ok(pod(
        &args(&merge_yaml),
        &campaign,
        &[("NDNLAB_TASKS", TASKS.to_string())],
    ));
    assert_eq!(
        std::fs::read_to_string(campaign.join("results.csv")).unwrap(),
        std::fs::read_to_string(straight.join("results.csv")).unwrap()
    );
    assert!(campaign.join("index.html").is_file());
    let _ = std::fs::remove_dir_all(&base);
}
