//! Transport tasks: one reader and one writer per connection.
//!
//! The writer batches: it takes what is queued (up to 256 KB) and writes it
//! with one system call. The reader cuts frames (streams), runs each through
//! the NDNLPv2 link service (`ndnlab_proto::lp`, which also reassembles
//! fragments on datagrams) and hands each packet to the client core.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use ndnlab_proto::framing::next_frame;
use ndnlab_proto::lp::LinkReceiver;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use super::Inner;

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

pub(super) fn spawn_stream<R, W>(
    inner: Arc<Inner>,
    mut rd: R,
    mut wr: W,
    mut out: mpsc::Receiver<Bytes>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let i2 = inner.clone();
    tokio::spawn(async move {
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
                break;
            }
        }
        let _ = wr.shutdown().await;
        i2.close("write side closed");
    });
    tokio::spawn(async move {
        let mut buf = BytesMut::with_capacity(BATCH);
        let mut link = LinkReceiver::new();
        let start = std::time::Instant::now();
        loop {
            if buf.capacity() - buf.len() < 16 * 1024 {
                buf.reserve(BATCH);
            }
            match rd.read_buf(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let now = nanos_since(start);
            loop {
                match next_frame(&mut buf) {
                    Ok(Some(frame)) => deliver(&inner, &mut link, now, frame),
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "closing connection");
                        inner.close("framing error");
                        return;
                    }
                }
            }
        }
        inner.close("connection closed by forwarder");
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
