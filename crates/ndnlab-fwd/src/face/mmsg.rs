//! `sendmmsg(2)`: many datagrams to one peer in one system call (Linux).

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

/// Receive buffers for [`recv_batch`].
pub struct RecvBufs {
    bufs: Vec<Vec<u8>>,
}

impl RecvBufs {
    /// `count` buffers of `size` bytes.
    pub fn new(count: usize, size: usize) -> Self {
        RecvBufs {
            bufs: (0..count.min(BATCH)).map(|_| vec![0u8; size]).collect(),
        }
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
    for (((iov, msg), addr), buf) in iovs
        .iter_mut()
        .zip(msgs.iter_mut())
        .zip(addrs.iter_mut())
        .zip(bufs.bufs.iter_mut())
    {
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
            out.push((msg.msg_len as usize, from));
        }
    }
    Ok(r as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut bufs = RecvBufs::new(16, 2048);
        let mut out = Vec::new();
        assert_eq!(recv_batch(&b, &mut bufs, &mut out).unwrap(), 10);
        for (i, (len, from)) in out.iter().enumerate() {
            assert_eq!(*len, 100 + i);
            assert_eq!(*from, a.local_addr().unwrap());
            assert!(bufs.get(i, *len).iter().all(|x| *x == i as u8));
        }
        assert_eq!(
            recv_batch(&b, &mut bufs, &mut out).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
    }
}
