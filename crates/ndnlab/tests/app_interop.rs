//! Interop with python-ndn 0.5.2 through a real `ndnlab fwd`: our `get`
//! fetches from python-ndn's segmented producer (`putchunks`), and python-ndn's
//! segment fetcher fetches from our `put`.

mod app_common;

use std::process::{Command, Stdio};
use std::time::Duration;

use app_common::*;

fn python_cmd(fwd: &Fwd) -> Command {
    let mut c = Command::new(python());
    c.env("NDN_CLIENT_TRANSPORT", format!("unix://{}", fwd.sock()))
        .env("HOME", fwd.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn our_get_fetches_from_python_putchunks() {
    let fwd = Fwd::start();
    let input = fwd.dir.path().join("py-in.bin");
    let data = content(100_000, 4);
    std::fs::write(&input, &data).unwrap();
    let child = python_cmd(&fwd)
        .args([
            "-m",
            "ndn.bin.tools",
            "putchunks",
            "/app/interop/py",
            input.to_str().unwrap(),
        ])
        .spawn()
        .expect("run python (scripts/python-venv.sh creates the venv)");
    let _py = Proc {
        child,
        what: "python putchunks".into(),
    };
    let out = fwd.dir.path().join("py-out.bin");
    let mut last = String::new();
    let ok = wait_until(Duration::from_secs(60), || {
        let o = run(
            &[
                "get",
                "/app/interop/py",
                "-o",
                out.to_str().unwrap(),
                "--json",
                "--socket",
                fwd.sock(),
            ],
            Duration::from_secs(60),
        );
        if o.status.success() {
            let s = &json_lines(&stdout(&o))[0];
            assert_eq!(s["segments"], 13);
            return true;
        }
        last = stderr(&o);
        false
    });
    assert!(ok, "get from python-ndn failed: {last}");
    assert_eq!(std::fs::read(&out).unwrap(), data);
}

#[test]
fn python_segment_fetcher_fetches_from_our_put() {
    let fwd = Fwd::start();
    let input = fwd.dir.path().join("in.bin");
    let data = content(70_000, 5);
    std::fs::write(&input, &data).unwrap();
    let _put = spawn(&[
        "put",
        "/app/interop/ours",
        input.to_str().unwrap(),
        "--socket",
        fwd.sock(),
    ]);
    let script = workspace().join("interop/app_segment_fetcher.py");
    let out = fwd.dir.path().join("out.bin");
    let mut last = String::new();
    let mut result = None;
    let ok = wait_until(Duration::from_secs(60), || {
        let child = python_cmd(&fwd)
            .arg(&script)
            .args(["/app/interop/ours", out.to_str().unwrap()])
            .spawn()
            .expect("run python (scripts/python-venv.sh creates the venv)");
        let o = Proc {
            child,
            what: "python segment fetcher".into(),
        }
        .wait_output(Duration::from_secs(60));
        let text = stdout(&o);
        if o.status.success() {
            result = Some(text);
            return true;
        }
        last = format!("{text}{}", stderr(&o));
        false
    });
    assert!(ok, "python segment fetcher never succeeded: {last}");
    let v = &json_lines(&result.unwrap())[0];
    assert_eq!(v["segments"], 9);
    assert_eq!(v["bytes"], 70_000);
    assert_eq!(std::fs::read(&out).unwrap(), data);
}
