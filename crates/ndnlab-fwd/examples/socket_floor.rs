//! The kernel's floor under a forwarder's Unix-socket faces on this machine: what
//! a write and the read that takes it cost, by packet size and packets per call,
//! with no forwarding work at all.
//!
//! Rows (each on a fresh `socketpair`, CPU time of the measuring thread, median of
//! `--rounds` rounds):
//! * `stream`: one thread writes `batch` packets of `size` bytes with one `write`
//!   (or `writev` of `batch` segments, as the face writers hand the kernel large
//!   packets) on a `SOCK_STREAM` pair and reads them back with one `read` of up to
//!   256 KiB, as the face readers do: the system-call and copy cost without a
//!   wake-up.
//! * `dgram`: UDP on 127.0.0.1 with `sendmmsg` / `recvmmsg` of `batch` datagrams
//!   (`batch` = 1: `sendmsg` / `recvmsg`), as the UDP faces move them (no GSO).
//! * `pingpong`: two threads on a stream pair, each reading `batch` packets and
//!   writing them back, so every call blocks and is woken: adds the wake-up and
//!   the context switch that a pipeline of processes pays per burst (wall ns per
//!   round trip; both threads' CPU).
//!
//! ```text
//! cargo run --release -p ndnlab-fwd --example socket_floor [-- --rounds 5]
//! ```

use std::os::fd::RawFd;
use std::time::Instant;

fn pair(kind: libc::c_int) -> (RawFd, RawFd) {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into the array we own.
    let rc = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) };
    assert_eq!(rc, 0, "socketpair: {}", std::io::Error::last_os_error());
    for fd in fds {
        let big: libc::c_int = 4 << 20;
        for opt in [libc::SO_SNDBUF, libc::SO_RCVBUF] {
            // SAFETY: setsockopt reads one int from the pointer.
            unsafe {
                libc::setsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    opt,
                    &big as *const _ as *const libc::c_void,
                    std::mem::size_of::<libc::c_int>() as u32,
                )
            };
        }
    }
    (fds[0], fds[1])
}

fn close(fd: RawFd) {
    // SAFETY: closes a descriptor this program opened.
    unsafe { libc::close(fd) };
}

fn thread_ns() -> u64 {
    ndnlab_cputime::thread_time().as_nanos() as u64
}

fn process_ns() -> u64 {
    ndnlab_cputime::process_time().as_nanos() as u64
}

fn write_all(fd: RawFd, iov: &[libc::iovec], total: usize) {
    // SAFETY: the iovecs point at live buffers of this program.
    let n = unsafe { libc::writev(fd, iov.as_ptr(), iov.len() as libc::c_int) };
    assert_eq!(n as usize, total, "short writev");
}

fn read_exact(fd: RawFd, buf: &mut [u8], total: usize) {
    let mut got = 0;
    while got < total {
        let want = buf.len().min(total - got);
        // SAFETY: reads into a buffer we own, at most its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, want) };
        assert!(n > 0, "read: {}", std::io::Error::last_os_error());
        got += n as usize;
    }
}

/// CPU ns per write + read pair and per packet on a stream pair, one thread.
fn stream(size: usize, batch: usize, segments: bool, iters: usize) -> (f64, f64) {
    let (a, b) = pair(libc::SOCK_STREAM);
    let pkts: Vec<Vec<u8>> = (0..batch).map(|i| vec![i as u8; size]).collect();
    let one: Vec<u8> = pkts.concat();
    let iov: Vec<libc::iovec> = if segments {
        pkts.iter()
            .map(|p| libc::iovec {
                iov_base: p.as_ptr() as *mut libc::c_void,
                iov_len: p.len(),
            })
            .collect()
    } else {
        vec![libc::iovec {
            iov_base: one.as_ptr() as *mut libc::c_void,
            iov_len: one.len(),
        }]
    };
    let total = size * batch;
    let mut rbuf = vec![0u8; 256 * 1024];
    for _ in 0..iters / 10 + 1 {
        write_all(a, &iov, total);
        read_exact(b, &mut rbuf, total);
    }
    let t0 = thread_ns();
    for _ in 0..iters {
        write_all(a, &iov, total);
        read_exact(b, &mut rbuf, total);
    }
    let ns = (thread_ns() - t0) as f64 / iters as f64;
    close(a);
    close(b);
    (ns, ns / batch as f64)
}

/// Two UDP sockets on 127.0.0.1 connected to each other, with 4 MiB buffers
/// (`SO_*BUFFORCE` as root, else what `*mem_max` allows).
fn udp_pair() -> (RawFd, RawFd) {
    use std::os::fd::IntoRawFd;
    let a = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    let b = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    a.connect(b.local_addr().unwrap()).expect("connect");
    b.connect(a.local_addr().unwrap()).expect("connect");
    let (a, b) = (a.into_raw_fd(), b.into_raw_fd());
    for fd in [a, b] {
        let big: libc::c_int = 4 << 20;
        for opt in [
            libc::SO_SNDBUFFORCE,
            libc::SO_RCVBUFFORCE,
            libc::SO_SNDBUF,
            libc::SO_RCVBUF,
        ] {
            // SAFETY: setsockopt reads one int from the pointer.
            unsafe {
                libc::setsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    opt,
                    &big as *const _ as *const libc::c_void,
                    std::mem::size_of::<libc::c_int>() as u32,
                )
            };
        }
    }
    (a, b)
}

/// CPU ns per sendmmsg + recvmmsg pair and per datagram over UDP on loopback,
/// one thread (`batch` = 1: `sendmsg` + `recvmsg`).
fn dgram(size: usize, batch: usize, iters: usize) -> (f64, f64) {
    let (a, b) = udp_pair();
    let mut pkts: Vec<Vec<u8>> = (0..batch).map(|i| vec![i as u8; size]).collect();
    let mut rbufs: Vec<Vec<u8>> = (0..batch).map(|_| vec![0u8; size.max(9000)]).collect();
    let mut siov: Vec<libc::iovec> = pkts
        .iter_mut()
        .map(|p| libc::iovec {
            iov_base: p.as_mut_ptr() as *mut libc::c_void,
            iov_len: p.len(),
        })
        .collect();
    let mut riov: Vec<libc::iovec> = rbufs
        .iter_mut()
        .map(|p| libc::iovec {
            iov_base: p.as_mut_ptr() as *mut libc::c_void,
            iov_len: p.len(),
        })
        .collect();
    let mk = |iov: &mut [libc::iovec]| -> Vec<libc::mmsghdr> {
        iov.iter_mut()
            .map(|v| {
                // SAFETY: an all-zero msghdr is valid (no name, no control).
                let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
                h.msg_hdr.msg_iov = v as *mut libc::iovec;
                h.msg_hdr.msg_iovlen = 1;
                h
            })
            .collect()
    };
    let mut smsg = mk(&mut siov);
    let mut rmsg = mk(&mut riov);
    let mut once = || {
        if batch == 1 {
            // SAFETY: the headers point at live iovecs and buffers.
            let n = unsafe { libc::sendmsg(a, &smsg[0].msg_hdr, 0) };
            assert_eq!(n as usize, size);
            // SAFETY: as above.
            let n = unsafe { libc::recvmsg(b, &mut rmsg[0].msg_hdr, 0) };
            assert_eq!(n as usize, size);
        } else {
            // SAFETY: as above.
            let n = unsafe { libc::sendmmsg(a, smsg.as_mut_ptr(), batch as u32, 0) };
            assert_eq!(n as usize, batch, "sendmmsg");
            let mut got = 0;
            while got < batch {
                // SAFETY: as above.
                let n = unsafe {
                    libc::recvmmsg(
                        b,
                        rmsg[got..].as_mut_ptr(),
                        (batch - got) as u32,
                        0,
                        std::ptr::null_mut(),
                    )
                };
                assert!(n > 0, "recvmmsg");
                got += n as usize;
            }
        }
    };
    for _ in 0..iters / 10 + 1 {
        once();
    }
    let t0 = thread_ns();
    for _ in 0..iters {
        once();
    }
    let ns = (thread_ns() - t0) as f64 / iters as f64;
    close(a);
    close(b);
    (ns, ns / batch as f64)
}

/// Wall ns per round trip of `batch` packets between two threads, and the
/// process's CPU ns per round trip.
fn pingpong(size: usize, batch: usize, iters: usize) -> (f64, f64) {
    let (a, b) = pair(libc::SOCK_STREAM);
    let total = size * batch;
    let echo = std::thread::spawn(move || {
        let mut buf = vec![0u8; total];
        let iov = [libc::iovec {
            iov_base: buf.as_mut_ptr() as *mut libc::c_void,
            iov_len: total,
        }];
        loop {
            let mut got = 0;
            while got < total {
                // SAFETY: reads into `buf`, at most its remaining length.
                let n = unsafe {
                    libc::read(b, buf[got..].as_mut_ptr() as *mut libc::c_void, total - got)
                };
                if n <= 0 {
                    return;
                }
                got += n as usize;
            }
            write_all(b, &iov, total);
        }
    });
    let out = vec![7u8; total];
    let iov = [libc::iovec {
        iov_base: out.as_ptr() as *mut libc::c_void,
        iov_len: total,
    }];
    let mut rbuf = vec![0u8; total.max(1)];
    for _ in 0..iters / 10 + 1 {
        write_all(a, &iov, total);
        read_exact(a, &mut rbuf, total);
    }
    let (c0, t0) = (process_ns(), Instant::now());
    for _ in 0..iters {
        write_all(a, &iov, total);
        read_exact(a, &mut rbuf, total);
    }
    let wall = t0.elapsed().as_nanos() as f64 / iters as f64;
    let cpu = (process_ns() - c0) as f64 / iters as f64;
    close(a);
    let _ = echo.join();
    close(b);
    (wall, cpu)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut rounds = 5;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args[i + 1].parse().expect("--rounds N");
    }
    println!("row\tsize_B\tbatch\tns_per_call_pair\tns_per_packet");
    for (size, batches) in [
        (100usize, &[1usize, 16, 128, 1024][..]),
        (8192, &[1, 8, 16, 30]),
    ] {
        for &batch in batches {
            for segments in [false, true] {
                if segments && batch == 1 {
                    continue;
                }
                let iters = (4_000_000 / (size * batch).max(1000)).clamp(200, 200_000);
                let r: Vec<(f64, f64)> = (0..rounds)
                    .map(|_| stream(size, batch, segments, iters))
                    .collect();
                let name = if segments { "stream_writev" } else { "stream" };
                println!(
                    "{name}\t{size}\t{batch}\t{:.0}\t{:.1}",
                    median(r.iter().map(|x| x.0).collect()),
                    median(r.iter().map(|x| x.1).collect())
                );
            }
        }
        for &batch in batches.iter().filter(|&&b| b <= 128) {
            let iters = (4_000_000 / (size * batch).max(1000)).clamp(200, 200_000);
            let r: Vec<(f64, f64)> = (0..rounds).map(|_| dgram(size, batch, iters)).collect();
            println!(
                "dgram\t{size}\t{batch}\t{:.0}\t{:.1}",
                median(r.iter().map(|x| x.0).collect()),
                median(r.iter().map(|x| x.1).collect())
            );
        }
    }
    println!("row\tsize_B\tbatch\twall_ns_per_round_trip\tcpu_ns_per_round_trip");
    for (size, batch) in [
        (100usize, 1usize),
        (100, 128),
        (100, 1024),
        (8192, 1),
        (8192, 16),
    ] {
        let iters = (2_000_000 / (size * batch).max(1000)).clamp(500, 50_000);
        let r: Vec<(f64, f64)> = (0..rounds).map(|_| pingpong(size, batch, iters)).collect();
        println!(
            "pingpong\t{size}\t{batch}\t{:.0}\t{:.0}",
            median(r.iter().map(|x| x.0).collect()),
            median(r.iter().map(|x| x.1).collect())
        );
    }
}
