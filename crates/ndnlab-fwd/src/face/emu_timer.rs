//! The timer of an emulated link in real time: waits until the next frame is due
//! with the precision of a kernel wake-up, not of tokio's millisecond wheel.
//!
//! tokio's timer counts whole milliseconds. A sleep's deadline becomes the next
//! millisecond tick (rounded up), and the driver then parks for whole ticks
//! counted from the current tick (rounded down), so a sleep that starts at a
//! fraction `f` of a millisecond and lasts `d` ends at `ceil(start + d) + f`:
//! about 1 ms after its deadline whatever `f` is, plus the wake-up. On an
//! emulated 10 ms link every frame would take about 11.1 ms.
//!
//! [`LinkTimer`] arms a Linux `timerfd` (`CLOCK_MONOTONIC`, the clock of
//! `std::time::Instant`; nanosecond expiry, no timer slack) registered with
//! tokio's reactor, so the worker blocked in `epoll_wait` wakes when the deadline
//! passes: a frame leaves one wake-up (tens of microseconds) after it is due.
//! Nothing spins and an idle link costs nothing. A tokio sleep for the same
//! deadline is armed too and whichever ends first wins: in real time that is the
//! timerfd; under tokio's paused clock (tests), which the kernel's timer does not
//! follow, it is the sleep, so paused-time tests still see the emulated delays
//! (at tokio's millisecond resolution). Where no timerfd can be created, the
//! tokio sleep alone remains.
//!
//! The descriptor is created on the first wait, so a link that never delays a
//! frame holds none.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// See the module documentation. One per task that waits (a face's writer,
/// an in-memory link's bridge).
#[derive(Debug, Default)]
pub struct LinkTimer {
    fd: Option<AsyncFd<OwnedFd>>,
    /// The timerfd could not be made: tokio's timer alone.
    coarse: bool,
}

impl LinkTimer {
    /// Waits `d` from now. Cancel-safe: dropping the future leaves the timer
    /// armed, and the next wait re-arms it.
    pub async fn sleep(&mut self, d: Duration) {
        if d.is_zero() {
            return;
        }
        let coarse = tokio::time::sleep(d);
        match self.armed(d) {
            Some(fd) => {
                tokio::select! {
                    biased;
                    _ = expired(fd) => {}
                    _ = coarse => {}
                }
            }
            None => coarse.await,
        }
    }

    /// The timerfd, armed to expire `d` from now (`None`: tokio's timer alone).
    fn armed(&mut self, d: Duration) -> Option<&AsyncFd<OwnedFd>> {
        if self.fd.is_none() && !self.coarse {
            match timerfd() {
                Ok(fd) => self.fd = Some(fd),
                Err(e) => {
                    tracing::warn!("no timerfd ({e}): emulated delays at tokio's 1 ms resolution");
                    self.coarse = true;
                }
            }
        }
        let fd = self.fd.as_ref()?;
        let value = libc::timespec {
            tv_sec: d.as_secs() as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        };
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: value,
        };
        // SAFETY: the descriptor is an open timerfd owned by `fd`; `spec` is valid
        // for the call and the old value is not asked for.
        let rc = unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        (rc == 0).then_some(fd)
    }
}

/// A non-blocking `CLOCK_MONOTONIC` timerfd on tokio's reactor.
fn timerfd() -> std::io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: plain system call; a non-negative result is a new descriptor we own.
    let raw = unsafe {
        libc::timerfd_create(
            libc::CLOCK_MONOTONIC,
            libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `raw` was just created and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: the AsyncFd owns (and closes) the open descriptor from here on;
    // nothing else refers to it.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(|e| e.into_parts().1)
}

/// Resolves when the armed timerfd has expired (reading its count).
async fn expired(fd: &AsyncFd<OwnedFd>) {
    loop {
        let Ok(mut ready) = fd.readable().await else {
            // the reactor is gone: leave the wait to tokio's timer
            return std::future::pending().await;
        };
        let mut count = 0u64;
        // SAFETY: reads 8 bytes into `count`, valid for the call.
        let n = unsafe {
            libc::read(
                fd.as_raw_fd(),
                (&mut count as *mut u64).cast::<libc::c_void>(),
                8,
            )
        };
        if n == 8 {
            return;
        }
        // not expired yet (a stale readiness, or a re-armed timer)
        ready.clear_ready();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[tokio::test(start_paused = true)]
    async fn paused_time_still_ends_the_wait() {
        let mut t = LinkTimer::default();
        let t0 = tokio::time::Instant::now();
        t.sleep(Duration::from_millis(50)).await;
        // tokio's paused clock moved on by the sleep armed alongside, to its
        // next millisecond tick
        let waited = t0.elapsed();
        assert!((50..=51).contains(&waited.as_millis()), "{waited:?}");
        t.sleep(Duration::ZERO).await;
        assert_eq!(t0.elapsed(), waited);
    }

    #[tokio::test]
    async fn a_wait_never_ends_early_and_survives_cancelling() {
        let mut t = LinkTimer::default();
        // cancelled while armed, then left to expire unread: the next wait must
        // not end on that stale expiry
        let cancelled =
            tokio::time::timeout(Duration::from_millis(1), t.sleep(Duration::from_millis(10)))
                .await;
        assert!(cancelled.is_err());
        std::thread::sleep(Duration::from_millis(12));
        for i in 0..20u64 {
            let d = Duration::from_micros(2_000 + 137 * i);
            let s = Instant::now();
            t.sleep(d).await;
            assert!(s.elapsed() >= d, "ended {:?} before {d:?}", s.elapsed());
        }
        assert!(t.fd.is_some() || t.coarse);
    }

    #[tokio::test]
    async fn waits_end_a_wake_up_after_the_deadline_not_a_tick() {
        // tokio's sleep ends at ceil(start + d) + frac(start) (module docs): for
        // a whole number of milliseconds `d`, 1 ms late plus a wake-up, at any
        // phase (when its thread parks as it starts, as here). The link timer
        // ends one wake-up after the deadline. Both are measured in turns, on the
        // same thread under the same load, so a slow wake-up delays both alike;
        // what is asserted is the millisecond between their medians, with half
        // of it as the margin for the spread of wake-ups.
        let mut t = LinkTimer::default();
        let d = Duration::from_millis(3);
        let (mut ours, mut wheel) = (Vec::new(), Vec::new());
        for i in 0..60u64 {
            // each pair starts at another phase of the millisecond tick
            std::thread::sleep(Duration::from_micros(37 * i % 1000));
            let s = Instant::now();
            t.sleep(d).await;
            ours.push(s.elapsed() - d);
            let s = Instant::now();
            tokio::time::sleep(d).await;
            wheel.push(s.elapsed() - d);
        }
        if t.coarse {
            eprintln!("skipped: no timerfd on this machine, the link timer is tokio's");
            return;
        }
        ours.sort();
        wheel.sort();
        let (m_ours, m_wheel) = (ours[ours.len() / 2], wheel[wheel.len() / 2]);
        println!("median lateness: link timer {m_ours:?}, tokio's sleep {m_wheel:?}");
        assert!(
            m_ours + Duration::from_micros(500) < m_wheel,
            "median lateness: link timer {m_ours:?}, tokio's sleep {m_wheel:?}"
        );
    }
}
