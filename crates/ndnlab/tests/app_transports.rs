//! The client library over TCP and UDP (with NDNLPv2 fragmentation of 8 KB
//! segments by the forwarder's UDP face), through a real `ndnlab fwd`.

mod app_common;

use std::io::BufRead;
use std::time::Duration;

use app_common::*;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A forwarder with a Unix socket plus TCP and UDP listeners on 127.0.0.1.
fn start_fwd_ip(dir: &TempDir, port: u16) -> Proc {
    let socket = dir.path().join("fwd.sock");
    let addr = format!("127.0.0.1:{port}");
    let mut p = spawn(&[
        "fwd",
        "--socket",
        socket.to_str().unwrap(),
        "--threads",
        "1",
        "--log-level",
        "warn",
        "--tcp",
        &addr,
        "--udp",
        &addr,
    ]);
    let out = p.child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if l.contains("ready") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(20)).expect("fwd ready");
    p
}

#[test]
fn put_over_unix_get_over_tcp_and_udp() {
    let dir = TempDir::new("transports");
    let port = free_port();
    let _fwd = start_fwd_ip(&dir, port);
    let sock = dir.path().join("fwd.sock");
    let input = dir.path().join("in.bin");
    let data = content(200_000, 9);
    std::fs::write(&input, &data).unwrap();
    let _put = spawn(&[
        "put",
        "/app/tr",
        input.to_str().unwrap(),
        "--segment-size",
        "8000",
        "--socket",
        sock.to_str().unwrap(),
    ]);
    for uri in [
        format!("tcp://127.0.0.1:{port}"),
        format!("udp://127.0.0.1:{port}"),
    ] {
        let out = dir.path().join("out.bin");
        let _ = std::fs::remove_file(&out);
        let ok = wait_until(Duration::from_secs(30), || {
            run(
                &[
                    "get",
                    "/app/tr",
                    "-o",
                    out.to_str().unwrap(),
                    "-r",
                    "3",
                    "--socket",
                    &uri,
                ],
                Duration::from_secs(30),
            )
            .status
            .success()
        });
        assert!(ok, "get over {uri} failed");
        assert_eq!(std::fs::read(&out).unwrap(), data, "over {uri}");
    }
}

#[test]
fn ping_server_over_tcp_client_over_udp() {
    let dir = TempDir::new("transports2");
    let port = free_port();
    let _fwd = start_fwd_ip(&dir, port);
    let _srv = spawn(&[
        "ping",
        "server",
        "/app/trping",
        "--socket",
        &format!("tcp://127.0.0.1:{port}"),
    ]);
    let udp = format!("udp://127.0.0.1:{port}");
    let ok = wait_until(Duration::from_secs(20), || {
        run(
            &[
                "ping",
                "/app/trping",
                "-c",
                "1",
                "-t",
                "300",
                "--socket",
                &udp,
            ],
            Duration::from_secs(10),
        )
        .status
        .success()
    });
    assert!(ok, "ping over udp to a tcp server failed");
}
