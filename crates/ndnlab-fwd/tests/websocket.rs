//! The WebSocket channel with a real WebSocket client (tokio-tungstenite) over
//! 127.0.0.1: Interests in binary messages fetch Data from a producer on the Unix
//! socket; the face is local, listed with NFD's URIs, survives garbage, and goes
//! away when the client closes.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::TestFwd;
use futures_util::{SinkExt, StreamExt};
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_wire::{Interest, Name, Packet};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

type Ws = WebSocketStream<TcpStream>;

fn start() -> (TestFwd, String) {
    let fwd = TestFwd::start("ws", |c| {
        c.faces.websocket.listen = vec!["127.0.0.1:0".parse().unwrap()];
        // 100 KB Data: beyond NDN's 8800-byte packets
        c.forwarder.max_packet_size = 110_000;
    });
    let ws = fwd.listener("ws://");
    (fwd, ws)
}

async fn connect(uri: &str) -> Ws {
    let addr = uri.trim_start_matches("ws://");
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (ws, resp) = tokio_tungstenite::client_async(format!("{uri}/"), tcp)
        .await
        .expect("WebSocket handshake");
    assert_eq!(resp.status(), 101);
    ws
}

/// Sends an Interest and waits for the Data (or fails after 5 s).
async fn fetch(ws: &mut Ws, name: &str, nonce: u32) -> ndnlab_wire::Data {
    let i = Interest::builder(Name::from_uri(name).unwrap())
        .nonce(nonce)
        .lifetime(Duration::from_secs(4))
        .build();
    ws.send(Message::Binary(i.to_vec())).await.unwrap();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .unwrap_or_else(|_| panic!("no Data for {name}"))
            .expect("open")
            .expect("a message");
        let Message::Binary(b) = m else { continue };
        // One message is one whole TLV.
        match Packet::decode(Bytes::from(b)).expect("one whole packet per message") {
            Packet::Data(d) => return d,
            Packet::Lp(lp) => {
                if let Some(Ok(d)) = lp.fragment().map(ndnlab_wire::Data::decode) {
                    return d;
                }
            }
            Packet::Interest(_) => {}
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn websocket_client_fetches_data_through_the_forwarder() {
    let (fwd, uri) = start();
    assert!(uri.starts_with("ws://127.0.0.1:"), "{uri}");
    let producer = common::producer(&fwd, "/ws", 2000, 60);
    let rt = runtime();
    rt.block_on(async {
        let mut ws = connect(&uri).await;
        for k in 0..50u32 {
            let d = fetch(&mut ws, &format!("/ws/{k}"), 1000 + k).await;
            assert_eq!(d.name().to_string(), format!("/ws/{k}"));
            assert_eq!(d.content().len(), 2000);
        }
        // A text message and a binary message that is no packet are dropped and
        // counted; the face keeps working.
        ws.send(Message::Text("hello".into())).await.unwrap();
        ws.send(Message::Binary(vec![0xEE, 2, 0, 0])).await.unwrap();
        let d = fetch(&mut ws, "/ws/after-garbage", 7).await;
        assert_eq!(d.content().len(), 2000);

        // The face: local (loopback), on-demand, NFD's URIs; the channel is listed.
        let mut c = fwd.client();
        let faces =
            decode_records(DatasetKind::Faces, &c.dataset("faces", "list").unwrap()).unwrap();
        let f = faces
            .iter()
            .find(|r| {
                r.text("remote")
                    .is_some_and(|u| u.starts_with("wsclient://127.0.0.1:"))
            })
            .expect("the WebSocket face in faces/list");
        assert_eq!(f.text("local"), Some(uri.as_str()));
        assert_eq!(f.num("scope"), Some(1));
        assert_eq!(f.num("persistency"), Some(1));
        assert!(f.num("nInInterests").unwrap() >= 51);
        assert!(f.num("nOutData").unwrap() >= 51);
        let channels = decode_records(
            DatasetKind::Channels,
            &c.dataset("faces", "channels").unwrap(),
        )
        .unwrap();
        assert!(channels
            .iter()
            .any(|r| r.text("local") == Some(uri.as_str())));

        // Closing the client closes the face.
        ws.close(None).await.unwrap();
        drop(ws);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            let faces =
                decode_records(DatasetKind::Faces, &c.dataset("faces", "list").unwrap()).unwrap();
            if !faces.iter().any(|r| {
                r.text("remote")
                    .is_some_and(|u| u.starts_with("wsclient://"))
            }) {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the face did not go away with its client"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    drop(fwd);
    let _ = producer.join();
}

#[test]
fn large_data_travels_in_one_message_and_nacks_arrive() {
    let (fwd, uri) = start();
    let producer = common::producer(&fwd, "/big", 100_000, 1);
    let rt = runtime();
    rt.block_on(async {
        let mut ws = connect(&uri).await;
        let d = fetch(&mut ws, "/big/1", 1).await;
        assert_eq!(d.content().len(), 100_000);
        // No route: the forwarder answers with a Nack (an LpPacket in one message).
        let i = Interest::builder(Name::from_uri("/no/route").unwrap())
            .nonce(9)
            .build();
        ws.send(Message::Binary(i.to_vec())).await.unwrap();
        let m = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a Nack")
            .unwrap()
            .unwrap();
        let Message::Binary(b) = m else {
            panic!("binary expected: {m:?}")
        };
        let Packet::Lp(lp) = Packet::decode(Bytes::from(b)).unwrap() else {
            panic!("an LpPacket")
        };
        assert!(lp.nack().is_some());
    });
    drop(fwd);
    let _ = producer.join();
}

#[test]
fn websocket_is_off_by_default_and_a_taken_port_is_refused() {
    let fwd = TestFwd::start("wsoff", |_| {});
    assert!(!fwd.listening.iter().any(|l| l.starts_with("ws://")));
    drop(fwd);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let rt = runtime();
    let err = rt.block_on(async {
        let mut cfg = ndnlab_fwd::FwdConfig::default();
        cfg.faces.unix.enabled = false;
        cfg.faces.websocket.listen = vec![addr];
        match ndnlab_fwd::Daemon::start(cfg).await {
            Ok(d) => {
                d.shutdown().await;
                String::new()
            }
            Err(e) => format!("{e:#}"),
        }
    });
    assert!(
        err.contains(&addr.to_string()) && err.contains("WebSocket"),
        "{err}"
    );
}
