//! Transport tasks: one reader and one writer per connection.
//!
//! The writer batches: it takes what is queued (up to 256 KB) and writes it
//! with one system call. The reader cuts frames (streams), runs each through
//! the NDNLPv2 link service (`ndnlab_proto::lp`, which also reassembles
//! fragments on datagrams) and hands each packet to the client core.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use ndnlab_proto::framing::{make_room, next_frame};
use ndnlab_proto::lp::LinkReceiver;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::reconnect::{retry, Reconnect};
use super::{FaceUri, Inner};

/// Nanoseconds since the connection's reader started (the link service's clock).
fn nanos_since(start: std::time::Instant) -> u64 {
    start.elapsed().as_nanos() as u64
}

/// Runs one frame through the link service and hands the packet to the client.
fn deliver(inner: &Inner, link: &mut LinkReceiver, now: u64, frame: Bytes) {
    match link.receive(now, frame) {
        Ok(Some((fields, pkt))) => inner.on_packet(pkt, &fields),
        Ok(None) => {}
        Err(e) => inner.on_link_drop(&e),
    }
}

const BATCH: usize = 256 * 1024;

/// How a writer loop ended.
enum WriteEnd {
    /// Every sender is gone: the client was dropped or closed.
    SendersGone,
    /// The transport refused a write: the connection is lost.
    Failed,
}

/// Writes what the client queues, in batches, until the queue closes or a write fails.
async fn write_loop<W: AsyncWrite + Unpin>(
    out: &mut mpsc::Receiver<Bytes>,
    wr: &mut W,
) -> WriteEnd {
    let mut buf: Vec<u8> = Vec::with_capacity(BATCH);
    while let Some(p) = out.recv().await {
        buf.clear();
        buf.extend_from_slice(&p);
        while buf.len() < BATCH {
            match out.try_recv() {
                Ok(p) => buf.extend_from_slice(&p),
                Err(_) => break,
            }
        }
        if wr.write_all(&buf).await.is_err() {
            return WriteEnd::Failed;
        }
    }
    WriteEnd::SendersGone
}

/// Reads frames and hands their packets to the client until the stream ends;
/// returns why it ended.
async fn read_loop<R: AsyncRead + Unpin>(inner: Arc<Inner>, mut rd: R) -> &'static str {
    let mut buf = BytesMut::with_capacity(BATCH);
    let mut link = LinkReceiver::new();
    let start = std::time::Instant::now();
    loop {
        make_room(&mut buf, BATCH, 16 * 1024);
        match rd.read_buf(&mut buf).await {
            Ok(0) | Err(_) => return "connection closed by forwarder",
            Ok(_) => {}
        }
        let now = nanos_since(start);
        loop {
            match next_frame(&mut buf) {
                Ok(Some(frame)) => deliver(&inner, &mut link, now, frame),
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "closing connection");
                    return "framing error";
                }
            }
        }
    }
}

pub(super) fn spawn_stream<R, W>(
    inner: Arc<Inner>,
    rd: R,
    mut wr: W,
    mut out: mpsc::Receiver<Bytes>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let i2 = inner.clone();
    tokio::spawn(async move {
        write_loop(&mut out, &mut wr).await;
        let _ = wr.shutdown().await;
        i2.close("write side closed");
    });
    tokio::spawn(async move {
        let why = read_loop(inner.clone(), rd).await;
        inner.close(why);
    });
}

/// The two halves of a stream connection.
pub(super) type Halves = (
    Box<dyn AsyncRead + Unpin + Send>,
    Box<dyn AsyncWrite + Unpin + Send>,
);

/// Opens a stream connection (Unix or TCP) to `uri`.
pub(super) async fn connect_stream(uri: &FaceUri) -> std::io::Result<Halves> {
    match uri {
        FaceUri::Unix(path) => {
            let (rd, wr) = tokio::net::UnixStream::connect(path).await?.into_split();
            Ok((Box::new(rd), Box::new(wr)))
        }
        FaceUri::Tcp(hp) => {
            let s = tokio::net::TcpStream::connect(hp.as_str()).await?;
            let _ = s.set_nodelay(true);
            let (rd, wr) = s.into_split();
            Ok((Box::new(rd), Box::new(wr)))
        }
        FaceUri::Udp(_) => Err(std::io::Error::other("not a stream transport")),
    }
}

/// Runs a stream connection that is opened again after a loss (see
/// [`super::reconnect`]): the queue toward the forwarder outlives each
/// connection, and after each reconnection every registered prefix is
/// registered again.
pub(super) fn spawn_reconnecting(
    inner: Arc<Inner>,
    first: Halves,
    uri: FaceUri,
    policy: Reconnect,
    mut out: mpsc::Receiver<Bytes>,
) {
    tokio::spawn(async move {
        let (mut rd, mut wr) = first;
        let label = uri.to_string();
        loop {
            let mut reader = tokio::spawn(read_loop(inner.clone(), rd));
            let why = tokio::select! {
                r = &mut reader => r.unwrap_or("reader failed"),
                w = write_loop(&mut out, &mut wr) => match w {
                    WriteEnd::SendersGone => {
                        reader.abort();
                        let _ = wr.shutdown().await;
                        inner.close("client closed");
                        return;
                    }
                    WriteEnd::Failed => "write failed",
                },
            };
            reader.abort();
            if inner.is_closed() {
                return;
            }
            let lost_at = std::time::Instant::now();
            policy.note(
                &label,
                &format!(
                    "{why}; reconnecting (giving up after {:?})",
                    policy.give_up_after
                ),
            );
            match retry(&policy, lost_at, || connect_stream(&uri)).await {
                Ok(h) => (rd, wr) = h,
                Err(e) => {
                    let what = format!(
                        "did not come back within {:?} ({e}); giving up",
                        policy.give_up_after
                    );
                    policy.note(&label, &what);
                    inner.close("forwarder did not come back");
                    return;
                }
            }
            policy.note(
                &label,
                &format!("reconnected after {:.1} s", lost_at.elapsed().as_secs_f64()),
            );
            super::reregister(inner.clone(), policy.clone());
        }
    });
}

pub(super) fn spawn_udp(inner: Arc<Inner>, sock: UdpSocket, mut out: mpsc::Receiver<Bytes>) {
    let sock = Arc::new(sock);
    let (s2, i2) = (sock.clone(), inner.clone());
    tokio::spawn(async move {
        while let Some(p) = out.recv().await {
            if let Err(e) = s2.send(&p).await {
                tracing::debug!(error = %e, len = p.len(), "udp send failed");
                i2.counters
                    .send_errors
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        i2.close("write side closed");
    });
    tokio::spawn(async move {
        let mut link = LinkReceiver::new();
        let start = std::time::Instant::now();
        let mut buf = vec![0u8; 65536];
        loop {
            let n = match sock.recv(&mut buf).await {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                Err(_) => break,
            };
            let frame = Bytes::copy_from_slice(&buf[..n]);
            deliver(&inner, &mut link, nanos_since(start), frame);
        }
        inner.close("udp socket closed");
    });
}

pub(super) fn spawn_link(
    inner: Arc<Inner>,
    link: super::link::Link,
    mut out: mpsc::Receiver<Bytes>,
) {
    let super::link::Link { tx, mut rx } = link;
    let i2 = inner.clone();
    tokio::spawn(async move {
        while let Some(p) = out.recv().await {
            if tx.send(p).await.is_err() {
                break;
            }
        }
        i2.close("link closed");
    });
    tokio::spawn(async move {
        let mut link = LinkReceiver::new();
        let start = std::time::Instant::now();
        while let Some(p) = rx.recv().await {
            deliver(&inner, &mut link, nanos_since(start), p);
        }
        inner.close("link closed by peer");
    });
}
