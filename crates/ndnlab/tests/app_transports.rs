//! The client library over TCP and UDP (with NDNLPv2 fragmentation of 8 KB
//! segments by the forwarder's UDP face), through a real `ndnlab fwd`.

mod app_common;

use std::time::Duration;

use app_common::*;

/// A forwarder with its Unix socket plus TCP and UDP listeners on 127.0.0.1; the
/// client URIs of the two listeners.
fn start_fwd_ip() -> (Fwd, String, String) {
    let fwd = Fwd::with(
        "[faces.tcp]\nlisten = [\"127.0.0.1:0\"]\n[faces.udp]\nlisten = [\"127.0.0.1:0\"]\n",
    );
    let tcp = fwd.listener("tcp4").replace("tcp4://", "tcp://");
    let udp = fwd.listener("udp4").replace("udp4://", "udp://");
    (fwd, tcp, udp)
}

#[test]
fn put_over_unix_get_over_tcp_and_udp() {
    let dir = TempDir::new("transports");
    let (fwd, tcp, udp) = start_fwd_ip();
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
        fwd.sock(),
    ]);
    for uri in [tcp, udp] {
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
    let (_fwd, tcp, udp) = start_fwd_ip();
    let _srv = spawn(&["ping", "server", "/app/trping", "--socket", &tcp]);
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
