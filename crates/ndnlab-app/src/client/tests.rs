//! Client protocol tests over an in-process link; the test plays the
//! forwarder's side of the link (packets only, no forwarding logic).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use ndnlab_wire::tlv::{put_nni_tlv, put_tlv};
use ndnlab_wire::{Data, DigestSha256, Interest, LpPacket, Nack, NackReason, Packet};

use super::link::{pair, Link};
use super::*;

fn interest(uri: &str, ms: u64) -> Interest {
    Interest::builder(uri.parse().unwrap())
        .lifetime_ms(ms)
        .build_view()
        .unwrap()
}

/// The next packet the client sent on `peer`, which must be an LpPacket.
pub(crate) async fn next_lp(peer: &mut Link) -> LpPacket {
    let p = tokio::time::timeout(Duration::from_secs(5), peer.rx.recv())
        .await
        .expect("packet in time")
        .expect("link open");
    match Packet::decode(p).unwrap() {
        Packet::Lp(lp) => lp,
        other => panic!("expected LpPacket, got {other:?}"),
    }
}

#[tokio::test]
async fn data_with_token_and_mark() {
    let (mine, mut peer) = pair(16);
    let c = Client::from_link(mine);
    let task = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/a/b", 1000)).await }
    });
    let lp = next_lp(&mut peer).await;
    let token = lp.pit_token_bytes().expect("token");
    let i = Interest::decode(lp.fragment().unwrap()).unwrap();
    assert!(i.nonce().is_some(), "client adds a Nonce");
    let data = Data::builder(i.name().clone())
        .content(&b"hi"[..])
        .sign(&DigestSha256)
        .unwrap();
    let reply = LpPacket::builder()
        .pit_token(token)
        .congestion_mark(1)
        .fragment(data)
        .build();
    peer.tx.send(reply).await.unwrap();
    match task.await.unwrap().unwrap() {
        Outcome::Data(r) => {
            assert_eq!(r.data.content_slice(), b"hi");
            assert_eq!(r.congestion_mark, 1);
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(c.pending(), 0);
}

#[tokio::test]
async fn nack_and_timeout_and_bare_data() {
    let (mine, mut peer) = pair(16);
    let c = Client::from_link(mine);
    let t1 = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/n", 1000)).await }
    });
    let lp = next_lp(&mut peer).await;
    let i = Interest::decode(lp.fragment().unwrap()).unwrap();
    // Nack without token: matched by name + nonce
    peer.tx
        .send(Nack::new(i, NackReason::NoRoute).encode())
        .await
        .unwrap();
    assert!(matches!(
        t1.await.unwrap().unwrap(),
        Outcome::Nack(NackReason::NoRoute)
    ));

    let t2 = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/t", 50)).await }
    });
    let _ = next_lp(&mut peer).await;
    assert!(matches!(t2.await.unwrap().unwrap(), Outcome::Timeout));

    let t3 = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/bare", 1000)).await }
    });
    let _ = next_lp(&mut peer).await;
    let d = Data::builder("/bare".parse().unwrap())
        .sign(&DigestSha256)
        .unwrap();
    peer.tx.send(d).await.unwrap();
    assert!(matches!(t3.await.unwrap().unwrap(), Outcome::Data(_)));
    // unsolicited and malformed are counted, not fatal
    peer.tx
        .send(Bytes::from_static(&[0x06, 0x01]))
        .await
        .unwrap();
    let d = Data::builder("/nobody".parse().unwrap())
        .sign(&DigestSha256)
        .unwrap();
    peer.tx.send(d).await.unwrap();
    // The link is ordered and read by one task: once an exchange started after
    // them completes, both packets above were handled.
    let t4 = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/sync", 1000)).await }
    });
    let _ = next_lp(&mut peer).await;
    let d = Data::builder("/sync".parse().unwrap())
        .sign(&DigestSha256)
        .unwrap();
    peer.tx.send(d).await.unwrap();
    assert!(matches!(t4.await.unwrap().unwrap(), Outcome::Data(_)));
    assert_eq!(c.counters().malformed.load(Relaxed), 1);
    assert_eq!(c.counters().unsolicited.load(Relaxed), 1);
}

fn control_response(code: u64, text: &str) -> Bytes {
    let mut v = Vec::new();
    put_nni_tlv(&mut v, mgmt::tt::STATUS_CODE, code);
    put_tlv(&mut v, mgmt::tt::STATUS_TEXT, text.as_bytes());
    let mut out = BytesMut::new();
    put_tlv(&mut out, mgmt::tt::CONTROL_RESPONSE, &v);
    out.freeze()
}

#[tokio::test]
async fn register_then_serve_with_token_echo() {
    let (mine, mut peer) = pair(16);
    let c = Client::from_link(mine);
    let reg = tokio::spawn({
        let c = c.clone();
        async move { c.register(&"/app".parse().unwrap()).await }
    });
    let lp = next_lp(&mut peer).await;
    let cmd = Interest::decode(lp.fragment().unwrap()).unwrap();
    assert_eq!(
        cmd.name().prefix(4).to_string(),
        "/localhost/nfd/rib/register"
    );
    assert!(cmd.is_signed());
    let resp = Data::builder(cmd.name().clone())
        .content(control_response(200, "OK"))
        .sign(&DigestSha256)
        .unwrap();
    peer.tx
        .send(
            LpPacket::builder()
                .pit_token(lp.pit_token_bytes().unwrap())
                .fragment(resp)
                .build(),
        )
        .await
        .unwrap();
    let mut producer = reg.await.unwrap().unwrap();

    // an Interest from the forwarder, with a token and IncomingFaceId
    let i = Interest::builder("/app/x".parse().unwrap())
        .nonce(1)
        .build();
    peer.tx
        .send(
            LpPacket::builder()
                .pit_token(Bytes::from_static(b"tok"))
                .incoming_face_id(300)
                .fragment(i)
                .build(),
        )
        .await
        .unwrap();
    let inc = producer.recv().await.unwrap();
    assert_eq!(inc.incoming_face_id, Some(300));
    let d = Data::builder(inc.interest.name().clone())
        .sign(&DigestSha256)
        .unwrap();
    c.put_data(d, inc.pit_token.as_ref()).await.unwrap();
    let lp = next_lp(&mut peer).await;
    assert_eq!(lp.pit_token(), Some(&b"tok"[..]));

    // refused registration is an error with the code
    let reg = tokio::spawn({
        let c = c.clone();
        async move { c.register(&"/denied".parse().unwrap()).await }
    });
    let lp = next_lp(&mut peer).await;
    let cmd = Interest::decode(lp.fragment().unwrap()).unwrap();
    let resp = Data::builder(cmd.name().clone())
        .content(control_response(403, "unauthorized"))
        .sign(&DigestSha256)
        .unwrap();
    peer.tx.send(resp).await.unwrap();
    let err = reg.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("403"), "{err}");
}

#[tokio::test]
async fn closing_the_link_fails_pending_interests() {
    let (mine, mut peer) = pair(16);
    let c = Client::from_link(mine);
    let t = tokio::spawn({
        let c = c.clone();
        async move { c.express(interest("/x", 10_000)).await }
    });
    // The Interest is pending once the forwarder's side has it.
    let _ = next_lp(&mut peer).await;
    drop(peer);
    assert!(matches!(
        tokio::time::timeout(Duration::from_secs(2), t)
            .await
            .unwrap()
            .unwrap(),
        Ok(Outcome::Timeout) | Err(ClientError::Closed)
    ));
    assert!(c.is_closed());
}
