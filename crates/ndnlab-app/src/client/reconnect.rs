//! Reconnecting to a forwarder that went away (restarted or crashed), as
//! python-ndn and ndn-cxx applications do with NFD: the connection is opened
//! again with a bounded exponential backoff, and every prefix the application
//! had registered is registered again on the new connection.
//!
//! The policy ([`Reconnect`]) is off for [`Client::connect`](super::Client::connect)
//! and on for the command-line tools (`--no-reconnect` turns it off). After a
//! loss the first attempt waits [`Reconnect::first_delay`], each later one twice
//! as long, up to [`Reconnect::max_delay`]; once [`Reconnect::give_up_after`] has
//! passed since the loss without success, the connection is closed for good and
//! everything waiting on it fails (pending Interests time out, senders get
//! [`ClientError::Closed`](super::ClientError::Closed), producers' streams end).
//! Only stream transports (Unix, TCP) notice a loss; a UDP face has no
//! connection to lose.

use std::time::{Duration, Instant};

/// When and how long to try to reconnect after the forwarder went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconnect {
    /// Reconnect at all.
    pub enabled: bool,
    /// The wait before the first attempt.
    pub first_delay: Duration,
    /// The longest wait between two attempts.
    pub max_delay: Duration,
    /// Give up once this long has passed since the connection was lost.
    pub give_up_after: Duration,
    /// Print one line to stderr on loss, reconnection, re-registration and
    /// giving up (the tools do; the library logs through `tracing` in any case).
    pub log: bool,
}

impl Default for Reconnect {
    /// On: 50 ms, doubling up to 1 s, for at most 30 s; no stderr lines.
    fn default() -> Reconnect {
        Reconnect {
            enabled: true,
            first_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(1),
            give_up_after: Duration::from_secs(30),
            log: false,
        }
    }
}

impl Reconnect {
    /// No reconnection: a lost connection is closed at once.
    pub fn disabled() -> Reconnect {
        Reconnect {
            enabled: false,
            ..Reconnect::default()
        }
    }

    /// The backoff schedule of one outage that began at `lost_at`.
    pub fn backoff(&self, lost_at: Instant) -> Backoff {
        Backoff {
            next: self.first_delay,
            max: self.max_delay.max(self.first_delay),
            deadline: lost_at + self.give_up_after,
        }
    }

    /// Logs one event of the reconnection (through `tracing`, and to stderr
    /// if [`log`](Self::log) is set).
    pub(crate) fn note(&self, uri: &str, what: &str) {
        tracing::warn!(uri, "{what}");
        if self.log {
            eprintln!("ndnlab: forwarder {uri}: {what}");
        }
    }
}

/// The waits between reconnection attempts of one outage.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
    max: Duration,
    deadline: Instant,
}

impl Backoff {
    /// How long to wait before the next attempt, or `None` when the next attempt
    /// would begin after the deadline (give up). The last wait is cut to end at
    /// the deadline, so one attempt is always made there.
    pub fn next_delay(&mut self, now: Instant) -> Option<Duration> {
        if now >= self.deadline {
            return None;
        }
        let d = self.next.min(self.deadline - now);
        self.next = (self.next * 2).min(self.max);
        Some(d)
    }
}

/// Tries `attempt` until it succeeds, following `policy`'s backoff from
/// `lost_at`; `Err` with the last failure once the policy gives up.
pub async fn retry<T, E, F, Fut>(
    policy: &Reconnect,
    lost_at: Instant,
    mut attempt: F,
) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut backoff = policy.backoff(lost_at);
    loop {
        let err = match backoff.next_delay(Instant::now()) {
            Some(d) => {
                tokio::time::sleep(d).await;
                match attempt().await {
                    Ok(v) => return Ok(v),
                    Err(e) => e,
                }
            }
            None => return attempt().await,
        };
        if Instant::now() >= lost_at + policy.give_up_after {
            return Err(err);
        }
    }
}

/// [`retry`] on a plain thread; also gives up (with `None`) as soon as
/// `stopped()` is true between attempts.
pub fn retry_blocking<T, E>(
    policy: &Reconnect,
    lost_at: Instant,
    stopped: impl Fn() -> bool,
    mut attempt: impl FnMut() -> Result<T, E>,
) -> Option<Result<T, E>> {
    let mut backoff = policy.backoff(lost_at);
    loop {
        let Some(d) = backoff.next_delay(Instant::now()) else {
            return Some(attempt());
        };
        // sleep in short steps so a stop request is seen promptly
        let until = Instant::now() + d;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            if stopped() {
                return None;
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
        match attempt() {
            Ok(v) => return Some(Ok(v)),
            Err(e) if Instant::now() >= lost_at + policy.give_up_after => return Some(Err(e)),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap_and_ends_at_the_deadline() {
        let p = Reconnect {
            first_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(400),
            give_up_after: Duration::from_secs(2),
            ..Reconnect::default()
        };
        let t0 = Instant::now();
        let mut b = p.backoff(t0);
        let mut now = t0;
        let mut waits = Vec::new();
        while let Some(d) = b.next_delay(now) {
            waits.push(d.as_millis() as u64);
            now += d;
        }
        assert_eq!(waits, [50, 100, 200, 400, 400, 400, 400, 50]);
        assert_eq!(now, t0 + Duration::from_secs(2));
    }

    #[test]
    fn disabled_is_off_and_default_is_on_and_bounded() {
        assert!(!Reconnect::disabled().enabled);
        let d = Reconnect::default();
        assert!(d.enabled);
        assert!(d.give_up_after <= Duration::from_secs(60));
    }

    #[tokio::test]
    async fn retry_succeeds_on_a_later_attempt_and_gives_up_at_the_deadline() {
        let p = Reconnect {
            first_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(4),
            give_up_after: Duration::from_secs(60),
            ..Reconnect::default()
        };
        let mut n = 0;
        let r: Result<u32, &str> = retry(&p, Instant::now(), || {
            n += 1;
            let k = n;
            async move {
                if k < 4 {
                    Err("refused")
                } else {
                    Ok(k)
                }
            }
        })
        .await;
        assert_eq!(r, Ok(4));

        let p = Reconnect {
            give_up_after: Duration::from_millis(40),
            ..p
        };
        let mut tries = 0;
        let r: Result<(), &str> = retry(&p, Instant::now(), || {
            tries += 1;
            async { Err("refused") }
        })
        .await;
        assert_eq!(r, Err("refused"));
        assert!(tries >= 2, "{tries} attempts");
    }

    #[test]
    fn retry_blocking_stops_when_asked() {
        let p = Reconnect::default();
        let r: Option<Result<(), ()>> = retry_blocking(&p, Instant::now(), || true, || Err(()));
        assert!(r.is_none());
    }
}
