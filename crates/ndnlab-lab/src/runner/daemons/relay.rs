//! A UDP relay that carries one link between two daemons on this host and
//! emulates its link layer ([`LinkEmulator`]) in the directions a daemon cannot
//! emulate itself (the ones an NFD end sends).
//!
//! The relay has one loopback socket facing each end. End A's face points at
//! the socket facing A; what arrives there goes through the A→B emulator (or
//! straight through) and leaves from the socket facing B toward B's listener,
//! and the other way round, so each end sees its neighbour at the relay's
//! address. One thread per direction; both stop when the relay is dropped.
//!
//! A direction waits for its next frame or its next arrival in `ppoll`, whose
//! timeout is in nanoseconds, with the thread's timer slack at its least (1 ns):
//! a frame leaves one wake-up after it is due, never before. (A socket's receive
//! timeout would count in kernel jiffies, 1 to 4 ms.)

use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndnlab_proto::emu::{LinkEmulator, LinkParams};

/// How long a direction waits for a frame when nothing is in flight (how soon
/// it sees the relay stop).
const IDLE: Duration = Duration::from_millis(50);

/// A running relay (see the module documentation).
pub(super) struct Relay {
    ports: (u16, u16),
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Relay {
    /// A relay between the ends listening at `a` and `b`. `a_to_b` emulates
    /// what A sends (`None`: carried as it comes), `b_to_a` what B sends; each
    /// direction draws from its own seeded generator.
    pub(super) fn start(
        a: SocketAddr,
        b: SocketAddr,
        a_to_b: Option<LinkParams>,
        b_to_a: Option<LinkParams>,
        seed: u64,
    ) -> std::io::Result<Relay> {
        let facing_a = UdpSocket::bind("127.0.0.1:0")?;
        let facing_b = UdpSocket::bind("127.0.0.1:0")?;
        let ports = (facing_a.local_addr()?.port(), facing_b.local_addr()?.port());
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for (from, to, dest, params, s) in [
            (
                facing_a.try_clone()?,
                facing_b.try_clone()?,
                b,
                a_to_b,
                seed,
            ),
            (facing_b, facing_a, a, b_to_a, seed ^ 0x9e37_79b9_7f4a_7c15),
        ] {
            let emu = params.map(|p| LinkEmulator::new(p, s));
            let stop = stop.clone();
            threads.push(
                std::thread::Builder::new()
                    .name("ndnlab-relay".into())
                    .spawn(move || carry(&from, &to, dest, emu, &stop))?,
            );
        }
        Ok(Relay {
            ports,
            stop,
            threads,
        })
    }

    /// The loopback ports facing A and facing B: where each end's face points.
    pub(super) fn ports(&self) -> (u16, u16) {
        self.ports
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// One direction: frames read on `from` leave from `to` toward `dest`, through
/// `emu` when there is one.
fn carry(
    from: &UdpSocket,
    to: &UdpSocket,
    dest: SocketAddr,
    mut emu: Option<LinkEmulator>,
    stop: &AtomicBool,
) {
    let t0 = Instant::now();
    let now = || t0.elapsed().as_nanos() as u64;
    let mut buf = vec![0u8; 65_536];
    let slack: libc::c_ulong = 1;
    // SAFETY: sets this thread's timer slack (ns); no pointer is passed.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack, 0, 0, 0) };
    while !stop.load(Ordering::Relaxed) {
        let wait = match emu.as_ref().and_then(LinkEmulator::next_arrival) {
            Some(at) => Duration::from_nanos(at.saturating_sub(now())).min(IDLE),
            None => IDLE,
        };
        let readable = match readable_within(from, wait) {
            Ok(r) => r,
            Err(_) => return,
        };
        // only this thread reads `from`: a readable socket has a datagram (or
        // an error, which the read clears) waiting
        if let Some(Ok((n, _))) = readable.then(|| from.recv_from(&mut buf)) {
            match emu.as_mut() {
                None => {
                    let _ = to.send_to(&buf[..n], dest);
                }
                // a frame the emulator drops (lost, over the MTU, queue
                // full) is counted by it and never arrives
                Some(e) => {
                    let _ = e.send(now(), Bytes::copy_from_slice(&buf[..n]));
                }
            }
        }
        if let Some(e) = emu.as_mut() {
            while let Some(frame) = e.poll(now()) {
                let _ = to.send_to(&frame, dest);
            }
        }
    }
}

/// Whether `socket` has a datagram (or an error) to read within `wait`
/// (`ppoll`: a nanosecond timeout; an interrupted wait counts as a timeout).
/// `Err`: the socket is no longer open.
fn readable_within(socket: &UdpSocket, wait: Duration) -> std::io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: socket.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = libc::timespec {
        tv_sec: wait.as_secs() as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `pfd` and `timeout` are valid for the call, which reads one pollfd
    // and writes its `revents`; no signal mask is passed.
    let rc = unsafe { libc::ppoll(&mut pfd, 1, &timeout, std::ptr::null()) };
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        return match e.kind() {
            std::io::ErrorKind::Interrupted => Ok(false),
            _ => Err(e),
        };
    }
    if pfd.revents & libc::POLLNVAL != 0 {
        return Err(std::io::Error::from_raw_os_error(libc::EBADF));
    }
    Ok(pfd.revents & (libc::POLLIN | libc::POLLERR) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recv(s: &UdpSocket) -> (Vec<u8>, SocketAddr, Instant) {
        let mut buf = [0u8; 2048];
        let (n, from) = s.recv_from(&mut buf).expect("a frame through the relay");
        (buf[..n].to_vec(), from, Instant::now())
    }

    #[test]
    fn carries_both_ways_and_delays_only_the_emulated_direction() {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        for s in [&a, &b] {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        }
        let delay = LinkParams {
            delay_ns: 30_000_000,
            ..Default::default()
        };
        let r = Relay::start(
            a.local_addr().unwrap(),
            b.local_addr().unwrap(),
            Some(delay),
            None,
            1,
        )
        .unwrap();
        let (pa, pb) = r.ports();
        // A -> B: delayed by the emulator, seen by B as coming from the relay
        let sent = Instant::now();
        a.send_to(b"to b", ("127.0.0.1", pa)).unwrap();
        let (got, from, at) = recv(&b);
        assert_eq!(got, b"to b");
        assert_eq!(from.port(), pb);
        assert!(at - sent >= Duration::from_millis(30), "{:?}", at - sent);
        // B -> A: carried as it comes
        b.send_to(b"to a", ("127.0.0.1", pb)).unwrap();
        let (got, from, _) = recv(&a);
        assert_eq!(got, b"to a");
        assert_eq!(from.port(), pa);
    }
}
