//! WebSocket faces: NFD's WebSocket channel, for NDNts and other browser clients.
//!
//! A listener (`[faces.websocket] listen = ["127.0.0.1:9696"]`, off by default, NFD's
//! port 9696) accepts WebSocket connections (plain `ws://`, no TLS: put a TLS proxy in
//! front as with NFD). Each connection is an on-demand face, local when the peer is on
//! loopback, named like NFD's (`wsclient://127.0.0.1:51234` remote,
//! `ws://127.0.0.1:9696` local). Every binary message carries exactly one TLV packet
//! (Interest, Data or LpPacket) in each direction; text messages are dropped and
//! counted. The NDNLPv2 link service is the one stream faces use (no fragmentation:
//! WebSocket messages have no MTU). The handshake and framing come from
//! `tokio-tungstenite`.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::stream::Ingress;
use super::uri::FaceUri;
use super::{mark_congestion, FaceEntry, Persistency, SendQueueRx};
use ndnlab_proto::framing::MAX_FRAME;
use ndnlab_proto::lp::{LinkReceiver, LinkSender};

/// Time a client gets to complete the WebSocket handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Messages handed to the router per burst.
const RECV_BURST: usize = 64;

/// The WebSocket limits: one message is one packet, at most [`MAX_FRAME`] bytes.
fn ws_config() -> WebSocketConfig {
    WebSocketConfig {
        max_message_size: Some(MAX_FRAME),
        max_frame_size: Some(MAX_FRAME),
        ..Default::default()
    }
}

/// Binds a WebSocket channel and accepts faces on it until the task is aborted.
/// Returns the task and the channel's URI (`ws://127.0.0.1:9696`, with the real port).
pub async fn listen(
    addr: SocketAddr,
    ingress: Arc<dyn Ingress>,
) -> io::Result<(tokio::task::JoinHandle<()>, String)> {
    let listener = super::bind::tcp_listener(addr)
        .and_then(TcpListener::from_std)
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot listen for WebSocket on {addr} (is the port taken?): {e}"),
            )
        })?;
    let local = listener.local_addr()?;
    let task = tokio::spawn(async move {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(error = %e, "WebSocket accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let ingress = ingress.clone();
            tokio::spawn(async move {
                if let Err(e) = accept(stream, peer, local, ingress).await {
                    tracing::debug!(%peer, error = %e, "WebSocket handshake failed");
                }
            });
        }
    });
    Ok((task, FaceUri::Ws(local).to_string()))
}

/// Completes the handshake and runs the face.
async fn accept(
    stream: TcpStream,
    peer: SocketAddr,
    local: SocketAddr,
    ingress: Arc<dyn Ingress>,
) -> Result<(), String> {
    let _ = stream.set_nodelay(true);
    let ws = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        tokio_tungstenite::accept_async_with_config(stream, Some(ws_config())),
    )
    .await
    .map_err(|_| "handshake timed out".to_string())?
    .map_err(|e| e.to_string())?;
    let (face, queue) = FaceEntry::new(
        ingress.alloc_face_id(),
        FaceUri::WsClient(peer),
        FaceUri::Ws(local),
        peer.ip().is_loopback(),
        Persistency::OnDemand,
        false,
        None,
        ingress.limits(),
    );
    ingress.register_face(&face);
    spawn_ws_face(face, queue, ws, ingress);
    Ok(())
}

/// Runs a WebSocket face until its peer closes it or a socket error.
pub fn spawn_ws_face<S>(
    face: Arc<FaceEntry>,
    queue: SendQueueRx,
    ws: WebSocketStream<S>,
    ingress: Arc<dyn Ingress>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sink, stream) = ws.split();
    let (f2, i2) = (face.clone(), ingress.clone());
    tokio::spawn(async move {
        tokio::select! {
            r = read_loop(&f2, stream, &*i2) => {
                if let Err(e) = r {
                    tracing::debug!(face = f2.id, error = %e, "WebSocket read ended");
                }
            }
            _ = f2.closed() => {}
        }
        i2.face_closed(&f2);
    });
    tokio::spawn(async move {
        let mut sink = sink;
        tokio::select! {
            r = write_loop(&face, queue, &mut sink, &*ingress) => {
                if let Err(e) = r {
                    tracing::debug!(face = face.id, error = %e, "WebSocket write ended");
                }
            }
            _ = face.closed() => {}
        }
        let _ = sink.close().await;
        ingress.face_closed(&face);
    });
}

type WsError = tokio_tungstenite::tungstenite::Error;

async fn read_loop<St>(
    face: &Arc<FaceEntry>,
    mut stream: St,
    ingress: &dyn Ingress,
) -> Result<(), WsError>
where
    St: futures_util::Stream<Item = Result<Message, WsError>> + Unpin,
{
    let mut link = LinkReceiver::with_limits(face.limits.reassembly);
    let mut burst = Vec::with_capacity(RECV_BURST);
    while let Some(msg) = stream.next().await {
        let now = ingress.now();
        let mut next = Some(msg);
        // Take every message already received, up to a burst.
        while let Some(msg) = next.take() {
            match msg? {
                Message::Binary(b) => {
                    face.stats.in_bytes.fetch_add(b.len() as u64, Relaxed);
                    let alloc = b.capacity();
                    let frame = Bytes::from(b);
                    let at = frame.as_ptr();
                    match link.receive(now, frame) {
                        Ok(Some(mut pkt)) => {
                            super::share::assign_own(&mut pkt, at, alloc);
                            burst.push(pkt)
                        }
                        Ok(None) => {}
                        Err(e) => {
                            face.stats.count_lp_drop(&e);
                            tracing::trace!(face = face.id, drop = e.reason());
                        }
                    }
                }
                Message::Close(_) => {
                    if !burst.is_empty() {
                        ingress.deliver(face, &mut burst);
                    }
                    return Ok(());
                }
                Message::Text(_) => {
                    face.stats.in_drops.fetch_add(1, Relaxed);
                    tracing::trace!(face = face.id, drop = "websocket-text");
                }
                // Pings are answered by tungstenite; pongs and raw frames carry nothing.
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            }
            if burst.len() < RECV_BURST {
                next = stream.next().now_or_never().flatten();
            }
        }
        if !burst.is_empty() {
            ingress.deliver(face, &mut burst);
            burst.clear();
        }
    }
    Ok(())
}

async fn write_loop<Si>(
    face: &Arc<FaceEntry>,
    mut queue: SendQueueRx,
    sink: &mut Si,
    ingress: &dyn Ingress,
) -> Result<(), WsError>
where
    Si: futures_util::Sink<Message, Error = WsError> + Unpin,
{
    let mut link = LinkSender::new(None, 0);
    let mut marker = ndnlab_proto::lp::CongestionMarker::default();
    let mut buf = BytesMut::new();
    let mut timed = crate::latency::OutSamples::default();
    while let Some(first) = queue.recv().await {
        let mut next = Some(first);
        while let Some(items) = next.take() {
            face.dequeued(&items);
            let now = ingress.now();
            for mut it in items {
                mark_congestion(&mut marker, face, now, &mut it.fields);
                buf.clear();
                link.encode_stream(&it.fields, &it.pkt, &mut buf);
                face.stats.out_bytes.fetch_add(buf.len() as u64, Relaxed);
                face.stats.count_out(it.kind);
                timed.take(&mut it.sample);
                sink.feed(Message::Binary(buf.to_vec())).await?;
            }
            next = queue.try_recv().ok();
        }
        sink.flush().await?;
        timed.finish();
    }
    Ok(())
}
