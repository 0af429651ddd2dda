//! Every application subcommand parses its options (clap's debug assertions
//! run when a subcommand is built) and documents them.

mod app_common;

use std::time::Duration;

use app_common::*;

#[test]
fn help_of_every_app_command() {
    for args in [
        &["perf", "server", "--help"][..],
        &["perf", "client", "--help"],
        &["put", "--help"],
        &["get", "--help"],
        &["ping", "--help"],
        &["ping", "server", "--help"],
        &["traffic", "client", "--help"],
        &["traffic", "server", "--help"],
    ] {
        let out = run(args, Duration::from_secs(20));
        assert!(
            out.status.success(),
            "ndnlab {}: {}",
            args.join(" "),
            stderr(&out)
        );
        assert!(
            stdout(&out).contains("--socket"),
            "ndnlab {}",
            args.join(" ")
        );
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["get", "not a name%"][..],
        &["perf", "server", "--sign", "dsa"],
        &["get", "/x", "--pipeline", "vegas"],
        &["perf", "client", "--window", "4", "--cc", "aimd"],
    ] {
        let out = run(args, Duration::from_secs(20));
        assert_eq!(
            out.status.code(),
            Some(2),
            "ndnlab {}: {}",
            args.join(" "),
            stderr(&out)
        );
    }
}

#[test]
fn unreachable_forwarder_is_a_clear_error() {
    let dir = TempDir::new("nofwd");
    let sock = dir.path().join("none.sock");
    let out = run(
        &["ping", "/x", "-c", "1", "--socket", sock.to_str().unwrap()],
        Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot connect"), "{}", stderr(&out));
}
