//! # ndnlab-udp: many datagrams per system call (Linux)
//!
//! `sendmmsg(2)`/`recvmmsg(2)`, UDP GSO on send and GRO on receive, over any
//! non-blocking socket. The forwarder's UDP faces and the client library's load
//! paths both move packets through here, so a burst of NDN packets costs one
//! system call in either direction.

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;

use bytes::Bytes;

/// Most datagrams per call.
pub const BATCH: usize = 64;

/// Sends `dgrams` to `to` on the non-blocking socket `fd`; returns how many were sent
/// (fewer when the socket buffer is full: `WouldBlock` only if none was sent).
pub fn send_batch(fd: &impl AsRawFd, to: SocketAddr, dgrams: &[Bytes]) -> io::Result<usize> {
    let n = dgrams.len().min(BATCH);
    if n == 0 {
        return Ok(0);
    }
    let addr = socket2::SockAddr::from(to);
    let mut iovs: [libc::iovec; BATCH] = [libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; BATCH];
    // SAFETY: mmsghdr is plain data; all-zero is a valid value.
    let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
    for ((iov, msg), d) in iovs.iter_mut().zip(msgs.iter_mut()).zip(dgrams).take(n) {
        *iov = libc::iovec {
            iov_base: d.as_ptr() as *mut libc::c_void,
            iov_len: d.len(),
        };
        msg.msg_hdr.msg_name = addr.as_ptr() as *mut libc::c_void;
        msg.msg_hdr.msg_namelen = addr.len();
        msg.msg_hdr.msg_iov = iov as *mut libc::iovec;
        msg.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: every pointer refers to memory (datagrams, iovecs, address) that lives
    // until the call returns; the kernel only reads the datagrams.
    let r = unsafe { libc::sendmmsg(fd.as_raw_fd(), msgs.as_mut_ptr(), n as libc::c_uint, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as usize)
}

/// Most segments in one GSO send (the kernel's UDP_MAX_SEGMENTS is 64 or more).
pub const GSO_MAX_SEGMENTS: usize = 64;
/// Most bytes in one GSO send (an IP datagram's limit, with room for headers).
pub const GSO_MAX_BYTES: usize = 60_000;

/// How many of `segs` (starting at the first) one [`send_gso`] call can carry: all
/// but the last of the run must be `seg_len` long, the last at most that.
pub fn gso_run(segs: &[Bytes]) -> usize {
    let Some(first) = segs.first() else {
        return 0;
    };
    let seg_len = first.len();
    let cap = GSO_MAX_SEGMENTS.min(GSO_MAX_BYTES / seg_len.max(1)).max(1);
    let mut n = 0;
    for s in segs.iter().take(cap) {
        if s.len() > seg_len {
            break;
        }
        n += 1;
        if s.len() < seg_len {
            break; // a shorter segment can only be the last
        }
    }
    n
}

/// Smallest run of equal-length datagrams sent by GSO instead of `sendmmsg`.
pub const GSO_MIN_RUN: usize = 4;

/// Whether `d[i..i + GSO_MIN_RUN]` exist and have one length.
fn run_starts(d: &[Bytes], i: usize) -> bool {
    d.get(i..i + GSO_MIN_RUN)
        .is_some_and(|w| w.iter().all(|x| x.len() == w[0].len()))
}

/// Sends a prefix of `dgrams` to `to` with one system call, without blocking:
/// a run of at least [`GSO_MIN_RUN`] equal-length datagrams (the fragments of a
/// large packet, or a burst of same-size Interests or Data) goes by UDP GSO while
/// `gso` is set, anything else by `sendmmsg` up to where such a run starts. Returns
/// how many datagrams were sent; `WouldBlock` when the socket buffer is full. If
/// the kernel refuses GSO, `gso` is cleared and the call falls back to `sendmmsg`.
pub fn send_some(
    fd: &impl AsRawFd,
    to: SocketAddr,
    dgrams: &[Bytes],
    gso: &std::sync::atomic::AtomicBool,
) -> io::Result<usize> {
    use std::sync::atomic::Ordering::Relaxed;
    if gso.load(Relaxed) && run_starts(dgrams, 0) {
        let k = gso_run(dgrams);
        match send_gso(fd, to, &dgrams[..k]) {
            Ok(_) => return Ok(k),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EIO | libc::EINVAL | libc::ENOPROTOOPT | libc::EOPNOTSUPP)
                ) =>
            {
                // This path cannot segment: sendmmsg from now on.
                tracing::debug!(error = %e, "UDP GSO unavailable; using sendmmsg");
                gso.store(false, Relaxed);
            }
            Err(e) => return Err(e),
        }
    }
    let mut end = dgrams.len().min(BATCH);
    if gso.load(Relaxed) {
        if let Some(j) = (1..end).find(|&j| run_starts(dgrams, j)) {
            end = j;
        }
    }
    send_batch(fd, to, &dgrams[..end])
}

/// UDP generic segmentation offload (`UDP_SEGMENT`, Linux 4.18+): sends `segs` (as
/// returned by [`gso_run`]: equal lengths, the last possibly shorter) in one
/// `sendmsg` that the kernel cuts into `segs.len()` datagrams to `to`. Returns the
/// bytes sent; `WouldBlock` when the socket buffer is full. Errors such as `EIO` or
/// `EINVAL` mean the path cannot segment: fall back to [`send_batch`].
pub fn send_gso(fd: &impl AsRawFd, to: SocketAddr, segs: &[Bytes]) -> io::Result<usize> {
    let n = segs.len().min(GSO_MAX_SEGMENTS);
    if n == 0 {
        return Ok(0);
    }
    let seg_len = segs[0].len() as u16;
    let addr = socket2::SockAddr::from(to);
    let mut iovs: [libc::iovec; GSO_MAX_SEGMENTS] = [libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; GSO_MAX_SEGMENTS];
    for (iov, d) in iovs.iter_mut().zip(segs).take(n) {
        *iov = libc::iovec {
            iov_base: d.as_ptr() as *mut libc::c_void,
            iov_len: d.len(),
        };
    }
    // Room for one cmsghdr carrying a u16, 8-byte aligned.
    let mut control = [0u64; 4];
    // SAFETY: msghdr is plain data; all-zero is a valid value.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_name = addr.as_ptr() as *mut libc::c_void;
    msg.msg_namelen = addr.len();
    msg.msg_iov = iovs.as_mut_ptr();
    msg.msg_iovlen = n as _;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    // SAFETY: CMSG_SPACE is a pure size computation.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(std::mem::size_of::<u16>() as u32) } as _;
    // SAFETY: msg_control points to `control`, which is large and aligned enough for
    // one cmsghdr with a u16 payload (checked by CMSG_SPACE above, 32 bytes here).
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_UDP;
        (*cmsg).cmsg_type = libc::UDP_SEGMENT;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<u16>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg) as *mut u16, seg_len);
    }
    // SAFETY: every pointer in `msg` refers to live memory for the call; the kernel
    // only reads the datagrams, the address and the control message.
    let r = unsafe { libc::sendmsg(fd.as_raw_fd(), &msg, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as usize)
}

/// The UDP_GRO segment size in a received message's control data (0: none).
fn gro_segment(hdr: &libc::msghdr) -> usize {
    let mut seg = 0;
    // SAFETY: `hdr` was filled by recvmmsg: msg_control/msg_controllen describe the
    // control messages the kernel wrote into our buffer; CMSG_* walk them in bounds.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(hdr);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == libc::UDP_GRO {
                seg = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::c_int) as usize;
            }
            c = libc::CMSG_NXTHDR(hdr, c);
        }
    }
    seg
}

/// Asks the kernel to coalesce bursts of datagrams from one sender into one
/// received message (UDP_GRO, Linux 5.0+); [`RecvBufs::datagrams`] splits them.
/// Returns false when the kernel does not support it (nothing changes then). The
/// socket's receive buffers must then hold 64 KiB each (a coalesced message can be
/// that long; a shorter buffer would truncate it).
pub fn enable_gro(fd: &impl AsRawFd) -> bool {
    let on: libc::c_int = 1;
    // SAFETY: a valid socket option value of the size given.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_UDP,
            libc::UDP_GRO,
            &on as *const libc::c_int as *const libc::c_void,
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    r == 0
}

/// Waits up to `timeout` until `fd` is ready for `events` (`libc::POLLIN`,
/// `libc::POLLOUT`): for blocking loops around the non-blocking calls here.
pub fn wait(
    fd: &impl AsRawFd,
    events: libc::c_short,
    timeout: std::time::Duration,
) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd, count 1.
    let r = unsafe { libc::poll(&mut p, 1, ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(false)
        } else {
            Err(e)
        };
    }
    Ok(r > 0)
}

/// Receive buffers for [`recv_batch`].
pub struct RecvBufs {
    bufs: Vec<Vec<u8>>,
    /// Per received message: the GRO segment size when the kernel coalesced
    /// several datagrams into it (0: one datagram).
    segs: Vec<usize>,
}

impl RecvBufs {
    /// `count` buffers of `size` bytes.
    pub fn new(count: usize, size: usize) -> Self {
        RecvBufs {
            bufs: (0..count.min(BATCH)).map(|_| vec![0u8; size]).collect(),
            segs: vec![0; count.min(BATCH)],
        }
    }

    /// The datagrams in the i-th received message of `len` bytes: one, or several
    /// of the GRO segment size (the last possibly shorter) when the socket has
    /// [`enable_gro`] and the kernel coalesced a burst from one sender.
    pub fn datagrams(&self, i: usize, len: usize) -> std::slice::Chunks<'_, u8> {
        let seg = match self.segs[i] {
            0 => len.max(1),
            s => s,
        };
        self.bufs[i][..len].chunks(seg)
    }

    /// The i-th received datagram (valid after `recv_batch`).
    pub fn get(&self, i: usize, len: usize) -> &[u8] {
        &self.bufs[i][..len]
    }
}

/// `recvmmsg(2)`: receives up to `bufs.len()` datagrams from the non-blocking socket
/// `fd` in one call; fills `out` with (length, source) per datagram.
pub fn recv_batch(
    fd: &impl AsRawFd,
    bufs: &mut RecvBufs,
    out: &mut Vec<(usize, SocketAddr)>,
) -> io::Result<usize> {
    out.clear();
    let n = bufs.bufs.len();
    let mut iovs: [libc::iovec; BATCH] = [libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; BATCH];
    // SAFETY: plain data; all-zero is valid.
    let mut addrs: [libc::sockaddr_storage; BATCH] = unsafe { std::mem::zeroed() };
    // SAFETY: plain data; all-zero is valid.
    let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
    // One control buffer per message, for the UDP_GRO segment size (8-byte aligned).
    let mut controls = [[0u64; 4]; BATCH];
    for ((((iov, msg), addr), buf), control) in iovs
        .iter_mut()
        .zip(msgs.iter_mut())
        .zip(addrs.iter_mut())
        .zip(bufs.bufs.iter_mut())
        .zip(controls.iter_mut())
    {
        msg.msg_hdr.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_hdr.msg_controllen = std::mem::size_of_val(control) as _;
        *iov = libc::iovec {
            iov_base: buf.as_mut_ptr() as *mut libc::c_void,
            iov_len: buf.len(),
        };
        msg.msg_hdr.msg_name = addr as *mut libc::sockaddr_storage as *mut libc::c_void;
        msg.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msg.msg_hdr.msg_iov = iov as *mut libc::iovec;
        msg.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: buffers, iovecs and address storage outlive the call; the kernel writes
    // at most iov_len bytes into each buffer and msg_namelen bytes into each address.
    let r = unsafe {
        libc::recvmmsg(
            fd.as_raw_fd(),
            msgs.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    for (msg, addr) in msgs.iter().zip(addrs.iter()).take(r as usize) {
        // SAFETY: the kernel filled `addr` with `msg_namelen` bytes of a socket address.
        let sa = unsafe { socket2::SockAddr::new(*addr, msg.msg_hdr.msg_namelen) };
        if let Some(from) = sa.as_socket() {
            bufs.segs[out.len()] = gro_segment(&msg.msg_hdr);
            out.push((msg.msg_len as usize, from));
        }
    }
    Ok(r as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `recv_batch` on the non-blocking `b` until `want` datagrams came (or
    /// five seconds passed); returns how many messages that took and each datagram
    /// with its source, in order. Loopback delivery is quick but not instant.
    fn recv_datagrams(
        b: &std::net::UdpSocket,
        bufs: &mut RecvBufs,
        want: usize,
    ) -> (usize, Vec<(Vec<u8>, SocketAddr)>) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let (mut msgs, mut got) = (0, Vec::new());
        let mut out = Vec::new();
        while got.len() < want {
            match recv_batch(b, bufs, &mut out) {
                Ok(n) => {
                    msgs += n;
                    for (i, (len, from)) in out.iter().enumerate() {
                        got.extend(bufs.datagrams(i, *len).map(|d| (d.to_vec(), *from)));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "{} of {want} datagrams arrived",
                        got.len()
                    );
                    std::thread::yield_now();
                }
                Err(e) => panic!("recv_batch: {e}"),
            }
        }
        (msgs, got)
    }

    #[test]
    fn sendmmsg_and_recvmmsg_round_trip() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        b.set_nonblocking(true).unwrap();
        let dgrams: Vec<Bytes> = (0..10u8)
            .map(|i| Bytes::from(vec![i; 100 + i as usize]))
            .collect();
        assert_eq!(
            send_batch(&a, b.local_addr().unwrap(), &dgrams).unwrap(),
            10
        );
        let mut bufs = RecvBufs::new(16, 2048);
        let (msgs, got) = recv_datagrams(&b, &mut bufs, 10);
        assert_eq!((msgs, got.len()), (10, 10));
        for (i, (d, from)) in got.iter().enumerate() {
            assert_eq!(d.len(), 100 + i);
            assert_eq!(*from, a.local_addr().unwrap());
            assert!(d.iter().all(|x| *x == i as u8));
        }
        let mut out = Vec::new();
        assert_eq!(
            recv_batch(&b, &mut bufs, &mut out).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
    }

    #[test]
    fn gso_run_takes_equal_segments_and_a_shorter_last() {
        let b = |n| Bytes::from(vec![0u8; n]);
        assert_eq!(gso_run(&[b(100), b(100), b(100), b(40), b(100)]), 4);
        assert_eq!(gso_run(&[b(100), b(120)]), 1);
        assert_eq!(gso_run(&[]), 0);
        let many: Vec<Bytes> = (0..100).map(|_| b(1400)).collect();
        assert_eq!(gso_run(&many), GSO_MAX_BYTES / 1400);
    }

    #[test]
    fn send_some_mixes_gso_runs_and_sendmmsg_in_order() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        b.set_nonblocking(true).unwrap();
        let lens = [500, 90, 90, 90, 90, 90, 30, 700, 64, 64, 64, 64, 10, 200];
        let dgrams: Vec<Bytes> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| Bytes::from(vec![i as u8; n]))
            .collect();
        let gso = std::sync::atomic::AtomicBool::new(true);
        let to = b.local_addr().unwrap();
        let mut off = 0;
        let mut calls = 0;
        while off < dgrams.len() {
            off += send_some(&a, to, &dgrams[off..], &gso).unwrap();
            calls += 1;
        }
        // 500 | 90x5 + 30 | 700 | 64x4 + 10 | 200: sendmmsg, GSO, sendmmsg, GSO, sendmmsg.
        assert_eq!(calls, 5);
        let mut bufs = RecvBufs::new(64, 65536);
        let (_, got) = recv_datagrams(&b, &mut bufs, lens.len());
        assert_eq!(got.len(), lens.len());
        for (i, (d, _)) in got.iter().enumerate() {
            assert_eq!(d.len(), lens[i]);
            assert!(d.iter().all(|x| *x == i as u8));
        }
    }

    #[test]
    fn gso_send_arrives_as_separate_datagrams() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        b.set_nonblocking(true).unwrap();
        let segs: Vec<Bytes> = (0..5u8)
            .map(|i| Bytes::from(vec![i; if i == 4 { 300 } else { 1000 }]))
            .collect();
        assert_eq!(gso_run(&segs), 5);
        assert!(enable_gro(&b), "UDP_GRO on this kernel");
        match send_gso(&a, b.local_addr().unwrap(), &segs) {
            Ok(n) => assert_eq!(n, 4300),
            // A kernel without UDP GSO: the writer falls back to sendmmsg.
            Err(e) => {
                ndnlab_testkit::skip(format!("UDP GSO unavailable here: {e}"));
                return;
            }
        }
        let mut bufs = RecvBufs::new(16, 65536);
        // With GRO the five come as one message of 4300 bytes (segment 1000).
        let (msgs, dgrams) = recv_datagrams(&b, &mut bufs, 5);
        assert_eq!(msgs, 1, "GSO burst coalesced by GRO");
        assert_eq!(dgrams.len(), 5);
        for (i, (d, _)) in dgrams.iter().enumerate() {
            assert_eq!(d.len(), if i == 4 { 300 } else { 1000 });
            assert!(d.iter().all(|x| *x == i as u8));
        }
    }
}
