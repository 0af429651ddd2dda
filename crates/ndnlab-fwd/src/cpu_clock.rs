//! CPU time by owner: which forwarder or application of a process spent the
//! CPU, when several share one process (the laboratory's `inproc` runner).
//!
//! An [`Account`] owns threads and receives charges:
//!
//! * a thread is **claimed** by an account ([`Account::claim_current`], or
//!   [`claim_once`] from code that runs on threads it did not spawn), and its
//!   CPU clock (`CLOCK_THREAD_CPUTIME_ID`, read through the thread's clock id
//!   from any thread) counts for the account from then on, including after
//!   the thread exits (its last reading is kept when its thread-local claim
//!   drops);
//! * a **charge** ([`charge`]) moves the CPU a closure spends on the calling
//!   thread to another account: an application thread that hands a burst to
//!   its forwarder runs the forwarder's code, and that time is the
//!   forwarder's, not the application's;
//! * threads spawned inside [`spawning_as`] (a future wrapper) or a closure
//!   made by [`inherit`] are claimed by the account that was spawning.
//!
//! [`Account::cpu_time`] is then the owned threads' clocks since their
//! claims, plus the charges received, minus the charges lent to others.
//! Threads nobody claimed are nobody's. Reading clocks costs one system call
//! per thread; a charge costs two reads of the calling thread's clock (two
//! system calls, about 2 µs on a virtual machine), and nothing when no
//! account is given. [`charge_sampled`], what faces use on every burst,
//! measures one call in [`SAMPLE`] at random and counts it [`SAMPLE`] times:
//! an unbiased estimate at a thirty-second of the cost.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

/// One owner's CPU: its threads and its charges.
#[derive(Debug)]
pub struct Account {
    name: String,
    /// Live claimed threads: (clock id, clock reading at the claim, ns).
    threads: Mutex<Vec<(libc::clockid_t, u64)>>,
    /// Nanoseconds of claimed threads that have exited or were claimed again.
    released_ns: AtomicU64,
    /// Nanoseconds charged to this account by other threads.
    received_ns: AtomicU64,
    /// Nanoseconds its threads spent on charges to other accounts.
    lent_ns: AtomicU64,
}

/// The calling thread's claim, released when the thread exits.
struct Claim {
    account: Arc<Account>,
    clock: libc::clockid_t,
    base_ns: u64,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let used = thread_ns().saturating_sub(self.base_ns);
        let mut threads = self
            .account
            .threads
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        threads.retain(|(c, _)| *c != self.clock);
        self.account.released_ns.fetch_add(used, Relaxed);
    }
}

/// One call in `SAMPLE` of [`charge_sampled`] is measured, on average.
pub const SAMPLE: u64 = 32;

thread_local! {
    static CLAIM: RefCell<Option<Claim>> = const { RefCell::new(None) };
    static SPAWNING: RefCell<Option<Arc<Account>>> = const { RefCell::new(None) };
    /// xorshift64 state of the sampling draws (a fixed seed per thread).
    static DRAW: std::cell::Cell<u64> = const { std::cell::Cell::new(0x9E37_79B9_7F4A_7C15) };
}

impl Account {
    /// A new account named `name` (a node, or `app@node`).
    pub fn new(name: &str) -> Arc<Account> {
        Arc::new(Account {
            name: name.to_string(),
            threads: Mutex::new(Vec::new()),
            released_ns: AtomicU64::new(0),
            received_ns: AtomicU64::new(0),
            lent_ns: AtomicU64::new(0),
        })
    }

    /// The account's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Claims the calling thread: its CPU from now on is this account's. A
    /// thread claimed before is released from its previous account first.
    pub fn claim_current(self: &Arc<Self>) {
        let Some(clock) = current_clock() else {
            return;
        };
        // the previous claim (if any) is released first, outside the borrow
        let previous = CLAIM.with(|c| c.borrow_mut().take());
        drop(previous);
        let base_ns = thread_ns();
        self.threads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((clock, base_ns));
        let claim = Claim {
            account: self.clone(),
            clock,
            base_ns,
        };
        CLAIM.with(|c| *c.borrow_mut() = Some(claim));
    }

    /// CPU time of this account so far: its threads' clocks since their
    /// claims, plus charges received, minus charges lent.
    pub fn cpu_time(&self) -> Duration {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        let live: u64 = threads
            .iter()
            .map(|(clock, base)| read_clock(*clock).map_or(0, |t| t.saturating_sub(*base)))
            .sum();
        let total = live + self.released_ns.load(Relaxed) + self.received_ns.load(Relaxed);
        Duration::from_nanos(total.saturating_sub(self.lent_ns.load(Relaxed)))
    }

    /// Threads this account holds now.
    pub fn threads(&self) -> usize {
        self.threads.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Claims the calling thread for `account` unless it already holds it: for
/// code that runs on threads someone else spawned (a signing pool's).
pub fn claim_once(account: &Arc<Account>) {
    let held = CLAIM.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(&c.account, account))
    });
    if !held {
        account.claim_current();
    }
}

/// Runs `f` and charges the CPU it spends on this thread to `to` (lent by
/// the thread's own account, if any). Without an account, just runs `f`.
pub fn charge<R>(to: Option<&Arc<Account>>, f: impl FnOnce() -> R) -> R {
    match to {
        Some(to) => measured(to, 1, f),
        None => f(),
    }
}

/// As [`charge`] for calls too frequent to time each: one in [`SAMPLE`], drawn
/// at random, is timed and counted [`SAMPLE`] times; the others just run.
pub fn charge_sampled<R>(to: Option<&Arc<Account>>, f: impl FnOnce() -> R) -> R {
    let Some(to) = to else {
        return f();
    };
    let draw = DRAW.with(|d| {
        let mut x = d.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d.set(x);
        x
    });
    if draw.is_multiple_of(SAMPLE) {
        measured(to, SAMPLE, f)
    } else {
        f()
    }
}

/// Runs `f`, charging `weight` times the CPU it spends to `to`.
fn measured<R>(to: &Arc<Account>, weight: u64, f: impl FnOnce() -> R) -> R {
    let t0 = thread_ns();
    let r = f();
    let spent = thread_ns().saturating_sub(t0) * weight;
    CLAIM.with(|c| {
        if let Some(c) = c.borrow().as_ref() {
            if Arc::ptr_eq(&c.account, to) {
                return; // its own thread: counted by the clock already
            }
            c.account.lent_ns.fetch_add(spent, Relaxed);
        }
        to.received_ns.fetch_add(spent, Relaxed);
    });
    r
}

/// Wraps a thread body so that the thread is claimed by the account that is
/// spawning on the calling thread (see [`spawning_as`]), if any.
pub fn inherit<R>(f: impl FnOnce() -> R) -> impl FnOnce() -> R {
    let owner = SPAWNING.with(|s| s.borrow().clone());
    move || {
        if let Some(a) = owner {
            a.claim_current();
        }
        f()
    }
}

/// A future during whose polls threads spawned through [`inherit`] are
/// claimed by `account` (a forwarder started inside it owns its threads).
pub fn spawning_as<F: Future>(account: Arc<Account>, fut: F) -> SpawningAs<F> {
    SpawningAs {
        account,
        fut: Box::pin(fut),
    }
}

/// See [`spawning_as`].
pub struct SpawningAs<F> {
    account: Arc<Account>,
    fut: Pin<Box<F>>,
}

impl<F: Future> Future for SpawningAs<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let previous = SPAWNING.with(|s| s.borrow_mut().replace(self.account.clone()));
        let r = self.fut.as_mut().poll(cx);
        SPAWNING.with(|s| *s.borrow_mut() = previous);
        r
    }
}

/// The calling thread's CPU clock id.
fn current_clock() -> Option<libc::clockid_t> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: pthread_self is the calling (live) thread; the call only writes `clock`.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    (rc == 0).then_some(clock)
}

/// A CPU clock's reading in nanoseconds (None once its thread is gone).
fn read_clock(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the timespec we own; a clock id
    // of an exited thread makes it fail with EINVAL, nothing worse.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The calling thread's CPU time in nanoseconds.
fn thread_ns() -> u64 {
    read_clock(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until the calling thread's CPU clock advanced by `ns`.
    fn burn(ns: u64) {
        let t0 = thread_ns();
        while thread_ns() - t0 < ns {
            std::hint::black_box(0u64);
        }
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn claimed_threads_count_after_they_exit() {
        let a = Account::new("r0");
        let b = a.clone();
        std::thread::spawn(move || {
            b.claim_current();
            burn(30 * MS);
        })
        .join()
        .unwrap();
        let t = a.cpu_time().as_nanos() as u64;
        assert_eq!(a.threads(), 0);
        // 30 ms burned, plus the little the thread spent around it
        assert!((30 * MS..40 * MS).contains(&t), "{t}");
    }

    #[test]
    fn charges_move_time_between_accounts() {
        let app = Account::new("c@r0");
        let node = Account::new("r0");
        let (a2, n2) = (app.clone(), node.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let h = std::thread::spawn(move || {
            a2.claim_current();
            burn(20 * MS);
            charge(Some(&n2), || burn(30 * MS));
            tx.send(()).unwrap();
            go_rx.recv().unwrap();
        });
        rx.recv().unwrap();
        // read while the thread is alive (its clock), then after it exits
        let (app_live, node_live) = (app.cpu_time(), node.cpu_time());
        go_tx.send(()).unwrap();
        h.join().unwrap();
        for (a, n) in [(app_live, node_live), (app.cpu_time(), node.cpu_time())] {
            let (a, n) = (a.as_nanos() as u64, n.as_nanos() as u64);
            assert!((20 * MS..28 * MS).contains(&a), "app {a}");
            assert!((30 * MS..33 * MS).contains(&n), "node {n}");
        }
    }

    #[test]
    fn sampled_charges_estimate_the_whole() {
        let app = Account::new("c@r1");
        let node = Account::new("r1");
        let (a2, n2) = (app.clone(), node.clone());
        std::thread::spawn(move || {
            a2.claim_current();
            // 6400 calls of 20 µs each: 128 ms, about 200 of them timed
            for _ in 0..6400 {
                charge_sampled(Some(&n2), || burn(20_000));
            }
        })
        .join()
        .unwrap();
        let (a, n) = (
            app.cpu_time().as_nanos() as f64,
            node.cpu_time().as_nanos() as f64,
        );
        assert!((n / 128e6 - 1.0).abs() < 0.25, "node {n}");
        // what the node got, the app lent: together the thread's whole time
        assert!(a + n > 128e6 && a + n < 128e6 * 1.3, "app {a} node {n}");
    }

    #[test]
    fn spawned_threads_inherit_the_spawning_account() {
        let node = Account::new("r1");
        let n2 = node.clone();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let h = rt.block_on(spawning_as(n2, async {
            std::thread::spawn(inherit(|| burn(10 * MS)))
        }));
        h.join().unwrap();
        // a thread spawned outside is nobody's
        std::thread::spawn(inherit(|| burn(10 * MS)))
            .join()
            .unwrap();
        let t = node.cpu_time().as_nanos() as u64;
        assert!((10 * MS..18 * MS).contains(&t), "{t}");
    }

    #[test]
    fn charge_without_account_or_to_itself_changes_nothing() {
        let a = Account::new("p@r0");
        let b = a.clone();
        std::thread::spawn(move || {
            b.claim_current();
            charge(None, || burn(5 * MS));
            charge(Some(&b), || burn(5 * MS));
            claim_once(&b);
        })
        .join()
        .unwrap();
        let t = a.cpu_time().as_nanos() as u64;
        assert!((10 * MS..16 * MS).contains(&t), "{t}");
    }
}
