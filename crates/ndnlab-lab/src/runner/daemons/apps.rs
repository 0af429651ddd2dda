//! The applications of a daemon run: what the tools can carry out, and the
//! command line of each app process.

use std::process::Command;

use crate::experiment::AppSpec;
use crate::runner::RunPlan;

/// Checks that `runner` can carry out `plan`: its links are of the `faces` it
/// joins forwarders with, and its consumers ask nothing the tools lack. The
/// error names the key.
pub fn check(plan: &RunPlan, runner: &str, faces: &[&str]) -> anyhow::Result<()> {
    for l in &plan.topology.links {
        if !faces.contains(&l.spec.face.as_str()) {
            anyhow::bail!(
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
            );
        }
    }
    for (name, a) in &plan.exp.apps {
        if !matches!(a.kind.as_str(), "consumer" | "producer") {
            anyhow::bail!(
                "apps.{name}.kind: '{}' runs under the inproc runner only",
                a.kind
            );
        }
        if a.prefix.contains("{node}") || !a.from.is_empty() {
            anyhow::bail!(
                "apps.{name}: per-node prefixes and `from` run under the inproc runner only"
            );
        }
        if a.kind != "consumer" {
            continue;
        }
        let refuse = |key: &str| {
            anyhow::anyhow!(
                "apps.{name}.{key}: ndnlab perf client and traffic client have no such option (use the inproc runner)"
            )
        };
        if a.zipf > 0.0 {
            return Err(refuse("zipf"));
        }
        if a.count > 0 {
            return Err(refuse("count"));
        }
        if a.pattern == "window" && a.must_be_fresh {
            return Err(refuse("must_be_fresh"));
        }
    }
    Ok(())
}

/// The command line of an app.
pub(super) fn app_args(cmd: &mut Command, a: &AppSpec, sock: &str, seconds: f64, seed: u64) {
    let secs = format!("{}", seconds.ceil().max(1.0) as u64);
    if a.kind == "producer" {
        cmd.args(["perf", "server", "--socket", sock, "--prefix", &a.prefix])
            .args(["--payload", &a.payload.to_string()])
            .args(["--freshness", &a.freshness_ms.to_string()])
            .args(["--sign", &a.signature])
            .args(["--threads", &a.threads.to_string()]);
        if a.presign {
            cmd.arg("--cache");
        }
    } else if a.pattern == "window" {
        cmd.args(["perf", "client", "--socket", sock, "--prefix", &a.prefix]);
        if a.cc == "fixed" {
            cmd.args(["--window", &a.window.to_string()]);
        } else {
            cmd.args(["--cc", &a.cc]);
        }
        cmd.args(["--duration", &secs])
            .args(["--lifetime", &a.lifetime_ms.to_string()])
            // a timeout is an Interest unanswered for its lifetime, as the
            // metric says, not an early retransmission timer firing on a
            // loaded machine
            .args(["--min-rto", &a.lifetime_ms.to_string()])
            .args(["--names", &a.catalogue.to_string()])
            .args(["--interval", "0.1", "--json"]);
    } else {
        let pattern = format!(
            "name={},percent=100,components={},distinct={},lifetime={},fresh={}",
            a.prefix, a.name_components, a.catalogue, a.lifetime_ms, a.must_be_fresh
        );
        cmd.args(["traffic", "client", "--socket", sock, "--pattern", &pattern])
            .args(["--arrival", &a.pattern, "--rate", &a.rate.to_string()])
            .args(["--burst-size", &a.burst.to_string()])
            .args([
                "--duration",
                &secs,
                "--seed",
                &seed.to_string(),
                "--json",
                "--quiet",
            ]);
    }
}
