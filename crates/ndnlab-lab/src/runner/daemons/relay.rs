//! A UDP relay that carries one link between two daemons on this host and
//! emulates its link layer ([`LinkEmulator`]) in the directions a daemon cannot
//! emulate itself (the ones an NFD end sends).
//!
//! The relay has one loopback socket facing each end. End A's face points at
//! the socket facing A; what arrives there goes through the A→B emulator (or
//! straight through) and leaves from the socket facing B toward B's listener,
//! and the other way round, so each end sees its neighbour at the relay's
//! address. One thread per direction; both stop when the relay is dropped.

use std::net::{SocketAddr, UdpSocket};
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
    while !stop.load(Ordering::Relaxed) {
        let wait = match emu.as_ref().and_then(LinkEmulator::next_arrival) {
            Some(at) => {
                Duration::from_nanos(at.saturating_sub(now())).clamp(Duration::from_micros(1), IDLE)
            }
            None => IDLE,
        };
        if from.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        if let Ok((n, _)) = from.recv_from(&mut buf) {
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
