//! The applications of a daemon run: what the runners can carry out, and the
//! command line of each app process.
//!
//! | kind | process |
//! |---|---|
//! | `producer` | `ndnlab perf server` |
//! | `repository` | `ndnlab perf server --cache` (each content signed once, then served from memory) |
//! | `put` | `ndnlab put --data-version 1` of the object [`crate::apps::producer::object`] |
//! | `consumer`, `pattern = "window"` | `ndnlab perf client --names --zipf --window-at --window-secs` (one `--prefix` per place of `from`) |
//! | `consumer`, rate patterns | `ndnlab traffic client --window-at --window-secs` (one `--pattern` per place of `from`) |
//! | `ping` | `ndnlab ping --start-seq` |
//! | `get` | `ndnlab get PREFIX/v=1` |
//!
//! Consumers with a `count`, and gets, are started when the measurement window
//! opens (as under `inproc`); the others at once, leaving the warm-up out of
//! their reports. The perf and traffic clients are given the window as Unix
//! times (`--window-at`), which each turns into its own monotonic clock once
//! at its start: their window is the runner's, however late a process starts.

use std::path::{Path, PathBuf};
use std::process::Command;

use ndnlab_wire::Name;

use crate::apps::names::places;
use crate::experiment::AppSpec;
use crate::runner::RunPlan;

/// Checks that `runner` can carry out `plan`: its links are of the `faces` it
/// joins forwarders with. Every app kind and key runs as a tool process. The
/// error names the key.
pub fn check(plan: &RunPlan, runner: &str, faces: &[&str]) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        if !faces.contains(&l.spec.face.as_str()) {
            // a face is a level of this point: skipped, not failed
            return Err(crate::campaign::not_applicable(format!(
                "link {}-{}: face '{}': the {runner} runner joins forwarders over {}",
                l.a,
                l.b,
                l.spec.face,
                faces
                    .iter()
                    .filter(|f| **f != "memory")
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Ok(())
}

/// Whether an app starts when the measurement window opens (a count, or a get).
pub(super) fn starts_at_window(a: &AppSpec) -> bool {
    a.kind == "get" || (a.is_consumer() && a.count > 0)
}

/// The file a put on a node publishes (written when its command is made).
pub(super) fn object_file(files: &Path, label: &str) -> PathBuf {
    files.join(format!("{label}.object"))
}

/// One app's process.
pub(super) struct Launch<'a> {
    pub plan: &'a RunPlan,
    pub spec: &'a AppSpec,
    /// `group@node`.
    pub label: &'a str,
    pub node: &'a str,
    /// The node's forwarder socket URI.
    pub sock: &'a str,
    /// Seconds the app runs (the warm-up and window, or the window alone).
    pub seconds: f64,
    pub seed: u64,
    /// Unix seconds at which the measurement window opens (for consumers).
    pub window_at: f64,
    /// Where the app's files go (a put's object, a get's copy).
    pub files: &'a Path,
}

/// The start sequence number of a ping (`--start-seq`): its first name, as
/// [`crate::apps::Names`] numbers them.
pub(super) fn ping_start(seed: u64) -> u64 {
    seed % 1_000_000_000 + 1
}

/// The interval of a ping at `rate` per second, in whole milliseconds.
pub(super) fn ping_interval_ms(rate: f64) -> u64 {
    ((1000.0 / rate).round() as u64).max(1)
}

/// The command line of an app.
pub(super) fn app_args(cmd: &mut Command, l: &Launch) -> anyhow::Result<()> {
    let a = l.spec;
    let secs = format!("{}", l.seconds);
    let prefix = a.prefix_on(l.node);
    let exp = &l.plan.exp.experiment;
    match a.kind.as_str() {
        "producer" | "repository" => {
            cmd.args(["perf", "server", "--socket", l.sock, "--prefix", &prefix])
                .args(["--payload", &a.payload.to_string()])
                .args(["--freshness", &a.freshness_ms.to_string()])
                .args(["--sign", &a.signature]);
            if crate::apps::keys::verifies(l.plan) {
                // the key every forwarder of the run trusts (or, with
                // `trusted = false`, one none does)
                let kc = l.files.join("keychain");
                let kind = a.signature.parse().map_err(anyhow::Error::msg)?;
                if let Some(key) = crate::apps::keys::export(kind, l.node, a.trusted, &kc)? {
                    cmd.arg("--keychain")
                        .arg(&kc)
                        .args(["--key", &key.to_string()]);
                }
            }
            if a.kind == "repository" {
                cmd.arg("--cache");
            } else {
                cmd.args(["--threads", &a.threads.to_string()]);
                if a.presign {
                    cmd.arg("--cache");
                }
            }
        }
        "put" => {
            let file = object_file(l.files, l.label);
            std::fs::write(&file, crate::apps::producer::object(&prefix, a.size))?;
            cmd.args(["put", "--socket", l.sock, &prefix])
                .arg(&file)
                .args(["--segment-size", &a.payload.to_string()])
                .args(["--freshness", &a.freshness_ms.to_string()])
                .args(["--sign", &a.signature])
                .args([
                    "--data-version",
                    &crate::apps::producer::PUT_VERSION.to_string(),
                ])
                .args(["--threads", &a.threads.to_string(), "--quiet"]);
        }
        "get" => {
            let name = Name::from_uri(&prefix)?.append_version(crate::apps::producer::PUT_VERSION);
            cmd.args(["get", "--socket", l.sock, &name.to_string()])
                .arg("--output")
                .arg(l.files.join(format!("{}.copy", l.label)))
                .args(["--pipeline", &a.cc])
                .args(["--pipeline-size", &a.window.max(1).to_string()])
                .args(["--lifetime", &a.lifetime_ms.to_string(), "--json"]);
        }
        "ping" => {
            // one ping every interval for the run, or `count` from the window
            let count = match a.count {
                0 => ((exp.warmup_s + exp.duration_s) * a.rate).ceil().max(1.0) as u64,
                n => n,
            };
            cmd.args(["ping", "--socket", l.sock, &a.prefix])
                .args(["--interval", &ping_interval_ms(a.rate).to_string()])
                .args(["--count", &count.to_string()])
                .args(["--timeout", &a.lifetime_ms.to_string()])
                .args(["--start-seq", &ping_start(l.seed).to_string(), "--json"]);
        }
        _ if a.pattern == "window" => {
            cmd.args(["perf", "client", "--socket", l.sock]);
            let places = places(&l.plan.exp, &l.plan.topology, a).map_err(anyhow::Error::msg)?;
            for (p, _, _) in &places {
                cmd.args(["--prefix", p]);
            }
            if a.cc == "fixed" {
                cmd.args(["--window", &a.window.to_string()]);
            } else {
                // `window` is the largest congestion window, as inproc's
                cmd.args(["--cc", &a.cc])
                    .args(["--max-cwnd", &a.window.max(1).to_string()]);
            }
            cmd.args(["--duration", &secs])
                .args(["--lifetime", &a.lifetime_ms.to_string()])
                // a timeout is an Interest unanswered for its lifetime, as the
                // metric says, not an early retransmission timer firing on a
                // loaded machine
                .args(["--min-rto", &a.lifetime_ms.to_string()])
                .args(["--names", &places[0].1.to_string()])
                .args(["--zipf", &a.zipf.to_string()])
                .args(["--seed", &l.seed.to_string()])
                .args(["--interval", "0.1", "--json"]);
            // the runner's window: the client counts the Interests sent
            // inside it, with their answers whenever they come
            cmd.args(["--window-at", &l.window_at.to_string()])
                .args(["--window-secs", &exp.duration_s.to_string()]);
            if a.count > 0 {
                cmd.args(["--count", &a.count.to_string()]);
            }
            if !a.must_be_fresh {
                cmd.arg("--no-fresh");
            }
        }
        _ => {
            cmd.args(["traffic", "client", "--socket", l.sock]);
            for (p, catalogue, components) in
                places(&l.plan.exp, &l.plan.topology, a).map_err(anyhow::Error::msg)?
            {
                let pattern = format!(
                    "name={p},components={components},distinct={catalogue},lifetime={},fresh={}",
                    a.lifetime_ms, a.must_be_fresh
                );
                cmd.args(["--pattern", &pattern]);
            }
            cmd.args(["--arrival", &a.pattern, "--rate", &a.rate.to_string()])
                .args(["--burst-size", &a.burst.to_string()])
                .args(["--duration", &secs, "--seed", &l.seed.to_string()])
                .args(["--json", "--quiet"]);
            if a.zipf > 0.0 {
                cmd.args(["--zipf", &a.zipf.to_string()]);
            }
            if a.count > 0 {
                cmd.args(["--count", &a.count.to_string()]);
            } else {
                cmd.args(["--window-at", &l.window_at.to_string()])
                    .args(["--window-secs", &exp.duration_s.to_string()]);
            }
        }
    }
    Ok(())
}
