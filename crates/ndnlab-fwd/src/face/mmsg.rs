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
