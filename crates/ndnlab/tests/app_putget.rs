//! `ndnlab put` / `ndnlab get` through a real `ndnlab fwd`.

mod app_common;

use std::time::Duration;

use app_common::*;

fn start_put(fwd: &Fwd, prefix: &str, file: &std::path::Path, extra: &[&str]) -> Proc {
    let mut args = vec![
        "put",
        prefix,
        file.to_str().unwrap(),
        "--socket",
        fwd.sock(),
    ];
    args.extend_from_slice(extra);
    spawn(&args)
}

fn get(fwd: &Fwd, name: &str, out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "get",
        name,
        "-o",
        out.to_str().unwrap(),
        "--socket",
        fwd.sock(),
    ];
    args.extend_from_slice(extra);
    run(&args, Duration::from_secs(120))
}

/// Retries `get` while the producer is still registering.
fn get_when_ready(
    fwd: &Fwd,
    name: &str,
    out: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let mut last = None;
    let ok = wait_until(Duration::from_secs(30), || {
        let o = get(fwd, name, out, extra);
        let done = o.status.success();
        last = Some(o);
        done
    });
    let last = last.expect("get ran");
    assert!(ok, "get never succeeded: {}", stderr(&last));
    last
}

/// The forwarder's face list, as `ctl face list --json` gives it.
fn faces(fwd: &Fwd) -> Vec<serde_json::Value> {
    fwd.ctl_json(&["face", "list"])
        .as_array()
        .expect("face list")
        .clone()
}

/// The id of the face a FIB entry under `prefix` routes to, once there is one.
fn producer_face(fwd: &Fwd, prefix: &str) -> Option<u64> {
    fwd.ctl_json(&["fib", "list"])
        .as_array()?
        .iter()
        .find(|e| e["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
        .and_then(|e| e["nexthops"][0]["faceId"].as_u64())
}

/// A counter of face `id` (0 while the face is not listed).
fn face_counter(fwd: &Fwd, id: u64, counter: &str) -> u64 {
    faces(fwd)
        .iter()
        .find(|f| f["faceId"] == id)
        .and_then(|f| f[counter].as_u64())
        .unwrap_or(0)
}

#[test]
fn every_pipeline_fetches_an_identical_file() {
    let fwd = Fwd::start();
    let input = fwd.dir.path().join("in.bin");
    let data = content(300_000, 1);
    std::fs::write(&input, &data).unwrap();
    let _put = start_put(&fwd, "/app/files/a", &input, &["--segment-size", "4000"]);
    for (i, p) in [
        ["-p", "fixed", "-w", "4"],
        ["-p", "aimd", "--init-cwnd", "2"],
        ["-p", "cubic", "--init-cwnd", "4"],
    ]
    .iter()
    .enumerate()
    {
        let out = fwd.dir.path().join(format!("out{i}.bin"));
        let mut extra = p.to_vec();
        extra.push("--json");
        let o = get_when_ready(&fwd, "/app/files/a", &out, &extra);
        assert_eq!(std::fs::read(&out).unwrap(), data, "pipeline {p:?}");
        let s = &json_lines(&stdout(&o))[0];
        assert_eq!(s["segments"], 75);
        assert_eq!(s["bytes"], 300_000);
        assert!(s["name"].as_str().unwrap().starts_with("/app/files/a/v="));
    }
}

#[test]
fn verified_fetch_of_key_signed_segments_to_stdout() {
    let fwd = Fwd::start();
    let input = fwd.dir.path().join("in.bin");
    let data = content(50_000, 2);
    std::fs::write(&input, &data).unwrap();
    let _put = start_put(&fwd, "/app/files/signed", &input, &["--sign", "ed25519"]);
    let mut out = None;
    let ok = wait_until(Duration::from_secs(30), || {
        let o = run(
            &[
                "get",
                "/app/files/signed",
                "--verify",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(60),
        );
        let done = o.status.success();
        out = Some(o);
        done
    });
    let out = out.expect("get ran");
    assert!(ok, "get never succeeded: {}", stderr(&out));
    assert_eq!(out.stdout, data, "content goes to stdout");
    let summary = stderr(&out);
    assert!(summary.contains("Signatures verified: yes"), "{summary}");
    assert!(summary.contains("Segments received: 7"), "{summary}");
}

#[test]
fn failed_fetch_leaves_no_file() {
    let fwd = Fwd::start();
    let out = fwd.dir.path().join("never.bin");
    let o = get(
        &fwd,
        "/app/files/missing/v=1",
        &out,
        &["-r", "1", "--max-rto", "300", "-l", "300"],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no output file written"),
        "{}",
        stderr(&o)
    );
    let leftovers: Vec<_> = std::fs::read_dir(fwd.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("never"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn resumes_when_the_producer_comes_back() {
    let fwd = Fwd::start();
    let input = fwd.dir.path().join("in.bin");
    let data = content(120_000, 3);
    std::fs::write(&input, &data).unwrap();
    let out = fwd.dir.path().join("out.bin");
    // the consumer starts while no producer serves the (pinned) version
    let getter = spawn(&[
        "get",
        "/app/files/r/v=42",
        "-o",
        out.to_str().unwrap(),
        "--retries",
        "-1",
        "--max-rto",
        "1000",
        "--json",
        "--socket",
        fwd.sock(),
    ]);
    let mut getter = getter;
    // its first Interests find no producer: the forwarder Nacks them (NoRoute)
    assert!(
        wait_until(Duration::from_secs(30), || faces(&fwd).iter().any(|f| f
            ["nOutNacks"]
            .as_u64()
            .unwrap_or(0)
            >= 1)),
        "the consumer's Interests were never Nacked"
    );
    // a first producer of another version does not satisfy it: two of the
    // consumer's Interests reach it (so it has had its chance to answer the
    // first), it sends back no Data, and the consumer is still waiting
    let other = start_put(&fwd, "/app/files/r", &input, &["--data-version", "41"]);
    let mut face = None;
    assert!(
        wait_until(Duration::from_secs(30), || {
            face = face.or_else(|| producer_face(&fwd, "/app/files/r"));
            face.is_some_and(|id| face_counter(&fwd, id, "nOutInterests") >= 2)
        }),
        "the consumer's Interests never reached the v=41 producer"
    );
    assert_eq!(face_counter(&fwd, face.unwrap(), "nInData"), 0);
    assert!(
        getter.child.try_wait().unwrap().is_none(),
        "the consumer stopped"
    );
    assert!(!out.exists());
    drop(other);
    // the producer "restarts" with the version the consumer pinned
    let _put = start_put(&fwd, "/app/files/r", &input, &["--data-version", "42"]);
    let o = getter.wait_output(Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), data);
    let s = &json_lines(&stdout(&o))[0];
    let retried = s["nacks"].as_u64().unwrap() + s["timeouts"].as_u64().unwrap();
    assert!(retried > 0, "the first Interests found no producer: {s}");
}
