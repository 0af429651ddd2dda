//! Stream transports (Unix, TCP): one reader and one writer task per face.
//!
//! The reader reads up to 256 KiB per system call and cuts every complete TLV out of
//! the buffer (`ndnlab_proto::framing`), handing the whole burst to the router. The writer
//! takes every burst waiting in the face's queue and writes it with as few `writev`
//! calls as the socket accepts: small packets and LpPacket headers are encoded back to
//! back into one buffer, packets of 1 KiB or more are written from their own buffer
//! without a copy (behind their LpPacket header, written into the shared buffer, when
//! they carry a PIT token or other fields). Streams never fragment (app faces).
//!
//! Congestion marks look at the face's queue plus the bytes the kernel holds unsent
//! on the socket (`SIOCOUTQ`), read once per burst, as NFD's stream transports do:
//! a fast writer otherwise sees an empty queue while megabytes wait in the socket
//! buffer, and the consumer learns of congestion only from timeouts.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::emu::FaceEmulator;
use super::share::BufferShares;
use super::{mark_congestion_queued, FaceEntry, SendQueueRx};
use crate::latency::OutSamples;
use ndnlab_proto::framing::{advance_segments, io_slices, make_room, next_frame, MAX_SEGMENTS};
use ndnlab_proto::lp::{LinkReceiver, LinkSender, LpFields};
use std::os::fd::RawFd;

/// What faces deliver to and report to (the runtime's router).
pub trait Ingress: Send + Sync + 'static {
    /// A burst of network-layer packets received on `face`.
    fn deliver(&self, face: &Arc<FaceEntry>, burst: &mut Vec<(LpFields, Bytes)>);
    /// The face's transport failed or its peer closed it.
    fn face_closed(&self, face: &Arc<FaceEntry>);
    /// The daemon's monotonic clock, in nanoseconds.
    fn now(&self) -> u64;
    /// A fresh face id.
    fn alloc_face_id(&self) -> u64;
    /// Queue limits and congestion parameters for new faces.
    fn limits(&self) -> super::FaceLimits;
    /// Makes a face created by a channel (on-demand) known to the forwarder.
    fn register_face(&self, face: &Arc<FaceEntry>);
}

const READ_CHUNK: usize = 256 * 1024;
/// A read buffer takes reads until less than this is free, or until the frame at its
/// end cannot complete in it; then that partial frame moves to a new buffer of
/// exactly [`READ_CHUNK`] bytes ([`make_room`]). A buffer thus leaves at most this
/// plus one frame (8,800 bytes and its header) unused, under 1/16 of it, which the
/// CS charges the slices it keeps ([`ndnlab_core::cs::charge`]); what else a buffer
/// holds is in the share of it each Data stands for ([`BufferShares`]).
const REFILL_MIN: usize = 2 * 1024;
const _: () = assert!(REFILL_MIN + 8800 + 64 <= READ_CHUNK / 16);
/// Packets handed to the forwarder at a time while a read is parsed, each hand-off
/// followed by a yield so the egress writers (other tasks) send them at once. A 256 KB
/// read holds thousands of Interests; handed over whole, the consumer's window moved
/// through forwarder, producer and back as one block, one process working at a time
/// (one of the two cores busy). Measured with `ndnlab bench fwd --transport unix
/// --payload 100`: 64 costs more CPU per packet, 256 pipelines less at the default
/// window, so 128 was kept.
const DELIVER_BURST: usize = 128;
const WRITE_BATCH: usize = 256 * 1024;

/// Runs a stream face until its peer or a socket error closes it. `socket` is the
/// descriptor whose unsent bytes count toward congestion marking; the writer keeps
/// it open for as long as it runs.
pub fn spawn_stream_face<R, W>(
    face: Arc<FaceEntry>,
    queue: SendQueueRx,
    reader: R,
    writer: W,
    socket: Option<RawFd>,
    ingress: Arc<dyn Ingress>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (f2, i2) = (face.clone(), ingress.clone());
    tokio::spawn(async move {
        tokio::select! {
            r = read_loop(&f2, reader, &*i2) => {
                if let Err(e) = r {
                    tracing::debug!(face = f2.id, error = %e, "face read ended");
                }
            }
            _ = f2.closed() => {}
        }
        i2.face_closed(&f2);
    });
    tokio::spawn(async move {
        tokio::select! {
            r = write_loop(&face, queue, writer, socket, &*ingress) => {
                if let Err(e) = r {
                    tracing::debug!(face = face.id, error = %e, "face write ended");
                }
            }
            _ = face.closed() => {}
        }
        ingress.face_closed(&face);
    });
}

async fn read_loop<R: AsyncRead + Unpin>(
    face: &Arc<FaceEntry>,
    mut reader: R,
    ingress: &dyn Ingress,
) -> std::io::Result<()> {
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut shares = BufferShares::new(&buf);
    let mut link = LinkReceiver::with_limits(face.limits.reassembly);
    let mut burst = Vec::with_capacity(64);
    loop {
        let at = buf.as_ptr();
        make_room(&mut buf, READ_CHUNK, REFILL_MIN);
        if buf.as_ptr() != at {
            shares.next_buffer(&buf);
        }
        let n = reader.read_buf(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        face.stats.in_bytes.fetch_add(n as u64, Relaxed);
        let now = ingress.now();
        loop {
            match next_frame(&mut buf) {
                Ok(Some(frame)) => match link.receive(now, frame) {
                    Ok(Some(mut pkt)) => {
                        shares.assign(&mut pkt);
                        burst.push(pkt);
                        if burst.len() == DELIVER_BURST {
                            ingress.deliver(face, &mut burst);
                            burst.clear();
                            // Let the woken egress writers send this burst now.
                            tokio::task::yield_now().await;
                        }
                    }
                    Ok(None) => {}
                    Err(e) => {
                        face.stats.count_lp_drop(&e);
                        tracing::trace!(face = face.id, drop = e.reason());
                    }
                },
                Ok(None) => break,
                Err(e) => {
                    face.stats.in_drops.fetch_add(1, Relaxed);
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e));
                }
            }
        }
        if !burst.is_empty() {
            ingress.deliver(face, &mut burst);
            burst.clear();
        }
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    face: &Arc<FaceEntry>,
    mut queue: SendQueueRx,
    mut writer: W,
    socket: Option<RawFd>,
    ingress: &dyn Ingress,
) -> std::io::Result<()> {
    if let Some(emu) = FaceEmulator::for_face(face, true) {
        // Boxed: the plain loop's state machine stays as small as without emulation.
        return Box::pin(write_loop_emulated(
            face, queue, writer, socket, ingress, emu,
        ))
        .await;
    }
    let mut link = LinkSender::new(None, 0);
    let mut marker = ndnlab_proto::lp::CongestionMarker::default();
    let mut buf = BytesMut::with_capacity(WRITE_BATCH);
    let mut segs: Vec<Bytes> = Vec::with_capacity(64);
    let mut timed = OutSamples::default();
    while let Some(first) = queue.recv().await {
        let mut total = 0;
        let mut next = Some(first);
        while let Some(items) = next.take() {
            face.dequeued(&items);
            let now = ingress.now();
            let unsent = match socket {
                Some(fd) if face.congestion_marking.load(Relaxed) => unsent_bytes(fd),
                _ => 0,
            };
            for mut it in items {
                let queued = face.queued_bytes() + unsent;
                mark_congestion_queued(&mut marker, face, now, queued, &mut it.fields);
                if it.pkt.len() >= ZERO_COPY_MIN {
                    // A large packet goes to writev as it is (no copy), behind its
                    // LpPacket header (PIT token etc.) if it has one.
                    let before = buf.len();
                    link.encode_stream_header(&it.fields, it.pkt.len(), &mut buf);
                    total += buf.len() - before + it.pkt.len();
                    if !buf.is_empty() {
                        segs.push(buf.split().freeze());
                    }
                    segs.push(it.pkt);
                } else {
                    let before = buf.len();
                    link.encode_stream(&it.fields, &it.pkt, &mut buf);
                    total += buf.len() - before;
                }
                timed.take(&mut it.sample);
                face.stats.count_out(it.kind);
            }
            if total < WRITE_BATCH && segs.len() < MAX_SEGMENTS {
                next = queue.try_recv().ok();
            }
        }
        if !buf.is_empty() {
            segs.push(buf.split().freeze());
        }
        if buf.capacity() < 16 * 1024 {
            buf = BytesMut::with_capacity(WRITE_BATCH);
        }
        face.stats.out_bytes.fetch_add(total as u64, Relaxed);
        write_segments(&mut writer, &mut segs).await?;
        timed.finish();
    }
    Ok(())
}

/// [`write_loop`] on a face with an emulated link: every packet is encoded into a
/// frame of its own and offered to the emulator, which drops or delays it whole
/// (the stream stays well framed); the frames due are written when the emulator
/// says, between bursts from the queue.
async fn write_loop_emulated<W: AsyncWrite + Unpin>(
    face: &Arc<FaceEntry>,
    mut queue: SendQueueRx,
    mut writer: W,
    socket: Option<RawFd>,
    ingress: &dyn Ingress,
    mut emu: FaceEmulator,
) -> std::io::Result<()> {
    let mut link = LinkSender::new(None, 0);
    let mut marker = ndnlab_proto::lp::CongestionMarker::default();
    let mut buf = BytesMut::with_capacity(WRITE_BATCH);
    let mut frames: Vec<Bytes> = Vec::with_capacity(64);
    let mut timed = OutSamples::default();
    loop {
        let first = tokio::select! {
            i = queue.recv() => match i { Some(i) => Some(i), None => return Ok(()) },
            _ = FaceEmulator::due(Some(&mut emu), ingress) => None,
        };
        let mut next = first;
        let mut total = 0;
        while let Some(items) = next.take() {
            face.dequeued(&items);
            let now = ingress.now();
            let unsent = match socket {
                Some(fd) if face.congestion_marking.load(Relaxed) => unsent_bytes(fd),
                _ => 0,
            };
            for mut it in items {
                let queued = face.queued_bytes() + unsent;
                mark_congestion_queued(&mut marker, face, now, queued, &mut it.fields);
                link.encode_stream(&it.fields, &it.pkt, &mut buf);
                total += buf.len();
                frames.push(buf.split().freeze());
                timed.take(&mut it.sample);
                face.stats.count_out(it.kind);
                if buf.capacity() < 16 * 1024 {
                    buf = BytesMut::with_capacity(WRITE_BATCH);
                }
            }
            if total < WRITE_BATCH && frames.len() < MAX_SEGMENTS {
                next = queue.try_recv().ok();
            }
        }
        emu.pass(&face.stats, ingress.now(), &mut frames);
        let sent: usize = frames.iter().map(Bytes::len).sum();
        face.stats.out_bytes.fetch_add(sent as u64, Relaxed);
        write_segments(&mut writer, &mut frames).await?;
        timed.finish();
    }
}

/// Bytes written to a socket that the kernel has not sent yet (`SIOCOUTQ`; for
/// TCP, also those sent but not acknowledged); 0 if the socket cannot tell.
pub fn unsent_bytes(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: TIOCOUTQ (SIOCOUTQ) writes one int through the pointer, which is valid
    // for the call; an invalid descriptor only makes the call fail.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut n as *mut libc::c_int) };
    if rc == 0 {
        n.max(0) as usize
    } else {
        0
    }
}

/// Packets at least this long are written from their own buffer (writev)
/// instead of being copied into the burst buffer.
const ZERO_COPY_MIN: usize = 1024;
/// Writes every segment with as few `writev` calls as the socket allows.
async fn write_segments<W: AsyncWrite + Unpin>(
    writer: &mut W,
    segs: &mut Vec<Bytes>,
) -> std::io::Result<()> {
    let mut first = 0;
    while first < segs.len() {
        let slices = io_slices(segs, first);
        let n = writer.write_vectored(&slices).await?;
        drop(slices);
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        advance_segments(segs, &mut first, n);
    }
    segs.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn unsent_bytes_counts_what_the_peer_has_not_read() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let (mut a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(unsent_bytes(a.as_raw_fd()), 0);
        a.write_all(&[7u8; 3000]).unwrap();
        assert!(unsent_bytes(a.as_raw_fd()) >= 3000);
        assert_eq!(unsent_bytes(-1), 0);
    }

    /// An ingress whose clock is tokio's (paused in these tests).
    struct Clock(tokio::time::Instant);

    impl Ingress for Clock {
        fn deliver(&self, _: &Arc<FaceEntry>, _: &mut Vec<(LpFields, Bytes)>) {}
        fn face_closed(&self, _: &Arc<FaceEntry>) {}
        fn now(&self) -> u64 {
            self.0.elapsed().as_nanos() as u64
        }
        fn alloc_face_id(&self) -> u64 {
            256
        }
        fn limits(&self) -> crate::face::FaceLimits {
            Default::default()
        }
        fn register_face(&self, _: &Arc<FaceEntry>) {}
    }

    /// A stream face with an emulated link `params` writing into a pipe: the face,
    /// the pipe's other end and the writer task.
    fn emulated_face(
        params: ndnlab_proto::emu::LinkParams,
    ) -> (
        Arc<FaceEntry>,
        tokio::io::DuplexStream,
        tokio::task::JoinHandle<std::io::Result<()>>,
    ) {
        use crate::face::{emu::EmuSpec, uri::FaceUri, FaceLimits, Persistency};
        let addr = "127.0.0.1:6363".parse().unwrap();
        let (face, queue) = FaceEntry::new(
            256,
            FaceUri::Tcp(addr),
            FaceUri::Tcp(addr),
            false,
            Persistency::Persistent,
            false,
            None,
            FaceLimits::default(),
        );
        assert!(face.set_emulation(EmuSpec {
            params,
            seed: Some(1)
        }));
        let (w, r) = tokio::io::duplex(1 << 16);
        let f = face.clone();
        let task = tokio::spawn(async move {
            let clock = Clock(tokio::time::Instant::now());
            write_loop(&f, queue, w, None, &clock).await
        });
        (face, r, task)
    }

    fn out(pkt: &Bytes) -> Vec<crate::face::OutItem> {
        vec![crate::face::OutItem {
            pkt: pkt.clone(),
            fields: LpFields::default(),
            kind: crate::face::PktKind::Interest,
            sample: None,
        }]
    }

    fn interest(i: u32) -> Bytes {
        ndnlab_wire::Interest::builder(ndnlab_wire::Name::from_uri("/emu/stream").unwrap())
            .nonce(i)
            .build()
    }

    #[tokio::test(start_paused = true)]
    async fn an_emulated_stream_face_writes_packets_when_due() {
        const MS: u64 = 1_000_000;
        let (face, mut r, task) = emulated_face(ndnlab_proto::emu::LinkParams {
            delay_ns: 50 * MS,
            ..Default::default()
        });
        let t0 = tokio::time::Instant::now();
        let (a, b) = (interest(1), interest(2));
        face.send_batch(out(&a));
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        face.send_batch(out(&b));
        let mut got = vec![0u8; a.len()];
        r.read_exact(&mut got).await.unwrap();
        let at = t0.elapsed();
        assert_eq!(got, a);
        // Virtual time: due at 50 ms, sent at the next 1 ms timer tick.
        assert!(
            (50..=51).contains(&at.as_millis()),
            "first packet written at {at:?}"
        );
        r.read_exact(&mut got[..b.len()]).await.unwrap();
        assert_eq!(&got[..b.len()], &b[..]);
        assert!((60..=61).contains(&t0.elapsed().as_millis()));
        assert_eq!(
            face.stats.out_bytes.load(Relaxed),
            (a.len() + b.len()) as u64
        );
        task.abort();
    }

    #[tokio::test]
    async fn an_emulated_face_writes_a_wake_up_after_due_not_a_tick_later() {
        // Real time: packets offered at different phases of the millisecond tick,
        // each read back from the pipe, against tokio's own sleep of the same
        // delay in turns. tokio's wheel ends a sleep of whole milliseconds 1 ms
        // late plus a wake-up (face::emu_timer); the writer's link timer ends it
        // a wake-up late. Both share the thread and its load, so the assert is on
        // the millisecond between the medians, with half of it as the margin.
        let delay = std::time::Duration::from_millis(3);
        let (face, mut r, task) = emulated_face(ndnlab_proto::emu::LinkParams {
            delay_ns: delay.as_nanos() as u64,
            ..Default::default()
        });
        let (mut face_late, mut wheel_late) = (Vec::new(), Vec::new());
        for i in 0..40u32 {
            std::thread::sleep(std::time::Duration::from_micros(37 * i as u64 % 1000));
            let p = interest(i);
            let s = std::time::Instant::now();
            face.send_batch(out(&p));
            let mut got = vec![0u8; p.len()];
            r.read_exact(&mut got).await.unwrap();
            let took = s.elapsed();
            assert_eq!(got, p);
            assert!(took >= delay, "written after {took:?}, before the delay");
            face_late.push(took - delay);
            let s = std::time::Instant::now();
            tokio::time::sleep(delay).await;
            wheel_late.push(s.elapsed() - delay);
        }
        face_late.sort();
        wheel_late.sort();
        let (f, w) = (face_late[20], wheel_late[20]);
        println!("median lateness: emulated face {f:?}, tokio's sleep {w:?}");
        assert!(
            f + std::time::Duration::from_micros(500) < w,
            "median lateness: emulated face {f:?}, tokio's sleep {w:?}"
        );
        task.abort();
    }

    #[tokio::test(start_paused = true)]
    async fn loss_on_an_emulated_stream_face_drops_whole_packets() {
        let (face, mut r, task) = emulated_face(ndnlab_proto::emu::LinkParams {
            loss: 0.5,
            ..Default::default()
        });
        let pkts: Vec<Bytes> = (0..100).map(interest).collect();
        for p in &pkts {
            face.send_batch(out(p));
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        task.abort();
        let _ = task.await;
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).await.unwrap();
        // What arrived is a sequence of whole packets, in order, a subset of those sent.
        let mut buf = BytesMut::from(&bytes[..]);
        let mut rest = pkts.iter();
        let mut n = 0;
        while let Some(frame) = next_frame(&mut buf).unwrap() {
            assert!(rest.any(|p| *p == frame), "not a packet sent, in order");
            n += 1;
        }
        assert!(buf.is_empty());
        let lost = face.stats.emu_lost.load(Relaxed);
        assert_eq!(n + lost, 100);
        assert!(lost > 20 && lost < 80, "{lost} lost");
        assert_eq!(face.stats.out_interests.load(Relaxed), 100);
    }

    #[tokio::test]
    async fn write_segments_survives_partial_writes() {
        // A 100-byte pipe forces many short writev calls.
        let (mut w, mut r) = tokio::io::duplex(100);
        let segs: Vec<Bytes> = (0..40u8)
            .map(|i| Bytes::from(vec![i; 1 + (i as usize * 37) % 3000]))
            .collect();
        let expect: Vec<u8> = segs.iter().flat_map(|b| b.iter().copied()).collect();
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            r.read_to_end(&mut got).await.unwrap();
            got
        });
        let mut v = segs.clone();
        write_segments(&mut w, &mut v).await.unwrap();
        assert!(v.is_empty());
        drop(w);
        assert_eq!(reader.await.unwrap(), expect);
    }
}
