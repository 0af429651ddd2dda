//! The producer loop over an in-process link; the test plays the forwarder
//! (answers the rib commands, sends Interests, reads the replies).

use ndnlab_wire::{Data, DigestSha256, Interest, LpPacket};
use tokio::sync::oneshot;

use super::*;
use crate::client::link::{pair, Link};
use crate::client::tests::next_lp;
use crate::client::{ControlParameters, ControlResponse};

/// Reads a rib command, checks its verb and accepts it.
async fn accept_command(fwd: &mut Link, verb: &str) {
    let lp = next_lp(fwd).await;
    let cmd = Interest::decode(lp.fragment().unwrap()).unwrap();
    assert_eq!(
        cmd.name().prefix(4).to_string(),
        format!("/localhost/nfd/rib/{verb}")
    );
    let resp = Data::builder(cmd.name().clone())
        .content(ControlResponse::ok(ControlParameters::default()).encode())
        .sign(&DigestSha256)
        .unwrap();
    let lp = LpPacket::builder()
        .pit_token(lp.pit_token_bytes().unwrap())
        .fragment(resp);
    fwd.tx.send(lp.build()).await.unwrap();
}

async fn send_interest(fwd: &Link, uri: &str, token: &'static [u8]) {
    let i = Interest::builder(uri.parse().unwrap()).nonce(7).build();
    let lp = LpPacket::builder()
        .pit_token(Bytes::from_static(token))
        .fragment(i);
    fwd.tx.send(lp.build()).await.unwrap();
}

/// A client whose prefix `/s` is registered, and the forwarder's end.
async fn registered() -> (Server, Link) {
    let (mine, mut fwd) = pair(16);
    let client = Client::from_link(mine);
    let reg = tokio::spawn(async move { Server::register(&client, &"/s".parse().unwrap()).await });
    accept_command(&mut fwd, "register").await;
    (reg.await.unwrap().unwrap(), fwd)
}

/// Data for `/s/data...`, a Nack for `/s/nack...`, nothing for the rest.
fn by_name(inc: &IncomingInterest) -> anyhow::Result<Reply> {
    let name = inc.interest.name().to_string();
    Ok(if name.starts_with("/s/data") {
        Reply::Data(Data::builder(inc.interest.name().clone()).sign(&DigestSha256)?)
    } else if name.starts_with("/s/nack") {
        Reply::Nack(NackReason::NoRoute)
    } else {
        Reply::Nothing
    })
}

#[tokio::test]
async fn answers_echo_tokens_and_the_count_stops_it() {
    let (server, mut fwd) = registered().await;
    let served = server.served();
    let run = tokio::spawn(server.run(by_name, Some(2), std::future::pending()));

    send_interest(&fwd, "/s/data/1", b"t1").await;
    let lp = next_lp(&mut fwd).await;
    assert_eq!(lp.pit_token(), Some(&b"t1"[..]));
    let d = Data::decode(lp.fragment().unwrap()).unwrap();
    assert_eq!(d.name().to_string(), "/s/data/1");

    // unanswered: the next packet out is the Nack of the Interest after it
    send_interest(&fwd, "/s/other", b"t2").await;
    send_interest(&fwd, "/s/nack/3", b"t3").await;
    let lp = next_lp(&mut fwd).await;
    assert_eq!(lp.pit_token(), Some(&b"t3"[..]));
    assert_eq!(lp.nack(), Some(NackReason::NoRoute));

    // two answered: the server unregisters and ends
    accept_command(&mut fwd, "unregister").await;
    run.await.unwrap().unwrap();
    assert_eq!(served.interests.load(Relaxed), 3);
    assert_eq!(served.data.load(Relaxed), 1);
    assert_eq!(served.nacks.load(Relaxed), 1);
    assert_eq!(served.answered(), 2);
}

#[tokio::test]
async fn stop_signal_ends_it_and_hand_offs_are_counted() {
    let (server, mut fwd) = registered().await;
    let served = server.served();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
    let answer = move |inc: &IncomingInterest| {
        seen_tx.send(inc.pit_token.clone()).unwrap();
        Ok(Reply::HandedOff)
    };
    let stop = async {
        let _ = stop_rx.await;
    };
    let run = tokio::spawn(server.run(answer, None, stop));
    send_interest(&fwd, "/s/a", b"a").await;
    send_interest(&fwd, "/s/b", b"b").await;
    assert_eq!(seen_rx.recv().await.unwrap().unwrap(), &b"a"[..]);
    assert_eq!(seen_rx.recv().await.unwrap().unwrap(), &b"b"[..]);
    stop_tx.send(()).unwrap();
    accept_command(&mut fwd, "unregister").await;
    run.await.unwrap().unwrap();
    assert_eq!(served.handed_off.load(Relaxed), 2);
    assert_eq!(served.data.load(Relaxed), 0);
}

#[tokio::test]
async fn an_answer_error_ends_it_with_that_error() {
    let (server, mut fwd) = registered().await;
    let failing = |_: &IncomingInterest| -> anyhow::Result<Reply> { anyhow::bail!("cannot sign") };
    let run = tokio::spawn(server.run(failing, None, std::future::pending()));
    send_interest(&fwd, "/s/x", b"x").await;
    accept_command(&mut fwd, "unregister").await;
    let err = run.await.unwrap().unwrap_err();
    assert_eq!(err.to_string(), "cannot sign");
}
